# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The messages of the libraries SGLang starts on, each classified to its root cause.

Every message is the library's own text (its source is cited beside the pattern in
plugins/plugin_utils/diagnosis/catalog.py: torch's c10/cuda, NCCL's ncclGetErrorString, gloo, transformers 4.46-5.19,
huggingface_hub 0.26-1.33, safetensors, flashinfer 0.2.5-0.6.3, triton, sgl-kernel, and SGLang 0.1.18-0.5.23
for the quantization, mamba and architecture checks); the surroundings (timestamps, paths, frames) are made up.
A healthy start that prints those libraries' harmless warnings stays ``none``, cut at any line.
"""

from __future__ import annotations

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.diagnose import diagnose

ARGS = "[2026-03-04 09:12:01] server_args=ServerArgs(model_path='/srv/models/m', tp_size=2, mem_fraction_static=0.85, port=30000)"
CRASH = [
    "[2026-03-04 09:12:21 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/managers/scheduler.py", line 2950, in run_scheduler_process',
    "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)",
]
WEIGHTS = [
    "[2026-03-04 09:12:20 TP0] Load weight begin. avail mem=78.12 GB",
    "[2026-03-04 09:12:21 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/model_loader/loader.py", line 612, in load_weights_and_postprocess',
    "    model.load_weights(weights)",
]
CAPTURE = [
    "[2026-03-04 09:13:02 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=60.10 GB, mem usage=16.02 GB.",
    "[2026-03-04 09:13:05 TP0] KV Cache is allocated. #tokens: 401234, K size: 24.49 GB, V size: 24.49 GB",
    "[2026-03-04 09:13:06 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=9.80 GB",
    "[2026-03-04 09:13:09 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/model_executor/cuda_graph_runner.py", line 520, in capture',
    "    ) = self.capture_one_batch_size(bs, forward)",
]


def _diagnose(lines):
    return diagnose({"log": {"exists": True, "lines": lines, "mtime": 0.0}}, since_marker=False)


CRASH_MESSAGES = [
    # torch c10d ProcessGroupWrapper.cpp (TORCH_DISTRIBUTED_DEBUG=DETAIL): ranks ran different collectives
    (
        "RuntimeError: Detected mismatch between collectives on ranks. Rank 3 is running collective: "
        "CollectiveFingerPrint(SequenceNumber=12, OpType=ALLREDUCE, TensorShape=[1], TensorDtypes=Int), but Rank 0 is "
        "running collective: CollectiveFingerPrint(SequenceNumber=12, OpType=BROADCAST).",
        "nccl_failure",
    ),
    # transformers utils/import_utils.py (4.57.1, 5.19.0): its lazy import meets a backend it does not know
    ("ValueError: Backend should be defined in the BACKENDS_MAPPING. Offending backend: torchvision_v2", "dependency_import_error"),
    # torch: the device-count checks (c10/cuda/CUDAFunctions.cpp) and the CUDA runtime's error strings
    ("RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.", "driver_cuda_mismatch"),
    (
        "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env "
        "variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.",
        "driver_cuda_mismatch",
    ),
    (
        "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
        "NumCudaDevices() that might have already set an error? Error 803: system has unsupported display driver / cuda driver combination",
        "driver_cuda_mismatch",
    ),
    ("RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version", "driver_cuda_mismatch"),
    ("RuntimeError: CUDA error: no kernel image is available for execution on the device", "unsupported_gpu_arch"),
    ("RuntimeError: CUDA error: invalid device function", "unsupported_gpu_arch"),
    ("RuntimeError: CUDA error: invalid device ordinal", "driver_cuda_mismatch"),
    # NCCL's result strings as torch's ProcessGroupNCCL prints them, its watchdog, gloo
    (
        "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, "
        "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
        "nccl_failure",
    ),
    ("RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)", "nccl_failure"),
    ("RuntimeError: NCCL Error 3: internal error - please report this issue to the NCCL developers", "nccl_failure"),
    (
        "[rank1]:[E304 09:20:53.000000 ProcessGroupNCCL.cpp:1484] [PG ID 0 PG GUID 0(default_pg) Rank 1] ProcessGroupNCCL's "
        "watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.",
        "nccl_failure",
    ),
    (
        "[rank0]:[E304 09:20:53.000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600003 milliseconds before timing out.",
        "nccl_failure",
    ),
    ("RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error", "nccl_failure"),
    # transformers: config, tokenizer, remote code
    (
        "ValueError: The checkpoint you are trying to load has model type `qwen9_moe` but Transformers does not recognize "
        "this architecture. This could be because of an issue with the checkpoint, or because your version of Transformers is out of date.",
        "unsupported_architecture",
    ),
    (
        "ValueError: Unrecognized model in /srv/models/m. Should have a `model_type` key in its config.json, or contain "
        "one of the following strings in its name: albert, bart, bert",
        "model_not_found",
    ),
    ("ValueError: Tokenizer class Qwen9Tokenizer does not exist or is not currently imported.", "tokenizer_error"),
    ("ValueError: Tokenizer class Qwen9Tokenizer is not currently imported.", "tokenizer_error"),
    (
        "ValueError: Tokenizer class 'Qwen9Tokenizer' specified in the tokenizer config was not found. The tokenizer may need to be converted or re-saved.",
        "tokenizer_error",
    ),
    ("ValueError: Couldn't instantiate the backend tokenizer from one of: ", "tokenizer_error"),
    (
        "ValueError: Loading /srv/models/m requires you to execute the configuration file in that repo on your local "
        "machine. Make sure you have read the code there to avoid malicious use, then set the option `trust_remote_code=True` to remove this error.",
        "trust_remote_code_required",
    ),
    (
        "ValueError: Loading this model requires you to execute custom code contained in the model repository on your "
        "local machine. Please set the option `trust_remote_code=True` to permit loading of this model.",
        "trust_remote_code_required",
    ),
    ("ImportError: LlamaTokenizer requires the SentencePiece library but it was not found in your environment.", "dependency_import_error"),
    # huggingface_hub (and transformers' wrappers of its errors)
    (
        "huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-65f0)  Cannot access gated repo for "
        "url https://huggingface.co/org/m/resolve/main/config.json.",
        "model_download_failed",
    ),
    ("OSError: You are trying to access a gated repo.", "model_download_failed"),
    ("Make sure your token has the correct permissions.", "model_download_failed"),
    (
        "huggingface_hub.errors.LocalEntryNotFoundError: Cannot find an appropriate cached snapshot folder for the "
        "specified revision on the local disk and outgoing traffic has been disabled. To enable repo look-ups and "
        "downloads online, set 'HF_HUB_OFFLINE=0' as environment variable.",
        "model_download_failed",
    ),
    (
        "huggingface_hub.errors.OfflineModeIsEnabled: Cannot reach https://huggingface.co/api/models/org/m: offline mode "
        "is enabled. To disable it, please unset the `HF_HUB_OFFLINE` environment variable.",
        "model_download_failed",
    ),
    (
        "huggingface_hub.errors.RepositoryNotFoundError: 404 Client Error. Repository Not Found for url: https://huggingface.co/api/models/org/typo.",
        "model_not_found",
    ),
    (
        "OSError: v9 is not a valid git identifier (branch name, tag name or commit id) that exists for this model name.",
        "model_not_found",
    ),
    # safetensors, both spellings of its header errors
    ("safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge", "model_download_failed"),
    ("safetensors_rust.SafetensorError: Error while deserializing header: MetadataIncompleteBuffer", "model_download_failed"),
    ("safetensors_rust.SafetensorError: Error while deserializing header: incomplete metadata, file not fully covered", "model_download_failed"),
    ("safetensors_rust.SafetensorError: Error while deserializing header: header too large", "model_download_failed"),
    # SGLang's own version check of flashinfer / sgl-kernel, and flashinfer's checks
    (
        "Exception: flashinfer_python is installed with version 0.6.2, which is less than the minimum required version "
        "0.6.3. Please uninstall the old version and reinstall the latest version by following the instructions at "
        "https://docs.flashinfer.ai/installation.html.",
        "dependency_import_error",
    ),
    (
        "Exception: flashinfer_python with minimum required version 0.7.2 is not installed. Please uninstall the old version "
        "and reinstall the latest version by following the instructions at https://docs.flashinfer.ai/installation.html.",
        "dependency_import_error",
    ),
    (
        "Exception: sgl-kernel is installed with version 0.3.20, which is less than the minimum required version 0.3.21. "
        "Please reinstall the latest version with `pip install sgl-kernel --force-reinstall`",
        "dependency_import_error",
    ),
    (
        "RuntimeError: flashinfer-cubin version (0.6.2) does not match flashinfer version (0.6.3). Please install the same "
        "version of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check.",
        "dependency_import_error",
    ),
    ("RuntimeError: FlashInfer requires GPUs with sm75 or higher", "unsupported_gpu_arch"),
    ("RuntimeError: Assertion error (/opt/DeepGEMM/csrc/apis/gemm.hpp:120): Unsupported architecture", "unsupported_gpu_arch"),
    ("[2026-03-04 09:13:09 TP0] Piecewise CUDA Graph failed with error: 'NoneType' object has no attribute 'shape'", "cuda_graph_capture_error"),
    ("Exception: Capture cuda graph failed: Ninja build failed. Ninja output:", "dependency_import_error"),
    # triton, and inductor wrapping it
    (
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, Hardware limit: 101376. "
        "Reducing block sizes or `num_stages` may help.",
        "unsupported_gpu_arch",
    ),
    ("RuntimeError: Failed to find C compiler. Please specify via CC environment variable or set triton.knobs.build.impl.", "dependency_import_error"),
    ("torch._inductor.exc.InductorError: RuntimeError: Failed to find C compiler. Please specify via CC environment variable.", "dependency_import_error"),
    # sgl-kernel's loader
    ("[sgl_kernel] CRITICAL: Could not load any common_ops library!", "dependency_import_error"),
    (
        "ImportError: cannot import name 'fused_marlin_moe' from 'sgl_kernel' (/opt/venv/lib/python3.12/site-packages/sgl_kernel/__init__.py)",
        "dependency_import_error",
    ),
    # SGLang importing its own name is a bug of that build, not a dependency
    (
        "ImportError: cannot import name 'get_cp_size' from 'sglang.srt.layers.dp_attention' "
        "(/opt/venv/lib/python3.12/site-packages/sglang/srt/layers/dp_attention.py)",
        "other",
    ),
    # SGLang: a quantized checkpoint whose blocks / groups do not divide the TP shard
    ("ValueError: The output_size of gate's and up's weight = 96 is not divisible by weight quantization block_n = 128.", "quant_shard_misaligned"),
    ("ValueError: Weight output_partition_size = 576 is not divisible by weight quantization block_n = 128.", "quant_shard_misaligned"),
    (
        "ValueError: Weight input_size_per_partition = 1856 is not divisible by group_size = 128. Consider reducing "
        "tensor_parallel_size or running with --quantization gptq.",
        "quant_shard_misaligned",
    ),
    (
        "ValueError: The input size is not aligned with the quantized weight shape. This can be caused by too large tensor parallel size.",
        "quant_shard_misaligned",
    ),
    # SGLang 0.1-0.3's unsupported-architecture wording; flashinfer's kernel shape limit; an Enum-typed flag
    ("ValueError: Unsupported architectures: LlamaModel. Supported list: ['LlamaForCausalLM', 'MistralForCausalLM']", "unsupported_architecture"),
    (
        "RuntimeError: Error in function 'VariableLengthMergeStates' at /opt/venv/lib/python3.12/site-packages/flashinfer/"
        "data/include/flashinfer/attention/cascade.cuh:697: Unsupported head_dim: 106",
        "incompatible_feature_combination",
    ),
    ("ValueError: 'dummy' is not a valid LoadFormat", "invalid_argument_value"),
    ("AssertionError: forward_deepgemm_masked is deprecated", "incompatible_feature_combination"),
    ("huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/srv/models/m'.", "model_not_found"),
    (
        "OSError: Incorrect path_or_model_id: '/srv/models/m'. Please provide either the path to a local folder or the repo_id of a model on the Hub.",
        "model_not_found",
    ),
    # torch c10d TCPStore: the rendezvous port answered by another process; SGLang's WNA16 Marlin MoE shape check
    (
        'RuntimeError: nonce == returnedNonce INTERNAL ASSERT FAILED at "/pytorch/torch/csrc/distributed/c10d/TCPStore.cpp":418, '
        "please report a bug to PyTorch. Ping failed, invalid nonce returned",
        "nccl_failure",
    ),
    (
        "RuntimeError: Runtime check failed at /opt/sglang/jit_kernel/csrc/gemm/marlin_moe/moe_wna16_marlin.cuh:963: "
        "size_k = 704, is not divisible by b_scales.size(1) = 5",
        "quant_shard_misaligned",
    ),
]


def test_a_slurm_oom_kill_is_the_host_oom_killer():
    lines = [ARGS, "[2026-03-04 09:12:30] Load weight begin. avail mem=78.12 GB"]
    lines.append("[2026-02-20T16:40:38.612] error: Detected 1 oom_kill event in StepId=1459995.batch. Some of the step tasks have been OOM Killed.")
    assert _diagnose(lines)["root_cause"] == "host_ram_oom_killed"


def test_an_oom_building_the_attention_workspace_after_the_pool_is_not_a_weight_oom():
    lines = CAPTURE[:2] + CRASH[:1]
    lines += [
        '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/model_executor/model_runner.py", line 2408, in init_attention_backend',
        "    self.attn_backend = self._get_attention_backend()",
        '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/layers/attention/flashinfer_backend.py", line 202, in __init__',
        "    global_workspace_buffer = torch.empty(",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 384.00 MiB. GPU 0 has a total capacity of 23.56 GiB of which 338.75 MiB is free.",
    ]
    assert _diagnose([ARGS] + lines)["root_cause"] == "cuda_oom_cuda_graph"


@pytest.mark.parametrize("message, cause", CRASH_MESSAGES)
def test_library_message_names_its_cause(message, cause):
    result = _diagnose([ARGS] + CRASH + [message])
    assert result["root_cause"] == cause, result.get("ranking")


@pytest.mark.parametrize(
    "message",
    [
        # torch < 2.1, 2.1 (its "capacty" typo), 2.2+; ROCm; the driver API under expandable segments
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; "
        "14.56 GiB already allocated; 16.25 MiB free; 14.69 GiB reserved in total by PyTorch)",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacty of 79.10 GiB of which 1.05 GiB is free.",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.05 GiB is free.",
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 191.98 GiB of which 1.05 GiB is free.",
        "RuntimeError: CUDA driver error: out of memory",
        "RuntimeError: Triton Error [CUDA]: out of memory",
    ],
)
def test_every_torch_oom_wording_while_loading_weights(message):
    # the start found the GPU free: an MI300X's 192 GiB for the ROCm wording (else its capacity less the 78 GB the
    # H100 start saw would read as another process's)
    begin = WEIGHTS[0].replace("78.12", "190.40") if "191.98 GiB" in message else WEIGHTS[0]
    assert _diagnose([ARGS, begin] + WEIGHTS[1:] + [message])["root_cause"] == "cuda_oom_weights"


def test_a_dynamo_error_in_capture_is_a_capture_error_and_an_oom_inside_it_a_capture_oom():
    compile_error = [
        "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
        "RuntimeError: some lowering failed",
        "",
        "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting a bug to "
        'PyTorch). For even more developer context, set TORCH_LOGS="+dynamo"',
    ]
    result = _diagnose(CAPTURE + compile_error)
    assert result["root_cause"] == "cuda_graph_capture_error"
    assert "--enable-torch-compile" in result["fix"]
    oom = list(compile_error)
    oom[1] = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 0.50 GiB is free."
    assert _diagnose(CAPTURE + oom)["root_cause"] == "cuda_oom_cuda_graph"


def test_a_triton_compile_error_inside_capture_is_a_capture_error_but_not_on_its_own():
    error = ["triton.compiler.errors.CompilationError: at 142:16:", "AttributeError(\"'NoneType' object has no attribute 'type'\")"]
    assert _diagnose(CAPTURE + error)["root_cause"] == "cuda_graph_capture_error"
    assert _diagnose([ARGS] + CRASH + error)["root_cause"] != "cuda_graph_capture_error"


def test_mamba_radix_cache_out_of_states_while_serving():
    lines = [
        "[2026-03-04 10:00:00 TP0] Decode batch [812], #running-req: 31, #token: 90012, token usage: 0.41, cuda graph: True, "
        "gen throughput (token/s): 1210.5, #queue-req: 40",
        "[2026-03-04 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/mem_cache/mamba_radix_cache.py", line 1008, in match_prefix',
        '    assert dst_index is not None, "Can not alloc mamba cache"',
        "AssertionError: Can not alloc mamba cache",
    ]
    assert _diagnose(lines)["root_cause"] == "req_pool_exhausted_runtime"


def test_a_negative_pool_size_is_the_mamba_pool_only_with_its_frames():
    negative = "RuntimeError: Trying to create tensor with negative dimension -3: [48, -2, 32, 128]"
    frames = [
        "[2026-03-04 09:13:02 TP0] Load weight end. type=Qwen3NextForCausalLM, dtype=torch.bfloat16, avail mem=10.10 GB, mem usage=66.02 GB.",
        "[2026-03-04 09:13:03 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/model_executor/model_runner_kv_cache_mixin.py", line 460, in init_memory_pool',
        "    self.req_to_token_pool = HybridReqToTokenPool(",
        '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/mem_cache/memory_pool.py", line 476, in __init__',
        "    self.mamba_pool = MambaPool(",
    ]
    assert _diagnose([ARGS] + frames + [negative])["root_cause"] == "mamba_pool_too_small"
    assert _diagnose([ARGS] + CRASH + [negative])["root_cause"] != "mamba_pool_too_small"


HEALTHY_WITH_WARNINGS = [
    ARGS,
    # transformers configuration_utils.py:430 (4.57.1), tokenization_utils_base.py:2365, tokenization_llama_fast.py:141
    "[2026-03-04 09:12:05] `torch_dtype` is deprecated! Use `dtype` instead!",
    "[2026-03-04 09:12:05] Special tokens have been added in the vocabulary, make sure the associated word embeddings are fine-tuned or trained.",
    "[2026-03-04 09:12:05] You are using the default legacy behaviour of the <class 'transformers.models.llama.tokenization_llama_fast."
    "LlamaTokenizerFast'>. This is expected, and simply means that the `legacy` (previous) behavior will be used so nothing changes for you.",
    # huggingface_hub file_download.py:943, :1730 (0.36.0)
    "/opt/venv/lib/python3.12/site-packages/huggingface_hub/file_download.py:945: FutureWarning: `resume_download` is deprecated and "
    "will be removed in version 1.0.0. Downloads always resume when possible. If you want to force a new download, use `force_download=True`.",
    "[2026-03-04 09:12:06] Xet Storage is enabled for this repo, but the 'hf_xet' package is not installed. Falling back to regular HTTP download.",
    # NCCL src/net.cc: no optional network plugin, the internal one is used
    "node-1:4242:4242 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such "
    "file or directory",
    "node-1:4242:4242 [0] NCCL INFO NET/Plugin : No plugin found, using internal implementation",
    "[2026-03-04 09:12:20 TP0] Load weight begin. avail mem=78.12 GB",
    "[2026-03-04 09:13:02 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=60.10 GB, mem usage=16.02 GB.",
    "[2026-03-04 09:13:05 TP0] KV Cache is allocated. #tokens: 401234, K size: 24.49 GB, V size: 24.49 GB",
    "[2026-03-04 09:13:06 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=9.80 GB",
    "[2026-03-04 09:13:30 TP0] Capture cuda graph end. Time elapsed: 24.01 s. mem usage=0.61 GB. avail mem=9.19 GB.",
    "[2026-03-04 09:13:31] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
    "[2026-03-04 09:13:40] The server is fired up and ready to roll!",
]


def test_a_healthy_start_with_the_libraries_harmless_warnings_is_none_cut_at_any_line():
    assert _diagnose(HEALTHY_WITH_WARNINGS)["root_cause"] == "none"
    for end in range(1, len(HEALTHY_WITH_WARNINGS)):
        cut = HEALTHY_WITH_WARNINGS[:end]
        assert _diagnose(cut)["root_cause"] == "none", cut[-1]


def test_cut_off_tracebacks_name_their_cause_by_the_failing_frames():
    dynamo = [
        '  File "/opt/venv/lib/python3.12/site-packages/torch/_dynamo/convert_frame.py", line 952, in _compile',
        "    raise InternalTorchDynamoError(",
        '  File "/opt/venv/lib/python3.12/site-packages/torch/_dynamo/convert_frame.py", line 924, in _compile',
    ]
    assert _diagnose(CAPTURE + dynamo)["root_cause"] == "cuda_graph_capture_error"
    model_type = [
        '  File "/opt/venv/lib/python3.12/site-packages/transformers/models/auto/configuration_auto.py", line 1360, in from_pretrained',
        '    config_class = CONFIG_MAPPING[config_dict["model_type"]]',
    ]
    assert _diagnose([ARGS] + CRASH + model_type)["root_cause"] == "unsupported_architecture"


@pytest.mark.parametrize("endpoint", ["https://huggingface.co", "https://hf-mirror.com"])
def test_transformers_unreachable_hub_whatever_the_endpoint(endpoint):
    # transformers utils/hub.py (5.19.0 :621) names constants.ENDPOINT, i.e. HF_ENDPOINT when a mirror is set
    line = "OSError: We couldn't connect to '%s' to load the files, and couldn't find them in the cached files." % endpoint
    assert _diagnose([ARGS] + CRASH + [line])["root_cause"] == "model_download_failed"


def test_a_device_side_assert_is_a_crash_not_a_healthy_start():
    """ATen's CUDA kernels assert on the device ("...: block: [0,0,0], thread: [62,0,0] Assertion `...` failed."), as
    glibc's assert() does on the host: no catalogued cause, but never ``none``."""
    line = (
        "/pytorch/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:365: operator(): block: [0,0,0], thread: [3,0,0] "
        "Assertion `idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"` failed."
    )
    result = _diagnose(CAPTURE[:3] + [line])
    assert result["root_cause"] == "other"


def test_an_oom_in_a_request_error_body_is_serving_time_work():
    """SGLang's OpenAI-style ErrorResponse carries the OOM of a request: the server was up and answering."""
    body = (
        '{"error":{"message":"CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 23.53 GiB '
        'of which 20.38 MiB is free.","type":"BadRequestError","code":400}}'
    )
    assert _diagnose([body])["root_cause"] == "cuda_oom_runtime"


def test_a_wrapper_alone_is_never_a_high_confidence_answer():
    """ "Capture cuda graph failed: {e}" with a plain tensor error inside says where the start failed, not why."""
    wrapped = (
        "Exception: Capture cuda graph failed: shape mismatch: value tensor of shape [512, 2, 192] cannot be broadcast "
        "to indexing result of shape [512, 1, 192]"
    )
    result = _diagnose([ARGS] + CAPTURE + [wrapped])
    assert result["root_cause"] == "cuda_graph_capture_error"
    assert result["confidence"] == "medium"


def test_a_full_pool_with_requests_queued_is_healthy_but_said_to_be_at_capacity():
    """Batch lines with token usage 1.00 and a queue: the server serves, at its KV capacity."""
    batch = (
        "[2026-03-04 09:20:0%d TP0] Decode batch, #running-req: 4, #token: 401000, token usage: 1.00, cuda graph: True, "
        "gen throughput (token/s): 429.34, #queue-req: 3"
    )
    result = _diagnose([batch % i for i in range(3)])
    assert result["root_cause"] == "none" and result["confidence"] == "medium"
    assert any("KV cache pool is full" in note for note in result["notes"])
    calm = _diagnose([(batch % i).replace("token usage: 1.00", "token usage: 0.42") for i in range(3)])
    assert calm["root_cause"] == "none" and calm["confidence"] == "high"
    assert not any("KV cache pool is full" in note for note in calm["notes"])
