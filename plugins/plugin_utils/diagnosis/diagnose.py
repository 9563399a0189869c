# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Turn what sglang_log_tail read on the target into one diagnosis of the current launch.

Freshness first: only lines of the current launch are classified (after its marker, from its systemd
invocation). A launch that wrote nothing is ``silent_death`` (evidence from the journal and exit status), a
log older than the unit's last start is ``stale_log``. A log with no line and no marker, read without a unit,
is ``no_evidence``: nothing shows that a launch happened, so no death is claimed. With an earlier ``sglang_memory_budget`` result the
budget's root cause and computed fix replace the log's (SGLang 0.5.9's message names the wrong knob for
hybrid models).
"""

from __future__ import annotations

import math
import re

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import CATALOG_VERSION, CAUSES, HYBRID_KV_POOL_FIX, MEMORY_CAUSES
from ansible_collections.llmops.sglang.plugins.plugin_utils.preflight import describe_fix
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.classify import (
    classify,
    fix_for,
    normalize,
    split_lines,
)

_SYSTEMD_LINE_RE = re.compile(r"^\S+ systemd\[1\]: ")
RUNNING_STATES = ("active", "activating", "reloading")
# A log written up to this many seconds before the recorded start still counts as written by it
# (the marker is written in ExecStartPre, timestamps have coarse resolution on some filesystems).
MTIME_SLACK_S = 2.0

# Exit statuses that explain a silent start by themselves: systemd.exec(5) "Process Exit Codes", and 127
# (the command was not found: shells and the sglang_service helper's exec).
KNOWN_EXIT_CODES = {
    127: "127: the command (the SGLang interpreter) could not be executed",
    200: "200/CHDIR: WorkingDirectory= does not exist",
    203: "203/EXEC: the ExecStart= executable was not found or is not executable",
    209: "209/STDOUT: StandardOutput= target could not be opened (log directory missing?)",
    217: "217/USER: User= does not exist",
    226: "226/NAMESPACE: sandboxing (ReadWritePaths=, ProtectSystem=) failed",
}


def _as_dict(value):
    return value if isinstance(value, dict) else {}


def _as_list(value):
    if isinstance(value, list):
        return value
    return split_lines(value)


def _num(value):
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return None if math.isnan(number) else number


def _int(value):
    if isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def _clean_unit(unit):
    """The unit facts with the types the rules expect (a malformed field becomes None / empty)."""
    unit = _as_dict(unit)
    if not unit:
        return {}
    clean = {}
    for key in ("name", "active_state", "sub_state", "result", "invocation_id", "exec_main_code", "signal"):
        value = unit.get(key)
        clean[key] = value if isinstance(value, str) and value else None
    for key in ("exit_code", "n_restarts"):
        clean[key] = _int(unit.get(key))
    clean["start_time"] = _num(unit.get("start_time"))
    clean["start_limit_hit"] = unit.get("start_limit_hit") is True
    clean["journal"] = [str(x) for x in _as_list(unit.get("journal"))]
    clean["kernel_oom"] = [str(x) for x in _as_list(unit.get("kernel_oom"))]
    return clean


def _budget_cause(budget):
    """The budget's root cause when it is a catalog id (the engine's memory causes are), else None."""
    cause = str(budget.get("root_cause") or "")
    return cause if cause in CAUSES else None


def _budget_fix_text(budget, fix):
    """The budget's top fix as flags with its outcome, like the preflight's message."""
    try:
        text = describe_fix(fix)
    except (AttributeError, KeyError, TypeError, ValueError):
        text = str(fix.get("summary") or "")
    totals = _as_dict(_as_dict(budget.get("budget")).get("totals"))
    minimum, current = _num(totals.get("min_viable_mem_fraction_static")), _num(totals.get("mem_fraction_static"))
    changes = fix.get("changes") if isinstance(fix.get("changes"), dict) else {}
    if minimum and current and minimum > current and "mem_fraction_static" not in changes:
        text += "; raising --mem-fraction-static alone would need >= %s and starve the runtime" % minimum
    return text


def apply_budget(result, budget):
    """Replace root cause, fix and numbers with the budget's when the log failed in the memory phase."""
    budget = _as_dict(budget)
    if not budget:
        return result
    totals = _as_dict(_as_dict(budget.get("budget")).get("totals"))
    for key in ("max_total_num_tokens", "max_running_requests", "mamba_slots", "context_len", "mem_fraction_static", "min_viable_mem_fraction_static"):
        if totals.get(key) is not None:
            result["numbers"].setdefault("budget_" + key, totals[key])
    if result["root_cause"] not in MEMORY_CAUSES and result.get("underlying_cause") not in MEMORY_CAUSES:
        return result
    if budget.get("verdict") != "fails":
        result["notes"].append("the memory budget predicted this configuration fits; the log's cause stands")
        return result
    cause = _budget_cause(budget)
    if cause and cause != result["root_cause"]:
        result["notes"].append("the log says %s, the memory budget says %s: the budget replays SGLang's sizing and is used" % (result["root_cause"], cause))
        result["log_root_cause"] = result["root_cause"]
        result["root_cause"] = cause
        result["phase"] = result["cause_phase"] = CAUSES[cause].phase
    fixes = budget.get("fixes")
    fixes = [f for f in fixes if isinstance(f, dict)] if isinstance(fixes, list) else []
    if fixes and (fixes[0].get("summary") or fixes[0].get("changes")):
        result["fix"] = _budget_fix_text(budget, fixes[0])
        result["fix_changes"] = _as_dict(fixes[0].get("changes"))
    elif budget.get("message"):
        result["fix"] = str(budget["message"])
    result["confidence"] = "high"
    result["budget_used"] = True
    return result


