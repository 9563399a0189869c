# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Classify log lines against the catalog: normalise, score each root cause, extract SGLang's numbers.

Pure and total: any list of strings (or bytes, or None) gives a valid result, never an exception.
"""

from __future__ import annotations

import re
import string

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import (
    CATALOG,
    CAUSES,
    ERRORISH_RE,
    HIGH_SCORE,
    MIN_SCORE,
    PROGRESS,
    WRAPPER_RE,
)

MAX_LINE = 4096
MAX_LINES = 5000

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_QUOTE_RE = re.compile(r"^(?:\s*>\s?)+")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_HTTP_UP_RE = re.compile(r"Uvicorn running on https?://")
_HYBRID_CLASS_RE = re.compile(
    r"Qwen3_?5|Qwen3Next|NemotronH|FalconH1|Jamba|GraniteMoeHybrid|Lfm2|KimiLinear|MiniMaxText01|Mamba|Zamba|Plamo2"
)


def _unit(value, unit):
    value = float(value)
    scale = {"B": 1, "KiB": 1024, "KB": 1e3, "MiB": 1 << 20, "MB": 1e6, "GiB": 1 << 30, "GB": 1e9, "TiB": 1 << 40}
    return int(value * scale.get(unit, 1))


# name -> (regex, converter of the match). The last occurrence in the tail wins.
NUMBER_PATTERNS = (
    ("mem_fraction_static", re.compile(r"mem[_-]fraction[_-]static=([01]?\.\d+|[01])\b"), lambda m: float(m.group(1))),
    ("min_viable_mem_fraction_static", re.compile(r"minimum viable = 1 - available/pre = (-?[\d.]+)"),
     lambda m: float(m.group(1))),
    ("suggested_mem_fraction_static", re.compile(r"Raise --mem-fraction-static above (-?[\d.]+)"),
     lambda m: float(m.group(1))),
    ("max_total_num_tokens", re.compile(r"(?:max_total_num_tokens=|#tokens: )(-?\d+)"), lambda m: int(m.group(1))),
    ("max_running_requests", re.compile(r"max_running_requests[=:] ?(\d+)"), lambda m: int(m.group(1))),
    ("context_len", re.compile(r"context_len=(\d+)"), lambda m: int(m.group(1))),
    ("available_gpu_mem_gb", re.compile(r"avail(?:able_gpu)?[ _]mem=(-?[\d.]+) ?GB"), lambda m: float(m.group(1))),
    ("weights_mem_gb", re.compile(r"Load weight end\..*?mem usage=([\d.]+) GB"), lambda m: float(m.group(1))),
    ("model_class", re.compile(r"Load weight end\..*?type=(\w+)"), lambda m: m.group(1)),
    ("capture_bs", re.compile(r"Capturing batches \(bs=(\d+)"), lambda m: int(m.group(1))),
    ("failed_alloc_bytes", re.compile(r"Tried to allocate ([\d.]+) ?(B|KiB|MiB|GiB|TiB|KB|MB|GB)\b"),
     lambda m: _unit(m.group(1), m.group(2))),
    ("failed_alloc", re.compile(r"Tried to allocate ([\d.]+ ?(?:B|KiB|MiB|GiB|TiB|KB|MB|GB))\b"), lambda m: m.group(1)),
    ("gpu_total", re.compile(r"total capacity of ([\d.]+ ?[GM]iB)"), lambda m: m.group(1)),
    ("gpu_free", re.compile(r"of which ([\d.]+ ?[GMK]iB) is free"), lambda m: m.group(1)),
    ("gpu_index", re.compile(r"GPU (\d+) has a total capacity"), lambda m: int(m.group(1))),
    ("other_process_gib", re.compile(r"\bProcess \d+ has ([\d.]+) GiB memory in use"), lambda m: float(m.group(1))),
    ("max_mamba_cache_size", re.compile(r"max_mamba_cache_size[=:] ?(-?\d+)"), lambda m: int(m.group(1))),
    ("mamba_cache_per_req_mb", re.compile(r"mamba_cache_per_req=([\d.]+) MB"), lambda m: float(m.group(1))),
    ("total_rest_memory_gb", re.compile(r"total_rest_memory=(-?[\d.]+) GB"), lambda m: float(m.group(1))),
    ("tokens_to_allocate", re.compile(r"Try to allocate (\d+) tokens"), lambda m: int(m.group(1))),
    ("context_length", re.compile(r"context_length \((\d+)\) is greater than the derived"), lambda m: int(m.group(1))),
    ("derived_context_length", re.compile(r"derived context_length \((\d+)\)"), lambda m: int(m.group(1))),
    ("imbalance_min_gb", re.compile(r"min_per_gpu_memory=([\d.]+)"), lambda m: round(float(m.group(1)), 2)),
    ("imbalance_local_gb", re.compile(r"local_gpu_memory=([\d.]+)"), lambda m: round(float(m.group(1)), 2)),
    ("port", re.compile(r"bind on address \(?'?[^,)]*'?, (\d+)\)|port (\d+) is in use|at (\d+) is not available|"
                        r"The port (\d+) is in use"),
     lambda m: int(next(g for g in m.groups() if g))),
    ("exit_code", re.compile(r"exit ?code[:=]? ?(-?\d+)|status=(\d+)/"), lambda m: int(next(g for g in m.groups() if g))),
    ("missing_module", re.compile(r"No module named '([^']+)'"), lambda m: m.group(1)),
    ("unrecognized", re.compile(r"unrecognized arguments: (.{1,200})"), lambda m: m.group(1).strip()),
    ("bad_argument", re.compile(r"argument (--[\w-]+)(?:/[-\w]+)*: (?:invalid|expected)"), lambda m: m.group(1)),
    ("bad_argument_reason", re.compile(r"argument --[\w-]+(?:/[-\w]+)*: ((?:invalid|expected).{0,200})"),
     lambda m: m.group(1).strip()),
    ("architectures", re.compile(r"Model architectures (\[[^\]]*\])"), lambda m: m.group(1)),
)


def normalize(line):
    """One display line: text, no ANSI colours, no ``> `` quoting, no CR / control characters, bounded length."""
    if line is None:
        return ""
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    elif not isinstance(line, str):
        line = str(line)
    if len(line) > MAX_LINE * 2:
        line = line[:MAX_LINE * 2]
    line = _ANSI_RE.sub("", line)
    line = _QUOTE_RE.sub("", line)
    line = _CONTROL_RE.sub("", line.replace("\t", "    "))
    return line.rstrip()[:MAX_LINE]


def split_lines(lines):
    """Accept a list of lines or one blob of text; split embedded newlines (CRLF too), bound the count."""
    if lines is None:
        return []
    if not isinstance(lines, (list, tuple)):
        lines = [lines]
    out = []
    for item in lines:
        if isinstance(item, bytes):
            item = item.decode("utf-8", "replace")
        elif not isinstance(item, str):
            item = "" if item is None else str(item)
        out.extend(item.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    if out and out[-1] == "":
        out.pop()
    return out[-MAX_LINES:]


class _Compiled:
    def __init__(self):
        self.causes = []
        alternatives = []
        for cause in CATALOG:
            pats = [(p.compiled(), p.weight, p.label) for p in cause.patterns]
            requires = re.compile(cause.requires, re.IGNORECASE) if cause.requires else None
            self.causes.append((cause, pats, requires))
            alternatives.extend("(?:%s)" % p.regex for p in cause.patterns if not p.flags)
        self.prefilter = re.compile("|".join(alternatives))
        self.prefilter_ci = re.compile(
            "|".join("(?:%s)" % p.regex for c in CATALOG for p in c.patterns if p.flags), re.IGNORECASE
        )
        self.number_hint = re.compile(
            r"mem[_-]fraction|minimum viable|Raise --mem|max_total_num_tokens|#tokens|max_running_requests|context_len|"
            r"avail|Load weight end|Capturing batches|Tried to allocate|total capacity|of which|Process \d+ has|"
            r"mamba|total_rest_memory|Try to allocate|context_length|per_gpu_memory|local_gpu_memory|port|"
            r"bind on|exit ?code|status=|No module named|unrecognized arguments|argument --|Model architectures"
        )


_COMPILED = _Compiled()


def extract_numbers(lines):
    """The numbers SGLang (and torch) printed, by name; the last occurrence wins."""
    numbers = {}
    for line in lines:
        if not _COMPILED.number_hint.search(line):
            continue
        for name, regex, convert in NUMBER_PATTERNS:
            match = regex.search(line)
            if match:
                try:
                    numbers[name] = convert(match)
                except (ValueError, StopIteration, TypeError):
                    continue
    return numbers


def progress_of(lines):
    """(last start-up phase reached, index of the last 'fired up' line or -1)."""
    reached = "start"
    ready = -1
    order = [name for name, _ in PROGRESS]
    for index, line in enumerate(lines):
        for name, regex in PROGRESS:
            if regex.search(line):
                if order.index(name) >= (order.index(reached) if reached in order else -1):
                    reached = name
                if name == "serving" or _HTTP_UP_RE.search(line):
                    ready = index
    return reached, ready


def _score(cause, pats, requires, lines, candidates, reached):
    if requires is not None and not any(requires.search(lines[i]) for i in candidates):
        return 0, []
    best = {}
    for i in candidates:
        line = lines[i]
        for regex, weight, label in pats:
            if (label not in best or weight > best[label][0]) and regex.search(line):
                best[label] = (weight, i)
    hits = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[1][1]))
    score = sum(w for _, (w, _) in hits[:2])
    if cause.phase_bonus and reached == cause.extra.get("bonus_phase") and hits:
        score += cause.phase_bonus
    evidence = sorted({i for _, (_, i) in hits})
    return min(score, 100), evidence


def _fill(templates, numbers, extra=None):
    values = dict(numbers)
    values.update(extra or {})
    for template in templates:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f]
        if all(values.get(f) not in (None, "") for f in fields):
            return template.format(**values)
    return templates[-1]


def fix_for(cause_id, numbers, extra=None):
    """The cause's first fix template whose numbers are all known."""
    return _fill(CAUSES[cause_id].fix, numbers, extra)


