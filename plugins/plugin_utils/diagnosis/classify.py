# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Classify log lines against the catalog: normalise, score each root cause, extract SGLang's numbers.

Pure and total: any list of strings (or bytes, or None) gives a valid result, never an exception.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import (
    CATALOG,
    CAUSES,
    CRASH_RE,
    DIVISIBILITY_ASSERT_RE,
    ERRORISH_RE,
    EXCEPTION_RE,
    HIGH_SCORE,
    MIN_SCORE,
    OOM_RE,
    WRAPPER_RE,
)
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.literal_index import LiteralIndex
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.templates import template_patterns
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.timeline import COMPILED as MILESTONE_REGEXES
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.timeline import ORDER, line_ranks
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.timeline import build as build_timeline

MAX_LINE = 4096
MAX_LINES = 5000

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_QUOTE_RE = re.compile(r"^(?:\s*>\s?)+")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_INDEX = {cause.id: index for index, cause in enumerate(CATALOG)}
_NONE_INDEX = _INDEX["none"]
# The timeline phase a CUDA OOM was raised in -> the OOM cause whose fix is the one for that phase: before SGLang
# has allocated anything but the CUDA context and the NCCL buffers (arguments read, torch distributed initialising)
# the GPU is already full: another process holds it; from the model config on it is the weights; once they are
# loaded (pool allocation, attention workspace, graph capture) it is the memory left outside --mem-fraction-static;
# after start-up (warm-up, serving) it is activations.
PRE_ALLOCATION_OOM = "gpu_busy_other_process"
# mem_cache/memory_pool.py *TokenToKVPool._create_buffers (0.4-0.5.23) allocates the pool SGLang sized: a CUDA OOM
# raised under that frame is the pool not fitting in what was free, whatever phase the log shows.
KV_POOL_ALLOCATION_RE = re.compile(r"memory_pool\.py\", line \d+, in (_create_buffers)\b")
KV_POOL_ALLOCATION_OOM = "kv_pool_too_small"
FRAMES_ABOVE_OOM = 12  # traceback lines above an OOM line that are its own frames
RIVAL_MARGIN = 5  # a runner-up cause this close to the winner's score leaves the answer at medium confidence
# A model path or repo id refused while the tokenizer loads (utils/hf_transformers_utils.py get_tokenizer ->
# AutoTokenizer.from_pretrained, traceback frames above the error) is --tokenizer-path's, not --model-path's
TOKENIZER_FRAMES_RE = re.compile(r"in get_tokenizer\b|AutoTokenizer\.from_pretrained|tokenization_auto\.py")
FRAMES_ABOVE_ERROR = 40
_FRAME_RE = re.compile(r'^\s*File "[^"]+", line \d+, in ')  # a traceback frame line
_LOG_RECORD_RE = re.compile(r"^\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d")  # "[2025-10-06 12:00:01 TP0] ...": a new log record
# Numbers whose first value is the one that counts (a draft model's later "Load weight begin" finds the target loaded)
FIRST_VALUE_NUMBERS = frozenset({"weight_begin_avail_gb"})
# A start that found this much of the GPU taken before loading anything shares it with another process (SGLang's own
# CUDA context and communication buffers take a few GiB at most): then an OOM is that process's doing.
HELD_BY_OTHERS_MIN_GIB = 8.0
HELD_BY_OTHERS_MIN_SHARE = 0.15
OOM_BY_PHASE = {
    "args": PRE_ALLOCATION_OOM,
    "multi_gpu": PRE_ALLOCATION_OOM,
    "model_load": "cuda_oom_weights",
    "weight_load": "cuda_oom_weights",
    "memory_pool": "cuda_oom_cuda_graph",
    "cuda_graph": "cuda_oom_cuda_graph",
    "warmup": "cuda_oom_runtime",
    "serving": "cuda_oom_runtime",
}
_OOM_CAUSES = frozenset(OOM_BY_PHASE.values()) | {PRE_ALLOCATION_OOM, KV_POOL_ALLOCATION_OOM}
# A rank that waits on its peers; the failure is theirs. "TP rank N could finish the model loading, but there are
# other ranks that didn't finish loading": 0.4.6.post5 model_executor/model_runner.py:591, 0.5.2:799, 0.5.9:1081,
# 0.5.23 model_executor/model_runner_components/load_model_utils.py:394; torch ProcessGroupGloo.cpp
# monitoredBarrier: "[Rank 0]: Rank(s) 1, 2 failed to pass monitoredBarrier in T ms" on rank 0, "Please check rank
# 0 logs for faulty rank" on the others; ProcessGroupNCCL's watchdog when a collective times out.
PEER_WAIT_RE = re.compile(
    r"could finish the model loading, but there are other ranks that didn't finish loading|"
    r"Ranks? (\d+(?:, \d+)*) failed to pass monitoredBarrier|Please check rank 0 logs for faulty rank|"
    r"Watchdog caught collective operation timeout"
)
# The last line of a Python traceback ("KeyError: 'ministral3'", "torch.OutOfMemoryError: ..."), also when an excerpt
# quotes only that line: a crash line like CRASH_RE's.
EXCEPTION_LINE_RE = re.compile(r"^\s*(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*)?(?:Error|Exception)(?::|\s*$)")
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
    # the KV pool's buffers failed to allocate (an OOM whose frames end in mem_cache/memory_pool.py _create_buffers)
    ("kv_pool_allocation", KV_POOL_ALLOCATION_RE, lambda m: "memory_pool.py " + m.group(1)),
    ("quant_dtype_method", re.compile(r"is not supported for quantization method (\w+)\. Supported dtypes: "), lambda m: m.group(1)),
    ("quant_supported_dtypes", re.compile(r"is not supported for quantization method \w+\. Supported dtypes: \[([^\]]{1,120})\]"), lambda m: m.group(1)),
    # the target's first "Load weight begin. avail mem=X GB" (model_runner.py load_model): what this start found free
    ("weight_begin_avail_gb", re.compile(r"Load weight begin\. avail mem=([\d.]+) GB"), lambda m: float(m.group(1))),
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
    # which node of a multi-node launch wrote the log: server_args' node_rank (ServerArgs repr or 0.5.23's dict)
    ("node_rank", re.compile(r"\bnode_rank'?[=:] ?(\d+)"), lambda m: int(m.group(1))),
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
            # the hand-written patterns, then those generated from every release's own messages (templates.py)
            for pattern in cause.patterns + template_patterns(cause.id):
                items.append((("p", len(self.patterns)), pattern.regex, pattern.flags))
                self.patterns.append((c_index, pattern.compiled(), pattern.weight, pattern.label, pattern.wrapper, pattern.warning))
            if cause.requires:
                self.requires[c_index] = re.compile(cause.requires, re.IGNORECASE)
                items.append((("r", c_index), cause.requires, re.IGNORECASE))
        for n_index, (_name, regex, _convert) in enumerate(NUMBER_PATTERNS):
            items.append((("n", n_index), regex.pattern, regex.flags))
        for g_index, (_name, regex) in enumerate(MILESTONE_REGEXES):
            items.append((("g", g_index), regex.pattern, regex.flags))
        items.append((("c", 0), CRASH_RE.pattern, CRASH_RE.flags))
        items.append((("c", 1), EXCEPTION_LINE_RE.pattern, EXCEPTION_LINE_RE.flags))
        items.append((("x", 0), EXCEPTION_RE.pattern, EXCEPTION_RE.flags))
        items.append((("o", 0), OOM_RE.pattern, OOM_RE.flags))
        items.append((("w", 0), PEER_WAIT_RE.pattern, PEER_WAIT_RE.flags))
        self.index = LiteralIndex(items)


