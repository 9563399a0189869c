# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The start-up timeline, the phase a failure happened in, and multi-rank logs.

* Each milestone in each release's wording (the f-strings of the 0.4.6.post5, 0.5.2, 0.5.9 and 0.5.23 wheels,
  file:line beside each, filled with made-up values) is recognised, and the phase is where the log stopped.
* A log with no failure is ``none`` with the phase it reached, at every line of a healthy start; never ``other``.
* An OOM takes the cause (and fix) of the phase it was raised in: weights, pools / graph capture, serving.
* With several ranks the first rank that failed, and its cause, are reported; a rank that only waited on its
  peers yields to them.
"""

from __future__ import annotations

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import PHASES
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.classify import classify
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.diagnose import diagnose
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.timeline import MILESTONES, line_ranks, rank_of, timeline


def _diagnose(lines):
    return diagnose({"log": {"exists": True, "lines": lines, "mtime": 0.0}}, since_marker=False)


def _tp(rank, text, second=0):
    return "[2026-01-02 10:00:%02d TP%d] %s" % (second, rank, text)


# (release, file:line, the line as that release prints it, milestone)
RELEASE_LINES = [
    ("0.4.6.post5", "entrypoints/engine.py:123", "[2025-05-01 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2)", "args"),
    ("0.5.9", "entrypoints/engine.py:156", "[2026-01-02 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2)", "args"),
    ("0.5.23", "entrypoints/engine.py:311", "[2026-01-02 10:00:00] server_args={'model_path': 'Qwen/Qwen3-8B', 'tp_size': 2}", "args"),
    ("0.4.6.post5", "configs/model_config.py:505", _tp(0, "Downcasting torch.float32 to torch.float16."), "model_config"),
    ("0.5.2", "configs/model_config.py:664", _tp(0, "Upcasting torch.float16 to torch.float32."), "model_config"),
    ("0.5.9", "configs/model_config.py:1178", _tp(0, "Casting torch.bfloat16 to torch.float16."), "model_config"),
    ("0.4.6.post5", "model_executor/model_runner.py:416", _tp(0, "Init torch distributed begin."), "distributed_begin"),
    ("0.5.9", "model_executor/model_runner.py:731", _tp(1, "Init torch distributed begin."), "distributed_begin"),
    ("0.1.17", "managers/controller/model_runner.py:242", "[gpu_id=1] Init nccl begin.", "distributed_begin"),
    ("0.4.6.post5", "model_executor/model_runner.py:495", _tp(0, "Init torch distributed ends. mem usage=0.12 GB"), "distributed_end"),
    ("0.5.9", "model_executor/model_runner.py:850", _tp(0, "Init torch distributed ends. elapsed=1.52 s, mem usage=0.12 GB"), "distributed_end"),
    ("0.4.6.post5", "model_executor/model_runner.py:502", _tp(0, "Load weight begin. avail mem=78.50 GB"), "weight_begin"),
    ("0.5.23", "model_executor/model_runner.py:1274", _tp(0, "Load weight begin. avail mem=139.20 GB"), "weight_begin"),
    ("0.5.23", "model_loader/weight_utils.py:692", _tp(0, "Using model weights format ['*.safetensors']"), "weight_begin"),
    (
        "0.4.6.post5",
        "model_executor/model_runner.py:575",
        _tp(0, "Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB, mem usage=15.30 GB."),
        "weight_end",
    ),
    (
        "0.5.9",
        "model_executor/model_runner.py:1041",
        _tp(0, "Load weight end. elapsed=12.34 s, type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB, mem usage=15.30 GB."),
        "weight_end",
    ),
    (
        "0.5.23",
        "model_executor/model_runner.py:1373",
        _tp(0, "Load weight end. elapsed=12.34 s, type=Qwen3ForCausalLM, avail mem=123.90 GB, mem usage=15.30 GB."),
        "weight_end",
    ),
    ("0.5.9", "model_executor/model_runner.py:1715", _tp(0, "Using KV cache dtype: torch.bfloat16"), "kv_cache_dtype"),
    ("0.4.6.post5", "mem_cache/memory_pool.py:274", _tp(0, "KV Cache is allocated. #tokens: 421000, K size: 28.91 GB, V size: 28.91 GB"), "kv_pool"),
    ("0.5.2", "mem_cache/memory_pool.py:358", _tp(0, "KV Cache is allocated. #tokens: 421000, KV size: 57.82 GB"), "kv_pool"),
    (
        "0.5.23",
        "mem_cache/memory_pool.py:2087-2090",
        _tp(0, "KV Cache is allocated. dtype: torch.bfloat16, #tokens: 421000, K size: 28.91 GB, V size: 28.91 GB"),
        "kv_pool",
    ),
    ("0.5.2", "mem_cache/memory_pool.py:167", _tp(0, "Mamba Cache is allocated. conv_state size: 0.10GB, ssm_state size: 2.31GB "), "mamba_pool"),
    (
        "0.5.9",
        "mem_cache/memory_pool.py:312",
        _tp(0, "Mamba Cache is allocated. max_mamba_cache_size: 512, conv_state size: 0.10GB, ssm_state size: 2.31GB "),
        "mamba_pool",
    ),
    ("0.4.6.post5", "model_executor/model_runner.py:978", _tp(0, "Memory pool end. avail mem=5.10 GB"), "memory_pool_end"),
    ("0.5.23", "mem_cache/kv_cache_configurator.py:499", _tp(0, "Memory pool end. avail mem=5.10 GB"), "memory_pool_end"),
    (
        "0.4.6.post5",
        "model_executor/model_runner.py:1096",
        _tp(0, "Capture cuda graph begin. This can take up to several minutes. avail mem=5.00 GB"),
        "graph_begin",
    ),
    ("0.5.9", "model_executor/model_runner.py:2228", _tp(0, "Capture piecewise CUDA graph begin. avail mem=5.00 GB"), "graph_begin"),
    (
        "0.5.23",
        "model_executor/model_runner_components/cuda_graph_setup.py:758-762",
        _tp(0, "Capture target decode CUDA graph begin. backend=full, num_tokens_per_req=1, avail mem=5.00 GB"),
        "graph_begin",
    ),
    (
        "0.5.9",
        "speculative/eagle_worker.py:264",
        _tp(0, "Capture draft extend cuda graph begin. This can take up to several minutes. avail mem=4.00 GB"),
        "graph_begin",
    ),
    ("0.4.6.post5", "model_executor/cuda_graph_runner.py:374", "Capturing batches (avail_mem=4.10 GB):  35%|###5      | 8/23 [00:03<00:05]", "graph_begin"),
    ("0.5.23", "model_executor/runner/decode_cuda_graph_runner.py:1343", "Capturing batches (bs=160 avail_mem=4.10 GB):   4%|4         | 1/23", "graph_begin"),
    (
        "0.4.6.post5",
        "model_executor/model_runner.py:1101",
        _tp(0, "Capture cuda graph end. Time elapsed: 20.11 s. mem usage=0.90 GB. avail mem=4.10 GB."),
        "graph_end",
    ),
    (
        "0.5.23",
        "model_executor/model_runner_components/cuda_graph_setup.py:786-791",
        _tp(0, "Capture target decode CUDA graph end. bs=[1, 2, 4, 8], elapsed=20.11 s, mem usage=0.90 GB, avail mem=4.10 GB."),
        "graph_end",
    ),
    (
        "0.4.6.post5",
        "managers/scheduler.py:334",
        _tp(0, "max_total_num_tokens=421000, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=2048, context_len=40960"),
        "scheduler_ready",
    ),
    (
        "0.5.23",
        "managers/scheduler.py:1269",
        _tp(
            0,
            "max_total_num_tokens=421000, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=2048, "
            "context_len=40960, available_gpu_mem=4.10 GB",
        ),
        "scheduler_ready",
    ),
    ("uvicorn", "uvicorn/server.py", "INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)", "http_up"),
    ("0.5.23", "entrypoints/http_server.py:3072", "[2026-01-02 10:01:00] Uvicorn running on 0.0.0.0:30000 with 4 SO_REUSEPORT workers", "http_up"),
    ("0.4.6.post5", "entrypoints/http_server.py:898", "[2025-05-01 10:01:00] The server is fired up and ready to roll!", "ready"),
    ("0.5.23", "entrypoints/http_server.py:2600", "[2026-01-02 10:01:00] The server is fired up and ready to roll!", "ready"),
    (
        "0.5.9",
        "managers/tokenizer_manager.py:2502",
        "[2025-12-28 13:28:55] SIGTERM received. signum=None frame=None. Draining requests and shutting down...",
        "shutdown",
    ),
    (
        "0.5.23",
        "managers/tokenizer_manager.py:3535",
        "[2026-01-02 10:05:00] Gracefully exiting... Remaining number of requests 0. Remaining requests remaining_rids=[].",
        "shutdown",
    ),
]


@pytest.mark.parametrize("release, where, line, milestone", RELEASE_LINES, ids=["%s %s %s" % (r[0], r[3], r[1]) for r in RELEASE_LINES])
def test_each_release_wording_of_each_milestone(release, where, line, milestone):
    the_timeline = timeline([line])
    assert the_timeline.last == milestone, (release, where)
    assert the_timeline.milestones == {milestone: 0}


def test_every_milestone_has_a_release_line():
    covered = {r[3] for r in RELEASE_LINES} | {"warmup_request", "serving"}
    assert covered == {m.name for m in MILESTONES}


KV_ALLOCATED = next(r[2] for r in RELEASE_LINES if r[3] == "kv_pool")
BATCH_0_4 = _tp(0, "Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0")  # scheduler.py:1146
BATCH_0_5_23 = _tp(0, "Decode batch [813], #running-req: 4, #token: 900, token usage: 0.01, cuda graph: True, gen throughput (token/s): 310.55")
REQUEST = '[2026-01-02 10:01:00] INFO:     127.0.0.1:40000 - "POST /generate HTTP/1.1" 200 OK'


def _start(version_lines=tuple(RELEASE_LINES)):
    """A healthy start in milestone order, two TP ranks, with made-up lines around the milestones."""
    by_name = {}
    for _release, _where, line, milestone in version_lines:
        by_name.setdefault(milestone, line)
    lines = [
        "INFO 01-02 10:00:00 __init__.py:190] Automatically detected platform cuda.",
        by_name["args"],
        by_name["model_config"],
        by_name["distributed_begin"],
        by_name["distributed_begin"].replace("TP1", "TP0"),
        _tp(1, "Init torch distributed ends. mem usage=0.12 GB"),
        by_name["weight_begin"],
        _tp(1, "Load weight begin. avail mem=78.50 GB"),
        "Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:01<00:01,  1.10s/it]",
        by_name["weight_end"],
        _tp(1, "Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB, mem usage=15.30 GB."),
        by_name["kv_pool"],
        by_name["memory_pool_end"],
        by_name["graph_begin"],
        "Capturing batches (bs=1 avail_mem=4.10 GB): 100%|##########| 23/23 [00:20<00:00,  1.10it/s]",
        by_name["graph_end"],
        by_name["scheduler_ready"],
        "[2026-01-02 10:00:59] INFO:     Started server process [4242]",
        "[2026-01-02 10:00:59] INFO:     Waiting for application startup.",
        "[2026-01-02 10:00:59] INFO:     Application startup complete.",
        "[2026-01-02 10:00:59] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
        BATCH_0_4,
        REQUEST,
        by_name["ready"],
    ]
    return lines


def test_a_healthy_start_reaches_ready_then_serving():
    lines = _start()
    the_timeline = timeline(lines)
    assert the_timeline.reached == "ready" and the_timeline.phase == "serving"
    assert the_timeline.milestones["warmup_request"] == len(lines) - 3
    assert set(the_timeline.ranks) == {"", "TP0", "TP1"}
    assert the_timeline.ranks["TP1"].milestone == "weight_end"
    serving = timeline(lines + [BATCH_0_5_23, REQUEST])
    assert serving.reached == "serving" and serving.last == "serving"


def test_a_serving_tail_without_start_up_lines_is_serving():
    assert timeline([BATCH_0_5_23, REQUEST, BATCH_0_5_23]).reached == "serving"
    # 0.1.17 managers/controller/tp_worker.py:404 spells it "Prefil batch."
    assert timeline(["[gpu_id=0] Prefil batch. #new-seq: 1, #new-token: 7, #cached-token: 0, cache hit rate: 0.00%"]).reached == "serving"


def test_every_milestone_phase_is_a_catalog_phase():
    assert {m.phase for m in MILESTONES} <= set(PHASES)


def test_the_phase_is_where_the_log_stopped():
    lines = _start()
    names = []
    for end in range(1, len(lines) + 1):
        the_timeline = timeline(lines[:end])
        names.append(the_timeline.last)
    assert names.index("weight_begin") < names.index("weight_end") < names.index("kv_pool") < names.index("graph_begin") < names.index("ready")
    cut = lines.index(KV_ALLOCATED) + 1  # after "KV Cache is allocated"
    assert timeline(lines[:cut]).describe() == "starting: memory_pool (KV cache allocated)"


def test_a_second_launch_starts_a_new_timeline():
    lines = _start() + [BATCH_0_5_23, "[2026-01-02 11:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2)", _tp(0, "Load weight begin.")]
    the_timeline = timeline(lines)
    assert the_timeline.reached == "starting" and the_timeline.phase == "weight_load"
    assert the_timeline.phase_at(len(lines), "TP0") == "weight_load"
    assert the_timeline.phase_at(len(lines) - 3, "TP0") == "serving"


@pytest.mark.parametrize("version", ["0.4.6.post5", "0.5.2", "0.5.9", "0.5.23"])
def test_a_healthy_start_cut_at_every_line_is_none(version):
    own = [r for r in RELEASE_LINES if r[0] == version]
    lines = _start(own + RELEASE_LINES)
    for end in range(1, len(lines) + 1):
        result = classify(lines[:end])
        assert result["root_cause"] == "none", (end, result["evidence"])
        expected = "ready" if end == len(lines) else "starting"
        assert result["reached"] == expected
        if result["timeline"]["last_milestone"] in ("weight_end", "kv_pool", "graph_begin"):
            assert result["confidence"] == "medium" and result["phase"] in ("memory_pool", "cuda_graph")


def test_none_reports_the_phase_it_reached():
    lines = _start()
    cut = lines.index(KV_ALLOCATED) + 1
    result = _diagnose(lines[:cut])
    assert result["root_cause"] == "none" and result["reached"] == "starting"
    assert result["phase"] == "memory_pool" and result["cause_phase"] == "serving"
    assert result["timeline"]["summary"] == "starting: memory_pool (KV cache allocated)"
    assert "starting: memory_pool (KV cache allocated)" in result["summary"]
    assert _diagnose(lines)["reached"] == "ready"


@pytest.mark.parametrize(
    "crash",
    [
        [_tp(0, "Scheduler hit an exception: Traceback (most recent call last):"), "SomeNewError: nobody catalogued this yet"],
        ["[2026-01-02 10:00:30] Received sigquit from a child process. It usually means the child failed."],
        ["Killed"],
    ],
)
def test_a_crash_after_the_last_sign_of_life_is_still_a_failure(crash):
    lines = _start()[:12] + crash
    result = classify(lines)
    assert result["root_cause"] != "none"


def test_a_peer_milestone_after_a_rank_crash_does_not_hide_it():
    lines = _start()[:8] + [_tp(1, "Scheduler hit an exception: Traceback (most recent call last):"), "SomeNewError: nobody catalogued this yet"]
    lines += [_tp(0, "Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB, mem usage=15.30 GB.")]
    result = classify(lines)
    assert result["root_cause"] == "other" and result["failed_rank"] == "TP1"


# torch's OOM message (c10/cuda/CUDACachingAllocator.cpp, torch >= 2.1)
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of 79.19 GiB of which "
    "301.06 MiB is free. Including non-PyTorch memory, this process has 78.88 GiB memory in use."
)


def _traceback(rank, frame):
    return [
        _tp(rank, "Scheduler hit an exception: Traceback (most recent call last):", 30),
        '  File "/venv/lib/python3.12/site-packages/sglang/srt/model_executor/model_runner.py", line 300, in initialize',
        '  File "/venv/lib/python3.12/site-packages/sglang/srt/%s' % frame,
        OOM,
    ]


LOADING = _start()[:8]  # args .. Load weight begin on both ranks
POOLS = _start()[:13]  # .. KV Cache is allocated, Memory pool end on TP0
CAPTURE = _start()[:15]  # .. Capture cuda graph begin, Capturing batches
SERVING = _start() + [BATCH_0_5_23]


@pytest.mark.parametrize(
    "before, frame, cause, phase",
    [
        (LOADING, 'model_loader/loader.py", line 380, in load_weights_and_postprocess', "cuda_oom_weights", "weight_load"),
        # after the pools: an attention backend's workspace, no graph frame, and a misleading weight-loading frame
        (POOLS, 'layers/attention/flashinfer_backend.py", line 120, in __init__', "cuda_oom_cuda_graph", "memory_pool"),
        (POOLS, 'model_executor/model_runner.py", line 810, in load_model', "cuda_oom_cuda_graph", "memory_pool"),
        (CAPTURE, 'model_executor/cuda_graph_runner.py", line 373, in capture', "cuda_oom_cuda_graph", "cuda_graph"),
        (SERVING, 'managers/scheduler.py", line 1200, in run_batch', "cuda_oom_runtime", "serving"),
        # the warm-up request, before the ready line: activations, like serving
        (_start()[:-1], 'managers/scheduler.py", line 1200, in run_batch', "cuda_oom_runtime", "warmup"),
        # no milestone before the OOM: the frames decide
        ([], 'model_loader/loader.py", line 380, in load_weights_and_postprocess', "cuda_oom_weights", "weight_load"),
    ],
)
def test_an_oom_takes_the_cause_and_fix_of_its_phase(before, frame, cause, phase):
    result = _diagnose(before + _traceback(0, frame))
    assert result["root_cause"] == cause, result["ranking"]
    assert result["phase"] == phase
    if cause == "cuda_oom_cuda_graph":
        assert "--mem-fraction-static" in result["fix"] and "--tp-size" not in result["fix"]
    assert any(("raised in the %s phase" % phase) in note for note in result["notes"]) == (phase != result["cause_phase"])


def test_the_rank_that_was_still_loading_gets_the_weights_fix():
    lines = LOADING + [
        _tp(0, "Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB, mem usage=15.30 GB."),
        _tp(0, "KV Cache is allocated. #tokens: 421000, K size: 28.91 GB, V size: 28.91 GB"),
        _tp(0, "Capture cuda graph begin. This can take up to several minutes. avail mem=5.00 GB"),
    ]
    lines += _traceback(1, 'model_loader/loader.py", line 380, in load_weights')
    result = _diagnose(lines)
    assert result["root_cause"] == "cuda_oom_weights" and result["failed_rank"] == "TP1" and result["phase"] == "weight_load"


def test_the_capture_message_names_its_phase_whatever_the_timeline():
    lines = LOADING + [_tp(0, "Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 2.00 GiB.")]
    assert classify(lines)["root_cause"] == "cuda_oom_cuda_graph"


# 0.5.9 model_executor/model_runner.py:1081 (0.4.6.post5:591, 0.5.23 model_runner_components/load_model_utils.py:394)
PEERS_DID_NOT_FINISH = (
    "ValueError: TP rank 0 could finish the model loading, but there are other ranks that didn't finish loading. It is likely due "
    "to unexpected failures (e.g., OOM) or a slow node."
)


def test_the_first_rank_that_failed_and_its_cause():
    lines = LOADING + _traceback(3, 'model_loader/loader.py", line 380, in load_weights')
    lines += [_tp(0, "Scheduler hit an exception: Traceback (most recent call last):", 40), PEERS_DID_NOT_FINISH]
    lines += ["[2026-01-02 10:00:41] Received sigquit from a child process. It usually means the child failed."]
    result = _diagnose(lines)
    assert result["failed_rank"] == "TP3" and result["root_cause"] == "cuda_oom_weights"
    assert result["ranks_seen"] == ["TP0", "TP1", "TP3"]
    assert "first failed on TP3" in result["summary"]


def test_an_oom_before_anything_was_allocated_means_another_process_holds_the_gpu():
    """An OOM while torch distributed initialises, with no rank any further: only the CUDA context and the NCCL
    buffers were being allocated, so the GPU was already full (gpu_busy_other_process, not the weights)."""
    lines = [
        "[2026-01-02 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=2)",
        _tp(0, "Init torch distributed begin."),  # model_executor/model_runner.py:731 (0.5.9)
        _tp(1, "Init torch distributed begin."),
    ] + _traceback(1, 'distributed/parallel_state.py", line 1200, in init_distributed_environment')
    result = _diagnose(lines)
    assert result["root_cause"] == "gpu_busy_other_process" and result["phase"] == "multi_gpu"
    # once any rank has begun loading the weights, the same OOM is the weights' (the ranks move in lockstep)
    assert _diagnose(LOADING + _traceback(3, 'distributed/parallel_state.py", line 1200, in init_distributed_environment'))["root_cause"] == "cuda_oom_weights"


def test_a_rank_waiting_on_its_peers_yields_to_them_even_when_it_prints_first():
    lines = LOADING + [
        # torch ProcessGroupNCCL's watchdog on rank 0, before rank 1's own error reached the log
        _tp(0, "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600000 milliseconds"),
        _tp(1, "Scheduler hit an exception: Traceback (most recent call last):", 31),
        "ModuleNotFoundError: No module named 'flash_mla'",
    ]
    result = _diagnose(lines)
    assert result["failed_rank"] == "TP1" and result["root_cause"] == "dependency_import_error"


def test_rank_zero_alone_says_to_look_at_the_ranks_it_waited_for():
    lines = [
        _tp(0, "Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=12.00 GB, mem usage=66.10 GB."),
        # torch ProcessGroupGloo.cpp monitoredBarrier (waitAllRanks)
        "[rank0]:[E102 10:30:00.000000000 ProcessGroupGloo.cpp:143] [Rank 0]: Ranks 1, 2 failed to pass monitoredBarrier in 1800000 ms",
        _tp(0, "Scheduler hit an exception: Traceback (most recent call last):", 31),
        PEERS_DID_NOT_FINISH,
    ]
    result = _diagnose(lines)
    assert result["failed_rank"] in ("TP0", "rank0")
    assert any("waited for ranks 1, 2" in note for note in result["notes"])


def test_dp_and_torch_rank_prefixes():
    assert rank_of("[2025-07-02 07:41:59 DP7 TP7] Load weight end.") == "DP7 TP7"
    assert rank_of("[2025-07-02 07:41:59 DP0 PP1 TP3 EP3] x") == "DP0 PP1 TP3 EP3"
    assert rank_of("[rank1]: Traceback (most recent call last):") == "rank1"
    assert rank_of("[PG ID 0 PG GUID 0(default_pg) Rank 2] Watchdog caught collective operation timeout") == "rank2"
    assert rank_of("[2026-01-02 10:00:00] Received sigquit from a child process.") == ""
    assert rank_of("[gpu_id=3] Init nccl begin.") == "gpu3"
    assert rank_of("  File \"x.py\", line 1") is None
    assert line_ranks(["[2026-01-02 10:00:00 TP1] Traceback (most recent call last):", '  File "x.py", line 1', "[2026-01-02 10:00:00] y"]) == [
        "TP1",
        "TP1",
        "",
    ]


@pytest.mark.parametrize(
    "args_line",
    [
        "[2026-01-02 10:00:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-R1', tp_size=16, nnodes=2, node_rank=1)",
        "[2026-01-02 10:00:00] server_args={'model_path': 'deepseek-ai/DeepSeek-R1', 'tp_size': 16, 'nnodes': 2, 'node_rank': 1}",
    ],
)
def test_the_node_of_a_multi_node_log(args_line):
    lines = [args_line, "[2026-01-02 10:00:05 TP9] Init torch distributed begin.", "[2026-01-02 10:00:06 TP12] Init torch distributed begin."]
    lines += [_tp(12, "Scheduler hit an exception: Traceback (most recent call last):", 30), "ModuleNotFoundError: No module named 'deep_ep'"]
    result = _diagnose(lines)
    assert result["numbers"]["node_rank"] == 1 and result["failed_rank"] == "TP12" and result["ranks_seen"] == ["TP9", "TP12"]


def test_torch_rank_prefixes_find_the_failed_rank():
    lines = [
        "[rank0]:[E102 10:30:00.000000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600001 milliseconds before timing out.",
        "[rank1]: Traceback (most recent call last):",
        '[rank1]:   File "/venv/lib/python3.12/site-packages/sglang/srt/model_loader/loader.py", line 380, in load_weights',
        "[rank1]: " + OOM,
    ]
    result = _diagnose(lines)
    assert result["failed_rank"] == "rank1" and result["root_cause"] == "cuda_oom_weights"


@pytest.mark.parametrize("line", ["KeyError: 'newmodel'", "ValueError: 'x' is not a valid LoadFormat [repeated 6x across cluster]", "torch.OutOfMemoryError"])
def test_an_excerpt_of_only_the_exception_line_is_not_healthy(line):
    assert classify([line])["root_cause"] != "none"
    assert classify([_tp(0, "Load weight begin. avail mem=78.50 GB"), line])["root_cause"] != "none"


def test_a_requested_shutdown_after_serving_is_healthy_and_its_503_health_checks_no_crash():
    """The drain SGLang does on SIGTERM (systemctl stop): health checks answered 503 until it exits are expected."""
    lines = [
        '[2025-12-27 23:41:06] INFO:     127.0.0.1:52686 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
        "[2025-12-28 13:28:55] SIGTERM received. signum=None frame=None. Draining requests and shutting down...",
        "[2025-12-28 13:28:55] Health check request received during shutdown. Returning 503.",
        '[2025-12-28 13:28:55] INFO:     127.0.0.1:51912 - "GET /health HTTP/1.1" 503 Service Unavailable',
        "[2025-12-28 13:28:56] Gracefully exiting... Remaining number of requests 0. Remaining requests remaining_rids=[].",
    ]
    assert timeline(lines).reached == "serving"
    result = diagnose({"log": {"exists": True, "lines": lines, "mtime": 0.0}}, since_marker=False)
    assert result["root_cause"] == "none"


def test_health_probes_answered_503_while_warming_up_are_no_crash():
    """entrypoints/http_server.py health_generate answers 503 while server_status is Starting: a launcher polling it
    during warm-up (the Ascend CI run in the training corpus) sees 503s before the first 200."""
    lines = [
        _tp(0, "max_total_num_tokens=527360, chunked_prefill_size=-1, max_prefill_tokens=49152, max_running_requests=120, context_len=40960"),
        "[2026-01-04 07:53:46] INFO:     Uvicorn running on http://127.0.0.1:21000 (Press CTRL+C to quit)",
        '[2026-01-04 07:53:49] INFO:     127.0.0.1:53546 - "GET /health_generate HTTP/1.1" 503 Service Unavailable',
    ]
    assert classify(lines)["root_cause"] == "none"
    failed = lines[:2] + ['[2026-01-04 07:53:49] INFO:     127.0.0.1:53546 - "POST /generate HTTP/1.1" 500 Internal Server Error']
    assert classify(failed)["root_cause"] == "other"


CONTEXT_WARNING = (
    "[2025-08-11 02:17:45] Warning: User-specified context_length (8192) is greater than the derived context_length "
    "(2048). This may lead to incorrect model outputs or CUDA errors. Note that the derived context_length may differ "
    "from max_position_embeddings in the model's config."
)


def test_the_context_length_warning_is_no_failure_but_its_error_is():
    """configs/model_config.py (0.5.9:367-383) logs the check as a warning when SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN
    is set and raises the same words plus "To allow overriding this maximum" otherwise."""
    starting = [CONTEXT_WARNING, _tp(0, "Load weight begin. avail mem=78.50 GB")]
    assert classify(starting)["root_cause"] == "none"
    error = (
        "ValueError: " + CONTEXT_WARNING.split("] ", 1)[1] + " To allow overriding this maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"
    )
    result = classify(["Traceback (most recent call last):", '  File "/sglang/srt/configs/model_config.py", line 382, in __init__', error])
    assert result["root_cause"] == "context_length_exceeds_model"
    assert result["numbers"]["derived_context_length"] == 2048


def test_an_oom_allocating_the_kv_pool_is_the_pool_not_fitting_and_its_fix_lowers_the_fraction():
    """mem_cache/memory_pool.py MHATokenToKVPool._create_buffers: the pool SGLang sized from its profile did not fit
    (sglang #12496, Gemma-3-12B on 2x RTX 4090, in the training corpus)."""
    lines = [
        '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 1740, in init_memory_pool',
        "    self.token_to_kv_pool = MHATokenToKVPool(",
        '  File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/memory_pool.py", line 527, in __init__',
        "    self._create_buffers()",
        '  File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/memory_pool.py", line 600, in _create_buffers',
        "    torch.zeros(",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a total capacity of 23.52 GiB of which 13.00 MiB is free.",
    ]
    result = _diagnose(lines)
    assert result["root_cause"] == "kv_pool_too_small"
    assert "lower --mem-fraction-static" in result["fix"] and "raise" not in result["fix"]


def test_an_oom_on_a_gpu_another_process_half_filled_is_that_process_whatever_the_phase():
    """The MI300X CI run in the training corpus (michael-amd/sglang-ci): 73 GB free of 192 GiB when the weights
    began to load, then the attention backend's workspace ran out; freeing the GPU is the fix, not a smaller graph.
    A draft model's later "Load weight begin" (the target already loaded) does not count."""
    lines = [
        _tp(0, "Load weight begin. avail mem=73.11 GB"),
        _tp(0, "Load weight end. type=Llama4ForConditionalGeneration, dtype=torch.bfloat16, avail mem=25.29 GB, mem usage=48.79 GB."),
        _tp(0, "KV Cache is allocated. #tokens: 206971, K size: 2.37 GB, V size: 2.37 GB"),
        _tp(0, "Load weight begin. avail mem=11.40 GB"),
        '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 1940, in init_attention_backend',
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 20.31 GiB. GPU 5 has a total capacity of 191.98 GiB of which 11.65 GiB is free.",
    ]
    result = _diagnose(lines)
    assert result["root_cause"] == "gpu_busy_other_process"
    assert "118.87 GiB" in result["fix"]
    # the same OOM on a GPU the start had to itself stays the phase's
    alone = [lines[0].replace("73.11", "190.50")] + lines[1:]
    assert _diagnose(alone)["root_cause"] == "cuda_oom_cuda_graph"


def test_a_quantization_method_that_refuses_the_dtype_asks_for_float16():
    """model_loader/loader.py _get_quantization_config: AWQ kernels take float16 only (the DeepSeek-V3.2 AWQ run in the
    training corpus)."""
    lines = [
        '  File "/sglang/srt/model_loader/loader.py", line 208, in _get_quantization_config',
        "    raise ValueError(",
        "ValueError: torch.bfloat16 is not supported for quantization method awq. Supported dtypes: [torch.float16]",
    ]
    result = _diagnose(lines)
    assert result["root_cause"] == "unsupported_quantization"
    assert "awq kernels take only torch.float16" in result["fix"] and "--dtype float16" in result["fix"]


def test_a_repo_id_refused_while_the_tokenizer_loads_is_the_tokenizer_paths():
    """utils/hf_transformers_utils.py get_tokenizer -> AutoTokenizer: a --tokenizer-path that is neither a folder nor a
    repo id (SGLang's ROCm CI, GROK 2.5, in the training corpus) is a tokenizer error; the same refusal loading the
    model config stays model_not_found."""
    error = "huggingface_hub.errors.HFValidationError: Cannot have -- or .. in repo_id: 'alvarobartt--grok-2-tokenizer'."
    frames = [
        "Traceback (most recent call last):",
        '  File "/sglang/srt/utils/hf_transformers_utils.py", line 352, in get_tokenizer',
        "    tokenizer = AutoTokenizer.from_pretrained(",
    ]
    assert _diagnose(frames + [error])["root_cause"] == "tokenizer_error"
    config = ["Traceback (most recent call last):", '  File "/sglang/srt/configs/model_config.py", line 169, in __init__', "    self.hf_config = get_config("]
    assert _diagnose(config + [error])["root_cause"] == "model_not_found"


def test_two_causes_scored_alike_leave_the_answer_at_medium_confidence_with_the_other_named():
    """Validation round 6 called a missing local path a download failure at high confidence, the two causes tied:
    a runner-up within RIVAL_MARGIN of the winner means the evidence does not single one out."""
    tie = [
        "huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/models/x'.",
        "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://huggingface.co/api/models/x",
    ]
    result = classify(tie)
    assert result["root_cause"] == "model_download_failed" and result["confidence"] == "medium"
    assert any("also fits model_not_found" in note for note in result["notes"])
    alone = classify(tie[:1])
    assert alone["root_cause"] == "model_not_found" and alone["confidence"] == "high"


def test_an_invalid_device_ordinal_on_rocm_is_a_gpu_index_past_the_visible_gpus():
    """torch's set_device on a rank whose gpu id is past HIP_VISIBLE_DEVICES (SGLang's ROCm CI, GROK 2 at TP 8, in the
    training corpus): HIP words cudaErrorInvalidDevice as CUDA does, and the fix sizes the flags to the visible GPUs."""
    lines = [
        '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 679, in init_torch_distributed',
        "    torch.get_device_module(self.device).set_device(self.gpu_id)",
        "torch.AcceleratorError: HIP error: invalid device ordinal",
        "GPU device may be out of range, do you have enough GPUs?",
    ]
    result = _diagnose(lines)
    assert result["root_cause"] == "driver_cuda_mismatch"
    assert "--base-gpu-id" in result["fix"] and "CUDA_VISIBLE_DEVICES" in result["fix"]


@pytest.mark.parametrize(
    "error, cause",
    [
        ("NameError: name 'get_mla_metadata_info_v1' is not defined", "dependency_import_error"),
        ("TypeError: fused_add_rms_norm() missing 2 required positional arguments: 'weight' and 'epsilon'", "dependency_import_error"),
        ("RuntimeError: No HIP GPUs are available", "driver_cuda_mismatch"),
        ("ValueError: load_weights failed because some weights are missing: missing_exclude_scales={'model.layers.5.x'}", "model_not_found"),
    ],
)
def test_an_exception_raised_inside_graph_capture_is_its_own_cause_not_the_capture(error, cause):
    """SGLang's ROCm CI (round 10, in the training corpus): an exception whose traceback runs through the capture
    frames is the wrapped cause; the frame only says where it struck."""
    frames = [
        "Traceback (most recent call last):",
        '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 502, in capture',
        "    self.capture_one_batch_size(bs, forward)",
        '  File "/sgl-workspace/sglang/python/sglang/srt/layers/layernorm.py", line 168, in forward_hip',
        "    fused_add_rms_norm(x, residual, self.weight.data, self.variance_epsilon)",
    ]
    assert _diagnose(frames + [error])["root_cause"] == cause
