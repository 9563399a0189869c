# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SGLang's start-up timeline: the milestones every release logs, in order, per rank, and where a log stopped.

Pure and standard library. The milestone texts are SGLang's own ``logger.info`` lines (``file:line`` of the
0.4.6.post5, 0.5.2, 0.5.9 and 0.5.23 wheels beside each) and uvicorn's. A log's phase is the phase of the
furthest milestone it reached; a failure's phase is the phase its rank was in when the failure line was printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple


@dataclass(frozen=True)
class Milestone:
    """One start-up line: ``phase`` is the catalog phase a launch is in once this line has been printed."""

    name: str
    phase: str
    label: str
    regex: str


# HTTP endpoints that probe the server rather than ask it to generate (SGLang's http_server.py routes)
PROBE_ENDPOINTS = r"health\b|health_generate\b|metrics\b|get_model_info\b|get_server_info\b|v1/models\b|ping\b"

_ACTIVITY = (
    # the scheduler's batch lines: 0.4.6.post5 managers/scheduler.py:1146,1202 ("Prefill batch. ", "Decode batch. ");
    # 0.5.2 managers/scheduler_metrics_mixin.py:114,199; 0.5.9 managers/scheduler_metrics_mixin.py:214,366;
    # 0.5.23 managers/scheduler_components/metrics_reporter.py:754,963 ("Decode batch [N], ..."); 0.1.17
    # managers/controller/tp_worker.py:233,404 ("Decode batch. ", "Prefil batch. ")
    r"(?:Prefill?|Decode) batch(?: \[\d+\])?[.,] #(?:new-seq|running-req): \d+"
    # uvicorn's access log: a request answered 200; a probe (/health, /metrics, /v1/models, ...) answered 200 shows
    # the HTTP server up, not that requests are served (a PD decode server whose every request fails answers them)
    r"|\"(?:POST|GET) /(?!%s)\S* HTTP/1\.[01]\" 200\b" % PROBE_ENDPOINTS
)