_COMPILED = _Compiled()


@dataclass
class _Scan:
    """What one pass over the lines found. Hit tables map cause index -> {label: (weight, first line, wrapper)};
    per-rank tables are filled only when the log has several ranks."""

    hits: dict = field(default_factory=dict)
    rank_hits: dict = field(default_factory=dict)  # rank -> hit table
    gates: set = field(default_factory=set)
    numbers: dict = field(default_factory=dict)
    milestones: list = field(default_factory=list)  # (line, milestone name)
    up: int = -1  # the last ready / HTTP-server-up line
    crashed: bool = False  # a rank's last crash line comes after its last sign of life
    first_crash: dict = field(default_factory=dict)  # rank -> first crash line
    first_oom: dict = field(default_factory=dict)  # rank -> first CUDA OOM line
    peer_wait: dict = field(default_factory=dict)  # rank -> (line, peer ranks it names)


def _record(table, c_index, label, weight, index, wrapper):
    best = table.setdefault(c_index, {})
    known = best.get(label)
    if known is None or weight > known[0]:
        best[label] = (weight, index, wrapper)


def _scan(lines, ranks, per_rank):
    """One pass over the lines: pattern hits per cause (and per rank), numbers, the start-up milestones, the ready
    line, crash lines and signs of life per rank."""
    found = _Scan()
    warnings = []  # (rank or None, cause index, label) of hits on warning lines
    life = -1  # the last line that shows the server serving (ready line, batch lines, answered requests)
    rank_life = {}  # rank -> its last milestone or sign of life
    rank_crash = {}  # rank -> its last crash line
    exception = -1
    per_line = _COMPILED.index.keys_per_line([line.lower() for line in lines])
    for index, line in enumerate(lines):
        keys = per_line[index]
        if not keys:
            continue
        rank = ranks[index]
        table = found.rank_hits.setdefault(rank, {}) if per_rank else None
        for kind, k in sorted(keys):
            if kind == "p":
                c_index, regex, weight, label, wrapper, warning = _COMPILED.patterns[k]
                if c_index == _NONE_INDEX:
                    if regex.search(line):
                        life = rank_life[rank] = index
                        found.hits.setdefault(c_index, {}).setdefault(label, (weight, index, wrapper))
                    continue
                known = found.hits.get(c_index, {}).get(label)
                known_here = table.get(c_index, {}).get(label) if per_rank else known
                if (known is None or weight > known[0] or known_here is None or weight > known_here[0]) and regex.search(line):
                    _record(found.hits, c_index, label, weight, index, wrapper)
                    if per_rank:
                        _record(table, c_index, label, weight, index, wrapper)
                    if warning:
                        warnings.append((rank if per_rank else None, c_index, label))
            elif kind == "r":
                if k not in found.gates and _COMPILED.requires[k].search(line):
                    found.gates.add(k)
            elif kind == "n":
                name, regex, convert = NUMBER_PATTERNS[k]
                match = regex.search(line)
                if match and not (name in FIRST_VALUE_NUMBERS and name in found.numbers):
                    try:
                        found.numbers[name] = convert(match)
                    except (ValueError, StopIteration, TypeError):
                        pass
            elif kind == "g":
                name, regex = MILESTONE_REGEXES[k]
                if regex.search(line):
                    found.milestones.append((index, name))
                    rank_life[rank] = index
                    if name in ("ready", "http_up"):
                        found.up = index
            elif kind == "c" and (CRASH_RE if k == 0 else EXCEPTION_LINE_RE).search(line):
                rank_crash[rank] = index
                found.first_crash.setdefault(rank, index)
            elif kind == "x" and EXCEPTION_RE.search(line):
                exception = index
            elif kind == "o" and rank not in found.first_oom and OOM_RE.search(line):
                found.first_oom[rank] = index
            elif kind == "w" and rank not in found.peer_wait:
                match = PEER_WAIT_RE.search(line)
                if match:
                    found.peer_wait[rank] = (index, tuple(int(n) for n in re.findall(r"\d+", match.group(1) or "")))
    found.milestones.sort()
    for rank, c_index, label in warnings:  # a warning SGLang carried on past is no failure unless an exception followed
        for table in (found.hits, found.rank_hits.get(rank)) if rank is not None else (found.hits,):
            if label in table.get(c_index, {}) and table[c_index][label][1] >= exception:
                del table[c_index][label]
    found.crashed = any(crash > max(rank_life.get(rank, -1), life) for rank, crash in rank_crash.items())
    return found


