# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Controller-side glue of the preflight: inline models, GPU lists and the fail decision.

The sizing and the reading of model directories are in ``plugin_utils.budget``; this module turns what a
play hands over (an inline model, a registered ``nvidia_gpu_info`` result, a declared GPU list) into the
engine's inputs, and the engine's verdict into a task result.
"""

from __future__ import annotations

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import MODEL_FILES
from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_catalog import as_option

FAIL_ON_VERDICTS = {
    "error": ("fails",),
    "warning": ("fails", "degraded"),
    "never": (),
}


class PreflightInputError(ValueError):
    """An input of the preflight is missing or malformed; the message names it and the fix."""


def model_from_inline(value: dict) -> dict:
    """Accept either a config.json dict or a dict with a ``config`` key (plus the optional side files)."""
    if "config" in value and isinstance(value["config"], dict):
        unknown = sorted(set(value) - set(MODEL_FILES) - {"path"})
        if unknown:
            raise PreflightInputError(
                f"model: unknown keys {unknown}; an inline model is a config.json dict, or a dict with {sorted(set(MODEL_FILES) | {'path'})}"
            )
        return dict(value)
    return {"config": dict(value)}


def normalize_gpus(gpus, indices=None) -> list:
    """Return the GPU list from a declared list or a registered ``nvidia_gpu_info`` result.

    ``indices`` selects GPUs by their ``index`` (or ``uuid``), in the given order, as CUDA_VISIBLE_DEVICES would.
    """
    if isinstance(gpus, dict):
        if "gpus" not in gpus:
            raise PreflightInputError(
                "gpus: a dict must be a registered llmops.sglang.nvidia_gpu_info result (with a `gpus` key); "
                "otherwise give a list of GPUs with at least name and memory_total_mib"
            )
        if gpus.get("available") is False:
            raise PreflightInputError(f"gpus: nvidia_gpu_info found no GPU ({gpus.get('msg', 'no reason given')}); declare the GPUs instead")
        gpus = gpus["gpus"]
    if not isinstance(gpus, list) or not gpus:
        raise PreflightInputError("gpus: expected a non-empty list of GPUs (name and memory_total_mib at least)")
    for position, gpu in enumerate(gpus):
        if not isinstance(gpu, dict):
            raise PreflightInputError(f"gpus[{position}]: expected a dict with name and memory_total_mib, got {gpu!r}")
    if not indices:
        return [dict(gpu, index=gpu.get("index", position)) for position, gpu in enumerate(gpus)]
    by_key = {}
    for position, gpu in enumerate(gpus):
        by_key[str(gpu.get("index", position))] = gpu
        if gpu.get("uuid"):
            by_key[str(gpu["uuid"])] = gpu
    missing = [str(i) for i in indices if str(i) not in by_key]
    if missing:
        raise PreflightInputError(f"gpu_indices: {', '.join(missing)} not among the GPUs found ({', '.join(sorted(by_key))}); select existing indices or UUIDs")
    return [dict(by_key[str(i)]) for i in indices]


def should_fail(verdict: str, fail_on: str) -> bool:
    """Whether a verdict fails the task under ``fail_on`` (error, warning or never)."""
    return verdict in FAIL_ON_VERDICTS[fail_on]


def flag_changes(changes: dict) -> str:
    """Render a fix's dest-keyed changes as command-line flags (``None`` removes a flag)."""
    parts = []
    for dest, value in changes.items():
        flag = as_option(dest)
        if value is None or value is False:
            parts.append(f"drop {flag}")
        elif value is True:
            parts.append(flag)
        else:
            parts.append(f"{flag} {value}")
    return " ".join(parts)


def describe_fix(fix: dict) -> str:
    """One fix as a flag change with its re-computed outcome."""
    outcome = [fix.get("verdict", "?")]
    if fix.get("max_total_num_tokens") is not None:
        outcome.append(f"{fix['max_total_num_tokens']:,} KV tokens")
    if fix.get("max_running_requests") is not None:
        outcome.append(f"{fix['max_running_requests']} running requests")
    text = f"{flag_changes(fix.get('changes', {}))} -> {', '.join(outcome)}"
    return f"{text} ({fix['summary']})" if fix.get("summary") else text


def failure_message(result: dict) -> str:
    """One line: the engine's message plus the best fix, for the task's ``msg``."""
    message = result.get("message") or f"SGLang is predicted to {result.get('verdict')} at startup"
    if result.get("root_cause") and result["root_cause"] != "none":
        message = f"{result['root_cause']}: {message}"
    fixes = result.get("fixes") or []
    totals = (result.get("budget") or {}).get("totals") or {}
    minimum, current = totals.get("min_viable_mem_fraction_static"), totals.get("mem_fraction_static")
    if fixes and "mem_fraction_static" not in fixes[0].get("changes", {}) and minimum and current and minimum > current:
        message = f"{message}. Raising --mem-fraction-static alone would need >= {minimum} and starve the runtime"
    elif not fixes and minimum and current and minimum > current:
        message = f"{message}. Minimum viable --mem-fraction-static: {minimum}"
    if fixes:
        message = f"{message}. Fix: {describe_fix(fixes[0])}"
        if len(fixes) > 1:
            message += f"; {len(fixes) - 1} more in `fixes`"
    return message


def task_result(budget: dict, fail_on: str) -> dict:
    """Shape the engine's result for Ansible.

    Ansible displays ``warnings`` (strings) itself, so the service-degrading warnings go there as text, the
    structured list stays under ``sglang_warnings`` and the engine's stated assumptions under ``assumptions``.
    """
    result = dict(budget)
    structured = budget.get("warnings") or []
    result["sglang_warnings"] = structured
    result["assumptions"] = [w["message"] for w in structured if w.get("id") == "assumption"]
    result["warnings"] = [w["message"] for w in structured if w.get("id") != "assumption"]
    result["fixes_cli"] = [describe_fix(fix) for fix in budget.get("fixes") or []]
    result["changed"] = False
    if should_fail(budget["verdict"], fail_on):
        result["failed"] = True
        result["msg"] = failure_message(budget)
    else:
        result["msg"] = budget.get("message", "")
    return result
