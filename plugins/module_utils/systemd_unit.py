# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parse what ``systemctl show`` and ``journalctl -o json`` print about one unit (target side, stdlib only).

Only the current or last invocation of the unit is of interest: its journal is selected by
``_SYSTEMD_INVOCATION_ID`` (lines the service printed) or ``INVOCATION_ID`` (lines systemd logged about it).
"""

from __future__ import annotations

import json
import re
import signal
import time

SHOW_PROPERTIES = (
    "Id",
    "LoadState",
    "ActiveState",
    "SubState",
    "Result",
    "ExecMainCode",
    "ExecMainStatus",
    "ExecMainPID",
    "MainPID",
    "InvocationID",
    "NRestarts",
    "StartLimitBurst",
    "StartLimitIntervalUSec",
    "InactiveExitTimestamp",
    "InactiveExitTimestampMonotonic",
    "ActiveEnterTimestamp",
    "ActiveEnterTimestampMonotonic",
    "ExecMainStartTimestamp",
    "ExecMainStartTimestampMonotonic",
    "ExecMainExitTimestamp",
    "ExecMainExitTimestampMonotonic",
    "StateChangeTimestamp",
    "StateChangeTimestampMonotonic",
)

# waitid(2) si_code values that systemd stores in ExecMainCode.
_EXEC_MAIN_CODES = {"1": "exited", "2": "killed", "3": "dumped"}

OOM_KILLER_RE = re.compile(
    r"Out of memory|oom-kill|oom_reaper|invoked oom-killer|Killed process|Memory cgroup out of memory",
    re.IGNORECASE,
)


def parse_show(text):
    """``{property: value}`` from ``systemctl show`` output (``Key=Value`` lines)."""
    props = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            props[key.strip()] = value.strip()
    return props


def monotonic_to_epoch(value_usec, now_epoch=None, now_monotonic=None):
    """Wall-clock seconds for a systemd ``*TimestampMonotonic`` value (microseconds of CLOCK_MONOTONIC).

    Returns None for 0 or unparsable values (systemd prints 0 for "never").
    """
    try:
        usec = int(value_usec)
    except (TypeError, ValueError):
        return None
    if usec <= 0:
        return None
    now_epoch = time.time() if now_epoch is None else now_epoch
    now_monotonic = time.monotonic() if now_monotonic is None else now_monotonic
    return round(now_epoch - (now_monotonic - usec / 1e6), 3)


def _int_or_none(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def signal_name(number):
    try:
        return signal.Signals(int(number)).name
    except (TypeError, ValueError):
        return None


def summarize_unit(props, now_epoch=None, now_monotonic=None):
    """The facts the diagnoser needs about a unit, from ``parse_show`` output."""

    def epoch(name):
        return monotonic_to_epoch(props.get(name + "Monotonic"), now_epoch, now_monotonic)

    code = _EXEC_MAIN_CODES.get(props.get("ExecMainCode", ""), props.get("ExecMainCode") or None)
    status = _int_or_none(props.get("ExecMainStatus"))
    killed = code in ("killed", "dumped")
    return {
        "name": props.get("Id"),
        "load_state": props.get("LoadState"),
        "active_state": props.get("ActiveState"),
        "sub_state": props.get("SubState"),
        "result": props.get("Result"),
        "invocation_id": props.get("InvocationID") or None,
        "exec_main_code": code,
        "exec_main_status": status,
        "exit_code": None if killed else status,
        "signal": signal_name(status) if killed else None,
        "exec_main_pid": _int_or_none(props.get("ExecMainPID")) or None,
        "main_pid": _int_or_none(props.get("MainPID")) or None,
        "n_restarts": _int_or_none(props.get("NRestarts")),
        "start_limit_hit": props.get("Result") == "start-limit-hit",
        "start_time": epoch("InactiveExitTimestamp"),
        "exec_main_start_time": epoch("ExecMainStartTimestamp"),
        "exec_main_exit_time": epoch("ExecMainExitTimestamp"),
        "active_enter_time": epoch("ActiveEnterTimestamp"),
        "state_change_time": epoch("StateChangeTimestamp"),
        "timestamps": {
            key: props.get(key)
            for key in (
                "InactiveExitTimestamp",
                "ActiveEnterTimestamp",
                "ExecMainStartTimestamp",
                "ExecMainExitTimestamp",
                "StateChangeTimestamp",
            )
        },
    }


def _message_text(value):
    if isinstance(value, list):  # journald stores non-UTF-8 messages as a byte array
        try:
            return bytes(v & 0xFF for v in value if isinstance(v, int)).decode("utf-8", "replace")
        except (TypeError, ValueError):
            return ""
    return "" if value is None else str(value)


def parse_journal_json(text, max_line_length=8192):
    """Entries of ``journalctl -o json`` output as ``(epoch, pid, identifier, message)`` tuples."""
    entries = []
    for raw in (text or "").splitlines():
        raw = raw.strip()
        if not raw:
            continue
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        message = _message_text(record.get("MESSAGE"))[:max_line_length]
        stamp = _int_or_none(record.get("__REALTIME_TIMESTAMP"))
        entries.append(
            (
                None if stamp is None else stamp / 1e6,
                _int_or_none(record.get("_PID")),
                record.get("SYSLOG_IDENTIFIER") or record.get("_COMM") or "",
                message,
            )
        )
    return entries


UNTAGGED_TOLERANCE_S = 0.5


def untagged_entries(text, since_epoch):
    """The ``journalctl -o json`` lines, as text, that carry no invocation id and are not older than since_epoch.

    journald takes a line's ``_SYSTEMD_INVOCATION_ID`` from the writer's cgroup, which it reads from /proc: the
    output of a process that exits at once (a launch that fails in its first milliseconds) is often stored
    without it, under the unit's name only. Such lines belong to the launch that started at or after
    since_epoch, since the unit runs one launch at a time.
    """
    # The start time comes from a monotonic stamp converted to wall-clock time: allow for the conversion's error.
    since = None if since_epoch is None else since_epoch - UNTAGGED_TOLERANCE_S
    kept = []
    for raw in (text or "").splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(record, dict) or record.get("_SYSTEMD_INVOCATION_ID") or record.get("INVOCATION_ID"):
            continue
        stamp = _int_or_none(record.get("__REALTIME_TIMESTAMP"))
        if stamp is not None and since is not None and stamp / 1e6 >= since:
            kept.append(raw)
    return "\n".join(kept)


def last_invocation_id(text):
    """The invocation id of the newest entry in ``journalctl -u UNIT -o json`` output that carries one."""
    found = None
    for raw in (text or "").splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if isinstance(record, dict):
            value = record.get("_SYSTEMD_INVOCATION_ID") or record.get("INVOCATION_ID")
            if isinstance(value, str) and re.match(r"^[0-9a-f]{32}$", value):
                found = value
    return found


def format_journal_line(entry):
    """One readable line, like ``journalctl -o short-iso``: ``<iso> <ident>[<pid>]: <message>``."""
    stamp, pid, ident, message = entry
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp)) if stamp else "-"
    who = "%s[%s]" % (ident, pid) if pid else ident
    return "%s %s: %s" % (when, who, message)


def oom_lines_for(lines, pids, unit_name=None):
    """Kernel OOM-killer lines that name one of ``pids`` or the unit's cgroup."""
    wanted = [str(p) for p in pids if p]
    found = []
    for line in lines:
        if not OOM_KILLER_RE.search(line):
            continue
        if any(re.search(r"(?:process|pid[=: ]|\[)\s*%s\b" % pid, line) for pid in wanted):
            found.append(line)
        elif unit_name and ("/%s" % unit_name) in line:
            found.append(line)
    return found