def _freshness(log, unit, since_marker):
    """(status, reasons, current log lines) where status is fresh | stale | unverified | absent."""
    reasons = []
    if not log or not log.get("exists"):
        return "absent", ["the log does not exist"] if log else [], []
    lines = _as_list(log.get("lines"))
    marker = _as_dict(log.get("marker"))
    invocation = unit.get("invocation_id")
    start = _num(unit.get("start_time"))
    mtime = _num(log.get("mtime"))
    if since_marker and marker and invocation and marker.get("invocation") and marker["invocation"] != invocation:
        reasons.append("the log's last launch marker is from invocation %s, the unit's current one is %s" % (marker["invocation"], invocation))
        return "stale", reasons, []
    if start is not None and mtime is not None and mtime + MTIME_SLACK_S < start:
        reasons.append("the log was last written %.0f s before the unit's last start" % (start - mtime))
        return "stale", reasons, []
    if since_marker and not marker:
        if start is not None and mtime is not None:
            reasons.append("no launch marker found; the log was written after the unit's last start")
        else:
            reasons.append("no launch marker found and no unit to compare with: lines may be from an earlier run")
            return "unverified", reasons, lines
    return "fresh", reasons, lines


def _unit_lines(unit):
    """Evidence lines about the unit's end: journal, kernel OOM lines and a synthesized exit line."""
    lines = _as_list(unit.get("journal")) + _as_list(unit.get("kernel_oom"))
    if unit.get("result") or unit.get("exec_main_code"):
        detail = "signal=%s" % unit["signal"] if unit.get("signal") else "exit code=%s" % unit.get("exit_code")
        lines.append(
            "unit %s: Result=%s, ExecMainCode=%s, %s, NRestarts=%s"
            % (unit.get("name"), unit.get("result"), unit.get("exec_main_code"), detail, unit.get("n_restarts"))
        )
    return lines


def _service_output(unit):
    """Journal lines the service itself printed (not systemd's own lines about the unit)."""
    return [line for line in unit.get("journal") or [] if not _SYSTEMD_LINE_RE.match(line)]