MILESTONES = (
    # entrypoints/engine.py logger.info(f"{server_args=}"): 0.4.6.post5:123, 0.5.2:124, 0.5.9:156;
    # 0.5.23:311 f"server_args={_server_args_for_logging(server_args)}" (a dict)
    Milestone("args", "args", "server arguments parsed", r"server_args=ServerArgs\(|server_args=\{"),
    # configs/model_config.py "Upcasting %s to %s." / "Downcasting %s to %s." / "Casting %s to %s.":
    # 0.4.6.post5:501-509, 0.5.2:664-672, 0.5.9:1170-1178 (0.5.23:2335-2343 logs them at debug level)
    Milestone("model_config", "model_load", "model config read", r"\b(?:Up|Down)?[Cc]asting torch\.\w+ to torch\.\w+\."),
    # model_executor/model_runner.py "Init torch distributed begin.": 0.4.6.post5:416, 0.5.2:594, 0.5.9:731; 0.1.17
    # managers/controller/model_runner.py:242 f"[gpu_id={self.gpu_id}] Init nccl begin."
    Milestone("distributed_begin", "multi_gpu", "torch distributed init begun", r"Init torch distributed begin\.|Init nccl begin\."),
    # model_executor/model_runner.py "Init torch distributed ends. ...": 0.4.6.post5:495, 0.5.2:691, 0.5.9:850
    Milestone("distributed_end", "model_load", "torch distributed initialised", r"Init torch distributed ends\."),
    # model_executor/model_runner.py f"Load weight begin. avail mem=...": 0.4.6.post5:502, 0.5.2:698, 0.5.9:899,
    # 0.5.23:1274; model_loader/weight_utils.py "Using model weights format %s": 0.4.6.post5:255, 0.5.2:275,
    # 0.5.9:513, 0.5.23:692
    # and the shard progress bars of model_loader/weight_utils.py (tqdm desc "Loading safetensors|pt checkpoint shards",
    # the same words since 0.4: 0.5.23:1166,1412; "Multi-thread loading shards": 0.5.23:1371)
    Milestone(
        "weight_begin",
        "weight_load",
        "weight loading begun",
        r"Load weight begin\.|Using model weights format \[|Loading (?:safetensors|pt) checkpoint shards:|Multi-thread loading shards:",
    ),
    # model_executor/model_runner.py f"Load weight end. type=..., avail mem=..., mem usage=...": 0.4.6.post5:575,
    # 0.5.2:783, 0.5.9:1041 (with elapsed=), 0.5.23:1373
    Milestone("weight_end", "memory_pool", "weights loaded", r"Load weight end\."),
    # model_executor/model_runner.py f"Using KV cache dtype: {self.kv_cache_dtype}" (before the pools are sized):
    # 0.5.9:1715
    Milestone("kv_cache_dtype", "memory_pool", "KV cache dtype chosen", r"Using KV cache dtype: "),
    # mem_cache/memory_pool.py f"KV Cache is allocated. #tokens: {size}, K size: ...": 0.4.6.post5:274,554,
    # 0.5.2:352,358, 0.5.9:652,658; 0.5.23:2087-2098 f"{cache_name} is allocated. dtype: ..., #tokens: ..."
    # (cache_name "KV Cache" or "<label> KV Cache")
    Milestone("kv_pool", "memory_pool", "KV cache allocated", r"KV Cache is allocated\."),
    # mem_cache/memory_pool.py f"Mamba Cache is allocated. ...": 0.5.2:167, 0.5.9:302,312, 0.5.23:984,1005
    Milestone("mamba_pool", "memory_pool", "mamba cache allocated", r"Mamba Cache is allocated\."),
    # f"Memory pool end. avail mem=...": 0.4.6.post5 model_executor/model_runner.py:978, 0.5.2
    # model_executor/model_runner.py:1524, 0.5.9 model_executor/model_runner_kv_cache_mixin.py:745, 0.5.23
    # mem_cache/kv_cache_configurator.py:499
    Milestone("memory_pool_end", "memory_pool", "memory pools sized", r"Memory pool end\."),
    # "Capture cuda graph begin. This can take up to several minutes. ...": 0.4.6.post5 model_runner.py:1096,
    # 0.5.2 model_runner.py:1752 (f"Capture {'cuda graph'} begin."), 0.5.9 model_runner.py:2146-2147, piecewise
    # 0.5.9 model_runner.py:2228 "Capture piecewise CUDA graph begin."; 0.5.23 model_executor/model_runner_components/
    # cuda_graph_setup.py:685,758-762 "Capture target prefill|decode|verify CUDA graph begin."; the draft model's:
    # speculative/eagle_worker.py 0.4.6.post5:235, 0.5.2:387,400, 0.5.9:249,264 "Capture draft [extend] cuda graph
    # begin.", 0.5.23 speculative/eagle_worker_v2.py:515,634 "Capture draft decode|extend CUDA graph begin.";
    # per batch size "Capturing batches (...)": cuda_graph_runner.py 0.4.6.post5:374, 0.5.2:485, 0.5.9:501,
    # 0.5.23 model_executor/runner/decode_cuda_graph_runner.py:1343
    Milestone("graph_begin", "cuda_graph", "CUDA graph capture begun", r"Capture (?:[\w-]+ ){0,4}(?:cuda|CUDA) graph begin\b|Capturing batches \("),
    # the matching "... graph end." lines: 0.4.6.post5 model_runner.py:1101, 0.5.2 model_runner.py:1766, 0.5.9
    # model_runner.py:2160-2161,2236, 0.5.23 cuda_graph_setup.py:696,786-791, eagle_worker 0.4.6.post5:240,
    # 0.5.2:392,407, 0.5.9:256,271, 0.5.23 eagle_worker_v2.py:533,654
    Milestone("graph_end", "cuda_graph", "CUDA graphs captured", r"Capture (?:[\w-]+ ){0,4}(?:cuda|CUDA) graph end\b"),
    # managers/scheduler.py f"max_total_num_tokens={...}, chunked_prefill_size=...": 0.4.6.post5:334, 0.5.2:412,
    # 0.5.9:623, 0.5.23:1269
    Milestone("scheduler_ready", "warmup", "scheduler ready", r"max_total_num_tokens=-?\d+, chunked_prefill_size="),
    # uvicorn's start-up lines; 0.5.23 entrypoints/http_server.py:3072 f"Uvicorn running on {host}:{port} ..."
    Milestone("http_up", "warmup", "HTTP server up", r"Uvicorn running on \S+|Application startup complete\."),
    # the warm-up request: a batch line or an answered request before the ready line
    Milestone("warmup_request", "warmup", "warm-up request served", _ACTIVITY),
    # entrypoints/http_server.py "The server is fired up and ready to roll!": 0.4.6.post5:898, 0.5.2:1386,
    # 0.5.9:1836 (grpc_server.py:1179), 0.5.23:2600
    Milestone("ready", "serving", "server ready", r"The server is fired up and ready to roll!"),
    # batch lines and answered requests after the ready line (or in a tail that shows no start-up at all)
    Milestone("serving", "serving", "serving requests", _ACTIVITY),
    # a shutdown asked for from outside (systemctl stop, a wrapper's SIGTERM): managers/tokenizer_manager.py
    # f"SIGTERM received. {signum=} {frame=}. Draining requests and shutting down..." (0.5.9:2502, 0.5.23:4068) and
    # f"Gracefully exiting... Remaining number of requests {remain_num_req}. ..." (0.5.9:2140, 0.5.23:3535); the
    # health checks answered 503 while it drains (entrypoints/http_server.py 0.5.23:732) are no crash
    Milestone(
        "shutdown",
        "serving",
        "shutting down on request",
        r"SIGTERM received\. .{0,80}Draining requests and shutting down|Gracefully exiting\.\.\. Remaining number of requests",
    ),
)
ORDER = {milestone.name: index for index, milestone in enumerate(MILESTONES)}
BY_NAME = {milestone.name: milestone for milestone in MILESTONES}
# The milestones matched on a line: the activity regex stands for both warmup_request and serving (told apart by
# what came before it).
SCANNED = tuple(milestone for milestone in MILESTONES if milestone.name != "warmup_request")
COMPILED = tuple((milestone.name, re.compile(milestone.regex)) for milestone in SCANNED)

