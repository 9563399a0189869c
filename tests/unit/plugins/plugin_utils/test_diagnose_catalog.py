# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The catalog's shape, number parsing, and the freshness rules (silent_death, stale_log)."""

from __future__ import annotations

import re

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import CATALOG, CATALOG_VERSION, CAUSES, PHASES
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.classify import classify, normalize
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.diagnose import diagnose

REQUIRED_IDS = (
    "none kv_pool_too_small mamba_pool_too_small cuda_oom_weights cuda_oom_cuda_graph cuda_oom_runtime "
    "kv_pool_exhausted_runtime req_pool_exhausted_runtime host_ram_oom_killed cuda_graph_capture_error "
    "unsupported_gpu_arch driver_cuda_mismatch dependency_import_error nccl_failure incompatible_feature_combination "
    "invalid_argument_value unrecognized_argument warmup_failed port_in_use model_not_found model_download_failed "
    "unsupported_quantization quant_shard_misaligned unsupported_architecture trust_remote_code_required context_length_exceeds_model "
    "tokenizer_error gpu_busy_other_process tp_memory_imbalance "
    "no_evidence silent_death stale_log other"
).split()
INVOCATION = "d" * 32
MARKER = {"time": "2026-11-29T21:20:32Z", "invocation": INVOCATION, "line": "=== llmops.sglang launch x ==="}


def test_catalog_is_closed_versioned_and_complete():
    assert re.match(r"^\d{4}\.\d+\.\d+$", CATALOG_VERSION)
    assert [c.id for c in CATALOG if c.id in REQUIRED_IDS] == [c.id for c in CATALOG]
    assert set(REQUIRED_IDS) == set(CAUSES)
    for cause in CATALOG:
        assert cause.phase in PHASES, cause.id
        assert cause.explanation and cause.fix and cause.verify, cause.id
        for pattern in cause.patterns:
            re.compile(pattern.regex)
            assert 0 < pattern.weight <= 100


