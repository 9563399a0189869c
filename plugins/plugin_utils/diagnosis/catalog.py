# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The closed catalog of SGLang start-up and serving failures the diagnoser can name.

Each root cause has weighted patterns, modelled on ROCm/rocm-cli's ``diagnose`` (a cause's score is the sum
of its two strongest distinct hits, at least 50 to match and 80 for high confidence). Patterns are SGLang's
own messages (``file:line`` of the 0.5.9 and 0.5.23 wheels cited beside each) and the well-known messages of
torch, NCCL, the CUDA driver, transformers / huggingface_hub, argparse, uvicorn, systemd and the kernel.
Bump ``CATALOG_VERSION`` whenever an id, a phase or a pattern changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.timeline import PROBE_ENDPOINTS

CATALOG_VERSION = "2026.12.20"

MIN_SCORE = 50
HIGH_SCORE = 80

PHASES = (
    "args",
    "import",
    "driver",
    "model_download",
    "model_load",
    "weight_load",
    "memory_pool",
    "cuda_graph",
    "warmup",
    "serving",
    "network",
    "multi_gpu",
    "host",
    "unknown",
)

# The start-up milestones (where a log stopped, the phase a failure happened in) are in timeline.py.

OOM_RE = re.compile(
    r"torch\.(?:cuda\.)?OutOfMemoryError|CUDA out of memory|CUDA error: out of memory|cudaErrorMemoryAllocation"
    r"|CUBLAS_STATUS_ALLOC_FAILED|out of memory.{0,40}Tried to allocate|HIP out of memory|CUDA driver error: out of memory"
    r"|Triton Error \[CUDA\]: out of memory",
    re.IGNORECASE,
)
# torch c10/cuda/CUDACachingAllocator.cpp (DeviceCachingAllocator::malloc, TORCH_CHECK_WITH(OutOfMemoryError, ...)):
# "CUDA out of memory. Tried to allocate X (GPU 0; T total capacity; A already allocated; F free; ...)" before 2.1,
# "... GPU 0 has a total capacty of T of which F is free." in 2.1 (sic), "total capacity of" since 2.2; the class is
# torch.cuda.OutOfMemoryError (2.0-2.4) and torch.OutOfMemoryError (2.5+); ROCm builds say "HIP out of memory".
# c10/cuda/driver_api.h C10_CUDA_DRIVER_CHECK: "CUDA driver error: out of memory" (expandable segments, cuMemCreate).
# triton third_party/nvidia/backend/driver.c gpuAssert: "Triton Error [CUDA]: " + cuGetErrorString (a kernel launch).


# kv_pool_too_small's fix for a hybrid model whose log lacks the budget's numbers (diagnose.py picks it by name)
HYBRID_KV_POOL_FIX = (
    "hybrid model {model_class}: run the llmops.sglang.sglang_memory_budget preflight; on 0.5.9 this message "
    "usually means the mamba state pool does not fit, so lower --max-running-requests rather than raising "
    "--mem-fraction-static {mem_fraction_static}"
)


@dataclass(frozen=True)
class Pattern:
    """A regex, its weight (0-100) and what a hit is evidence of.

    ``wrapper`` marks a message that wraps whatever exception happened inside it (SGLang's
    ``Capture cuda graph failed: {e}``): a cause matched only by wrappers yields to any specific cause.
    ``warning`` marks a line SGLang logs as a warning and carries on past: it is evidence only when a Python
    exception follows it (a kill by a signal or by the OOM killer says nothing about it).
    """

    regex: str
    weight: int
    label: str
    flags: int = 0
    wrapper: bool = False
    warning: bool = False

    def compiled(self):
        return re.compile(self.regex, self.flags)


@dataclass(frozen=True)
class RootCause:
    """One entry of the catalog.

    ``requires`` gates the cause: its patterns only count when that regex matches somewhere in the tail.
    ``phase_bonus`` is added when the log's start-up progress stopped in ``phase``.
    ``fix`` holds templates over the parsed numbers; the first whose fields are all known is used.
    ``budgeted``: the preflight budget replays this failure (its root cause and fix can replace the log's).
    ``retunable``: a fix of the budget engine (fewer requests, another fraction or pool split) may cure it.
    """

    id: str
    phase: str
    title: str
    explanation: str
    fix: tuple
    verify: str
    patterns: tuple = ()
    requires: str | None = None
    phase_bonus: int = 0
    runtime: bool = False
    extra: dict = field(default_factory=dict)
    budgeted: bool = False
    retunable: bool = False


# A model's failed divisibility check between its head / expert counts and a parallel size, as the traceback prints
# the failing line ("assert self.total_num_heads % tp_size == 0", "assert tp_size % self.total_num_kv_heads == 0").
# One side must be a parallel size: "assert self.hidden_size % self.total_num_heads == 0" is a model-config check.
_PARALLEL_SIZE = r"[\w.()]*(?:tp_size|world_size|ep_size|dp_size)[\w.()]*"
DIVISIBILITY_ASSERT_RE = r"^\s*assert\s+([\w.()]+\s*%%\s*%s|%s\s*%%\s*[\w.()]+)\s*==\s*0\s*$" % (_PARALLEL_SIZE, _PARALLEL_SIZE)

_OOM_FRAMES_WEIGHTS = (
    r"load_weights|load_model\b|weight_utils|model_loader|safetensors_weights_iterator|DefaultModelLoader"
    r"|create_weights|_initialize_model"
)
# after the KV pool, before and during capture: the attention backends' workspaces (model_runner.py
# init_attention_backend -> _get_attention_backend; flashinfer_backend.py global_workspace_buffer = torch.empty(...))
_OOM_FRAMES_GRAPH = (
    r"cuda_graph_runner|capture_one_batch|init_device_graphs|graph_capture|CudaGraphRunner|def capture\b|\.capture\("
    r"|init_attention_backend|_get_attention_backend|workspace_buffer = torch\.empty"
)
_OOM_FRAMES_RUNTIME = (
    r"forward_batch_generation|run_batch|event_loop_(?:normal|overlap)|forward_extend|forward_decode"
    r"|process_batch_result|Decode batch\.|Prefill batch\."
)