def _relevant_lines(lines, limit=5):
    picked = [i for i, line in enumerate(lines) if ERRORISH_RE.search(line) and not WRAPPER_RE.search(line)]
    if not picked:
        picked = [i for i, line in enumerate(lines) if line.strip()]
    return picked[-limit:]


def classify(lines):
    """Classify log lines. Returns a dict: root_cause, phase, confidence, score, evidence, numbers, ranking."""
    lines = [normalize(line) for line in split_lines(lines)]
    numbers = extract_numbers(lines)
    reached, ready = progress_of(lines)
    candidates = [
        i for i, line in enumerate(lines)
        if line and (_COMPILED.prefilter.search(line) or _COMPILED.prefilter_ci.search(line))
    ]
    ranking = []
    for cause, pats, requires in _COMPILED.causes:
        if not pats:
            continue
        score, evidence = _score(cause, pats, requires, lines, candidates, reached)
        if score <= 0:
            continue
        if cause.id != "none" and ready >= 0 and evidence and max(evidence) < ready:
            # The server came up after this: it was a warning, not the failure.
            continue
        ranking.append((cause.id, score, evidence))
    # Strongest first; on a tie the cause whose evidence comes first (the root, not the cascade) wins.
    ranking.sort(key=lambda r: (-r[1], r[2][0] if r[2] else 0))
    failures = [r for r in ranking if r[0] != "none" and r[1] >= MIN_SCORE]
    healthy = next((r for r in ranking if r[0] == "none"), None)
    if failures:
        cause_id, score, evidence = failures[0]
    elif healthy is not None:
        cause_id, score, evidence = healthy
    else:
        cause_id, score, evidence = "other", 0, _relevant_lines(lines)
    confidence = "high" if score >= HIGH_SCORE else "medium" if score >= MIN_SCORE else "low"
    return {
        "root_cause": cause_id,
        "phase": CAUSES[cause_id].phase,
        "confidence": confidence,
        "score": score,
        "evidence": [lines[i] for i in evidence][:8],
        "evidence_line_numbers": [i + 1 for i in evidence][:8],
        "numbers": numbers,
        "progress": reached,
        "hybrid_model": bool(numbers.get("model_class") and _HYBRID_CLASS_RE.search(str(numbers["model_class"]))),
        "ranking": [{"id": r[0], "score": r[1]} for r in ranking[:5]],
        "line_count": len(lines),
    }