def _score(c_index, cause, hits, gates, oom_phase):
    """(score, evidence line indexes, matched only by wrapper messages, the line of the strongest hit)."""
    if cause.requires and c_index not in gates:
        return 0, [], False, -1
    ranked = sorted(hits.get(c_index, {}).items(), key=lambda kv: (-kv[1][0], kv[1][1]))
    if not ranked:
        return 0, [], False, -1
    score = sum(weight for _label, (weight, _line, _wrapper) in ranked[:2])
    if cause.phase_bonus and oom_phase == cause.extra.get("bonus_phase"):
        score += cause.phase_bonus
    wrapper_only = all(wrapper for _label, (_weight, _line, wrapper) in ranked)
    return min(score, 100), sorted({line for _label, (_weight, line, _wrapper) in ranked}), wrapper_only, ranked[0][1][1]


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


def _unwrap(failures, lines):
    """A cause seen only through a wrapper message ("Capture cuda graph failed: {e}") yields to a specific cause
    whose evidence starts no later than the wrapper line: that is the wrapped exception (on the same line, or
    printed before it as the chained traceback). A wrapper that is a traceback frame (an exception raised inside
    capture) yields to the exception line that ends its traceback. Lines after that are the cascade (SIGKILL,
    peers' NCCL errors) and do not displace it."""
    if not failures or not failures[0][3]:
        return failures
    wrapper_line = max(failures[0][2])
    if _FRAME_RE.match(lines[wrapper_line]):
        while wrapper_line + 1 < len(lines) and (_FRAME_RE.match(lines[wrapper_line]) or lines[wrapper_line].startswith(" ")):
            wrapper_line += 1
    for index, failure in enumerate(failures[1:], 1):
        if not failure[3] and failure[2][0] <= wrapper_line:
            after = index + 1
            return [failure] + failures[:index] + failures[after:]
    return failures


