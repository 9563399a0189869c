# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What one SGLang start really did with GPU memory, read from its own startup lines, per rank.

Every start prints the truth that the preflight estimates: free memory before the weights load, what they
took, the pools it built, the CUDA graphs, and the scheduler's totals. The patterns below are SGLang's own
f-strings, with the file:line of the 0.5.9 and 0.5.23 wheels beside each; one pattern covers both spellings
where a release reworded a line. SGLang's "GB" are GiB (``get_available_gpu_memory`` divides by 1 << 30).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Dict, Iterable, List, Optional, Tuple

# "[2025-03-08 12:29:21 TP0] " / "[2025-02-17 05:27:24 DP1 TP3 EP3] " / "[... PP0 TP1] ": the rank's prefix
# (sglang/srt/utils/common.py configure_logger's prefix), or none for a single-process start.
_PREFIX = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?((?: (?:DP|PP|TP|EP|CP|ATTN_DP)\d+)*)\] ")
_NUMBER = r"(\d+(?:\.\d+)?)"

# field name -> pattern; each captured group is one number, in the order of the field tuple.
_LINES: Tuple[Tuple[Tuple[str, ...], "re.Pattern[str]"], ...] = (
    # model_runner.py:899 (0.5.9) / :1274 (0.5.23)
    (("pre_load_avail_gib",), re.compile(r"Load weight begin\. avail mem=" + _NUMBER + " GB")),
    # model_runner.py:1041 (0.5.9) / :1373 (0.5.23); releases before 0.4.2 print no "mem usage"
    (("post_load_avail_gib", "weight_gib"), re.compile(r"Load weight end\. .*?avail mem=" + _NUMBER + r" GB(?:, mem usage=" + _NUMBER + " GB)?")),
    # mem_cache/memory_pool.py:652/:658 (0.5.9) / :2089/:2097 (0.5.23, with "dtype: ...", and a label for
    # the draft's pool: "<label> KV Cache is allocated"); releases of early 2025 print no "#tokens"
    (
        ("kv_tokens", "k_gib", "v_gib"),
        re.compile(r"(?<![\w ])KV Cache is allocated\. (?:dtype: \S+, )?(?:#tokens: (\d+), )?K size: " + _NUMBER + r" GB, V size: " + _NUMBER + " GB"),
    ),
    (("kv_tokens", "kv_gib"), re.compile(r"(?<![\w ])KV Cache is allocated\. (?:dtype: \S+, )?#tokens: (\d+), KV size: " + _NUMBER + " GB")),
    # mem_cache/memory_pool.py:302/:312 (0.5.9) / :984/:1005 (0.5.23)
    (
        ("mamba_slots", "mamba_conv_gib", "mamba_ssm_gib"),
        re.compile(r"Mamba Cache is allocated\. max_mamba_cache_size: (\d+), conv_state size: " + _NUMBER + r"GB, ssm_state size: " + _NUMBER + "GB"),
    ),
    # model_runner_kv_cache_mixin.py:269/:336 (0.5.9) / model_executor/pool_configurator.py:870/:889 (0.5.23)
    (("full_tokens", "swa_tokens"), re.compile(r"Use sliding window memory pool\. full_layer_tokens=(\d+), swa_layer_tokens=(\d+)")),
    (("swa_tokens",), re.compile(r"Use sliding window memory pool \(all SWA\)\. swa_layer_tokens=(\d+)")),
    # model_runner_kv_cache_mixin.py:745 (0.5.9) / mem_cache/kv_cache_configurator.py:499 (0.5.23)
    (("pool_end_avail_gib",), re.compile(r"Memory pool end\. avail mem=" + _NUMBER + " GB")),
    # the target model's decode graphs: model_runner.py:2161 (0.5.9, "Capture cuda graph end. Time elapsed:
    # ... s. mem usage=... GB. avail mem=... GB.") / cuda_graph_setup.py:696 (0.5.23, "Capture decode CUDA
    # graph end. elapsed=... s, mem usage=... GB, avail mem=... GB."); draft graphs are other lines.
    (
        ("graph_gib", "post_graph_avail_gib"),
        re.compile(r"Capture (?:cuda graph|decode CUDA graph|target \w+ CUDA graph) end\. .*?mem usage=" + _NUMBER + r" GB[.,] avail mem=" + _NUMBER + " GB"),
    ),
    # managers/scheduler.py:623 (0.5.9) / :1269 (0.5.23), on TP rank 0 only
    (("max_total_num_tokens",), re.compile(r"max_total_num_tokens=(\d+), ")),
    (("max_running_requests",), re.compile(r", max_running_requests=(\d+), ")),
    (("context_len",), re.compile(r", context_len=(\d+)")),
    (("available_gpu_mem_gib",), re.compile(r", available_gpu_mem=" + _NUMBER + " GB")),
)
_INTEGER_FIELDS = frozenset(("kv_tokens", "mamba_slots", "full_tokens", "swa_tokens", "max_total_num_tokens", "max_running_requests", "context_len"))