def _silent_underlying(unit, journal_diag):
    if journal_diag["root_cause"] not in ("other", "none"):
        return journal_diag["root_cause"], None
    if unit.get("result") == "oom-kill" or (unit.get("signal") == "SIGKILL" and unit.get("kernel_oom")):
        return "host_ram_oom_killed", None
    code = unit.get("exit_code")
    if code in KNOWN_EXIT_CODES:
        return None, "exit status %s" % KNOWN_EXIT_CODES[code]
    if unit.get("start_limit_hit"):
        return None, "the unit hit its start limit (StartLimitBurst): systemd refused to start it again"
    if unit.get("signal"):
        return None, "the main process was killed by %s" % unit["signal"]
    return None, None


def _summary(result):
    numbers = result["numbers"]
    keys = (
        "mem_fraction_static",
        "min_viable_mem_fraction_static",
        "max_total_num_tokens",
        "available_gpu_mem_gb",
        "capture_bs",
        "failed_alloc",
        "max_mamba_cache_size",
        "exit_code",
        "port",
    )
    shown = ", ".join("%s=%s" % (k, numbers[k]) for k in keys if numbers.get(k) is not None)
    head = result["root_cause"]
    if result.get("underlying_cause"):
        head += " (%s)" % result["underlying_cause"]
    title = CAUSES[result["root_cause"]].title
    if result["root_cause"] == "none" and result["timeline"]:
        title += " (%s)" % result["timeline"]["summary"]
    if result.get("failed_rank"):
        title += " (first failed on %s)" % result["failed_rank"]
    numbers_text = " [%s]" % shown if shown else ""
    text = "%s: %s%s; fix: %s" % (head, title, numbers_text, result["fix"])
    return " ".join(text.split())[:600]


def _silent_death(log, unit, status, unit_lines, notes):
    """The diagnosis of a launch that wrote nothing: evidence from the journal, kernel and exit status."""
    journal_diag = classify(unit_lines)
    underlying, detail = _silent_underlying(unit, journal_diag) if unit else (None, None)
    diag = dict(journal_diag, root_cause="silent_death", phase="unknown")
    diag["confidence"] = "high" if (unit and (underlying or detail)) else "medium" if unit else "low"
    evidence = list(journal_diag["evidence"]) if underlying else [normalize(x) for x in unit_lines[-6:]]
    if log and _as_dict(log.get("marker")).get("line"):
        evidence.insert(0, normalize(log["marker"]["line"]))
    if detail:
        evidence.append(detail)
    diag["evidence"] = evidence[:8]
    if status == "stale":
        notes.append("the log holds only an earlier run's lines; they were ignored")
    if not unit:
        notes.append("no unit given: the exit status and journal of the launch are unknown")
    return diag, underlying, detail


def _classify_launch(log, unit, status, reasons, log_lines, notes):
    """(diagnosis, underlying cause, detail) from this launch's lines, or from its absence."""
    unit_lines = _unit_lines(unit) if unit else []
    service_output = _service_output(unit)
    # "activating (auto-restart)" is a dead process waiting RestartSec, not a running server
    running = unit.get("active_state") in RUNNING_STATES and unit.get("sub_state") != "auto-restart"
    if log is None and service_output:
        # No log file: the service writes to the journal, so this invocation's journal is the launch's output.
        log_lines = service_output
    if log_lines:
        diag = classify(log_lines + unit_lines)
        if diag["root_cause"] == "none" and unit and not running and unit.get("result") not in (None, "success"):
            diag = dict(diag, root_cause="other", phase="unknown", confidence="low", evidence=[normalize(x) for x in unit_lines[-5:]])
        return diag, None, None, log_lines, running
    if running and status == "stale":
        diag = dict(classify(unit_lines), root_cause="stale_log", phase="unknown", confidence="high")
        diag["evidence"] = reasons + diag["evidence"][:4]
        return diag, None, None, log_lines, running
    if running and service_output:
        notes.append("the log has nothing of this launch; its journal output was classified")
        return classify(unit_lines), None, None, log_lines, running
    if running:
        notes.append("the unit is running and this launch has written nothing yet")
        return dict(classify([]), root_cause="none", phase="serving", confidence="low"), None, None, log_lines, running
    if not unit and not _as_dict((log or {}).get("marker")):
        # No line, no marker, no unit: nothing says a launch even started, so nothing says it died.
        diag = dict(classify([]), root_cause="no_evidence", phase="unknown", confidence="low")
        diag["evidence"] = ["log %s: %s bytes, no line and no launch marker; no unit given" % ((log or {}).get("path"), (log or {}).get("size", 0))]
        return diag, None, None, log_lines, running
    diag, underlying, detail = _silent_death(log, unit, status, unit_lines, notes)
    return diag, underlying, detail, log_lines, running