def held_by_others_gib(numbers):
    """GiB another process held when this start began loading weights: the OOM message's total capacity less the
    first "Load weight begin" avail mem; None when the log lacks either or the gap is SGLang's own."""
    total = re.match(r"([\d.]+) ?([GM])iB", str(numbers.get("gpu_total") or ""))
    avail = numbers.get("weight_begin_avail_gb")
    if total is None or avail is None:
        return None
    total_gib = float(total.group(1)) / (1024 if total.group(2) == "M" else 1)
    held = round(total_gib - avail, 2)
    return held if held > max(HELD_BY_OTHERS_MIN_GIB, HELD_BY_OTHERS_MIN_SHARE * total_gib) else None


def _raised_loading_tokenizer(lines, line):
    """Whether the exception at ``line`` was raised loading the tokenizer: its traceback (back to the nearest
    traceback header) or the chained tracebacks that follow it (up to the next log record) run through it."""
    start = line
    while start > max(0, line - FRAMES_ABOVE_ERROR) and "Traceback (most recent call last)" not in lines[start]:
        start -= 1
    end = line + 1
    while end < min(len(lines), line + FRAMES_ABOVE_ERROR) and not _LOG_RECORD_RE.match(lines[end]):
        end += 1
    return any(TOKENIZER_FRAMES_RE.search(frame) for frame in lines[start:end])