@dataclass(frozen=True)
class RankStartup:
    """One rank's startup numbers (GiB as SGLang prints them; None where this start did not print the line)."""

    rank: str
    pre_load_avail_gib: Optional[float] = None
    post_load_avail_gib: Optional[float] = None
    weight_gib: Optional[float] = None
    kv_tokens: Optional[int] = None
    k_gib: Optional[float] = None
    v_gib: Optional[float] = None
    kv_gib: Optional[float] = None
    mamba_slots: Optional[int] = None
    mamba_conv_gib: Optional[float] = None
    mamba_ssm_gib: Optional[float] = None
    full_tokens: Optional[int] = None
    swa_tokens: Optional[int] = None
    pool_end_avail_gib: Optional[float] = None
    graph_gib: Optional[float] = None
    post_graph_avail_gib: Optional[float] = None
    max_total_num_tokens: Optional[int] = None
    max_running_requests: Optional[int] = None
    context_len: Optional[int] = None
    available_gpu_mem_gib: Optional[float] = None

    @property
    def kv_pool_gib(self) -> Optional[float]:
        """The KV pool's size: K + V, or the single KV size (MLA)."""
        if self.kv_gib is not None:
            return self.kv_gib
        if self.k_gib is not None and self.v_gib is not None:
            return round(self.k_gib + self.v_gib, 2)
        return None

    @property
    def pre_load_gib(self) -> Optional[float]:
        """Free memory before the weights: "Load weight begin", else what was left after them plus their usage."""
        if self.pre_load_avail_gib is not None:
            return self.pre_load_avail_gib
        if self.post_load_avail_gib is not None and self.weight_gib is not None:
            return round(self.post_load_avail_gib + self.weight_gib, 2)
        return None

    @property
    def weight_load_gib(self) -> Optional[float]:
        """What the weights took: SGLang's "mem usage", else the drop in free memory across the load."""
        if self.weight_gib is not None:
            return self.weight_gib
        if self.pre_load_avail_gib is not None and self.post_load_avail_gib is not None:
            return round(self.pre_load_avail_gib - self.post_load_avail_gib, 2)
        return None

    def to_dict(self) -> Dict[str, Any]:
        data = asdict(self)
        data.update(kv_pool_gib=self.kv_pool_gib, pre_load_gib=self.pre_load_gib, weight_load_gib=self.weight_load_gib)
        return data


@dataclass(frozen=True)
class StartupReport:
    """Every rank that printed startup lines, in rank order (TP0, TP1, ...; DP0 TP0 EP0, DP1 TP1 EP1, ...)."""

    ranks: Tuple[RankStartup, ...]

    @property
    def first(self) -> Optional[RankStartup]:
        """Rank 0 (the one that prints the scheduler's totals), or the first rank seen."""
        return next((r for r in self.ranks if r.max_total_num_tokens is not None), self.ranks[0] if self.ranks else None)

    @property
    def complete(self) -> bool:
        """Whether the start got as far as the scheduler's totals (weights, pools and graphs are behind it)."""
        return any(r.max_total_num_tokens is not None for r in self.ranks)

    def to_dict(self) -> Dict[str, Any]:
        return {"complete": self.complete, "ranks": [r.to_dict() for r in self.ranks]}


def _rank_of(line: str) -> Tuple[str, str]:
    """(rank label, message) for a log line."""
    match = _PREFIX.match(line)
    if match is None:
        return "", line
    rest = match.end()
    return match.group(1).strip(), line[rest:]


def parse_startup(lines: Iterable[str]) -> StartupReport:
    """The startup numbers of one launch's log lines (later lines of the same rank win, as a restart would)."""
    seen: Dict[str, Dict[str, Any]] = {}
    order: List[str] = []  # first appearance
    for raw in lines:
        rank, message = _rank_of(raw.rstrip("\r\n"))
        for names, pattern in _LINES:
            match = pattern.search(message)
            if match is None:
                continue
            values = seen.get(rank)
            if values is None:
                values = seen[rank] = {}
                order.append(rank)
            for name, text in zip(names, match.groups()):
                if text is not None:
                    values[name] = int(text) if name in _INTEGER_FIELDS else float(text)
    known = {f.name for f in fields(RankStartup)}
    ranks = sorted(order, key=lambda label: tuple(int(n) for n in re.findall(r"\d+", label)))
    return StartupReport(tuple(replace(RankStartup(rank=rank), **{k: v for k, v in seen[rank].items() if k in known}) for rank in ranks))
