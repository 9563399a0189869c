#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: sglang_log_tail
short_description: Read this launch's SGLang log tail and the unit's journal, exit status and OOM-killer lines
version_added: "0.1.0"
description:
  - Reads the last O(lines) lines of a log by seeking from the end, so the cost does not depend on the size
    of the file (multi-GB logs are fine). Reports size, mtime and inode, and whether the path was replaced
    (rotated) or truncated while it was read.
  - With O(since_marker=true) only lines after the last launch marker are returned. The marker is the line
    C(=== llmops.sglang launch <UTC ISO time> invocation=<systemd invocation id> ===) that the
    P(llmops.sglang.sglang_service#role) unit writes in C(ExecStartPre) at every start.
  - For a systemd O(unit) it also returns the journal of the current or last invocation only
    (C(_SYSTEMD_INVOCATION_ID), plus the unit's lines journald stored without an invocation id since that
    invocation started, as it does for a process that exits at once), the unit's result, exit status or signal, start times, restart count,
    whether the start limit was hit, and kernel OOM-killer lines that name the invocation's PIDs,
    where the kernel log is readable.
  - The log is opened without following symlinks and must be a regular file; a directory component that is
    a symlink not owned by root is refused too, so the service account that owns the log directory cannot
    point this root-run read at another file. Each refusal names the path.
  - Read-only. This is the target-side half of M(llmops.sglang.sglang_diagnose).
author: llmops.sglang maintainers (@llmops-sglang)
options:
  path:
    description: Log file to read. At least one of O(path) and O(unit) is required.
    type: path
  unit:
    description: systemd unit whose current or last invocation is examined, for example C(sglang.service).
    type: str
  lines:
    description: How many lines to return at most (from the end), for the log and for the journal each.
    type: int
    default: 200
  bytes:
    description: How many bytes to read at most from the end of the log.
    type: int
    default: 262144
  marker_scan_bytes:
    description:
      - How far back from the end to look for the launch marker when it is not within O(bytes).
      - Bounds the cost on huge logs without a marker.
    type: int
    default: 16777216
  max_line_length:
    description: Longer lines are cut to this many characters (a note says how many were cut).
    type: int
    default: 8192
  expect_inode:
    description: Inode the caller saw earlier; RV(log.rotated) is true when the path now has another one.
    type: int
notes:
  - Kernel log lines are read with C(journalctl -k), then C(dmesg); in unprivileged containers neither may
    be readable, which RV(unit.kernel_error) then says.
extends_documentation_fragment:
  - llmops.sglang.attributes
  - llmops.sglang.launch.log
  - llmops.sglang.attributes.read_only
seealso:
  - module: llmops.sglang.sglang_diagnose
"""

EXAMPLES = r"""
- name: Read this launch's SGLang log and the unit's last invocation
  llmops.sglang.sglang_log_tail:
    path: /var/log/sglang/sglang.log
    unit: sglang.service
    lines: 300
  register: sglang_tail

- name: Read the last 50 lines of any log, ignoring launch markers
  llmops.sglang.sglang_log_tail:
    path: /root/sglang-serve.log
    lines: 50
    since_marker: false
"""

RETURN = r"""
log:
  description: The log tail; null when O(path) was not given.
  returned: always
  type: dict
  contains:
    exists: {description: Whether the file exists., type: bool, returned: always}
    size: {description: Size in bytes., type: int, returned: always}
    mtime: {description: Modification time (epoch seconds)., type: float, returned: always}
    inode: {description: Inode number., type: int, returned: always}
    lines: {description: Lines after the launch marker (or the last O(lines) lines)., type: list, elements: str, returned: always}
    marker:
      description: The last launch marker (C(time), C(invocation), C(line), C(offset)), or null when none was found.
      type: dict
      returned: always
    marker_search_complete:
      description: False when the marker search stopped at O(marker_scan_bytes) before the start of the file.
      type: bool
      returned: always
    launch_output_truncated: {description: The launch wrote more than O(bytes); only its end is returned., type: bool, returned: always}
    rotated: {description: The path was replaced while reading or has another inode than O(expect_inode)., type: bool, returned: always}
    truncated_while_reading: {description: The file shrank while it was read., type: bool, returned: always}
  sample:
    exists: true
    size: 18211
    mtime: 1795900832.1
    inode: 1311
    lines: ["[2026-11-29 21:20:40] server_args=ServerArgs(...)"]
    marker: {time: "2026-11-29T21:20:32Z", invocation: 5f0c0f6c2b9e4a6f9d5f8e0a1b2c3d4e, line: "=== llmops.sglang launch ...", offset: 12000}
unit:
  description: The unit's last invocation; null when O(unit) was not given.
  returned: always
  type: dict
  contains:
    active_state: {description: ActiveState., type: str, returned: always}
    result: {description: "Result (success, exit-code, signal, oom-kill, start-limit-hit, ...).", type: str, returned: always}
    invocation_id: {description: InvocationID of the current or last run., type: str, returned: always}
    invocation_from_journal:
      description: The unit had been garbage-collected (no InvocationID); the last invocation was taken from the journal.
      type: bool
      returned: when the unit had no InvocationID
    exit_code: {description: Exit status when the main process exited., type: int, returned: always}
    signal: {description: Signal name when the main process was killed., type: str, returned: always}
    start_time: {description: When the last start began (epoch seconds)., type: float, returned: always}
    n_restarts: {description: NRestarts., type: int, returned: always}
    start_limit_hit: {description: Whether the last start was refused by the start limit., type: bool, returned: always}
    journal: {description: Journal lines of this invocation only., type: list, elements: str, returned: always}
    journal_error: {description: Why the journal could not be read (null when it was)., type: str, returned: always}
    kernel_oom:
      description: Kernel OOM-killer lines that name this invocation's PIDs or cgroup.
      type: list
      elements: str
      returned: always
    kernel_error: {description: Why the kernel log could not be read (null when it was)., type: str, returned: always}
now:
  description: The target's clock (epoch seconds) when it was read.
  returned: always
  type: float
"""

import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.llmops.sglang.plugins.module_utils.log_tail import UnsafeLogPathError, read_tail
from ansible_collections.llmops.sglang.plugins.module_utils.systemd_unit import (
    SHOW_PROPERTIES,
    format_journal_line,
    last_invocation_id,
    oom_lines_for,
    parse_journal_json,
    parse_show,
    summarize_unit,
    untagged_entries,
)


def _journal(module, unit, invocation_id, since_epoch, lines, max_line_length):
    journalctl = module.get_bin_path("journalctl")
    if not journalctl:
        return [], [], "journalctl not found"
    # A service that just exited may have output journald has not stored yet; --sync makes journald store
    # everything written before it (best effort: it needs the privileges the role runs with).
    module.run_command([journalctl, "--sync"])
    rc, out, err = module.run_command(
        [
            journalctl,
            "--no-pager",
            "-o",
            "json",
            "-n",
            str(lines),
            "_SYSTEMD_INVOCATION_ID=%s" % invocation_id,
            "+",
            "INVOCATION_ID=%s" % invocation_id,
        ]
    )
    if rc != 0:
        return [], [], (err or out).strip()[:500] or "journalctl exited %d" % rc
    entries = parse_journal_json(out, max_line_length)
    if since_epoch is not None:
        # The unit's own lines that journald stored without an invocation id (a process that exited at once).
        rc, untagged, _err = module.run_command(
            [
                journalctl,
                "--no-pager",
                "-o",
                "json",
                "-n",
                str(lines),
                "--since",
                "@%d" % int(since_epoch - 1),
                "_SYSTEMD_UNIT=%s" % unit,
            ]
        )
        if rc == 0:
            entries = sorted(entries + parse_journal_json(untagged_entries(untagged, since_epoch), max_line_length), key=lambda entry: entry[0] or 0)[-lines:]
    pids = sorted({pid for _stamp, pid, _ident, _message in entries if pid and pid != 1})
    return [format_journal_line(e) for e in entries], pids, None


def _last_invocation_from_journal(module, unit):
    journalctl = module.get_bin_path("journalctl")
    if not journalctl:
        return None
    rc, out, _err = module.run_command([journalctl, "--no-pager", "-o", "json", "-n", "50", "-u", unit])
    if rc != 0:
        return None
    return last_invocation_id(out)


def _kernel_lines(module, since_epoch):
    journalctl = module.get_bin_path("journalctl")
    errors = []
    if journalctl:
        cmd = [journalctl, "--no-pager", "-k", "-o", "cat", "-n", "2000"]
        if since_epoch:
            cmd += ["--since", "@%d" % int(since_epoch)]
        rc, out, err = module.run_command(cmd)
        if rc == 0 and out.strip() and "No entries" not in out[:100]:
            return out.splitlines(), None
        errors.append("journalctl -k: %s" % ((err or out).strip()[:200] or "no entries"))
    dmesg = module.get_bin_path("dmesg")
    if dmesg:
        rc, out, err = module.run_command([dmesg])
        if rc == 0:
            return out.splitlines()[-5000:], None
        errors.append("dmesg: %s" % (err.strip()[:200] or "exit %d" % rc))
    return [], "; ".join(errors) or "no kernel log reader found"


def examine_unit(module, unit, lines, max_line_length):
    systemctl = module.get_bin_path("systemctl")
    if not systemctl:
        return {"name": unit, "error": "systemctl not found on the target"}
    rc, out, err = module.run_command([systemctl, "show", unit, "--no-pager", "-p", ",".join(SHOW_PROPERTIES)])
    if rc != 0:
        return {"name": unit, "error": "systemctl show %s failed: %s" % (unit, (err or out).strip()[:500])}
    info = summarize_unit(parse_show(out))
    info["name"] = info["name"] or unit
    info.update(journal=[], journal_error=None, kernel_oom=[], kernel_error=None, pids=[])
    if info["load_state"] == "not-found":
        info["error"] = "unit %s is not loaded (LoadState=not-found)" % unit
        return info
    if not info["invocation_id"]:
        # systemd drops an inactive unit's runtime state (InvocationID included) when it garbage-collects it,
        # e.g. after a clean exit; the journal still knows the last invocation.
        info["invocation_id"] = _last_invocation_from_journal(module, info["name"])
        info["invocation_from_journal"] = bool(info["invocation_id"])
    if not info["invocation_id"]:
        info["journal_error"] = "the unit has no InvocationID and no journal entries (it never ran, or the journal was rotated)"
        return info
    info["journal"], pids, info["journal_error"] = _journal(
        module, info["name"], info["invocation_id"], None if info.get("invocation_from_journal") else info["start_time"], lines, max_line_length
    )
    pids = sorted(set(pids) | {p for p in (info["exec_main_pid"], info["main_pid"]) if p})
    info["pids"] = pids
    kernel, info["kernel_error"] = _kernel_lines(module, info["start_time"])
    info["kernel_oom"] = oom_lines_for(kernel, pids, info["name"])[-20:]
    return info


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path"),
            unit=dict(type="str"),
            lines=dict(type="int", default=200),
            bytes=dict(type="int", default=262144),
            since_marker=dict(type="bool", default=True),
            marker_scan_bytes=dict(type="int", default=16777216),
            max_line_length=dict(type="int", default=8192),
            expect_inode=dict(type="int"),
        ),
        required_one_of=[("path", "unit")],
        supports_check_mode=True,
    )
    params = module.params
    for name in ("lines", "bytes", "marker_scan_bytes", "max_line_length"):
        if params[name] < 0 or (name != "lines" and params[name] == 0):
            module.fail_json(msg="%s=%d is not valid: use a positive number" % (name, params[name]))
    now = time.time()
    log = None
    if params["path"]:
        try:
            log = read_tail(
                params["path"],
                lines=params["lines"],
                max_bytes=params["bytes"],
                since_marker=params["since_marker"],
                marker_scan_bytes=params["marker_scan_bytes"],
                max_line_length=params["max_line_length"],
                expect_inode=params["expect_inode"],
            )
        except UnsafeLogPathError as exc:
            module.fail_json(msg=str(exc))
        except PermissionError as exc:
            module.fail_json(msg="cannot read log %s: %s; run the task with become: true or as the service's user" % (params["path"], exc))
        except OSError as exc:
            module.fail_json(msg="cannot read log %s: %s; give the path of the server's log file" % (params["path"], exc))
    unit = examine_unit(module, params["unit"], params["lines"], params["max_line_length"]) if params["unit"] else None
    module.exit_json(changed=False, log=log, unit=unit, now=now)


if __name__ == "__main__":
    main()