CATALOG = (
    RootCause(
        id="none",
        phase="serving",
        title="healthy start",
        explanation=(
            "The log shows no failure: the launch is still starting (reached says how far it got: the last start-up "
            "milestone and its phase), reached 'The server is fired up and ready to roll!', or is serving requests."
        ),
        fix=("nothing to fix; a start that is still going goes on to 'The server is fired up and ready to roll!' (the phase says where it is)",),
        verify="curl -fsS http://127.0.0.1:<port>/health",
        patterns=(
            # 0.5.9 entrypoints/http_server.py:1836, grpc_server.py:1179; 0.5.23 entrypoints/http_server.py:2600
            Pattern(r"The server is fired up and ready to roll!", 100, "ready line"),
            # uvicorn's start-up lines: the HTTP server is up (warm-up may still follow)
            Pattern(r"Uvicorn running on https?://", 60, "HTTP server up"),
            Pattern(r"Application startup complete", 30, "HTTP app started"),
            # A serving tail (the ready line scrolled out): the scheduler's periodic batch lines, 0.5.9
            # managers/scheduler_metrics_mixin.py:214,366; 0.5.23 managers/scheduler_components/
            # metrics_reporter.py:754,963 ("Decode batch [N], #running-req: ..."; older releases "Decode batch. ")
            Pattern(r"Decode batch(?: \[\d+\])?[.,] #running-req: \d+", 50, "decode batches running"),
            Pattern(r"Prefill batch(?: \[\d+\])?[.,] #new-seq: \d+", 40, "prefill batches running"),
            # uvicorn's access log: a request answered 200 (a probe such as /health answered 200 shows the HTTP
            # server up, not that requests are served: timeline.PROBE_ENDPOINTS)
            Pattern(r"\"(?:POST|GET) /(?!%s)\S* HTTP/1\.[01]\" 200\b" % PROBE_ENDPOINTS, 50, "request answered 200"),
        ),
    ),
    RootCause(
        id="kv_pool_too_small",
        phase="memory_pool",
        title="no GPU memory left for the KV cache",
        explanation=(
            "After the weights were loaded, the share of GPU memory allowed by --mem-fraction-static leaves no room "
            "for the KV cache pool. On SGLang 0.5.9 the same message also hides a mamba/linear-attention state "
            "pool that does not fit (hybrid models such as Qwen3.5/3.6, Qwen3-Next, Nemotron-H)."
        ),
        fix=(
            "the KV cache pool's own allocation ran out of GPU memory ({kv_pool_allocation}): the pool SGLang sized from "
            "its memory profile does not fit what was free when it was allocated; lower --mem-fraction-static (now "
            "{mem_fraction_static}) by 0.03-0.05 and check that no other process takes GPU memory during the start",
            "the KV cache pool's own allocation ran out of GPU memory ({kv_pool_allocation}): the pool SGLang sized from "
            "its memory profile does not fit what was free when it was allocated; lower --mem-fraction-static by "
            "0.03-0.05 and check that no other process takes GPU memory during the start",
            "raise --mem-fraction-static above {suggested_mem_fraction_static} (minimum viable "
            "{min_viable_mem_fraction_static}, now {mem_fraction_static}), or shrink the weights per GPU "
            "(higher --tp-size, a quantized checkpoint)",
            HYBRID_KV_POOL_FIX,
            "raise --mem-fraction-static (now {mem_fraction_static}) or shrink the weights per GPU (higher --tp-size, "
            "a quantized checkpoint, --kv-cache-dtype fp8_e4m3); run the llmops.sglang.sglang_memory_budget preflight "
            "for exact numbers",
            "raise --mem-fraction-static or shrink the weights per GPU (higher --tp-size, a quantized checkpoint); run "
            "the llmops.sglang.sglang_memory_budget preflight for exact numbers",
        ),
        verify="the log shows 'KV Cache is allocated. ... #tokens: N' with N > 0 and then 'fired up'",
        patterns=(
            # 0.5.9 model_executor/model_runner_kv_cache_mixin.py:415-419; 0.5.23 model_executor/pool_configurator.py:94-99
            Pattern(r"Not enough memory\. Please try to increase --mem-fraction-static", 90, "SGLang pool sizing error"),
            # 0.5.23 mem_cache/kv_cache_configurator.py:3050-3058
            Pattern(r"Loaded weights leave no GPU memory for the KV cache", 100, "SGLang KV budget error"),
            # 0.5.9 managers/tp_worker.py:282,294; 0.5.23 managers/tp_worker.py:420,425
            Pattern(r"Memory pool size is too small|max_running_request is zero", 80, "SGLang pool assertion"),
            # 0.5.23 model_executor/pool_configurator.py:210-216, 1024-1031 (hybrid sliding-window models)
            Pattern(r"SWA pool \(\d+ tokens\) cannot hold even one request", 100, "SWA pool error"),
            Pattern(r"SWA pool cap \(\d+ tokens.{0,40}leaves no room for the full KV pool", 100, "SWA pool error"),
            Pattern(r"KV pool holds \d+ tokens, fewer than --context-length", 30, "KV pool smaller than context"),
            # 0.5.9 model_executor/model_runner_kv_cache_mixin.py:381; 0.5.23 mem_cache/kv_cache_configurator.py:3102
            Pattern(r"is larger than the profiled value -\d+|max_total_num_tokens=-\d+", 90, "negative KV budget"),
            Pattern(r"(?:model_runner_kv_cache_mixin|kv_cache_configurator|pool_configurator)\.py\", line \d+", 10, "pool sizing frame"),
        ),
        budgeted=True,
        retunable=True,
    ),
    RootCause(
        id="mamba_pool_too_small",
        phase="memory_pool",
        title="the mamba / linear-attention state pool does not fit",
        explanation=(
            "Hybrid models keep one recurrent state per running request (and, with speculative decoding, one per "
            "draft token). That pool is sized from --max-running-requests and does not fit in the memory left "
            "after the weights."
        ),
        fix=(
            "lower --max-running-requests (max_mamba_cache_size={max_mamba_cache_size}, {mamba_cache_per_req_mb} MB "
            "per request, {total_rest_memory_gb} GB left), or fewer --speculative-num-draft-tokens, or "
            "--mamba-ssm-dtype bfloat16",
            "lower --max-running-requests, or fewer --speculative-num-draft-tokens, or --mamba-ssm-dtype bfloat16; "
            "run the llmops.sglang.sglang_memory_budget preflight for the exact value",
        ),
        verify="the log shows 'Mamba Cache is allocated. max_mamba_cache_size: K' with K > 0 and then 'fired up'",
        patterns=(
            # 0.5.23 mem_cache/kv_cache_configurator.py:3392-3402
            Pattern(r"Not enough GPU memory for hybrid \(mamba/linear-attention\) state cache", 100, "mamba pool error"),
            # 0.5.23 mem_cache/kv_cache_configurator.py:3152-3160
            Pattern(r"Hybrid \(mamba/linear-attention\) state cache is too small to serve", 100, "mamba pool error"),
            # 0.5.23 mem_cache/kv_cache_configurator.py:3140-3149 (warning)
            Pattern(r"max_running_requests is capped to \d+ by the mamba state cache", 30, "mamba cap warning"),
            # torch aten/src/ATen/EmptyTensor.h check_size_nonnegative, raised inside the pool's allocation: 0.5.9
            # model_executor/model_runner_kv_cache_mixin.py:460 HybridReqToTokenPool( -> mem_cache/memory_pool.py:476
            # self.mamba_pool = MambaPool( (max_mamba_cache_size < 0); 0.5.23 mem_cache/memory_pool.py:1407,1426
            # _init_mamba_pool. Neither line alone names the mamba pool's size as the cause.
            Pattern(r"Trying to create tensor with negative dimension -\d+", 45, "negative pool size"),
            Pattern(r"\bHybridReqToTokenPool\(|self\.mamba_pool = \w*MambaPool\(|in _init_mamba_pool\b", 40, "mamba pool frame"),
        ),
        budgeted=True,
        retunable=True,
    ),
    RootCause(
        id="cuda_oom_weights",
        phase="weight_load",
        title="CUDA out of memory while loading the weights",
        explanation="The model's weights (per GPU) do not fit in the free GPU memory.",
        fix=(
            "shrink the weights per GPU: higher --tp-size, a quantized checkpoint (FP8/AWQ) or a smaller model; free "
            "the GPU (failed allocation {failed_alloc}, {gpu_free} free of {gpu_total})",
            "shrink the weights per GPU: higher --tp-size, a quantized checkpoint (FP8/AWQ) or a smaller model, and "
            "check nothing else holds GPU memory (nvidia-smi)",
        ),
        verify="the log shows 'Load weight end. ... mem usage=W GB' on every rank",
        requires=OOM_RE.pattern,
        phase_bonus=35,
        extra={"bonus_phase": "weight_load"},
        patterns=(
            Pattern(OOM_RE.pattern, 50, "CUDA OOM", re.IGNORECASE),
            Pattern(_OOM_FRAMES_WEIGHTS, 35, "weight-loading frame"),
        ),
        budgeted=True,
        retunable=True,
    ),
    RootCause(
        id="cuda_oom_cuda_graph",
        phase="cuda_graph",
        title="CUDA out of memory while capturing CUDA graphs",
        explanation=(
            "The KV pool took its share and the memory left outside --mem-fraction-static is too small for what is "
            "allocated after it: the attention backend's workspace, then CUDA graph capture at the largest batch size."
        ),
        fix=(
            "lower --mem-fraction-static (now {mem_fraction_static}) by about 0.03-0.05 or lower --cuda-graph-max-bs "
            "(failed at bs={capture_bs}, avail {available_gpu_mem_gb} GB)",
            "lower --mem-fraction-static by about 0.03-0.05 or lower --cuda-graph-max-bs (e.g. 16)",
        ),
        verify="the log shows 'Capture cuda graph end' (or 'Capture target ... CUDA graph end') and then 'fired up'",
        requires=OOM_RE.pattern,
        phase_bonus=35,
        extra={"bonus_phase": "cuda_graph"},
        patterns=(
            # 0.5.9 model_executor/cuda_graph_runner.py:373,936; 0.5.23 model_executor/runner/decode_cuda_graph_runner.py:598-604
            Pattern(r"Capture cuda graph failed:.{0,200}(?:out of memory|OutOfMemoryError)", 100, "graph capture OOM", re.IGNORECASE),
            Pattern(OOM_RE.pattern, 50, "CUDA OOM", re.IGNORECASE),
            Pattern(_OOM_FRAMES_GRAPH, 35, "graph-capture frame"),
        ),
        budgeted=True,
        retunable=True,
    ),
    RootCause(
        id="cuda_oom_runtime",
        phase="serving",
        title="CUDA out of memory while serving",
        explanation="A prefill or decode batch needed more activation memory than is left outside the static pools.",
        runtime=True,
        fix=(
            "lower --mem-fraction-static (now {mem_fraction_static}) by 0.05, or --chunked-prefill-size 4096 (prefill "
            "OOM) / lower --max-running-requests (decode OOM); failed allocation {failed_alloc}",
            "lower --mem-fraction-static by 0.05, or --chunked-prefill-size 4096 (prefill OOM) / lower --max-running-requests (decode OOM)",
        ),
        verify="replay the workload; 'torch.OutOfMemoryError' no longer appears",
        requires=OOM_RE.pattern,
        phase_bonus=40,
        extra={"bonus_phase": "serving"},
        patterns=(
            Pattern(OOM_RE.pattern, 50, "CUDA OOM", re.IGNORECASE),
            Pattern(_OOM_FRAMES_RUNTIME, 25, "serving frame"),
            # the OOM comes back as a request's error body (openai_api/protocol.py ErrorResponse, {"error": {"message":
            # ...}} or {"object": "error", "message": ...}): the server was up and answering, so it was serving-time work
            Pattern(r'"(?:message|detail)"\s*:\s*"[^"]{0,80}(?:CUDA out of memory|OutOfMemoryError)', 70, "OOM answered to a request"),
        ),
        budgeted=False,
        retunable=True,
    ),
    RootCause(
        id="kv_pool_exhausted_runtime",
        phase="serving",
        title="the KV cache pool ran out while serving",
        explanation="The running batch needed more KV tokens than the pool holds, even after retracting requests.",
        runtime=True,
        fix=(
            "lower --max-running-requests or --chunked-prefill-size, or raise --mem-fraction-static to grow the "
            "pool ({max_total_num_tokens} tokens; tried to allocate {tokens_to_allocate})",
            "lower --max-running-requests or --chunked-prefill-size, or raise --mem-fraction-static to grow the pool",
        ),
        verify="token usage stays below 0.9 in the 'Decode batch' lines under the same load",
        patterns=(
            # 0.5.9 mem_cache/common.py:217,285,411; 0.5.23 mem_cache/allocation.py:163,239,613
            Pattern(r"(?:Prefill|Decode) out of memory\. Try to lower your batch size", 100, "KV allocation failed"),
            Pattern(r"Out of memory\. Try to lower your batch size", 90, "KV allocation failed"),
            # 0.5.23 managers/schedule_batch.py:3515-3517
            Pattern(r"Out of memory even after retracting all other requests", 90, "retract failed"),
            # 0.5.9 managers/scheduler.py:2243; 0.5.23 managers/scheduler.py:4526 (warning only)
            Pattern(r"KV cache pool is full\. Retract requests|Decode out of memory happened", 55, "retract warning"),
            Pattern(r"Input length \(\d+ tokens\) exceeds the maximum allowed length \(\d+ tokens\)", 60, "request longer than the KV pool allows"),
        ),
        budgeted=False,
        retunable=True,
    ),
    RootCause(
        id="req_pool_exhausted_runtime",
        phase="serving",
        title="request slots (or their mamba states) ran out",
        explanation=("More requests were admitted than the request-to-token pool (or the per-request mamba state pool) has slots for."),
        runtime=True,
        fix=(
            "set a smaller --max-running-requests (now {max_running_requests}), or for hybrid models raise --mamba-full-memory-ratio / --max-mamba-cache-size",
            "set a smaller --max-running-requests, or for hybrid models raise --mamba-full-memory-ratio / --max-mamba-cache-size",
        ),
        verify="replay the workload; no 'alloc_req_slots runs out of memory' / 'Not enough space for mamba cache' / 'Can not alloc mamba cache'",
        patterns=(
            # 0.5.9 mem_cache/common.py:320; 0.5.23 mem_cache/allocation.py:343-348
            Pattern(r"alloc_req_slots runs out of memory", 100, "request slots exhausted"),
            # 0.5.9 mem_cache/memory_pool.py:516,534; 0.5.23 mem_cache/memory_pool.py:1599,1617
            Pattern(r"Not enough space for mamba cache", 90, "mamba slots exhausted"),
            # 0.5.9 mem_cache/memory_pool.py:527,538; 0.5.23 mem_cache/memory_pool.py:1621,1762
            Pattern(r"Not enough space for mamba ping pong idx", 90, "mamba slots exhausted"),
            # the hybrid radix cache found no free mamba state even after evicting: 0.5.3.post2-0.5.20
            # mem_cache/mamba_radix_cache.py (0.5.9 :622,1008), 0.5.23 mem_cache/unified_cache/components/mamba.py:221,552;
            # loading a state back from the host cache, 0.5.23 unified_cache/components/mamba.py:809; LMCache, 0.5.23
            # mem_cache/storage/lmcache/lmcache_unified_radix_cache.py:467
            Pattern(r"Can not alloc mamba cache|Cannot alloc mamba for load_back|Cannot allocate Mamba request state", 90, "mamba radix cache exhausted"),
        ),
        budgeted=False,
        retunable=True,
    ),
    RootCause(
        id="host_ram_oom_killed",
        phase="host",
        title="killed by the host (or container) OOM killer",
        explanation=(
            "The process ran out of host RAM (weights are staged in RAM while loading; the LXC memory limit counts) and the kernel killed it with SIGKILL."
        ),
        fix=(
            "give the container more RAM (pct set <vmid> --memory) or lower host-side use (fewer "
            "--model-loader-extra-config workers, no --cpu-offload-gb); exit code {exit_code}",
            "give the container more RAM (pct set <vmid> --memory) or lower host-side use (no --cpu-offload-gb, fewer loader workers)",
        ),
        verify="dmesg -T | grep -i oom (or journalctl -k) shows no kill of the new PIDs and the unit stays active",
        patterns=(
            Pattern(r"Out of memory: Killed process \d+", 95, "kernel OOM killer"),
            Pattern(r"Memory cgroup out of memory", 90, "cgroup OOM"),
            # Slurm's task/cgroup plugin at step end: "error: Detected 1 oom_kill event in StepId=N.batch. Some of the
            # step tasks have been OOM Killed."
            Pattern(r"Detected \d+ oom_kill events? in StepId=|step tasks have been OOM Killed", 90, "Slurm cgroup OOM kill"),
            Pattern(r"invoked oom-killer|oom-kill:|oom_reaper: reaped process", 70, "kernel OOM killer"),
            # systemd: unit_log_failure / service_sigchld_event
            Pattern(r"A process of this unit has been killed by the OOM killer|Failed with result 'oom-kill'", 100, "systemd OOM result"),
            # 0.5.23 entrypoints/engine.py:2002-2010; 0.5.9 entrypoints/engine.py:896-900 ("scheduler is dead", then
            # "Exit code: -9")
            Pattern(r"scheduler died during initialization \(exit code: -9\)", 90, "scheduler SIGKILLed"),
            Pattern(r"Exit code: -9\s*$", 85, "scheduler SIGKILLed"),
            Pattern(r"(?:exit ?code[:=]? ?-9|exitcode=-9|status=9/KILL|signal 9\b|Killed\s*$)", 45, "SIGKILL"),
            Pattern(r"std::bad_alloc|Cannot allocate memory|\bMemoryError\b", 60, "host allocation failed"),
        ),
    ),
    RootCause(
        id="cuda_graph_capture_error",
        phase="cuda_graph",
        title="CUDA graph capture failed (not memory)",
        explanation=(
            "Capturing CUDA graphs (or compiling the captured model with torch.compile: a dynamo / inductor error) "
            "failed with an error other than out-of-memory."
        ),
        fix=(
            "drop --enable-torch-compile (piecewise graphs: leave out --enable-piecewise-cuda-graph in 0.5.9, add "
            "--disable-piecewise-cuda-graph in 0.5.10-0.5.13; 0.5.23 prefill graphs: --cuda-graph-backend-prefill=breakable), "
            "or run once with --disable-cuda-graph (0.5.9) / --cuda-graph-backend-decode=disabled (0.5.23) to confirm, "
            "or lower --cuda-graph-max-bs (failed at bs={capture_bs})",
            "drop --enable-torch-compile (piecewise graphs: leave out --enable-piecewise-cuda-graph in 0.5.9, add "
            "--disable-piecewise-cuda-graph in 0.5.10-0.5.13; 0.5.23 prefill graphs: --cuda-graph-backend-prefill=breakable), "
            "or run once with --disable-cuda-graph (0.5.9) / --cuda-graph-backend-decode=disabled (0.5.23) to confirm, "
            "or lower --cuda-graph-max-bs",
        ),
        verify="the log shows the graph-capture end line and then 'fired up'",
        patterns=(
            # 0.5.9 model_executor/cuda_graph_runner.py:373, piecewise_cuda_graph_runner.py:281,
            # speculative/eagle_draft_cuda_graph_runner.py:133; 0.5.23 runner/decode_cuda_graph_runner.py:603
            # The message wraps the exception raised inside capture ("Capture cuda graph failed: {e}", older
            # releases "Capture CUDA graph failed"), so a specific cause found in {e} (a JIT build, a driver
            # error, a feature check) is the root and this one yields to it.
            Pattern(r"Capture cuda graph failed", 75, "graph capture error", re.IGNORECASE, wrapper=True),
            # 0.5.23 model_executor/runner_backend_utils/__init__.py:23-28
            Pattern(r"Fail when using backend: \S+ for prefill runner", 75, "prefill graph error", wrapper=True),
            # 0.5.10-0.5.13 compilation/piecewise_context_manager.py:49 (logger.error, then re-raised) and its hint at
            # :126 / :123 / :123 / :136, piecewise graphs being on by default there
            Pattern(r"Piecewise CUDA Graph failed with error: ", 75, "piecewise graph error", wrapper=True),
            Pattern(r"To work around this error, add --disable-piecewise-cuda-graph", 30, "piecewise graph error hint", wrapper=True),
            Pattern(r"operation not permitted when stream is capturing|cudaErrorStreamCapture\w+", 85, "illegal call during capture"),
            # triton python/triton/compiler/errors.py CompilationError ("at <line>:<col>:"): on its own it may be any first
            # forward; with the graph runner's frames it is the capture that failed
            Pattern(r"triton\.compiler\.errors\.CompilationError: at \d+:\d+", 45, "triton kernel failed to compile"),
            # a traceback through the graph runners' capture (0.5.9 model_executor/cuda_graph_runner.py capture /
            # capture_one_batch_size, piecewise_cuda_graph_runner.py, speculative/*cuda_graph_runner.py; 0.5.23
            # model_executor/runner/*_cuda_graph_runner.py): whatever was raised there, capture is where it failed
            Pattern(r'File "[^"]*graph_runner\.py", line \d+, in (?:capture\w*|run_once)\b', 50, "exception inside capture", wrapper=True),
            # torch.compile's errors (torch/_dynamo/exc.py, torch/_inductor/exc.py): they wrap whatever failed while
            # compiling ("InductorError: RuntimeError: Failed to find C compiler ..."), so a specific cause inside wins
            Pattern(
                r"torch\._dynamo\.exc\.\w+|BackendCompilerFailed: backend='\w+' raised|torch\._inductor\.exc\.\w+|\bInductorError: |"
                r"raise (?:BackendCompilerFailed|InternalTorchDynamoError|InductorError)\(",
                60,
                "torch.compile error",
                wrapper=True,
            ),
            # dynamo's footer under each of its exceptions: torch 2.6+ "Set TORCHDYNAMO_VERBOSE=1 for the internal stack
            # trace"; 2.1-2.5 "Set TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information" and the
            # "torch._dynamo.config.suppress_errors = True" hint
            Pattern(
                r"Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace|TORCHDYNAMO_VERBOSE=1 for more information|"
                r"torch\._dynamo\.config\.suppress_errors = True",
                30,
                "torch.compile error",
                wrapper=True,
            ),
            # a traceback through torch.compile's own packages (the exception line may be cut off)
            Pattern(r'File "[^"]*/torch/_(?:dynamo|inductor)/[\w/]+\.py", line \d+', 40, "torch.compile frame", wrapper=True),
            Pattern(_OOM_FRAMES_GRAPH, 20, "graph-capture frame", wrapper=True),
        ),
    ),
    RootCause(
        id="unsupported_gpu_arch",
        phase="driver",
        title="the GPU architecture is not supported by a kernel or backend",
        explanation="A kernel, attention backend or quantization scheme was built for or requires another GPU generation.",
        fix=(
            "pick a backend / quantization the GPU supports (e.g. --attention-backend flashinfer or triton on Ampere, "
            "no FP8/NVFP4 kernels below their SM; a triton kernel that needs more shared memory than this GPU has: "
            "another --attention-backend, or no --enable-torch-compile; DeepGEMM, SM90/SM100 only: "
            "SGLANG_ENABLE_JIT_DEEPGEMM=0 or another --moe-runner-backend), or install a torch/sgl-kernel build with this "
            "GPU's SM; SGLang itself needs compute capability 7.5 or newer (T4 / RTX 20xx and later)",
        ),
        verify="the server starts with the chosen backend; python -c 'import torch; print(torch.cuda.get_device_capability())'",
        patterns=(
            # ptxas of a CUDA toolkit older than the GPU ("ptxas fatal : Value 'sm_120a' is not defined for option
            # 'gpu-name'"): triton / JIT kernels cannot be built for this architecture
            Pattern(r"Value 'sm_\d+[af]?' is not defined for option 'gpu-name'", 95, "ptxas does not know the GPU architecture"),
            # CUDA runtime cudaErrorNoKernelImageForDevice (209) and cudaErrorInvalidDeviceFunction (98), as
            # cudaGetErrorString words them (https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html);
            # HIP prints the same for a kernel built for another gfx
            Pattern(r"no kernel image is available for execution on the device|cudaErrorNoKernelImageForDevice", 95, "no kernel for this SM"),
            Pattern(r"(?:CUDA|HIP) error: invalid device function|hipErrorInvalidDeviceFunction", 75, "kernel not built for this GPU"),
            # flashinfer jit/core.py:107 (0.5.3), :108 (0.6.3); 0.2.5 jit/core.py:54 "FlashInfer requires sm75+"
            Pattern(r"FlashInfer requires (?:GPUs with sm75 or higher|sm75\+)", 95, "flashinfer minimum SM"),
            # aiter jit/utils/chip_info.py get_gfx_custom_op_core: raise KeyError(f"Unknown GPU architecture: {gfx}.
            # Supported architectures: {list}") for a gfx its kernels are not built for (ROCm builds of SGLang)
            Pattern(r"Unknown GPU architecture: gfx\w+\. Supported architectures:", 95, "aiter has no kernels for this gfx"),
            # DeepGEMM csrc/apis/*.hpp DG_HOST_UNREACHABLE("Unsupported architecture") (deepseek-ai/DeepGEMM@54e2261,
            # e.g. csrc/apis/mega.hpp:233-248): its kernels exist for SM90 / SM100 only
            Pattern(r"Assertion error \([^)]*\): Unsupported architecture", 95, "DeepGEMM has no kernel for this SM"),
            # triton python/triton/runtime/errors.py OutOfResources (raised by compiler.py _init_handles): the kernel's
            # shared memory exceeds this GPU's. inductor's autotuner logs the same text and tries other configs, so the
            # unqualified form only counts when an exception follows
            Pattern(r"triton\.runtime\.errors\.OutOfResources: out of resource: \w[\w ]*, Required: \d+", 85, "triton kernel exceeds the GPU's shared memory"),
            Pattern(
                r"OutOfResources: out of resource: shared memory, Required: \d+, Hardware limit: ?\d+",
                80,
                "triton kernel exceeds the GPU's shared memory",
                warning=True,
            ),
            # 0.5.9 model_executor/model_runner.py:913; 0.5.23 model_executor/model_runner_components/
            # load_model_utils.py:91
            # (not the quoted source line of the traceback, so the evidence is the error itself)
            Pattern(r"(?<!\(\")SGLang only supports sm\d+ and above", 100, "SGLang minimum SM"),
            Pattern(r"with CUDA capability sm_\d+ is not compatible with the current PyTorch installation", 90, "torch lacks this SM"),
            # 0.5.9 server_args.py:1880,1901
            Pattern(r"backend is only supported on (?:Blackwell|Hopper)", 90, "backend needs newer GPU"),
            # 0.5.23 layers/quantization/compressed_tensors/compressed_tensors.py:411,779,971
            Pattern(r"requires (?:CUDA )?compute capability|compute capability [\d.]+ or newer is required", 85, "compute capability too low"),
            Pattern(
                r"Unsupported compute capability|(?:FlashAttention|FA3|fa3|FA4).{0,60}"
                r"(?:only supports?|requires|not supported).{0,40}(?:Hopper|Ampere|sm_?\d+|SM ?\d+)",
                80,
                "attention backend needs another SM",
            ),
            Pattern(r"not supported in this architecture", 85, "triton: dtype not supported on this SM"),
            # 0.5.12 model_loader/loader.py:246-256 _get_quantization_config
            Pattern(r"The quantization method \S+ is not supported for the current GPU\. Minimum capability", 100, "quantization needs a newer GPU"),
            Pattern(
                r"(?:fp8|FP8|nvfp4|NVFP4|mxfp4|MXFP4).{0,60}(?:not supported on|requires).{0,40}(?:GPU|sm|SM|compute)", 70, "quantization needs another SM"
            ),
        ),
    ),
    RootCause(
        id="driver_cuda_mismatch",
        phase="driver",
        title="NVIDIA driver / CUDA runtime mismatch or no usable GPU",
        explanation=(
            "The CUDA runtime cannot talk to the driver: the container's userspace driver differs from the host "
            "kernel module, the driver is too old for the CUDA build, or the GPU devices are not visible."
        ),
        fix=(
            "install the NVIDIA userspace matching the host kernel module exactly (llmops.sglang.nvidia_userspace), "
            "pass /dev/nvidia* (incl. nvidia-uvm) into the container, or use a torch build for the driver's CUDA "
            "version; on NVSwitch systems (HGX/DGX) 'system not yet initialized' means nvidia-fabricmanager is not "
            "running (same version as the driver); 'invalid device ordinal' means fewer GPUs are visible than "
            "--tp-size x --dp-size (x --pp-size) asks for (CUDA_VISIBLE_DEVICES, the container's devices, --base-gpu-id)",
        ),
        verify="nvidia-smi inside the container and python -c 'import torch; print(torch.cuda.is_available())' print True",
        patterns=(
            Pattern(r"Failed to initialize NVML: Driver/library version mismatch", 100, "NVML version mismatch"),
            Pattern(r"The NVIDIA driver on your system is too old", 100, "driver too old"),
            Pattern(r"CUDA driver version is insufficient for CUDA runtime version", 100, "driver too old"),
            Pattern(r"Found no NVIDIA driver on your system|NVIDIA-SMI has failed", 90, "no driver"),
            Pattern(r"lib(?:cuda|nvidia-ml)\.so(?:\.1)?: cannot open shared object file|NVML Shared Library Not Found", 95, "driver library missing"),
            # torch/cuda/__init__.py _lazy_init: "No CUDA GPUs are available" (ROCm builds: "No HIP GPUs are available")
            Pattern(r"no CUDA-capable device is detected|No (?:CUDA|HIP) GPUs are available|CUDA_ERROR_NO_DEVICE", 85, "no GPU"),
            Pattern(
                r"cuInit\b.{0,40}(?:err|fail)|CUDA error: (?:unknown error|system not yet initialized)|"
                r"cudaErrorSystemNotReady|cudaErrorInsufficientDriver|CUDA_ERROR_UNSUPPORTED_PTX_VERSION|"
                r"provided PTX was compiled with an unsupported toolchain|forward compatibility was attempted",
                85,
                "CUDA init failure",
            ),
            # cudaErrorSystemNotReady (802), as torch prints it: "... cudaGetDeviceCount() ... Error 802: system not
            # yet initialized" (on NVSwitch systems the fabric manager is not up)
            Pattern(r"(?:Error \d+: |CUDA error: )?system not yet initialized", 90, "CUDA system not ready"),
            # torch c10/cuda/CUDAFunctions.cpp: any driver-level failure of the first device query
            Pattern(r"Unexpected error from cudaGetDeviceCount\(\)", 75, "CUDA device query failed"),
            # torch c10/cuda/CUDAFunctions.cpp device_count_impl: cudaErrorInitializationError and cudaErrorUnknown
            Pattern(r"CUDA driver initialization failed, you might not have a CUDA gpu", 90, "CUDA driver init failed"),
            Pattern(r"CUDA unknown error - this may be due to an incorrectly set up environment", 85, "CUDA driver init failed"),
            Pattern(r"CUDA error: initialization error", 70, "CUDA driver init failed"),
            # cudaErrorSystemDriverMismatch (803): the userspace driver differs from the kernel module
            Pattern(r"system has unsupported display driver / cuda driver combination|cudaErrorSystemDriverMismatch", 100, "driver mismatch"),
            Pattern(r"Torch not compiled with CUDA enabled", 80, "CPU-only torch"),
            # a CUDA driver API symbol (cuXxx) missing from libcuda: the driver is older than the kernels need
            Pattern(r"undefined symbol: cu[A-Z]\w*", 100, "driver API symbol missing"),
            Pattern(r"Failed to infer device type", 70, "no device"),
            # cudaErrorInvalidDevice (101; HIP prints the same): a rank asked for a GPU index that is not visible
            Pattern(r"(?:CUDA|HIP) error: invalid device ordinal|cudaErrorInvalidDevice\b", 80, "GPU index not visible"),
        ),
    ),
    RootCause(
        id="dependency_import_error",
        phase="import",
        title="a Python dependency is missing or broken",
        explanation=(
            "Importing SGLang or one of its kernels failed: a missing package, an ABI mismatch or a failed JIT build "
            "(flashinfer and sglang's jit_kernel compile kernels on first use, often inside CUDA graph capture, so "
            "SGLang reports it as 'Capture cuda graph failed')."
        ),
        fix=(
            "install the package set pinned for this SGLang version (missing module {missing_module}); reinstall sglang with its extras in a clean venv",
            "a kernel JIT build failed (linker could not find {missing_library}): make the CUDA toolkit visible to the "
            "service (CUDA_HOME, PATH with nvcc, LIBRARY_PATH/LD_LIBRARY_PATH with $CUDA_HOME/lib64) or install the "
            "toolkit matching torch's CUDA",
            "install the package set pinned for this SGLang version; reinstall sglang with its extras in a clean venv "
            "(torch, sgl-kernel, flashinfer, flashinfer-cubin must match); for a failed JIT kernel build make a C "
            "compiler and the CUDA toolkit (nvcc, headers, libraries) visible to the service via CC / CUDA_HOME",
        ),
        verify="python -c 'import sglang.srt.entrypoints.engine' succeeds in the service's venv",
        patterns=(
            # SGLang calls a kernel library (aiter, sgl_kernel, flashinfer) whose version does not match it: a symbol its
            # guarded import could not bind ("NameError: name 'get_mla_metadata_info_v1' is not defined") or a call the
            # installed signature refuses ("fused_add_rms_norm() missing 2 required positional arguments")
            Pattern(r"NameError: name '\w+' is not defined", 70, "a symbol the installed library lacks"),
            Pattern(
                r"TypeError: \w+\(\) (?:missing \d+ required positional arguments?|got an unexpected keyword argument|"
                r"takes \d+ positional arguments? but \d+ (?:was|were) given)",
                70,
                "a call the installed library's signature refuses",
            ),
            Pattern(r"ModuleNotFoundError: No module named", 95, "missing module"),
            Pattern(r"undefined symbol: (?!cu[A-Z])\w+", 90, "ABI mismatch"),
            # 0.5.9 models/registry.py:107; 0.5.23 models/registry.py:132: logger.warning, then the registry goes on
            # without that module (healthy servers print several); it matters when the start then fails
            Pattern(r"Ignore import error when loading sglang\.srt\.models\.\w+", 60, "model module import failed", warning=True),
            Pattern(r"Command '\['[^']*/(?:gcc|cc|g\+\+|nvcc|ninja)'|returned non-zero exit status", 40, "build failed"),
            # not SGLang failing to import its own names (a release whose modules disagree: its bug, not a dependency)
            Pattern(r"\bImportError: (?!cannot import name '\w+' from 'sglang\.)", 75, "import failed"),
            Pattern(r"GLIBC(?:XX)?_[\d.]+' not found", 85, "libc too old"),
            # not NCCL's INFO that it found no optional network plugin (src/net.cc "NET/Plugin : Plugin load (%s)
            # returned %d : %s", dlerror's "libnccl-net.so: cannot open shared object file"), which healthy starts print
            Pattern(r"^(?!.*NCCL INFO).*cannot open shared object file", 60, "shared library missing"),
            # the executable or script is missing (sglang_service helper, shells, python)
            Pattern(r"cannot execute \S+: \[Errno \d+\]|: (?:command )?not found$|can't open file '[^']+': \[Errno 2\]", 80, "executable missing"),
            Pattern(
                r"ninja: build stopped|subprocess\.CalledProcessError: Command '\['ninja'|nvcc fatal|"
                r"error: command '.{0,60}nvcc' failed",
                70,
                "kernel JIT build failed",
            ),
            # torch.utils.cpp_extension._run_ninja_build (flashinfer's JIT): "Error building extension '<name>'";
            # tvm_ffi.cpp.extension.build_ninja (sglang/jit_kernel/utils.py load_jit, 0.5.9+): "ninja exited with
            # status N"; flashinfer's own JIT (jit/cpp_ext.py:296 in 0.5.3, :337 in 0.6.3): "Ninja build failed."
            Pattern(r"Error building extension '|ninja exited with status \d+|Ninja build failed\.", 90, "kernel JIT build failed"),
            # GNU ld / collect2 while linking a JIT kernel
            Pattern(r"\bld(?:\.\w+)?: cannot find -l[\w.+-]+", 85, "linker: library missing"),
            Pattern(r"collect2: error: ld returned \d+ exit status", 60, "link failed"),
            Pattern(r"requires \w[\w-]* ?[<>=]=? ?[\d.]+.{0,40}(?:but|found|installed)", 50, "version conflict"),
            # SGLang's assert_pkg_version (flashinfer_python, sgl-kernel / sglang-kernel): 0.4.6.post5 srt/utils.py:698,702;
            # 0.5.9 srt/utils/common.py:1102,1106; 0.5.23 srt/utils/common.py:2431,2435
            Pattern(
                r"is installed with version \S+, which is less than the minimum required version|"
                r"with minimum required version \S+ is not installed",
                95,
                "SGLang package version check",
            ),
            # flashinfer jit/env.py:77,115 (0.5.3, 0.6.3): its cubin / JIT-cache packages must be the same release
            Pattern(r"flashinfer-(?:cubin|jit-cache) version \([^)]*\) does not match flashinfer version", 95, "flashinfer packages differ"),
            # flashinfer jit/core.py:283 (0.5.3), :291 (0.6.3); jit/cpp_ext.py:58
            Pattern(r"JIT compilation is disabled via FLASHINFER_DISABLE_JIT", 90, "flashinfer kernel not prebuilt"),
            Pattern(r"Could not find nvcc and default cuda_home=", 85, "CUDA toolkit missing for a JIT build"),
            # triton python/triton/runtime/build.py _build: no gcc/clang for its launcher stubs
            Pattern(r"Failed to find C compiler\. Please specify via CC environment variable", 90, "C compiler missing"),
            # sgl-kernel python/sgl_kernel/load_utils.py _load_architecture_specific_ops (sglang@7252a23)
            Pattern(r"\[sgl_kernel\] CRITICAL: Could not load any common_ops library", 95, "sgl_kernel failed to load"),
            # transformers utils/import_utils.py:1733,1741 (4.57.1), :2046,2054 (5.19.0)
            Pattern(r"requires the (?:SentencePiece|protobuf) library but it was not found in your environment", 90, "tokenizer dependency missing"),
            # transformers utils/import_utils.py (4.57.1 :2231,2453; 5.19.0 :2479,2936): its lazy module meets a backend
            # requirement it does not know, i.e. the installed transformers and its extras disagree (import time)
            Pattern(r"Backends? should be defined in the BACKENDS_MAPPING", 90, "transformers import failed"),
        ),
    ),
    RootCause(
        id="nccl_failure",
        phase="multi_gpu",
        title="NCCL / multi-GPU communication failed",
        explanation="Tensor-parallel ranks could not set up or complete a collective (NCCL, gloo, P2P, shared memory, custom all-reduce).",
        fix=(
            "check all GPUs are visible and healthy, give the container enough /dev/shm (NCCL), try NCCL_P2P_DISABLE=1 "
            "or --disable-custom-all-reduce, and rerun with NCCL_DEBUG=INFO; across nodes set NCCL_SOCKET_IFNAME and "
            "GLOO_SOCKET_IFNAME to the interface that reaches --dist-init-addr",
        ),
        verify="the log shows 'Init torch distributed ends' on every TP rank and then 'fired up'",
        patterns=(
            # torch/csrc/distributed/c10d/socket.cpp (torch 2.2+): the TCPStore client of a non-zero rank or node never
            # reached the rendezvous (--dist-init-addr unreachable, or rank 0 not up)
            Pattern(r"The client socket has timed out after \d+m?s while trying to connect to", 90, "c10d rendezvous timed out"),
            # NVSHMEM (DeepEP's transport) bootstrap: nvshmem src/modules/bootstrap/.../bootstrap_uid.cpp and
            # src/host/init/init.cu "nvshmem setup failed" / "nvshmemi_bootstrap ... failed"
            Pattern(
                r"bootstrap_uid\.cpp:\d+: non-zero status|nvshmem(?:i_bootstrap\w*|_init\w*)? (?:setup )?failed", 80, "NVSHMEM bootstrap failed", re.IGNORECASE
            ),
            Pattern(
                r"NCCL error|ncclUnhandledCudaError|ncclSystemError|ncclInternalError|ncclInvalidUsage|"
                r"ncclRemoteError|ncclInvalidArgument",
                90,
                "NCCL error",
            ),
            # NCCL src/init.cc ncclGetErrorString (NVIDIA/nccl@48bb7fe), as torch's ProcessGroupNCCL prints it after
            # "NCCL error in: ..."
            Pattern(
                r"unhandled (?:cuda|system) error \(run with NCCL_DEBUG=INFO|internal error - please report this issue to the NCCL developers|"
                r"remote process exited or there was a network error",
                90,
                "NCCL error",
            ),
            # NCCL src/misc/socket.cc / src/bootstrap.cc WARN lines (NCCL_DEBUG=WARN or INFO): a rank could not open
            # the bootstrap or a peer socket ("socketPollConnect: Connect to <addr> returned 113(No route to host)")
            Pattern(
                r"NCCL WARN (?:socket\w*Connect\w*:|socketProgress|Net : Connect to|Call to connect|NET/Socket : Connect|Bootstrap : no socket interface)",
                85,
                "NCCL socket connection failed",
            ),
            Pattern(r"Watchdog caught collective operation timeout|ProcessGroupNCCL.{0,80}[Tt]imeout", 90, "NCCL timeout"),
            # torch/csrc/distributed/c10d/ProcessGroupWrapper.cpp (TORCH_DISTRIBUTED_DEBUG=DETAIL): ranks issued
            # different collectives, so none of them can complete
            Pattern(r"Detected mismatch between collectives on ranks", 85, "ranks desynchronised"),
            # torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp heartbeat monitor
            Pattern(r"ProcessGroupNCCL's watchdog got stuck for \d+ seconds", 85, "NCCL watchdog hang"),
            # torch/csrc/distributed/c10d/ProcessGroupGloo.cpp: the CPU group (SGLang's TP cpu_group) could not connect
            Pattern(r"Gloo connectFullMesh failed with", 90, "gloo connection failed"),
            # torch/csrc/distributed/c10d/TCPStore.cpp (TCPClient ping, torch 2.4+): the --dist-init-addr port answered
            # with someone else's reply (another job's store on the same host:port)
            Pattern(
                r"nonce == returnedNonce INTERNAL ASSERT FAILED|Ping failed, invalid nonce returned", 85, "TCPStore rendezvous answered by another process"
            ),
            # the watchdog rethrows whatever a collective raised (a CUDA error of a kernel, too)
            Pattern(r"Process group watchdog thread terminated with exception", 60, "NCCL watchdog exception", wrapper=True),
            Pattern(r"torch\.distributed\.DistBackendError|DistNetworkError|DistStoreError", 70, "torch.distributed error"),
            Pattern(r"NCCL WARN|NCCL INFO .{0,40}(?:failed|error)", 45, "NCCL warning"),
            Pattern(r"NCCL WARN .{0,160}(?:[Ff]ail|abort|refused|timed? ?out|[Ee]rror)", 75, "NCCL connection error"),
            Pattern(r"custom.?all.?reduce.{0,60}(?:fail|error)|P2P is not supported|peer access is not supported", 55, "P2P / custom all-reduce"),
        ),
    ),
    RootCause(
        id="incompatible_feature_combination",
        phase="args",
        title="flags that cannot be combined",
        explanation=(
            "SGLang's argument checks (or a kernel's own limit) rejected a combination of features: backend, "
            "speculative decoding, cache strategy, offload, or a CUDA graph batch size above what DeepEP's "
            "low-latency mode dispatches per rank (SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK, default 128)."
        ),
        fix=(
            "drop one of the conflicting flags named in the evidence (see the SGLang message for the supported "
            "combination); a kernel that rejects the model's shape (flashinfer 'Unsupported head_dim'): another "
            "--attention-backend (e.g. triton); for DeepEP low-latency keep --cuda-graph-max-bs (times draft tokens "
            "with speculative decoding) at or below SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK, or raise that variable",
        ),
        verify="sglang serve ... --help-style dry start passes the argument checks (server_args= line appears)",
        patterns=(
            # 0.5.9 server_args.py:2649 and many __post_init__ checks; 0.5.23 arg_groups/*_hook.py (mamba_hook.py:157-162,
            # speculative_hook.py:1176-1180, memory_hook.py:34-44, kv_cache_configurator.py:3074-3076)
            Pattern(
                r"Cannot enable both|cannot be combined with|is incompatible with|\(--[\w-]+ is incompatible\)|"
                r"are mutually exclusive|do(?:es)? not support (?:overlap|trtllm|page_size|speculative)",
                85,
                "SGLang combination check",
            ),
            Pattern(
                r"(?:AssertionError|ValueError|NotImplementedError): .{0,200}(?:is not supported (?:with|when|for|in|by)|"
                r"not supported with|only supports?|is only supported|requires --|requires overlap|must be used with|"
                r"must be enabled)",
                70,
                "SGLang feature check",
            ),
            Pattern(r"server_args\.py|arg_groups/\w+_hook\.py|check_server_args", 25, "argument validation frame"),
            # DeepEP csrc/deep_ep.cpp low_latency_dispatch: "x.size(0) <= num_max_dispatch_tokens_per_rank"; the
            # cap is SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK (0.5.9 srt/environ.py:366; 0.5.23
            # srt/environ.py:1439), so a larger graph batch (--cuda-graph-max-bs) cannot be dispatched
            Pattern(r"Assertion error \S*deep_ep\.cpp:\d+ '.{0,120}<= ?num_max_dispatch_tokens_per_rank", 90, "DeepEP dispatch cap below the batch size"),
            # flashinfer include/flashinfer/utils.cuh:149,207 (0.6.3) DISPATCH_GQA_GROUP_SIZE / DISPATCH_HEAD_DIM, raised
            # as "Error in function '<kernel>' at <file>:<line>: Unsupported head_dim: 106": the model's shape is outside
            # what the attention backend's kernels are built for
            Pattern(r"Unsupported (?:head_dim|group_size): \d+", 85, "attention kernel does not support the model's shape"),
            # aiter mla.py get_meta_param (ROCm builds): assert nhead in its table, f"{nhead=} not supported": the heads
            # per rank that the parallel layout leaves (dp attention shrinks them) are outside its MLA decode kernels
            Pattern(r"AssertionError: nhead=\d+ not supported", 85, "attention kernel does not support the heads per rank"),
            # 0.5.9 layers/moe/ep_moe/layer.py:232,242; 0.5.23 :296,301: the EP MoE dispatch the flags chose (DeepEP with
            # DeepGEMM, e.g. under two-batch overlap) reaches a removed path
            Pattern(r"forward_deepgemm_(?:contiguous|masked) is deprecated", 85, "flags reach a removed MoE path"),
        ),
    ),
    RootCause(
        id="invalid_argument_value",
        phase="args",
        title="an argument has an invalid value",
        explanation="argparse or SGLang's argument checks rejected a flag's value.",
        fix=(
            "fix {bad_argument}: {bad_argument_reason}",
            "choose a --tp-size (or --ep-size / --dp-size with --enable-dp-attention) for which `{failed_assert} == 0` "
            "holds: it must divide the model's attention-head (or KV-head / expert) count",
            "fix the flag (or environment variable, e.g. a *_PORT set by the orchestrator) value named in the "
            "evidence; see sglang serve --help for its type and choices",
        ),
        verify="the server prints its resolved server_args= line",
        patterns=(
            Pattern(r"error: argument [-\w/]+: (?:invalid|expected)", 100, "argparse value error"),
            # 0.5.23 utils/common.py:3394-3429 (human_readable_int)
            Pattern(r"Invalid integer value: '[^']*'\. Use a plain integer", 100, "bad integer"),
            Pattern(r"error: the following arguments are required", 95, "missing required argument"),
            # Python's enum.EnumMeta.__call__ for a flag SGLang turns into an Enum (--load-format -> LoadFormat)
            Pattern(r"ValueError: '[^']*' is not a valid [A-Z]\w*\b(?! identifier)", 85, "value not among the enum's members"),
            # 0.5.23 arg_groups/validation_hook.py:243-246 and similar asserts
            Pattern(
                r"must be divisible by|is not divisible by|must be a multiple of|must be (?:positive|greater than|"
                r"less than|between|in \[|one of)",
                70,
                "value check",
            ),
            # a string reached an integer parameter (a flag or an environment variable such as a port)
            Pattern(r"TypeError: '\w+' object cannot be interpreted as an integer", 50, "wrong value type"),
            # The models' own checks, printed as the failing source line of a bare AssertionError, e.g. 0.5.9
            # models/qwen2.py:122 / 0.5.23 models/qwen2.py:167 "assert self.total_num_heads % tp_size == 0" (and
            # the kv-head / attn_tp_size / experts variants in most model files)
            Pattern(DIVISIBILITY_ASSERT_RE, 85, "parallel size does not divide the model"),
            Pattern(r"in get_open_port|in (?:bind|get_free_port|is_port_available)\b", 25, "port setup frame"),
        ),
    ),
    RootCause(
        id="unrecognized_argument",
        phase="args",
        title="a flag this SGLang version does not know",
        explanation="argparse rejected a flag: it is misspelt, was removed/renamed in this SGLang version, or is ambiguous.",
        fix=(
            "remove or rename {unrecognized}: validate flags against the installed SGLang version (the collection's flag catalog) before launch",
            "remove or rename the flag named in the evidence; validate flags against the installed SGLang version",
        ),
        verify="the server prints its resolved server_args= line",
        patterns=(
            Pattern(r"error: unrecognized arguments:", 100, "argparse unknown flag"),
            Pattern(r"error: ambiguous option: --", 95, "argparse ambiguous flag"),
        ),
    ),
    RootCause(
        id="warmup_failed",
        phase="warmup",
        title="the warm-up request failed",
        explanation="The server started but its first (warm-up) request failed; the traceback after the message says why.",
        fix=(
            "read the warm-up traceback in the evidence; common causes are a runtime OOM (lower --mem-fraction-static) "
            "or a broken chat template / tokenizer; --skip-server-warmup only hides the problem",
        ),
        verify="curl -fsS http://127.0.0.1:<port>/health_generate",
        patterns=(
            # 0.5.9 entrypoints/http_server.py:1687,1811; 0.5.23 entrypoints/http_server.py:2384,2533
            Pattern(r"Initialization failed\. warmup error", 100, "warm-up failed"),
            Pattern(r"[Ww]armup (?:failed|error)", 60, "warm-up failed"),
            # the warm-up thread's frame (0.5.9 entrypoints/http_server.py _wait_and_warmup; older server.py)
            Pattern(r"in _wait_and_warmup|in _execute_server_warmup", 65, "warm-up frame"),
        ),
    ),
    RootCause(
        id="port_in_use",
        phase="network",
        title="the port is already in use",
        explanation="Another process (often a previous SGLang instance that did not exit) holds the HTTP or an internal port.",
        fix=(
            "stop the process holding port {port} (ss -ltnp 'sport = :{port}'; stop the old unit, never pkill by name) or choose another --port",
            "stop the process holding the port (ss -ltnp; stop the old unit, never pkill by name) or choose another --port",
        ),
        verify="ss -ltn shows the port free before start and held by the new PID after",
        patterns=(
            Pattern(r"\[Errno 98\]|Address already in use", 100, "bind failed", re.IGNORECASE),
            # 0.5.9 server_args.py:5690; 0.5.23 server_args.py:886
            Pattern(r"Port is already in use", 90, "SGLang port check"),
            # 0.5.9 utils/common.py:720-732; 0.5.23 utils/network.py:82-103
            Pattern(r"at \d+ is not available in \d+ seconds|The port \d+ is in use", 85, "SGLang port wait"),
            Pattern(r"port \d+ is in use\. Waiting", 45, "SGLang port wait"),
        ),
    ),
    RootCause(
        id="model_not_found",
        phase="model_load",
        title="the model path or repository does not exist",
        explanation="--model-path is neither a local directory with a config.json nor a Hugging Face repository id.",
        fix=(
            "correct --model-path (a local directory with config.json and weights, or an existing org/name repository) "
            "or --revision; the hub also answers 'not found' for a private or gated repository without a valid HF_TOKEN",
        ),
        verify="ls <model-path>/config.json (local) or huggingface-cli download <repo> config.json",
        patterns=(
            # model_loader/loader.py (0.5.x): the checkpoint lacks tensors the model class builds (an incomplete
            # download or another layout of the same model)
            Pattern(r"load_weights failed because some weights are missing", 90, "checkpoint lacks weights"),
            Pattern(r"is not a local folder and is not a valid model identifier", 100, "transformers: no such model"),
            Pattern(r"Repository Not Found for url|RepositoryNotFoundError", 95, "hub: no such repository"),
            Pattern(r"does not appear to have a file named config\.json|Can't load the configuration of", 90, "no config.json"),
            # 0.5.9 model_loader/loader.py:469,1604; 0.5.23 model_loader/loader.py:581,2662,4046
            Pattern(r"Cannot find any model weights with", 95, "no weight files"),
            # huggingface_hub utils/_validators.py:155,161 (0.36.0); transformers utils/hub.py:470 (4.46.3) wraps it
            # huggingface_hub utils/_validators.py validate_repo_id: a --model-path that is neither a local folder nor a
            # repo id (a missing local directory) is judged as a repo id
            Pattern(r"HFValidationError|Repo id must (?:use alphanumeric|be in the form)|Incorrect path_or_model_id: ", 90, "invalid repository id"),
            Pattern(r"No such file or directory: '[^']*(?:config\.json|\.safetensors|model)", 60, "missing model file"),
            # transformers utils/hub.py:709 (4.57.1) has_file
            Pattern(r"is not a local folder or a valid repository name on", 95, "transformers: no such model"),
            # transformers models/auto/configuration_auto.py:1381 (4.57.1): config.json without model_type
            Pattern(r"Unrecognized model in \S+\. Should have a `model_type` key in its config\.json", 85, "not a transformers checkpoint"),
            # huggingface_hub utils/_http.py:408 (0.36.0) RevisionNotFoundError; transformers utils/hub.py:519
            Pattern(r"Revision Not Found for url|is not a valid git identifier \(branch name, tag name or commit id\)", 90, "no such revision"),
        ),
    ),
    RootCause(
        id="model_download_failed",
        phase="model_download",
        title="downloading the model failed",
        explanation="The model could not be fetched from the Hugging Face hub: network, authentication (gated repo), disk space or a corrupt download.",
        fix=(
            "pre-download the model into the container (llmops.sglang.sglang_model) with a valid HF token (accepted "
            "licence for gated repositories) and enough disk, then point --model-path at the local directory; for "
            "offline hosts set HF_HUB_OFFLINE=1 only once the files are there; a truncated .safetensors file is "
            "deleted and downloaded again",
        ),
        verify="huggingface-cli download <repo> --local-dir <dir> completes and the safetensors index is complete",
        patterns=(
            # huggingface_hub utils/_http.py hf_raise_for_status (0.26.5 :420, 0.36.0 :416, 1.33.0 :859: "Cannot access
            # gated repo for url"; 403 at 0.36.0 :461); transformers utils/hub.py:543 ("You are trying to access a gated
            # repo") and :702 ("is a gated repository")
            Pattern(
                r"GatedRepoError|Access to model \S+ is restricted|You are trying to access a gated repo|"
                r"401 Client Error|Cannot access gated repo for url|is a gated repository\. Make sure to request access|"
                r"403 Forbidden: .{0,120}Cannot access content at|Make sure your token has the correct permissions",
                95,
                "gated / unauthorized",
            ),
            # transformers utils/hub.py:447 (4.46.3), :554 (4.57.1), :621 (5.19.0: the endpoint is HF_ENDPOINT, a mirror
            # too); huggingface_hub file_download.py:1647,1658 and _snapshot_download.py:230-248
            # (0.36.0), utils/_http.py:107 (0.36.0) / :285 (1.33.0) "offline mode is enabled" (HF_HUB_OFFLINE=1 and
            # the model is not in the cache)
            Pattern(
                r"We couldn't connect to '[^']+' to load|LocalEntryNotFoundError|"
                r"Cannot find the requested files in the disk cache|Cannot find an appropriate cached snapshot folder|"
                r"An error happened while trying to locate the files? on the Hub|Cannot reach \S+: offline mode is enabled|"
                r"OfflineModeIsEnabled",
                90,
                "hub unreachable",
            ),
            # huggingface_hub utils/_http.py (1.33.0 :956) rate limit; transformers utils/hub.py:524 cache permissions
            Pattern(r"429 Too Many Requests|PermissionError at \S+ when downloading", 85, "hub refused the download"),
            Pattern(
                r"Max retries exceeded with url: /\S*(?:huggingface|/api/models|resolve)|huggingface\.co.{0,80}"
                r"(?:ConnectionError|ReadTimeout|Timeout|NameResolutionError)",
                85,
                "hub network error",
            ),
            # safetensors bindings' "Error while deserializing header: " + the error: its Debug name before 0.6
            # (huggingface/safetensors@000a16f safetensors/src/tensor.rs: HeaderTooLarge, MetadataIncompleteBuffer,
            # InvalidHeaderDeserialization, ...), its Display text in 0.6.2 (_safetensors_rust.abi3.so: "header too
            # large", "incomplete metadata, file not fully covered", "invalid JSON in header: ...")
            Pattern(
                r"Consistency check failed: file should be of size|Error while deserializing header: |"
                r"HeaderTooLarge|MetadataIncompleteBuffer|incomplete metadata, file not fully covered",
                85,
                "corrupt download",
            ),
            Pattern(r"No space left on device", 80, "disk full"),
            # huggingface_hub.errors.HFValidationError is the repo id's own check (model_not_found), not the hub's answer
            Pattern(r"HfHubHTTPError|huggingface_hub\.errors\.(?!HFValidationError)", 60, "hub error"),
            Pattern(r"snapshot_download|hf_hub_download|download_weights_from_hf", 25, "download frame"),
        ),
    ),
    RootCause(
        id="unsupported_quantization",
        phase="model_load",
        title="this SGLang cannot load the checkpoint's quantization",
        explanation=(
            "The release maps the checkpoint's quantization config to a method that refuses it when the "
            "model is built: ModelOpt NVFP4 or MIXED_PRECISION checkpoints in 0.5.9, or MIXED_PRECISION "
            "loaded as w4afp8 (128-wide FP8 blocks) in 0.5.10-0.5.15; or the method's kernels refuse the model's "
            "dtype (AWQ takes float16 only)."
        ),
        fix=(
            "the {quant_dtype_method} kernels take only {quant_supported_dtypes}: pass --dtype float16 (or the dtype listed) instead of the checkpoint's own",
            "use a release that loads this checkpoint (the preflight's compare_releases shows which: 0.5.16 and "
            "later load ModelOpt MIXED_PRECISION with NVFP4 layers as modelopt_mixed), or a checkpoint in a "
            "format this release supports",
        ),
        verify="the log passes 'Load weight begin' and prints 'Load weight end'",
        patterns=(
            # model_loader/loader.py _get_quantization_config (0.4-0.5.23): the method's kernels refuse the model dtype
            # ("torch.bfloat16 is not supported for quantization method awq. Supported dtypes: [torch.float16]")
            Pattern(r"is not supported for quantization method \w+\. Supported dtypes: ", 95, "quantization method refuses the dtype"),
            # 0.5.9 layers/quantization/modelopt_quant.py:461
            Pattern(r"ModelOptFp8Config only supports static FP8 quantization", 100, "ModelOpt FP8 config refuses it"),
        ),
    ),
    RootCause(
        id="quant_shard_misaligned",
        phase="model_load",
        title="the quantized checkpoint's block or group size does not divide the per-GPU shard",
        explanation=(
            "Tensor parallelism splits each linear (and MoE expert) layer across the GPUs; a block-quantized (FP8 / "
            "INT8 blocks) or group-quantized (AWQ / GPTQ / Marlin) checkpoint needs every shard (the whole layer at "
            "--tp-size 1) to be a whole number of quantization blocks or groups, and at this --tp-size it is not."
        ),
        fix=(
            "use a --tp-size whose shard of the layer named in the evidence is a multiple of the quantization block / "
            "group (usually a smaller one), expert parallelism (--ep-size equal to --tp-size) so MoE experts are not "
            "split, or another checkpoint (BF16, or a quantization with smaller groups); for GPTQ via Marlin "
            "--quantization gptq avoids Marlin's thread tiles. If it fails even at --tp-size 1, this release maps the "
            "checkpoint to a kernel whose block the model's layers do not fit (ModelOpt MIXED_PRECISION loaded as "
            "w4afp8, 0.5.10-0.5.15): use another release",
        ),
        verify="the log passes 'Load weight begin' and prints 'Load weight end' on every rank",
        patterns=(
            # FP8 / INT8 block quantization: 0.5.9 layers/quantization/fp8.py:282,293,729,737, fp8_utils.py:1322,1339,
            # blockwise_int8.py:161,172,283,291, compressed_tensors/schemes/compressed_tensors_w8a8_fp8_moe.py:103,110;
            # 0.5.23 fp8.py:597,608,1591,1599, fp8_utils.py:2875,2891, blockwise_int8.py:165,176,287,295,
            # compressed_tensors_w8a8_fp8_moe.py:112,119 ("The output_size of gate's and up's weight = N is not
            # divisible by weight quantization block_n = 128.")
            Pattern(r"is not divisible by weight quantization block_[nk] = \d+", 95, "shard not a multiple of the FP8 block"),
            # GPTQ / AWQ Marlin: 0.5.9 layers/quantization/marlin_utils.py:180,190,199,740,746,754,763; 0.5.23
            # marlin_utils.py:171,182,190 ("... is not divisible by group_size = 128. Consider reducing
            # tensor_parallel_size or running with --quantization gptq.")
            Pattern(
                r"is not divisible by\s+(?:group_size|min_thread_[nk]|min_[nk]_threads|pack_factor) = \d+|"
                r"Consider reducing tensor_parallel_size or running with --quantization gptq",
                95,
                "shard not a multiple of the quantization group",
            ),
            # the WNA16 Marlin MoE kernel's shape check (0.5.23 kernels/jit/csrc/gemm/marlin_moe/moe_wna16_marlin.cuh:1034,
            # "size_k = K, is not divisible by b_scales.size(1) = G"): the rank's expert slice holds a partial group
            Pattern(r"size_k = \d+, is not divisible by b_scales\.size\(1\)", 90, "expert shard not a multiple of the quantization group"),
            # AWQ / GPTQ linear methods: 0.5.9 layers/quantization/awq.py:375,383, gptq.py:462,469; 0.5.23
            # awq/schemes/awq_linear.py:41,49, gptq/schemes/gptq_linear.py:49,56
            Pattern(
                r"The (?:input|output) size is not aligned with the quantized weight shape\. This can be caused by too large tensor parallel size",
                95,
                "shard not aligned with the quantized weight",
            ),
        ),
    ),
    RootCause(
        id="unsupported_architecture",
        phase="model_load",
        title="the model architecture is not supported by this SGLang",
        explanation="This SGLang (or its transformers) does not implement the model's architecture.",
        fix=(
            "use an SGLang version that supports {architectures} (upgrade), or --model-impl transformers with --trust-remote-code where it applies",
            "use an SGLang/transformers version that supports the model's architecture (upgrade), or --model-impl "
            "transformers with --trust-remote-code where it applies",
        ),
        verify="python -c 'from sglang.srt.models.registry import ModelRegistry; print(ModelRegistry.get_supported_archs())' lists it",
        patterns=(
            # 0.5.9 models/registry.py:49; 0.5.23 models/registry.py:64
            Pattern(r"Model architectures \[[^\]]*\] are not supported for now", 100, "SGLang: unsupported architecture"),
            # 0.5.9 model_loader/utils.py:55; 0.5.23 model_loader/utils.py:156,164
            Pattern(r"Cannot find model module\. '[^']*' is not a registered", 95, "SGLang: unregistered architecture"),
            # transformers models/auto/configuration_auto.py:1038 (4.46.3), :1364 (4.57.1), :432 (5.19.0)
            Pattern(r"but Transformers does not recognize this architecture|model type `[^`]+` but Transformers", 95, "transformers: unknown model type"),
            # SGLang 0.1.18 srt/managers/controller/model_runner.py:555, 0.2.15 srt/model_executor/model_runner.py:627,
            # 0.3.6 :725 (the releases before models/registry.py)
            Pattern(r"Unsupported architectures: \[?'?\w+", 95, "SGLang: unsupported architecture"),
            # transformers models/auto/auto_factory.py:459,608 (4.57.1): the transformers backend has no class for it
            Pattern(r"Unrecognized configuration class \S+ for this kind of AutoModel", 80, "transformers: no model class"),
            # the failing statement of that check, quoted in the traceback (configuration_auto.py:1034 in 4.46.3, :1360
            # in 4.57.1, :428 in 5.19.0): the model_type lookup, when the exception line itself is cut off
            Pattern(r'config_class = CONFIG_MAPPING\[config_dict\["model_type"\]\]', 85, "transformers: unknown model type"),
        ),
    ),
    RootCause(
        id="trust_remote_code_required",
        phase="model_load",
        title="the model ships its own code and --trust-remote-code was not given",
        explanation=(
            "The checkpoint's config or tokenizer is implemented by Python code inside the model repository; "
            "transformers runs it only when asked to, and SGLang passes that on from --trust-remote-code."
        ),
        fix=("read the repository's code, then add --trust-remote-code (or use an SGLang/transformers release that implements the model natively)",),
        verify="the server prints its model config and 'Load weight begin'",
        patterns=(
            # transformers dynamic_module_utils.py resolve_trust_remote_code: 4.46.3 :633,667,679-681; 4.57.1
            # :697-698,737,771,784; 5.19.0 :703-704,777,790. A bare "trust_remote_code=True" is also what SGLang's own
            # server_args line prints when the flag was given, so only the sentences count.
            Pattern(
                r"requires you to execute the configuration file in that repo|requires you to execute custom code "
                r"contained in the model repository|contains custom code which must be executed|"
                r"(?:pass the argument|set the option) `trust_remote_code=True`",
                95,
                "needs --trust-remote-code",
            ),
        ),
    ),
    RootCause(
        id="context_length_exceeds_model",
        phase="args",
        title="--context-length is longer than the model allows",
        explanation="The requested context length exceeds the model's derived maximum (max_position_embeddings x rope scaling).",
        fix=(
            "lower --context-length to {derived_context_length} (asked {context_length}), or set "
            "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 only if the model really supports it (rope scaling)",
            "lower --context-length to the model's maximum, or set SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 only if the model really supports it",
        ),
        verify="the log shows 'context_len=<value>' in the max_total_num_tokens line",
        # The check raises only without SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN: then the exception line carries
        # "To allow overriding this maximum" (0.5.x appends it to the warning's words) or, in 0.4.x, starts with
        # "User-specified"; the logger.warning form ("Warning: ... context_length ...") alone is a start carrying on.
        requires=r"To allow overriding this maximum|Error: User-specified context_length \(\d+\) is greater than the derived",
        patterns=(
            # 0.5.9 configs/model_config.py:367; 0.5.23 configs/model_config.py:1296-1316
            Pattern(r"is greater than the derived context_length", 100, "context length check"),
            # 0.5.23 managers/tokenizer_manager.py:1338-1376 (a request error, not a start failure)
            Pattern(r"is longer than the model's context length|exceeds the model's maximum context length", 40, "request longer than context"),
        ),
    ),
    RootCause(
        id="tokenizer_error",
        phase="model_load",
        title="the tokenizer could not be loaded",
        explanation="The tokenizer files are missing, need --trust-remote-code, or need a newer tokenizers/transformers.",
        fix=(
            "check the tokenizer files in --model-path (or set --tokenizer-path), add --trust-remote-code if the "
            "model needs it, or upgrade transformers/tokenizers to the versions pinned by SGLang",
        ),
        verify="python -c 'from transformers import AutoTokenizer; AutoTokenizer.from_pretrained(\"<model-path>\")'",
        patterns=(
            # 0.5.9 utils/hf_transformers_utils.py:535-537
            Pattern(r"Failed to load the tokenizer", 95, "SGLang tokenizer error"),
            Pattern(r"Can't load tokenizer for|data did not match any variant of untagged enum", 95, "transformers tokenizer error"),
            # transformers models/auto/tokenization_auto.py: 4.46.3 :918 / 4.57.1 :1138 "Tokenizer class X does not
            # exist or is not currently imported."; 5.19.0 :790 "Tokenizer class X is not currently imported.", :889
            # "Tokenizer class 'X' specified in the tokenizer config was not found."; 4.57.1 :1170 / 5.19.0 :1006
            # "Unrecognized configuration class X to build an AutoTokenizer."; 4.57.1 :1165 (sentencepiece)
            Pattern(
                r"Cannot use the fast tokenizer in slow tokenizer mode|tokenizer class \w+ does not exist|"
                r"Tokenizer class \w+ does not exist|Tokenizer class \w+ is not currently imported|"
                r"Tokenizer class '[^']+' specified in the tokenizer config was not found|"
                r"Unrecognized configuration class \S+ to build an AutoTokenizer|This tokenizer cannot be instantiated",
                90,
                "tokenizer class",
            ),
            # transformers tokenization_utils_fast.py:143 (4.57.1), tokenization_utils_tokenizers.py:413 (5.19.0)
            Pattern(r"Couldn't instantiate the backend tokenizer from one of", 90, "tokenizer files unusable"),
            Pattern(r"get_tokenizer|tokenization_utils|TokenizerManager\.__init__|tokenizer_manager\.py", 30, "tokenizer frame"),
        ),
    ),
    RootCause(
        id="gpu_busy_other_process",
        phase="driver",
        title="the GPU is held by another process",
        explanation="Another process holds the GPU (a leftover server, another container, exclusive compute mode).",
        fix=(
            "find it with nvidia-smi --query-compute-apps=pid,used_memory --format=csv and stop its unit; never pkill "
            "by name (other process holds {other_process_gib} GiB)",
            "find it with nvidia-smi --query-compute-apps=pid,used_memory --format=csv and stop its unit; never pkill by name",
        ),
        verify="nvidia-smi shows no other compute process before the start",
        patterns=(
            # cudaErrorDevicesUnavailable (CUDA runtime error string; "all ... devices" in older CUDA releases)
            Pattern(
                r"CUDA-capable device\(s\) is/are busy or unavailable|all CUDA-capable devices are busy or unavailable|"
                r"cudaErrorDevicesUnavailable",
                100,
                "GPU busy",
            ),
            Pattern(r"\bProcess \d+ has [\d.]+ GiB memory in use", 45, "another process on the GPU"),
        ),
    ),
    RootCause(
        id="tp_memory_imbalance",
        phase="multi_gpu",
        title="free GPU memory differs between TP ranks",
        explanation="One GPU has much less free memory than the others (usually another process on it).",
        fix=(
            "free GPU {imbalance_min_gb} GB vs {imbalance_local_gb} GB: stop the other process on the fuller GPU "
            "(nvidia-smi), or set CUDA_VISIBLE_DEVICES to equal GPUs",
            "stop the other process on the fuller GPU (nvidia-smi), or set CUDA_VISIBLE_DEVICES to equal GPUs",
        ),
        verify="nvidia-smi shows the same free memory on every GPU before the start",
        patterns=(
            # 0.5.9 model_executor/model_runner.py:842; 0.5.23 distributed/bootstrap.py:441-452
            Pattern(r"The memory capacity is unbalanced\. Some GPUs may be occupied by other processes", 90, "TP memory check"),
        ),
        budgeted=False,
        retunable=True,
    ),
    RootCause(
        id="no_evidence",
        phase="unknown",
        title="nothing shows that a launch happened or how it ended",
        explanation=("The log holds no line and no launch marker, and no unit was given: a missing marker is no evidence of a death, so no cause is named."),
        fix=(
            "give unit= (the service's systemd unit) so the launch's journal and exit status are read, or point "
            "log_path at the file the launch writes ({log_path} is empty and has no launch marker)",
        ),
        verify="the log gets a launch marker and lines after it, or the unit's journal shows the launch",
    ),
    RootCause(
        id="silent_death",
        phase="unknown",
        title="the launch died without writing to its log",
        explanation="The current launch wrote nothing after its marker; the evidence comes from the journal and the exit status.",
        fix=("read the evidence from the journal and exit status; run the same ExecStart by hand to see stderr",),
        verify="systemctl start the unit; the log gets lines after the new launch marker",
    ),
    RootCause(
        id="stale_log",
        phase="unknown",
        title="the log is older than the unit's last start",
        explanation="Nothing of the current launch is in the log; its lines are from an earlier run and were ignored.",
        fix=("make the unit write its launch marker and output to {log_path} (StandardOutput=append:), or point log_path at the file the unit really writes",),
        verify="the log's last marker carries the unit's current InvocationID",
    ),
    RootCause(
        id="other",
        phase="unknown",
        title="no catalogued cause matched",
        explanation="Nothing in the catalog matched strongly enough; the most relevant lines are quoted.",
        fix=("read the quoted lines; if this is a new failure mode, report it with the log tail so the catalog can grow",),
        verify="the server reaches 'The server is fired up and ready to roll!'",
    ),
)