# SGLang's log prefix "[%(asctime)s{prefix}] " (0.5.9 utils/common.py:1228), prefix " DP0 PP1 TP3 EP3" from
# managers/scheduler.py (0.4.6.post5:2222-2226, 0.5.2:2559-2565, 0.5.9:3086-3096, 0.5.23:6281-6291)
_SGLANG_PREFIX_RE = re.compile(r"^\[\d{4}-\d\d-\d\d[ T][\d:.,]+((?: (?:DP|PP|ATTN_CP|MOE_DP|CP|TP|EP)\d+)+)\]")
_TIMESTAMP_RE = re.compile(r"^\[\d{4}-\d\d-\d\d[ T][\d:.,]+\]")
# torch: the per-rank prefix of torchrun / elastic ("[rank1]: Traceback ...", "[rank0]:[W1204 ...]") and the
# ProcessGroup tag in its errors ("[Rank 1] Watchdog caught ...", "[PG ID 0 PG GUID 0(default_pg) Rank 1] ...")
_TORCH_RANK_RE = re.compile(r"^\[rank(\d+)\]:|^\[(?:PG [^\]]{0,80} )?Rank (\d+)\]")
# releases before 0.4 prefix the message itself: f"[gpu_id={self.gpu_id}] ..." (0.1.17 managers/controller/
# model_runner.py:240-337, tp_worker.py:108-404), f"[rank={self.tp_rank}] ..." (0.1.17 managers/router/model_runner.py:263)
_OLD_RANK_RE = re.compile(r"^\[(gpu_id|rank)=(\d+)\] ")


def rank_of(line):
    """The rank label a line's prefix names ("TP3", "DP0 TP1", "rank2", "gpu1"), "" for the main process's own prefixed
    lines, None for a line without a prefix (a continuation: traceback lines, output of libraries)."""
    if not line.startswith("["):
        return None
    match = _SGLANG_PREFIX_RE.match(line)
    if match:
        return match.group(1).strip()
    match = _TORCH_RANK_RE.match(line)
    if match:
        return "rank%s" % (match.group(1) or match.group(2))
    match = _OLD_RANK_RE.match(line)
    if match:
        return ("gpu%s" if match.group(1) == "gpu_id" else "rank%s") % match.group(2)
    return "" if _TIMESTAMP_RE.match(line) else None