def _oom_cause(the_timeline, line, rank, lines, held=None):
    """The OOM cause for the phase ``rank`` was in when it printed the OOM ``line`` (the KV pool's when the OOM was
    raised allocating it; another process's when it ``held`` a share of the GPU before the start loaded anything);
    None when the log shows no milestone before it (the frames decide then)."""
    if line is None:
        return None
    if held is not None:
        return PRE_ALLOCATION_OOM
    if any(KV_POOL_ALLOCATION_RE.search(frame) for frame in lines[max(0, line - FRAMES_ABOVE_OOM) : line]):
        return KV_POOL_ALLOCATION_OOM
    phase = the_timeline.phase_at(line, rank)
    cause = OOM_BY_PHASE.get(phase) if phase else None
    if cause == PRE_ALLOCATION_OOM and OOM_BY_PHASE.get(the_timeline.phase) != PRE_ALLOCATION_OOM:
        # another rank got further (many milestones are logged by TP0 only): the ranks move in lockstep
        cause = OOM_BY_PHASE.get(the_timeline.phase, "cuda_oom_weights")
    return cause


def _rank_causes(hits, gates, up, oom_id):
    """[(id, score, evidence, wrapper only, key line)] strongest first; on a tie the cause whose evidence comes first (the
    root, not the cascade) wins. A failure whose evidence all comes before the ready line was a warning."""
    oom_phase = CAUSES[oom_id].extra.get("bonus_phase") if oom_id else None
    ranking = []
    for c_index, cause in enumerate(CATALOG):
        score, evidence, wrapper_only, key_line = _score(c_index, cause, hits, gates, oom_phase)
        if score <= 0:
            continue
        if cause.id != "none" and up >= 0 and max(evidence) < up:
            continue
        ranking.append((cause.id, score, evidence, wrapper_only, key_line))
    ranking.sort(key=lambda r: (-r[1], r[2][0]))
    return ranking


def _says_its_phase(hits, cause_id):
    """Whether an OOM cause matched a message of its own ("Capture cuda graph failed: ... out of memory"), stronger
    than the bare OOM line and the frames that the three OOM causes share."""
    cause = CAUSES[cause_id]
    shared = max((p.weight for p in cause.patterns if p.regex == OOM_RE.pattern), default=0)
    labels = hits.get(_INDEX[cause_id], {})
    return any(weight > shared for weight, _line, _wrapper in labels.values())


def _failures(ranking, hits, oom_id, lines):
    """The failures at or above MIN_SCORE, unwrapped. An OOM is the OOM cause of the phase it was raised in (the
    timeline outranks the frames), unless the winner's own message names its phase."""
    failures = _unwrap([r for r in ranking if r[0] != "none" and r[1] >= MIN_SCORE], lines)
    winner = failures[0][0] if failures else None
    if oom_id and winner in OOM_BY_PHASE.values() and winner != oom_id and not _says_its_phase(hits, winner):
        attributed = next((r for r in failures if r[0] == oom_id), None)
        if attributed is None and oom_id in (PRE_ALLOCATION_OOM, KV_POOL_ALLOCATION_OOM):  # the OOM line is its evidence
            attributed = (oom_id,) + failures[0][1:]
        if attributed is not None:
            failures = [attributed] + [r for r in failures if r is not attributed]
    return failures


