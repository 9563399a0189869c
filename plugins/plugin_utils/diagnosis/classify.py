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
    CRASH_RE,
    DIVISIBILITY_ASSERT_RE,
    ERRORISH_RE,
    EXCEPTION_RE,
    HIGH_SCORE,
    MIN_SCORE,
    PROGRESS,
    WRAPPER_RE,
)
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.literal_index import LiteralIndex

MAX_LINE = 4096
MAX_LINES = 5000

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_QUOTE_RE = re.compile(r"^(?:\s*>\s?)+")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_HTTP_UP_RE = re.compile(r"Uvicorn running on https?://")
_NONE_INDEX = next(index for index, cause in enumerate(CATALOG) if cause.id == "none")
_HYBRID_CLASS_RE = re.compile(r"Qwen3_?5|Qwen3Next|NemotronH|FalconH1|Jamba|GraniteMoeHybrid|Lfm2|KimiLinear|MiniMaxText01|Mamba|Zamba|Plamo2")


def _unit(value, unit):
    value = float(value)
    scale = {"B": 1, "KiB": 1024, "KB": 1e3, "MiB": 1 << 20, "MB": 1e6, "GiB": 1 << 30, "GB": 1e9, "TiB": 1 << 40}
    return int(value * scale.get(unit, 1))