def line_ranks(lines):
    """The rank of each line; a line without a prefix belongs to the rank of the line before it ("" = main)."""
    ranks = []
    current = ""
    for line in lines:
        rank = rank_of(line)
        if rank is not None:
            current = rank
        ranks.append(current)
    return ranks


@dataclass(frozen=True)
class RankProgress:
    """The furthest milestone one rank reached and the line that printed it."""

    milestone: str
    phase: str
    line: int


@dataclass(frozen=True)
class Timeline:
    """Where a launch got to. ``milestones``: first line index of each milestone of the last launch (the log's
    last ``server_args`` line starts it); ``last``: the furthest one; ``phase``: its phase (None: no milestone);
    ``reached``: starting | ready | serving; ``ranks``: per rank ("" = the main process) its furthest milestone."""

    milestones: Dict[str, int] = field(default_factory=dict)
    last: Optional[str] = None
    phase: Optional[str] = None
    reached: str = "starting"
    ranks: Dict[str, RankProgress] = field(default_factory=dict)
    launch_start: int = 0
    hits: Tuple[Tuple[int, str, str], ...] = ()  # (line, milestone, rank) in line order

    def phase_at(self, line, rank=""):
        """The phase ``rank`` was in when ``line`` was printed: its own furthest milestone before that line (the
        main process's count for every rank), in the launch that line belongs to; None when nothing came before."""
        best = -1
        for hit_line, name, hit_rank in self.hits:
            if hit_line >= line:
                break
            if name == "args":
                best = ORDER["args"]  # a new launch starts here
            elif hit_rank in (rank, "") and ORDER[name] > best:
                best = ORDER[name]
        return MILESTONES[best].phase if best >= 0 else None

    def describe(self):
        """For people: "starting: memory_pool (KV cache allocated)", "ready", "serving"."""
        if self.last is None:
            return "starting: no start-up milestone in the log"
        if self.reached != "starting":
            return self.reached
        return "%s: %s (%s)" % (self.reached, self.phase, BY_NAME[self.last].label)

    def as_dict(self):
        return {
            "reached": self.reached,
            "phase": self.phase,
            "last_milestone": self.last,
            "summary": self.describe(),
            "milestones": dict(self.milestones),
            "ranks": {rank or "main": {"milestone": p.milestone, "phase": p.phase, "line": p.line} for rank, p in sorted(self.ranks.items())},
        }


def build(found, ranks):
    """The Timeline from ``found``: (line index, scanned milestone name) in line order, and each line's rank."""
    hits = []
    launch_started = False  # a start-up milestone came before, in this launch
    ready_seen = False
    for line, name in found:
        if name == "args":
            launch_started, ready_seen = True, False
        if name == "serving" and launch_started and not ready_seen:
            name = "warmup_request"
        elif name == "ready":
            ready_seen = True
        if name != "serving":
            launch_started = True
        hits.append((line, name, ranks[line] if line < len(ranks) else ""))
    start = max((index for index, (_line, name, _rank) in enumerate(hits) if name == "args"), default=0)
    milestones = {}
    per_rank = {}
    furthest = None
    for line, name, rank in hits[start:]:
        milestones.setdefault(name, line)
        if furthest is None or ORDER[name] >= ORDER[furthest]:
            furthest = name
        known = per_rank.get(rank)
        if known is None or ORDER[name] >= ORDER[known.milestone]:
            per_rank[rank] = RankProgress(name, BY_NAME[name].phase, line)
    if furthest == "shutdown":
        reached = "serving" if "ready" in milestones or "serving" in milestones else "starting"
    else:
        reached = furthest if furthest in ("ready", "serving") else "starting"
    return Timeline(
        milestones=milestones,
        last=furthest,
        phase=BY_NAME[furthest].phase if furthest else None,
        reached=reached,
        ranks=per_rank,
        launch_start=hits[start][0] if hits else 0,
        hits=tuple(hits),
    )


def scan(lines):
    """(line index, scanned milestone name) of every milestone line, in line order."""
    found = []
    for index, line in enumerate(lines):
        for name, regex in COMPILED:
            if regex.search(line):
                found.append((index, name))
                break
    return found


def timeline(lines):
    """The Timeline of display lines (already normalised: no ANSI colours, one line per item)."""
    lines = list(lines)
    return build(scan(lines), line_ranks(lines))
