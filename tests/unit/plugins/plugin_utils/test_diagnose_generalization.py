# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Rules that make the catalog general rather than fitted to its corpus.

* SGLang's ``Capture cuda graph failed: {e}`` wraps whatever went wrong inside capture: a specific cause
  found in ``{e}`` wins, the wrapper alone still names the capture.
* A serving tail (batch lines, requests answered 200) is healthy, unless a crash follows its last sign of life.
* The upstream messages behind the real cases in PENDING/INDEX, in variants those fixtures do not contain.
* A healthy start cut short at any line (still loading, or killed from outside) is never read as a specific
  failure: the warnings and the server_args line of a start that goes on are no evidence.

The lines are the exact texts printed by SGLang (file:line in plugins/plugin_utils/diagnosis/catalog.py), torch,
GNU ld, DeepEP and uvicorn, with made-up surroundings.
"""

from __future__ import annotations

import pytest
from diagnosis_fixtures import FIXTURES, cut_short_false_alarms, healthy_real_logs

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.classify import classify
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.diagnose import diagnose

CAPTURE_TAIL = [
    "[2026-01-02 10:00:00 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=20.1 GB",
    "[2026-01-02 10:00:03 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/venv/lib/python3.12/site-packages/sglang/srt/model_executor/cuda_graph_runner.py", line 373, in __init__',
    "    raise Exception(",
]
POSSIBLE_SOLUTIONS = [
    "Possible solutions:",
    "1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)",
    "2. set --cuda-graph-max-bs to a smaller value (e.g., 16)",
    "3. disable torch compile by not using --enable-torch-compile",
    "4. disable CUDA graph by --disable-cuda-graph. (Not recommended. Huge performance loss)",
]
SERVING = [
    "[2026-01-02 11:00:00 TP0] Prefill batch [812], #new-seq: 1, #new-token: 64, #cached-token: 0, token usage: 0.01, #running-req: 3, #queue-req: 0",
    "[2026-01-02 11:00:00 TP0] Decode batch [813], #running-req: 4, #token: 900, token usage: 0.01, cuda graph: True, "
    "gen throughput (token/s): 310.55, #queue-req: 0",
    '[2026-01-02 11:00:01] INFO:     10.0.0.7:51234 - "POST /v1/completions HTTP/1.1" 200 OK',
]


def _diagnose(lines):
    return diagnose({"log": {"exists": True, "lines": lines, "mtime": 0.0}}, since_marker=False)


@pytest.mark.parametrize(
    "wrapped, cause",
    [
        # torch.utils.cpp_extension (flashinfer JIT), older SGLang spelling "CUDA"
        ("Exception: Capture CUDA graph failed: Error building extension 'batch_decode_with_kv_cache_dtype_q_f16'", "dependency_import_error"),
        # tvm_ffi (sglang jit_kernel) and the linker's own words on the next lines
        ("Exception: Capture cuda graph failed: ninja exited with status 1", "dependency_import_error"),
        # torch's CUDA init failure surfacing inside capture
        ("Exception: Capture cuda graph failed: CUDA error: system not yet initialized", "driver_cuda_mismatch"),
        # DeepEP low-latency dispatch cap (any DeepEP source line)
        (
            "Exception: Capture cuda graph failed: Failed: Assertion error /opt/DeepEP/csrc/deep_ep.cpp:1105 "
            "'x.size(0) == topk_idx.size(0) and x.size(0) <= num_max_dispatch_tokens_per_rank'",
            "incompatible_feature_combination",
        ),
        # nothing specific inside: the capture itself is the finding
        ("Exception: Capture cuda graph failed: CUDA error: an illegal memory access was encountered", "cuda_graph_capture_error"),
        ("Exception: Capture CUDA graph failed: ", "cuda_graph_capture_error"),
        # a specific capture error is not a wrapper
        ("Exception: Capture cuda graph failed: operation not permitted when stream is capturing", "cuda_graph_capture_error"),
        # an OOM inside capture stays a capture OOM
        ("Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 1.00 GiB.", "cuda_oom_cuda_graph"),
    ],
)
def test_capture_wrapper_yields_to_the_wrapped_cause(wrapped, cause):
    result = classify(CAPTURE_TAIL + [wrapped] + POSSIBLE_SOLUTIONS)
    assert result["root_cause"] == cause, result["ranking"]


def test_the_cascade_after_the_wrapper_does_not_displace_it():
    lines = CAPTURE_TAIL + ["Exception: Capture cuda graph failed: CUDA error: an illegal memory access was encountered"]
    lines += POSSIBLE_SOLUTIONS + [
        "[2026-01-02 10:00:04 TP1] Scheduler hit an exception: Traceback (most recent call last):",
        "torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store failed",
        "[2026-01-02 10:00:04] Received sigquit from a child process. It usually means the child failed.",
        "Killed",
    ]
    result = classify(lines)
    assert result["root_cause"] == "cuda_graph_capture_error"
    assert "nccl_failure" in [r["id"] for r in result["ranking"]]


def test_jit_link_failure_names_the_missing_library():
    lines = (
        CAPTURE_TAIL
        + [
            "Exception: Capture cuda graph failed: ninja exited with status 1",
            "FAILED: [code=1] sgl_kernel_jit_some_kernel.so",
            "/usr/bin/ld: cannot find -lcuda",
            "collect2: error: ld returned 1 exit status",
            "ninja: build stopped: subcommand failed.",
        ]
        + POSSIBLE_SOLUTIONS
    )
    result = _diagnose(lines)
    assert result["root_cause"] == "dependency_import_error"
    assert result["numbers"]["missing_library"] == "-lcuda"
    assert "-lcuda" in result["fix"] and "CUDA_HOME" in result["fix"]


@pytest.mark.parametrize(
    "assert_line, expression",
    [
        ("    assert self.total_num_heads % tp_size == 0", "self.total_num_heads % tp_size"),
        ("        assert tp_size % self.total_num_kv_heads == 0", "tp_size % self.total_num_kv_heads"),
        ("    assert self.total_num_heads % self.attn_tp_size == 0", "self.total_num_heads % self.attn_tp_size"),
    ],
)
def test_parallel_divisibility_assert_is_a_bad_parallel_size(assert_line, expression):
    lines = [
        "[2026-01-02 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        '  File "/sgl/python/sglang/srt/models/llama.py", line 140, in __init__',
        assert_line,
        "AssertionError",
    ]
    result = _diagnose(lines)
    assert result["root_cause"] == "invalid_argument_value"
    assert result["numbers"]["failed_assert"] == expression
    assert "--tp-size" in result["fix"] and expression in result["fix"]


@pytest.mark.parametrize("assert_line", ["    assert k % 32 == 0", "    assert self.hidden_size % self.total_num_heads == 0"])
def test_an_unrelated_assert_is_not_a_parallel_size_problem(assert_line):
    lines = ['  File "/sgl/python/sglang/srt/models/llama.py", line 88, in __init__', assert_line, "AssertionError"]
    assert classify(lines)["root_cause"] != "invalid_argument_value"


@pytest.mark.parametrize(
    "line, cause",
    [
        ("RuntimeError: SGLang only supports sm75 and above.", "unsupported_gpu_arch"),
        (
            "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
            "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized",
            "driver_cuda_mismatch",
        ),
    ],
)
def test_upstream_messages(line, cause):
    result = _diagnose(["[2026-01-02 10:00:00 TP1] Scheduler hit an exception: Traceback (most recent call last):", line])
    assert result["root_cause"] == cause
    if cause == "driver_cuda_mismatch":
        assert "fabricmanager" in result["fix"]


def test_serving_tail_is_healthy():
    result = _diagnose(SERVING * 3)
    assert result["root_cause"] == "none"
    assert result["confidence"] == "high"


def test_a_crash_after_the_last_sign_of_life_is_not_healthy():
    lines = SERVING + [
        "[2026-01-02 11:00:02 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        "SomeNewError: nobody catalogued this yet",
        "[2026-01-02 11:00:02] Received sigquit from a child process. It usually means the child failed.",
    ]
    result = _diagnose(lines)
    assert result["root_cause"] == "other"
    assert any("SomeNewError" in line for line in result["evidence"])


def test_a_ready_line_then_an_uncatalogued_crash_is_not_healthy():
    lines = [
        "[2026-01-02 10:00:00] The server is fired up and ready to roll!",
        "[2026-01-02 10:05:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        "SomeNewError: nobody catalogued this yet",
    ]
    assert _diagnose(lines)["root_cause"] == "other"


def test_a_failed_request_while_serving_goes_on_is_healthy():
    lines = (
        SERVING
        + [
            "[2026-01-02 11:00:02] ERROR:    Exception in ASGI application",
            "Traceback (most recent call last):",
            "ValueError: bad request body",
        ]
        + SERVING
    )
    assert _diagnose(lines)["root_cause"] == "none"


def test_a_runtime_failure_in_a_serving_tail_still_wins():
    lines = SERVING + [
        "[2026-01-02 11:00:02 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        "RuntimeError: Decode out of memory. Try to lower your batch size.",
    ]
    assert _diagnose(lines)["root_cause"] == "kv_pool_exhausted_runtime"


@pytest.mark.parametrize("path", healthy_real_logs(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_a_healthy_start_cut_short_is_never_a_specific_failure(path):
    _prefixes, alarms = cut_short_false_alarms(path)
    assert not alarms, ["first %d lines read as %s: %s" % (end, r["root_cause"], r["evidence"][:2]) for end, r in alarms]