CAUSES = {cause.id: cause for cause in CATALOG}
# The failures the preflight budget replays; the diagnoser lets the budget's root cause and fix replace the log's.
MEMORY_CAUSES = tuple(cause.id for cause in CATALOG if cause.budgeted)

# Lines that are generic wrappers or likely error lines, used to pick evidence when nothing matched.
WRAPPER_RE = re.compile(
    r"Scheduler hit an exception|Initialization failed\. Please see the error messages above|"
    r"Received sigquit from a child process|scheduler is dead|scheduler died during initialization"
)
# Lines that mean the process (or one of its schedulers) died. A tail whose last such line comes after its last sign
# of life (ready line, answered request, batch line) is not healthy, even when no catalogued cause matched.
CRASH_RE = re.compile(
    r"Traceback \(most recent call last\)|\w+ hit an exception|Received sigquit from a child process|"
    r"scheduler is dead|scheduler died|Segmentation fault|core dumped|Fatal Python error|^Killed\s*$|"
    r"Failed with result '|Main process exited, code=(?:killed|dumped)|status=\d+/(?:KILL|ABRT|SEGV)|"
    # uvicorn's access log: a request the server failed (a crash unless requests are served after it). The health
    # probes answer 503 while the start is still warming up (entrypoints/http_server.py health_generate: server_status
    # Starting), so theirs are no crash
    r"\"(?:POST|GET) /(?!health\b|health_generate\b)\S* HTTP/1\.[01]\" 5\d\d\b|"
    # the ROCm runtime's fatal GPU fault (rocclr: "Memory access fault by GPU node-2 (Agent handle: ...)")
    r"Memory access fault by GPU node-\d+|"
    # a C assert() (glibc: "file:line: func: Assertion `expr' failed.") or a CUDA device-side assert (ATen kernels:
    # "...: block: [0,0,0], thread: [62,0,0] Assertion `expr` failed.")
    r"Assertion `[^`']{1,400}['`] failed"
)
# A Python exception in SGLang's own output (not a kill from outside): what turns a warning into a cause.
EXCEPTION_RE = re.compile(r"Traceback \(most recent call last\)|\w+ hit an exception|Fatal Python error")
ERRORISH_RE = re.compile(
    r"\b\w*(?:Error|Exception)\b:|Traceback \(most recent call last\)|\bFAILED\b|Killed|fatal|Segmentation fault|"
    r"core dumped|Aborted|status=\d+/|Failed with result",
    re.IGNORECASE,
)