# name -> (regex, converter of the match). The last occurrence in the tail wins.
NUMBER_PATTERNS = (
    ("mem_fraction_static", re.compile(r"mem[_-]fraction[_-]static=([01]?\.\d+|[01])\b"), lambda m: float(m.group(1))),
    ("min_viable_mem_fraction_static", re.compile(r"minimum viable = 1 - available/pre = (-?[\d.]+)"), lambda m: float(m.group(1))),
    ("suggested_mem_fraction_static", re.compile(r"Raise --mem-fraction-static above (-?[\d.]+)"), lambda m: float(m.group(1))),
    ("max_total_num_tokens", re.compile(r"(?:max_total_num_tokens=|#tokens: )(-?\d+)"), lambda m: int(m.group(1))),
    ("max_running_requests", re.compile(r"max_running_requests[=:] ?(\d+)"), lambda m: int(m.group(1))),
    ("context_len", re.compile(r"context_len=(\d+)"), lambda m: int(m.group(1))),
    ("available_gpu_mem_gb", re.compile(r"avail(?:able_gpu)?[ _]mem=(-?[\d.]+) ?GB"), lambda m: float(m.group(1))),
    ("weights_mem_gb", re.compile(r"Load weight end\..*?mem usage=([\d.]+) GB"), lambda m: float(m.group(1))),
    ("model_class", re.compile(r"Load weight end\..*?type=(\w+)"), lambda m: m.group(1)),
    ("capture_bs", re.compile(r"Capturing batches \(bs=(\d+)"), lambda m: int(m.group(1))),
    ("failed_alloc_bytes", re.compile(r"Tried to allocate ([\d.]+) ?(B|KiB|MiB|GiB|TiB|KB|MB|GB)\b"), lambda m: _unit(m.group(1), m.group(2))),
    ("failed_alloc", re.compile(r"Tried to allocate ([\d.]+ ?(?:B|KiB|MiB|GiB|TiB|KB|MB|GB))\b"), lambda m: m.group(1)),
    # torch >= 2.1 "GPU 0 has a total capacity of X of which Y is free"; older "(GPU 0; X total capacity; ...; Y free"
    ("gpu_total", re.compile(r"total capacity of ([\d.]+ ?[GM]iB)|([\d.]+ ?[GM]iB) total capacity"), lambda m: next(g for g in m.groups() if g)),
    ("gpu_free", re.compile(r"of which ([\d.]+ ?[GMK]iB) is free|; ([\d.]+ ?[GMK]iB|\d+ bytes) free"), lambda m: next(g for g in m.groups() if g)),
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
    # uvicorn "bind on address ('0.0.0.0', 30000)" / "('::', 30000, 0, 0)"; torch.distributed "bind to [::]:29500";
    # SGLang 0.5.9 utils/common.py:720-732, 0.5.23 utils/network.py:82-103
    (
        "port",
        re.compile(
            r"bind on address \('[^']*', (\d+)|failed to bind to \[?[^\]\s]*\]?:(\d+)|port (\d+) is in use|"
            r"at (\d+) is not available|The port (\d+) is in use"
        ),
        lambda m: int(next(g for g in m.groups() if g)),
    ),
    ("exit_code", re.compile(r"exit ?code[:=]? ?(-?\d+)|status=(\d+)/", re.IGNORECASE), lambda m: int(next(g for g in m.groups() if g))),
    ("missing_module", re.compile(r"No module named '([^']+)'"), lambda m: m.group(1)),
    ("missing_library", re.compile(r"\bld(?:\.\w+)?: cannot find (-l[\w.+-]+)"), lambda m: m.group(1)),
    ("failed_assert", re.compile(DIVISIBILITY_ASSERT_RE), lambda m: m.group(1)),
    ("unrecognized", re.compile(r"unrecognized arguments: (.{1,200})"), lambda m: m.group(1).strip()),
    ("bad_argument", re.compile(r"argument (--[\w-]+)(?:/[-\w]+)*: (?:invalid|expected)"), lambda m: m.group(1)),
    ("bad_argument_reason", re.compile(r"argument --[\w-]+(?:/[-\w]+)*: ((?:invalid|expected).{0,200})"), lambda m: m.group(1).strip()),
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
        line = line[: MAX_LINE * 2]
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
    """Every regex compiled once, with a literal index that says which can match a given line."""

    def __init__(self):
        self.patterns = []  # (cause index, compiled, weight, label, wrapper, warning)
        self.requires = {}  # cause index -> compiled gate
        items = []
        for c_index, cause in enumerate(CATALOG):
            for pattern in cause.patterns:
                items.append((("p", len(self.patterns)), pattern.regex, pattern.flags))
                self.patterns.append((c_index, pattern.compiled(), pattern.weight, pattern.label, pattern.wrapper, pattern.warning))
            if cause.requires:
                self.requires[c_index] = re.compile(cause.requires, re.IGNORECASE)
                items.append((("r", c_index), cause.requires, re.IGNORECASE))
        for n_index, (_name, regex, _convert) in enumerate(NUMBER_PATTERNS):
            items.append((("n", n_index), regex.pattern, regex.flags))
        for g_index, (_stage, regex) in enumerate(PROGRESS):
            items.append((("g", g_index), regex.pattern, regex.flags))
        items.append((("u", 0), _HTTP_UP_RE.pattern, 0))
        items.append((("c", 0), CRASH_RE.pattern, CRASH_RE.flags))
        items.append((("x", 0), EXCEPTION_RE.pattern, EXCEPTION_RE.flags))
        self.index = LiteralIndex(items)


_COMPILED = _Compiled()


def _scan(lines):
    """One pass over the lines: pattern hits per cause, numbers, start-up progress, the ready line and the last
    sign of life / of a crash."""
    hits = {}  # cause index -> {label: (weight, first line index, wrapper)}
    warnings = []  # (cause index, label) of hits on warning lines
    gates = set()
    numbers = {}
    order = [name for name, _regex in PROGRESS]
    reached = -1
    ready = -1
    alive = -1
    crash = -1
    exception = -1
    per_line = _COMPILED.index.keys_per_line([line.lower() for line in lines])
    for index, line in enumerate(lines):
        keys = per_line[index]
        if not keys:
            continue
        for kind, k in sorted(keys):
            if kind == "p":
                c_index, regex, weight, label, wrapper, warning = _COMPILED.patterns[k]
                best = hits.setdefault(c_index, {})
                if c_index == _NONE_INDEX:
                    if not regex.search(line):
                        continue
                    alive = index
                    if label not in best:
                        best[label] = (weight, index, wrapper)
                elif (label not in best or weight > best[label][0]) and regex.search(line):
                    best[label] = (weight, index, wrapper)
                    if warning:
                        warnings.append((c_index, label))
            elif kind == "r":
                if k not in gates and _COMPILED.requires[k].search(line):
                    gates.add(k)
            elif kind == "n":
                name, regex, convert = NUMBER_PATTERNS[k]
                match = regex.search(line)
                if match:
                    try:
                        numbers[name] = convert(match)
                    except (ValueError, StopIteration, TypeError):
                        pass
            elif kind == "g":
                if PROGRESS[k][1].search(line):
                    reached = max(reached, k)
                    if order[k] == "serving":
                        ready = index
            elif kind == "u" and _HTTP_UP_RE.search(line):
                ready = index
            elif kind == "c" and CRASH_RE.search(line):
                crash = index
            elif kind == "x" and EXCEPTION_RE.search(line):
                exception = index
    for c_index, label in warnings:  # a warning SGLang carried on past is no failure unless an exception followed
        if label in hits[c_index] and hits[c_index][label][1] >= exception:
            del hits[c_index][label]
    return hits, gates, numbers, (order[reached] if reached >= 0 else "start"), ready, alive < crash


def _score(c_index, cause, hits, gates, reached):
    """(score, evidence line indexes, matched only by wrapper messages)."""
    if cause.requires and c_index not in gates:
        return 0, [], False
    ranked = sorted(hits.get(c_index, {}).items(), key=lambda kv: (-kv[1][0], kv[1][1]))
    if not ranked:
        return 0, [], False
    score = sum(weight for _label, (weight, _line, _wrapper) in ranked[:2])
    if cause.phase_bonus and reached == cause.extra.get("bonus_phase"):
        score += cause.phase_bonus
    wrapper_only = all(wrapper for _label, (_weight, _line, wrapper) in ranked)
    return min(score, 100), sorted({line for _label, (_weight, line, _wrapper) in ranked}), wrapper_only


def _fill(templates, numbers, extra=None):
    values = dict(numbers)
    values.update(extra or {})
    for template in templates:
        fields = [name for _text, name, _spec, _conv in string.Formatter().parse(template) if name]
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


def _unwrap(failures):
    """A cause seen only through a wrapper message ("Capture cuda graph failed: {e}") yields to a specific cause
    whose evidence starts no later than the wrapper line: that is the wrapped exception (on the same line, or
    printed before it as the chained traceback). Lines after the wrapper are the cascade (SIGKILL, peers' NCCL
    errors) and do not displace it."""
    if not failures or not failures[0][3]:
        return failures
    wrapper_line = max(failures[0][2])
    for index, failure in enumerate(failures[1:], 1):
        if not failure[3] and failure[2][0] <= wrapper_line:
            after = index + 1
            return [failure] + failures[:index] + failures[after:]
    return failures


def classify(lines):
    """Classify log lines. Returns a dict: root_cause, phase, confidence, score, evidence, numbers, ranking."""
    lines = [normalize(line) for line in split_lines(lines)]
    hits, gates, numbers, reached, ready, crashed_last = _scan(lines)
    ranking = []
    for c_index, cause in enumerate(CATALOG):
        score, evidence, wrapper_only = _score(c_index, cause, hits, gates, reached)
        if score <= 0:
            continue
        if cause.id != "none" and ready >= 0 and max(evidence) < ready:
            # The server came up after this: it was a warning, not the failure.
            continue
        ranking.append((cause.id, score, evidence, wrapper_only))
    # Strongest first; on a tie the cause whose evidence comes first (the root, not the cascade) wins.
    ranking.sort(key=lambda r: (-r[1], r[2][0]))
    failures = _unwrap([r for r in ranking if r[0] != "none" and r[1] >= MIN_SCORE])
    healthy = next((r for r in ranking if r[0] == "none"), None)
    if failures:
        cause_id, score, evidence, _wrapper_only = failures[0]
    elif healthy is not None and not crashed_last:
        cause_id, score, evidence, _wrapper_only = healthy
    else:
        # Nothing catalogued matched, or the last sign of life is followed by a crash: quote the likely lines.
        cause_id, score, evidence = "other", 0, _relevant_lines(lines)
    confidence = "high" if score >= HIGH_SCORE else "medium" if score >= MIN_SCORE else "low"
    return {
        "root_cause": cause_id,
        "phase": CAUSES[cause_id].phase,
        "confidence": confidence,
        "score": score,
        "evidence": [lines[i] for i in evidence][:8],
        "numbers": numbers,
        "progress": reached,
        "hybrid_model": bool(numbers.get("model_class") and _HYBRID_CLASS_RE.search(str(numbers["model_class"]))),
        "ranking": [{"id": r[0], "score": r[1]} for r in ranking[:5]],
        "line_count": len(lines),
    }