def _fix(cause, underlying, detail, diag, numbers, log, notes):
    extra = {"log_path": (log or {}).get("path") or "the log"}
    if cause == "silent_death" and underlying:
        return fix_for(underlying, numbers, extra)
    if cause == "silent_death" and detail:
        return "%s; fix that, then start the unit again" % detail
    if cause == "kv_pool_too_small" and diag.get("hybrid_model") and not {"min_viable_mem_fraction_static", "kv_pool_allocation"} & set(numbers):
        diag["confidence"] = "medium"
        notes.append("hybrid model: SGLang 0.5.9 reports a mamba-pool shortfall as 'increase --mem-fraction-static'")
        return HYBRID_KV_POOL_FIX.format(**dict(numbers, mem_fraction_static=numbers.get("mem_fraction_static", "")))
    return fix_for(cause, numbers, extra)


def diagnose(tail, since_marker=True, budget=None):
    """The diagnosis dict for one ``sglang_log_tail`` result (keys ``log``, ``unit``, ``now``)."""
    tail = _as_dict(tail)
    log = _as_dict(tail.get("log")) or None
    unit = _clean_unit(tail.get("unit"))
    status, reasons, log_lines = _freshness(log, unit, since_marker)
    notes = list(reasons)
    if log and (log.get("rotated") is True or log.get("truncated_while_reading") is True):
        notes.append("the log was replaced or truncated while it was read (rotation): run the diagnosis again")
    if log and log.get("launch_output_truncated") is True:
        notes.append("this launch wrote more than the bytes read; only its end was classified")
    diag, underlying, detail, log_lines, running = _classify_launch(log, unit, status, reasons, log_lines, notes)

    cause = diag["root_cause"]
    numbers = dict(diag["numbers"])
    for key in ("exit_code", "signal", "n_restarts"):
        if unit.get(key) is not None:
            numbers["unit_" + key] = unit[key]
    fix = _fix(cause, underlying, detail, diag, numbers, log, notes)
    if running and CAUSES[cause].runtime:
        notes.append("the unit is still running: this is pressure while serving, not a crash")
    if status == "unverified" and diag["confidence"] == "high":
        diag["confidence"] = "medium"

    notes.extend(diag.get("notes", []))
    result = {
        "root_cause": cause,
        "underlying_cause": underlying,
        "phase": diag.get("phase") or CAUSES[cause].phase,
        "cause_phase": CAUSES[cause].phase,
        "confidence": diag["confidence"],
        "evidence": [normalize(x) for x in diag["evidence"]],
        "explanation": CAUSES[cause].explanation,
        "fix": fix,
        "verify": CAUSES[underlying or cause].verify,
        "numbers": numbers,
        "freshness": {
            "status": status,
            "marker": _as_dict((log or {}).get("marker")) or None,
            "invocation_id": unit.get("invocation_id"),
            "log_mtime": (log or {}).get("mtime"),
            "unit_start_time": unit.get("start_time"),
            "log_lines": len(log_lines),
            "journal_lines": len(_as_list(unit.get("journal"))),
        },
        "progress": diag.get("progress", "start"),
        "reached": diag.get("reached", "starting"),
        "timeline": diag.get("timeline", {}),
        "failed_rank": diag.get("failed_rank"),
        "ranks_seen": diag.get("ranks_seen", []),
        "ranking": diag.get("ranking", []),
        "notes": notes,
        "budget_used": False,
        "catalog_version": CATALOG_VERSION,
    }
    result = apply_budget(result, budget)
    result["retunable"] = CAUSES[result["root_cause"]].retunable
    result["summary"] = _summary(result)
    return result