@pytest.mark.parametrize(
    "line, cause, numbers",
    [
        (
            "ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.8. Raise "
            "--mem-fraction-static above 0.837 (minimum viable = 1 - available/pre = 0.8363). If using speculative "
            "decoding, draft weights are now counted.",
            "kv_pool_too_small",
            {"mem_fraction_static": 0.8, "suggested_mem_fraction_static": 0.837, "min_viable_mem_fraction_static": 0.8363},
        ),
        (
            "RuntimeError: Hybrid (mamba/linear-attention) state cache is too small to serve any requests. "
            "max_mamba_cache_size=4, mamba_ratio=5, resulting max_num_reqs=0. Try: (1) reduce --max-running-requests",
            "mamba_pool_too_small",
            {"max_mamba_cache_size": 4},
        ),
        (
            "Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
            "capacity of 47.54 GiB of which 1.19 GiB is free.",
            "cuda_oom_cuda_graph",
            {"failed_alloc": "2.00 GiB", "failed_alloc_bytes": 2 << 30, "gpu_total": "47.54 GiB", "gpu_free": "1.19 GiB", "gpu_index": 1},
        ),
        ("RuntimeError: Decode out of memory. Try to lower your batch size.", "kv_pool_exhausted_runtime", {}),
        ("ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 30000): address already in use", "port_in_use", {"port": 30000}),
        ("ERROR:    [Errno 98] error while attempting to bind on address ('::', 2242, 0, 0): address already in use", "port_in_use", {"port": 2242}),
        (
            "RuntimeError: The server socket has failed to listen on any local network address. The server socket has "
            "failed to bind to [::]:29500 (errno: 98 - Address already in use).",
            "port_in_use",
            {"port": 29500},
        ),
        (
            "sglang serve: error: unrecognized arguments: --mamba-full-memory-ration 0.5",
            "unrecognized_argument",
            {"unrecognized": "--mamba-full-memory-ration 0.5"},
        ),
        ("launch_server.py: error: argument --tp-size: invalid int value: 'two'", "invalid_argument_value", {"bad_argument": "--tp-size"}),
        ("ModuleNotFoundError: No module named 'sgl_kernel'", "dependency_import_error", {"missing_module": "sgl_kernel"}),
        ("RuntimeError: Failed to initialize NVML: Driver/library version mismatch", "driver_cuda_mismatch", {}),
        (
            "ValueError: Model architectures ['FooForCausalLM'] are not supported for now. Supported architectures: ...",
            "unsupported_architecture",
            {"architectures": "['FooForCausalLM']"},
        ),
        ("OSError: bar/baz is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models'", "model_not_found", {}),
        ("huggingface_hub.errors.GatedRepoError: 401 Client Error.", "model_download_failed", {}),
        ("torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error", "nccl_failure", {}),
        ("[2026-01-01 00:00:00] Initialization failed. warmup error: Traceback (most recent call last):", "warmup_failed", {}),
        ("kernel: Out of memory: Killed process 4242 (python3) total-vm:99999kB", "host_ram_oom_killed", {}),
        # 0.5.9 entrypoints/engine.py:896-900 logs "Rank 0 scheduler is dead ..." then this line
        ("[2026-01-01 00:00:01] Exit code: -9", "host_ram_oom_killed", {"exit_code": -9}),
        # torch < 2.1 OOM wording, raised while building the model
        (
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 114.00 MiB (GPU 0; 2.00 GiB total "
            "capacity; 1.67 GiB already allocated; 0 bytes free; 1.72 GiB reserved in total by PyTorch)",
            "cuda_oom_weights",
            {"gpu_total": "2.00 GiB", "gpu_free": "0 bytes", "failed_alloc": "114.00 MiB"},
        ),
        ("llmops-sglang: cannot execute /opt/sglang/venv/bin/python: [Errno 2] No such file or directory", "dependency_import_error", {}),
        ("RuntimeError: CUDA error: no kernel image is available for execution on the device", "unsupported_gpu_arch", {}),
        ("ImportError: /x/sgl_kernel/common_ops.abi3.so: undefined symbol: cuTensorMapEncodeTiled", "driver_cuda_mismatch", {}),
        ("ImportError: /x/flashinfer/_kernels.so: undefined symbol: _ZN3c104cuda9SetDeviceEi", "dependency_import_error", {}),
    ],
)
def test_messages_and_numbers(line, cause, numbers):
    result = classify(["[2026-01-01 00:00:00 TP0] Load weight begin. avail mem=47.30 GB", line])
    assert result["root_cause"] == cause, result["ranking"]
    for key, value in numbers.items():
        assert result["numbers"][key] == value, key
    assert result["confidence"] in ("high", "medium")


def test_oom_is_attributed_by_phase():
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB."
    assert classify(["Load weight begin. avail mem=10.00 GB", oom])["root_cause"] == "cuda_oom_weights"
    assert (
        classify(["Load weight end. type=X, avail mem=3.00 GB, mem usage=7.00 GB.", "Capturing batches (bs=64 avail_mem=0.50 GB)", oom])["root_cause"]
        == "cuda_oom_cuda_graph"
    )
    served = classify(["The server is fired up and ready to roll!", "Decode batch. #running-req: 3", oom])
    assert served["root_cause"] == "cuda_oom_runtime"
    assert served["numbers"]["failed_alloc_bytes"] == 20 << 20


def test_warning_before_ready_is_not_the_failure():
    result = classify(
        [
            "The memory capacity is unbalanced. Some GPUs may be occupied by other processes. min_per_gpu_memory=40.1",
            "The server is fired up and ready to roll!",
        ]
    )
    assert result["root_cause"] == "none" and result["confidence"] == "high"


def test_nothing_matched_quotes_the_error_lines():
    result = classify(["starting", "Traceback (most recent call last):", "  File \"x.py\", line 1", "KeyError: 'weird'"])
    assert result["root_cause"] == "other" and result["confidence"] == "low"
    assert "KeyError: 'weird'" in result["evidence"]


def test_normalize_strips_colour_quotes_and_cr():
    assert normalize("> > \x1b[31mRuntimeError: x\x1b[0m\r") == "RuntimeError: x"


def unit(**kw):
    base = {
        "name": "sglang.service",
        "active_state": "failed",
        "result": "exit-code",
        "invocation_id": INVOCATION,
        "exec_main_code": "exited",
        "exit_code": 2,
        "signal": None,
        "n_restarts": 0,
        "start_time": 2000.0,
        "journal": [],
        "kernel_oom": [],
        "start_limit_hit": False,
    }
    base.update(kw)
    return base


def log(lines, mtime=2001.0, marker="current"):
    marker = dict(MARKER) if marker == "current" else marker
    return {"path": "/var/log/sglang/sglang.log", "exists": True, "mtime": mtime, "lines": lines, "marker": marker}


def test_silent_death_takes_the_argparse_error_from_the_journal():
    tail = {
        "log": log([]),
        "unit": unit(
            journal=[
                "2026-11-29T21:20:33Z python3[4242]: sglang serve: error: unrecognized arguments: --mamba-full-memory-ration",
                "2026-11-29T21:20:33Z systemd[1]: sglang.service: Main process exited, code=exited, status=2/INVALIDARGUMENT",
            ]
        ),
    }
    result = diagnose(tail)
    assert result["root_cause"] == "silent_death"
    assert result["underlying_cause"] == "unrecognized_argument"
    assert result["confidence"] == "high"
    assert any("unrecognized arguments" in e for e in result["evidence"])
    assert "--mamba-full-memory-ration" in result["fix"]
    assert result["summary"].startswith("silent_death (unrecognized_argument): ")


def test_silent_death_missing_executable_and_start_limit():
    result = diagnose({"log": log([]), "unit": unit(exit_code=203)})
    assert result["root_cause"] == "silent_death" and "203/EXEC" in result["fix"]
    result = diagnose({"log": log([]), "unit": unit(exit_code=1, result="start-limit-hit", start_limit_hit=True)})
    assert "start limit" in result["fix"]


def test_silent_death_by_host_oom_killer():
    killed = unit(result="oom-kill", exec_main_code="killed", exit_code=None, signal="SIGKILL", kernel_oom=["Out of memory: Killed process 4242 (python3)"])
    tail = {"log": log([]), "unit": killed}
    result = diagnose(tail)
    assert result["root_cause"] == "silent_death" and result["underlying_cause"] == "host_ram_oom_killed"
    assert "Out of memory: Killed process 4242 (python3)" in result["evidence"]


def test_older_runs_lines_are_never_used():
    old = ["RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."]
    older_marker = dict(MARKER, invocation="a" * 32)
    result = diagnose({"log": log(old, marker=older_marker), "unit": unit()})
    assert result["root_cause"] == "silent_death" and result["freshness"]["status"] == "stale"
    assert not any("Not enough memory" in e for e in result["evidence"])
    result = diagnose({"log": log(old, mtime=1000.0), "unit": unit()})
    assert result["root_cause"] == "silent_death" and result["freshness"]["status"] == "stale"


def test_stale_log_while_the_unit_runs():
    result = diagnose({"log": log(["old"], mtime=1000.0, marker=None), "unit": unit(active_state="active", result="success")})
    assert result["root_cause"] == "stale_log" and result["confidence"] == "high"
    assert "/var/log/sglang/sglang.log" in result["fix"]


def test_running_unit_with_no_output_yet_is_not_a_failure():
    result = diagnose({"log": log([]), "unit": unit(active_state="activating", result="success", exec_main_code=None)})
    assert result["root_cause"] == "none" and result["confidence"] == "low"


def test_no_marker_without_unit_is_unverified():
    result = diagnose({"log": log(["RuntimeError: Decode out of memory. Try to lower your batch size."], marker=None)})
    assert result["root_cause"] == "kv_pool_exhausted_runtime"
    assert result["freshness"]["status"] == "unverified" and result["confidence"] == "medium"


@pytest.mark.parametrize("since_marker", [True, False])
def test_an_empty_log_without_marker_or_unit_is_no_evidence_not_a_death(since_marker):
    tail = {"log": dict(log([], marker=None), path="/var/log/sglang/sglang.log", size=0)}
    result = diagnose(tail, since_marker=since_marker)
    assert result["root_cause"] == "no_evidence" and result["underlying_cause"] is None
    assert result["phase"] == "unknown" and result["confidence"] == "low"
    assert result["evidence"] == ["log /var/log/sglang/sglang.log: 0 bytes, no line and no launch marker; no unit given"]
    assert result["fix"].startswith("give unit= (the service's systemd unit)")
    assert "/var/log/sglang/sglang.log is empty and has no launch marker" in result["fix"]
    assert result["summary"].startswith("no_evidence: nothing shows that a launch happened or how it ended; fix: ")
    assert "silent_death" not in result["summary"]


def test_a_marker_with_nothing_after_it_is_still_a_silent_death_without_unit():
    result = diagnose({"log": log([], marker=MARKER)})
    assert result["root_cause"] == "silent_death" and result["confidence"] == "low"
    assert result["evidence"] == [MARKER["line"]]


def test_budget_that_fits_does_not_override():
    tail = {"log": log(["RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."])}
    for verdict in ("fits", "degraded"):
        result = diagnose(tail, budget={"verdict": verdict, "root_cause": "none", "fixes": []})
        assert result["root_cause"] == "kv_pool_too_small" and result["budget_used"] is False
        assert any("fits" in n for n in result["notes"])


def test_budget_is_ignored_for_non_memory_causes_and_bad_shapes():
    tail = {"log": log(["ERROR:    [Errno 98] Address already in use"])}
    for budget in (
        {"verdict": "fail", "root_cause": "mamba_pool_too_small", "fixes": [{"summary": "x"}]},
        {"budget": "garbage", "fixes": "nope"},
        ["not", "a", "dict"],
    ):
        assert diagnose(tail, budget=budget)["root_cause"] == "port_in_use"


def test_unit_only_reads_the_service_output_from_the_journal():
    journal = [
        "2026-11-29T21:20:32Z systemd[1]: Started sglang.service - SGLang server.",
        "2026-11-29T21:22:10Z sglang[4242]: [2026-11-29 21:22:10 TP0] Load weight begin. avail mem=47.30 GB",
        "2026-11-29T21:22:50Z sglang[4242]: RuntimeError: Not enough GPU memory for hybrid (mamba/linear-attention) "
        "state cache. Computed max_mamba_cache_size=0 (total_rest_memory=1.52 GB, mamba_cache_per_req=147.00 MB).",
        "2026-11-29T21:22:51Z systemd[1]: sglang.service: Main process exited, code=exited, status=1/FAILURE",
    ]
    result = diagnose({"log": None, "unit": unit(exit_code=1, journal=journal)})
    assert result["root_cause"] == "mamba_pool_too_small"
    assert result["numbers"]["mamba_cache_per_req_mb"] == 147.0
    assert result["freshness"]["status"] == "absent" and result["freshness"]["log_lines"] == 2
    only_systemd = diagnose({"log": None, "unit": unit(exit_code=203, journal=[journal[0], journal[3]])})
    assert only_systemd["root_cause"] == "silent_death" and "203/EXEC" in only_systemd["fix"]


def test_auto_restart_wait_is_not_running():
    waiting = unit(active_state="activating", sub_state="auto-restart", exit_code=1, n_restarts=2)
    result = diagnose({"log": log([]), "unit": waiting})
    assert result["root_cause"] == "silent_death"
    assert result["numbers"]["unit_n_restarts"] == 2


def test_running_unit_whose_output_went_only_to_the_journal():
    journal = ["2026-11-29T21:25:00Z sglang[4242]: [2026-11-29 21:25:00] The server is fired up and ready to roll!"]
    serving = unit(active_state="active", result="success", exit_code=None, exec_main_code=None, journal=journal)
    result = diagnose({"log": log([]), "unit": serving})
    assert result["root_cause"] == "none" and result["confidence"] == "high"
    assert any("journal output was classified" in note for note in result["notes"])


# Verbatim lines of the healthy H100 start in tests/fixtures/startup_logs/vllm-hybrid-qwen3-30b-a3b-fp8-h100-tp1.log
# (source in that folder's INDEX.yml): SGLang's model registry warns about an optional module and carries on.
IGNORED_MODEL_IMPORT = [
    "[2026-08-27 03:45:41] Ignore import error when loading sglang.srt.models.sarashina2_vision: cannot import name "
    "'MultimodalDataItem' from 'sglang.srt.managers.mm_utils' (/sgl-workspace/sglang/python/sglang/srt/managers/mm_utils.py)",
    "[2026-08-27 03:45:41] Load weight begin. avail mem=78.48 GB",
    "[2026-08-27 03:45:53] Load weight end. elapsed=12.02 s, type=Qwen3MoeForCausalLM, quant=fp8, fmt=e4m3, avail mem=49.33 GB, mem usage=29.15 GB.",
]


def test_ignored_model_import_warning_alone_is_not_the_failure():
    # A start still under way, or one killed from outside, says nothing about an optional model module.
    assert classify(IGNORED_MODEL_IMPORT)["root_cause"] != "dependency_import_error"
    killed = IGNORED_MODEL_IMPORT + ["sglang.service: Main process exited, code=killed, status=9/KILL"]
    assert classify(killed)["root_cause"] != "dependency_import_error"
    # A Python exception after it makes the failed import the likely cause (the registry then lacks the model).
    crashed = IGNORED_MODEL_IMPORT[:1] + ["[2026-08-27 03:45:41] Scheduler hit an exception: Traceback (most recent call last):"]
    assert classify(crashed)["root_cause"] == "dependency_import_error"


def test_trust_remote_code_in_server_args_is_not_a_request_for_it():
    # SGLang prints trust_remote_code=True in its server_args line when the flag was given; only transformers'
    # own refusal (dynamic_module_utils) asks for it.
    started = [
        "[2026-02-27 14:33:05] server_args=ServerArgs(model_path='/app/models/Deepseek-R1/', trust_remote_code=True, tp_size=16)",
        "[2026-02-27 14:33:22 TP0] Load weight begin. avail mem=77.49 GB",
    ]
    assert classify(started)["root_cause"] != "trust_remote_code_required"
    refused = [
        "ValueError: The repository for /models/x contains custom code which must be executed to correctly load "
        "the model. Please pass the argument `trust_remote_code=True` to allow custom code to be run."
    ]
    assert classify(refused)["root_cause"] == "trust_remote_code_required"