def _rank_order(label):
    """Sort key that puts TP9 before TP12."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.findall(r"\d+|\D+", label)]


def _is_rank(label, number):
    """Whether a rank label ("TP1", "DP0 TP1", "rank1") is the tensor-parallel / torch rank ``number``."""
    return label == "rank%d" % number or ("TP%d" % number) in label.split()


def _first_failed_rank(found, up, ranks_seen):
    """(rank, peer-wait note): the rank whose first failure line comes first. A rank that only waited on its peers
    (rank 0's "other ranks didn't finish loading", monitoredBarrier, a collective timeout) yields to the ranks it
    names and to any rank with a failure of its own."""
    first = {}
    for rank in ranks_seen:
        lines = [
            line
            for c_index, labels in found.rank_hits.get(rank, {}).items()
            if c_index != _NONE_INDEX
            for weight, line, wrapper in labels.values()
            if weight >= MIN_SCORE and not wrapper and line > up
        ]
        crash = found.first_crash.get(rank)
        if crash is not None and crash > up:
            lines.append(crash)
        if lines:
            first[rank] = min(lines)
    if not first:
        return None, None
    waiting = {rank for rank in first if rank in found.peer_wait}
    peers = {n for _line, named in found.peer_wait.values() for n in named}
    candidates = [rank for rank in first if any(_is_rank(rank, n) for n in peers)] or [rank for rank in first if rank not in waiting] or list(first)
    failed = min(candidates, key=lambda rank: first[rank])
    note = None
    if failed in waiting:
        others = "ranks %s" % ", ".join(str(n) for n in sorted(peers)) if peers else "the other ranks"
        note = "%s waited for %s, which failed first: their own log lines (another node's log, or lines cut from this tail) hold the root cause" % (
            failed,
            others,
        )
    return failed, note


def classify(lines):
    """Classify log lines. Returns a dict: root_cause, phase, confidence, score, evidence, numbers, timeline, ranks."""
    lines = [normalize(line) for line in split_lines(lines)]
    ranks = line_ranks(lines)
    ranks_seen = sorted({rank for rank in ranks if rank}, key=_rank_order)
    per_rank = len(ranks_seen) > 1
    found = _scan(lines, ranks, per_rank)
    the_timeline = build_timeline(found.milestones, ranks)
    oom_rank, oom_line = min(found.first_oom.items(), key=lambda kv: kv[1], default=("", None))
    held = held_by_others_gib(found.numbers) if oom_line is not None else None
    if held is not None:
        found.numbers.setdefault("other_process_gib", held)
    oom_id = _oom_cause(the_timeline, oom_line, oom_rank, lines, held)
    ranking = _rank_causes(found.hits, found.gates, found.up, oom_id)
    failures = _failures(ranking, found.hits, oom_id, lines)
    notes = []
    failed_rank = None
    if ranks_seen and (failures or found.crashed):
        failed_rank, note = _first_failed_rank(found, found.up, ranks_seen)
        if note:
            notes.append(note)
        if per_rank and failed_rank is not None:
            rank_oom = _oom_cause(the_timeline, found.first_oom.get(failed_rank), failed_rank, lines, held)
            rank_hits = found.rank_hits.get(failed_rank, {})
            rank_failures = _failures(_rank_causes(rank_hits, found.gates, found.up, rank_oom), rank_hits, rank_oom, lines)
            if rank_failures:
                failures = rank_failures + [r for r in failures if r[0] not in {f[0] for f in rank_failures}]
    if failures and failures[0][0] == "model_not_found" and _raised_loading_tokenizer(lines, failures[0][4]):
        failures = [("tokenizer_error",) + failures[0][1:]] + failures[1:]
    healthy = next((r for r in ranking if r[0] == "none"), None)
    if failures:
        cause_id, score, evidence, wrapper_only, key_line = failures[0]
        # a wrapper ("Capture cuda graph failed: {e}") says where the start failed, not why: alone it is no high answer
        confidence = "high" if score >= HIGH_SCORE and not wrapper_only else "medium"
        # the OOM causes share the OOM line: the timeline (or the frames) already chose among them
        same_oom = _OOM_CAUSES if cause_id in _OOM_CAUSES else ()
        rival = next((r for r in failures[1:] if r[0] != cause_id and r[0] not in same_oom and not r[3]), None)
        if confidence == "high" and rival is not None and rival[1] >= score - RIVAL_MARGIN:
            # another cause scored as high on this log: the evidence does not single one out
            confidence = "medium"
            notes.append("the log also fits %s (score %d against %d): check that cause too" % (rival[0], rival[1], score))
        if cause_id in OOM_BY_PHASE.values():  # the phase of the OOM line itself, not of a frame quoted with it
            key_line = found.first_oom.get(failed_rank if failed_rank is not None else oom_rank, key_line)
        phase = the_timeline.phase_at(key_line, ranks[key_line]) or CAUSES[cause_id].phase
        if cause_id in OOM_BY_PHASE.values() and phase != CAUSES[cause_id].phase:
            notes.append("the CUDA OOM was raised in the %s phase of the start-up, so the cause is: %s" % (phase, CAUSES[cause_id].title))
    elif not found.crashed:
        # No failure evidence: a healthy launch, still starting, ready or serving.
        cause_id = "none"
        score, evidence = (healthy[1], healthy[2]) if healthy else (0, [])
        confidence = _healthy_confidence(the_timeline, score)
        evidence = evidence or _milestone_lines(the_timeline)
        saturated = _saturated_batch(lines, the_timeline)
        if saturated is not None:
            confidence = "medium" if confidence == "high" else confidence
            evidence = [saturated]
            notes.append(SATURATED_NOTE)
        phase = the_timeline.phase or "unknown"
    else:
        # Nothing catalogued matched, but a rank crashed after its last sign of life: quote the likely lines.
        cause_id, score, evidence, confidence = "other", 0, _relevant_lines(lines), "low"
        phase = the_timeline.phase_at(evidence[-1], ranks[evidence[-1]]) if evidence else None
        phase = phase or CAUSES["other"].phase
    return {
        "root_cause": cause_id,
        "phase": phase,
        "cause_phase": CAUSES[cause_id].phase,
        "confidence": confidence,
        "score": score,
        "evidence": [lines[i] for i in evidence][:8],
        "numbers": found.numbers,
        "progress": the_timeline.phase or "start",
        "reached": the_timeline.reached,
        "timeline": the_timeline.as_dict(),
        "failed_rank": failed_rank,
        "ranks_seen": ranks_seen,
        "notes": notes,
        "hybrid_model": bool(found.numbers.get("model_class") and _HYBRID_CLASS_RE.search(str(found.numbers["model_class"]))),
        "ranking": [{"id": r[0], "score": r[1]} for r in ranking[:5]],
        "line_count": len(lines),
    }


# The scheduler's batch line (managers/scheduler_metrics_mixin.py 0.5.9; scheduler_components/metrics_reporter.py
# 0.5.23): "token usage: U" (or "full token usage: U" on hybrid pools) and "#queue-req: Q". A pool at 0.99 or more
# with requests waiting serves, but at its KV capacity (retracting, or queueing new requests).
_SATURATED_RE = re.compile(r"(?<![\w#])(?:full )?token usage: (?:1\.00|0\.99)\b.{0,300}#queue-req: [1-9]")
SATURATED_NOTE = (
    "the server is up, but its KV cache pool is full with requests waiting: it serves at its KV capacity "
    "(a larger pool: --mem-fraction-static, a shorter --context-length, fewer --max-running-requests, fp8 KV)"
)


def _saturated_batch(lines, the_timeline):
    """The last batch line, when it shows the KV pool full with requests queued (else None)."""
    batches = [line for line, name, _rank in the_timeline.hits if name in ("serving", "warmup_request")]
    if batches and _SATURATED_RE.search(lines[batches[-1]]):
        return batches[-1]
    return None


def _healthy_confidence(the_timeline, score):
    """high once the server is up (ready line, serving); medium for a start that got past weight loading; low when
    the log shows next to nothing of a start."""
    if the_timeline.reached != "starting" or score >= HIGH_SCORE:
        return "high"
    if the_timeline.last and ORDER[the_timeline.last] >= ORDER["weight_begin"]:
        return "medium"
    return "medium" if score >= MIN_SCORE else "low"


def _milestone_lines(the_timeline, limit=3):
    """The last milestone lines: what a healthy start quotes as its evidence."""
    lines = sorted({line for line, _name, _rank in the_timeline.hits})
    return lines[-limit:]
