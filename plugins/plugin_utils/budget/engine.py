# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Public API of the budget engine: ``evaluate`` one launch, ``find_fixes`` for a failing one.

The startup order replayed for every release in the registry (``plugin_utils/releases.py``):
1. argument resolution (context length above the derived maximum is a ValueError here);
2. baseline ``pre`` = MIN over TP ranks of free GiB after CUDA context + NCCL, then the TP imbalance check;
3. weight load (target, and the NEXTN/MTP draft where the release loads it before sizing) - a CUDA OOM if it
   does not fit;
4. the target worker's pool sizing (profile, mamba split, tokens, request cap) with the release's errors;
5. worker asserts; then, outside SGLang's checks, the runtime headroom left in the non-static slack.
"""

from __future__ import annotations

import json
import math
import os
import re
import struct
from dataclasses import replace
from typing import Any, Dict, List, Optional, Tuple, Union

from ..releases import ResolvedRelease, SGLangRelease, UnsupportedVersionError, resolve_release
from .architectures import (
    VERIFIED,
    ArchitectureSupport,
    absent_class_message,
    config_load_error,
    encoder_config_error,
    resolve_architecture,
    unknown_quantization_error,
)
from .errors import BudgetInputError
from .model_spec import ModelSpec, QuantSpec, build_model_spec, derive_context_length, pipeline_stage, unmodelled_quant_error
from .profiles import (
    GIB,
    MSG_IMBALANCE,
    Resolved,
    Sizing,
    StartupError,
    cell_size,
    fp8_block_shape_error,
    mamba_per_req,
    resolve_args,
    runtime_needs,
    size_pools,
)
from .weights import WeightBreakdown, checkpoint_total_bytes, compute_weights, read_safetensors_header, rope_reserve_rows

__all__ = ["BudgetInputError", "evaluate", "find_fixes", "load_model_dir", "parse_model_file", "MODEL_FILES", "CONTEXT_OVERHEAD_GIB", "NCCL_OVERHEAD_GIB"]

# Free memory SGLang no longer sees at its baseline when only nvidia-smi's figure is known: the CUDA
# context of the scheduler process, and NCCL + custom all-reduce buffers when several GPUs work together.
# Estimates from the startup logs in tests/fixtures/startup_logs (total minus "Load weight begin. avail mem"):
# 0.84 GiB on an H100 at TP 1, 0.86 GiB on 4x L4 at TP 4 (2.2 GiB across two nodes at TP 16: pass
# pre_model_load_gib for multi-node launches).
CONTEXT_OVERHEAD_GIB = 0.8
NCCL_OVERHEAD_GIB = 0.1
# A fix must still fit when the baseline is this much lower than assumed (estimates are not exact).
FIX_MARGIN_GIB = 0.5

_MAX_GPU_MIB = 1 << 24  # 16 TiB: no card is larger; bigger figures are unit or typing errors
_MAX_COUNT_ARG = 1 << 31
_SM_BY_NAME = (
    ("B200", 100),
    ("B100", 100),
    ("GB200", 100),
    ("H200", 90),
    ("H100", 90),
    ("H800", 90),
    ("H20", 90),
    ("GH200", 90),
    ("L40", 89),
    ("L4", 89),
    ("4090", 89),
    ("5090", 120),
    ("A6000", 86),
    ("A40", 86),
    ("A10", 86),
    ("3090", 86),
    ("A100", 80),
    ("A800", 80),
    ("V100", 70),
    ("T4", 75),
)

MODEL_FILES = {
    "config": "config.json",
    "hf_quant_config": "hf_quant_config.json",
    "safetensors_index": "model.safetensors.index.json",
}

_MODEL_CACHE: Dict[Tuple[int, ...], Tuple[ModelSpec, Optional[int], str, Any]] = {}
_WEIGHT_CACHE: Dict[Tuple[Any, ...], WeightBreakdown] = {}
_SPEC_VARIANTS: Dict[Tuple[Any, ...], ModelSpec] = {}
_SPEC_KEEPALIVE: Dict[int, ModelSpec] = {}  # specs whose id() is a cache key stay alive


# ------------------------------------------------------------------------------------------------
# Inputs
# ------------------------------------------------------------------------------------------------
def parse_model_file(name: str, text: Any, origin: str) -> Dict[str, Any]:
    """Parse one JSON file of a model (config.json, hf_quant_config.json, the safetensors index).

    ``origin`` is where it was read (a local path, or a path on the target), named in the error.
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BudgetInputError(
            "model", f"{origin}: {name} is not valid JSON ({exc})", "re-download it or point `model` at a complete model directory"
        ) from None
    if not isinstance(data, dict):
        raise BudgetInputError("model", f"{origin}: {name} must hold a JSON object, found {type(data).__name__}", "restore the file from the model repository")
    return data


def load_model_dir(path: str) -> Dict[str, Any]:
    """Read config.json, hf_quant_config.json, the safetensors index (or headers) from a model directory.

    ``path`` may be the directory or its config.json.
    """
    path = os.path.expanduser(path)
    fix = "give a model directory that holds config.json, the config.json itself, or an inline dict"
    if os.path.isfile(path):
        if os.path.basename(path) != "config.json":
            raise BudgetInputError("model", f"{path} is a file but not a config.json", fix)
        path = os.path.dirname(path) or "."
    elif not os.path.exists(path):
        raise BudgetInputError("model", f"{path} does not exist", fix)
    cfg_path = os.path.join(path, "config.json")
    if not os.path.isfile(cfg_path):
        raise BudgetInputError("model", f"{path} holds no config.json", fix)
    out: Dict[str, Any] = {"path": path}
    for key, name in MODEL_FILES.items():
        p = os.path.join(path, name)
        if os.path.isfile(p):
            try:
                with open(p, "rb") as handle:
                    text = handle.read()
            except OSError as exc:
                raise BudgetInputError(f"model.{key}", f"cannot read {p} ({exc})", "check the file's permissions") from None
            out[key] = parse_model_file(name, text, p)
    if "safetensors_index" not in out:
        headers = _checkpoint_files(path)[1]
        if headers:
            out["safetensors_headers"] = headers
    return out


_CHECKPOINT_CACHE: Dict[Tuple[str, float], Tuple[Any, Any]] = {}


def _checkpoint_files(path: str) -> Tuple[Optional[Dict[str, Any]], Optional[List[Dict[str, Any]]]]:
    """The safetensors index, else the shards' headers, of a local checkpoint (cached per directory state)."""
    key = (path, os.stat(path).st_mtime)
    if key not in _CHECKPOINT_CACHE:
        index, headers = None, None
        name = MODEL_FILES["safetensors_index"]
        idx = os.path.join(path, name)
        if os.path.isfile(idx):
            try:
                with open(idx, "rb") as handle:
                    index = parse_model_file(name, handle.read(), idx)
            except OSError as exc:
                raise BudgetInputError("model.safetensors_index", f"cannot read {idx} ({exc})", "check the file's permissions") from None
        else:
            shards = sorted(f for f in os.listdir(path) if f.endswith(".safetensors"))
            headers = [read_safetensors_header(os.path.join(path, f)) for f in shards] or None
        _CHECKPOINT_CACHE[key] = (index, headers)
    return _CHECKPOINT_CACHE[key]


def _model_inputs(model: Any) -> Tuple[ModelSpec, Optional[int], str, Optional[Dict[str, Any]]]:
    if isinstance(model, ModelSpec):
        return model, None, "shapes", None
    if isinstance(model, str):
        model = load_model_dir(model)
    if not isinstance(model, dict):
        raise BudgetInputError(
            "model", f"expected a dict with 'config' (or a ModelSpec), got {type(model).__name__}", "pass {'config': <parsed config.json>} or a model directory"
        )
    if "config" not in model and "architectures" in model:
        model = {"config": model}
    if "config" not in model and model.get("path"):
        model = dict(load_model_dir(model["path"]), **{k: v for k, v in model.items() if v is not None})
    path = model.get("path")
    if path and not model.get("safetensors_index") and not model.get("safetensors_headers") and os.path.isdir(str(path)):
        index, headers = _checkpoint_files(str(path))
        model = dict(model, safetensors_index=index, safetensors_headers=headers)
    config = model.get("config")
    parts = (config, model.get("hf_quant_config"), model.get("safetensors_index"), model.get("safetensors_headers"))
    key = tuple(id(x) for x in parts)
    cached = _MODEL_CACHE.get(key)
    if cached is not None and cached[3] is not parts[0]:
        cached = None
    if cached is None:
        spec = build_model_spec(config, model.get("hf_quant_config"))
        total, source = checkpoint_total_bytes(model.get("safetensors_index"), model.get("safetensors_headers"))
        cached = (spec, total, source, config)  # keeps the config alive so its id() stays unique
        if len(_MODEL_CACHE) > 256:
            _MODEL_CACHE.clear()
        _MODEL_CACHE[key] = cached
    return cached[0], cached[1], cached[2], model.get("weights")


def _weights(
    spec: ModelSpec,
    tp: int,
    ep: int,
    total: Optional[int],
    source: str,
    override: Optional[Dict[str, Any]],
    attn_tp: int,
    dp_lm_head: bool,
    release: SGLangRelease,
    rope_reserve: Optional[Tuple[int, int]] = None,
) -> WeightBreakdown:
    if override:
        return WeightBreakdown(
            target_param_bytes=int(override.get("target_param_bytes", 0)),
            target_buffer_bytes=int(override.get("target_buffer_bytes", 0)),
            draft_param_bytes=int(override.get("draft_param_bytes", 0)),
            draft_buffer_bytes=int(override.get("draft_buffer_bytes", 0)),
            draft_embed_head_bytes=int(override.get("draft_embed_head_bytes", 0)),
            source="given",
            checkpoint_total_bytes=total,
        )
    key = (id(spec), tp, ep, total or 0, attn_tp, dp_lm_head, release.version, rope_reserve)
    wb = _WEIGHT_CACHE.get(key)
    if wb is None:
        wb = compute_weights(spec, tp, ep, total, source, attn_tp=attn_tp, dp_lm_head=dp_lm_head, release=release, rope_reserve=rope_reserve)
        if len(_WEIGHT_CACHE) > 4096:
            _WEIGHT_CACHE.clear()
        _WEIGHT_CACHE[key] = wb
        _SPEC_KEEPALIVE[id(spec)] = spec
    return wb


_TRTLLM_MOE_RUNNERS = ("flashinfer_trtllm", "flashinfer_trtllm_routed", "flashinfer_megamoe")


def modelopt_fp4_capability_error(spec: ModelSpec, sm: int, release: SGLangRelease) -> Optional[StartupError]:
    """model_loader/loader.py _get_quantization_config: the GPU below ModelOptFp4Config's minimum capability."""
    need = release.sizing.modelopt_fp4_min_sm
    if spec.quant.method != "modelopt_fp4" or sm >= need:
        return None
    return StartupError(
        "ValueError",
        f"The quantization method modelopt_fp4 is not supported for the current GPU. Minimum capability: {need}. Current capability: {sm}.",
        "unsupported_gpu_arch",
    )


def trtllm_fp4_moe(spec: ModelSpec, args: Dict[str, Any], sm: int) -> bool:
    """Whether an NVFP4 MoE runs on the flashinfer TRT-LLM (or MegaMoE) runner, which needs no swizzled copy of the
    expert block scales: asked for, or chosen by the DeepSeek-family default on Blackwell (0.5.9 server_args.py,
    0.5.23 arg_groups/overrides.py _deepseek_moe_quant_resolution: sm100, no a2a backend, runner auto)."""
    backend = str(args.get("moe_runner_backend") or "auto")
    if backend in _TRTLLM_MOE_RUNNERS:
        return True
    auto_deepseek = backend == "auto" and spec.family == "mla" and sm in (100, 103)
    return auto_deepseek and str(args.get("moe_a2a_backend") or "none") == "none"


def mxfp4_moe_padding(spec: ModelSpec, args: Dict[str, Any], release: SGLangRelease, sm: int) -> Tuple[int, int]:
    """Padding of GPT-OSS MXFP4 expert weights when the FlashInfer MXFP4 MoE kernel is chosen (Blackwell):
    ``FusedMoE`` rounds the hidden size to 256, ``Mxfp4MoEMethod.create_weights`` the per-rank intermediate
    (the release's ``mxfp4_sm100_intermediate_pad`` on SM100). Other kernels take the checkpoint's sizes."""
    if not spec.layout.gpt_oss_blocks or spec.quant.method != "mxfp4":
        return (0, 0)
    backend = str(args.get("moe_runner_backend") or "auto")
    blackwell = sm in (100, 103, 120, 121)
    flashinfer = backend == "flashinfer_mxfp4" or (backend == "auto" and blackwell)
    if not flashinfer:
        return (0, 0)
    if sm in (100, 103):
        return (256, release.sizing.mxfp4_sm100_intermediate_pad)
    return (256, 0)


def _effective_spec(spec: ModelSpec, args: Dict[str, Any], release: SGLangRelease, sm: int) -> ModelSpec:
    """The spec as loaded under ``--dtype`` and online ``--quantization`` (bf16 checkpoint quantized at load).

    ``configs/model_config.py _get_and_verify_dtype``: ``auto`` keeps bf16/fp16 and turns float32 (or a missing
    dtype) into 16-bit, so only an explicit ``--dtype float32`` makes 4-byte weights and KV."""
    dtype = str(args.get("dtype") or "auto").lower()
    quant = str(args.get("quantization") or "").lower()
    online = quant in ("fp8", "w8a8_fp8", "fbgemm_fp8") and spec.quant.method is None
    # configs/model_config.py is_lm_only, models/qwen3_vl.py: a text-only launch builds no ViT and is not
    # multimodal, in the releases that honour it (others ignore the checkpoint's flag and always build it)
    lm_only = spec.is_multimodal and release.sizing.honours_language_model_only and (spec.config_language_model_only or bool(args.get("language_model_only")))
    dp_encoder = spec.is_multimodal and bool(args.get("mm_enable_dp_encoder"))
    mm_off = spec.is_multimodal and spec.layout.multimodal_opt_in and not args.get("enable_multimodal")
    moe_pad = mxfp4_moe_padding(spec, args, release, sm)
    # transformers 5 keeps Gemma 3's RoPE settings per layer type (rope_parameters), so get_context_length finds no
    # rope_scaling factor to apply
    unscaled = spec.layout.rope_layout == "local_global_unscaled" and release.sizing.gemma3_rope_per_layer_type
    unswizzled = spec.fp4_moe_swizzled_scales and trtllm_fp4_moe(spec, args, sm)
    if (
        dtype in ("auto", "bfloat16", "float16", "half", "bf16", "fp16")
        and not online
        and not lm_only
        and not mm_off
        and not dp_encoder
        and moe_pad == (0, 0)
        and not unscaled
        and not unswizzled
    ):
        return spec
    key = (id(spec), dtype, online, lm_only, mm_off, dp_encoder, moe_pad, unscaled, unswizzled)
    cached = _SPEC_VARIANTS.get(key)
    if cached is None:
        cached = replace(
            spec,
            dtype_bytes=4 if dtype in ("float32", "float") else spec.dtype_bytes,
            quant=QuantSpec(method="fp8", bits=8, not_converted=("lm_head", "embed_tokens", "gate")) if online else spec.quant,
            is_multimodal=spec.is_multimodal and not lm_only and not mm_off,
            vision=None if lm_only else spec.vision,
            vision_replicated=dp_encoder,
            moe_pad=moe_pad,
            fp4_moe_swizzled_scales=spec.fp4_moe_swizzled_scales and not unswizzled,
            derived_context_len=derive_context_length({k: v for k, v in spec.raw_text_config.items() if k != "rope_scaling"})
            if unscaled
            else spec.derived_context_len,
        )
        _SPEC_VARIANTS[key] = cached
        _SPEC_KEEPALIVE[id(spec)] = spec
    return cached


def vision_heads_error(spec: ModelSpec, tp: int, release: SGLangRelease) -> Optional[str]:
    """distributed/utils.py divide's AssertionError when a GLM-4V ViT's heads do not split over TP and the release
    does not pad them with dummy heads (0.5.9's glm4v.py builds its blocks without num_dummy_heads)."""
    if not spec.vision or spec.layout.vision_tower != "glm4v" or spec.vision_replicated or release.sizing.glm4v_vision_pads_heads:
        return None
    heads = int(spec.vision.get("num_heads", 12))
    return f"{heads} is not divisible by {tp}" if heads % tp else None


def _sm(gpu: Dict[str, Any]) -> int:
    cc = gpu.get("compute_capability")
    if cc:
        m = re.match(r"^\s*(\d+)\.(\d+)", str(cc))
        if m:
            return int(m.group(1)) * 10 + int(m.group(2))
    name = str(gpu.get("name", "")).upper()
    # the longest name that matches: "A100" must not be read as "A10", nor "L40S" as "L4"
    matches = [(len(key), sm) for key, sm in _SM_BY_NAME if key in name]
    return max(matches)[1] if matches else 80


def _num(gpu: Dict[str, Any], key: str, idx: int) -> Optional[float]:
    val = gpu.get(key)
    if val is None or val == "":
        return None
    try:
        val = float(val)
    except (TypeError, ValueError, OverflowError):
        raise BudgetInputError(f"gpus[{idx}].{key}", f"must be a number, got {val!r}", "pass the nvidia_gpu_info facts or numbers in MiB") from None
    if math.isnan(val) or val < 0 or val > _MAX_GPU_MIB:
        raise BudgetInputError(f"gpus[{idx}].{key}", f"must be from 0 to {_MAX_GPU_MIB} (MiB; GiB for pre_model_load_gib), got {val}", "pass MiB figures")
    return val


def _gpu_baselines(gpus: Any, tp: int, pp: int = 1, replicas: int = 1) -> Tuple[List[Dict[str, Any]], float, List[str]]:
    """Per-rank (total, free, pre) in GiB for the GPUs the launch uses, and the MiB the heuristics read.

    SGLang takes the MIN of free memory over the ranks of a process group; the engine takes it over every GPU the
    launch uses (TP x PP, and each DP replica's group), which is the replica that fails first."""
    if not isinstance(gpus, list) or not gpus:
        raise BudgetInputError("gpus", "must be a non-empty list of GPUs", "pass nvidia_gpu_info's gpus, or declare [{name: ..., memory_total_mib: ...}]")
    world = tp * pp * replicas
    if len(gpus) < world:
        need = f"tp_size is {tp}" if world == tp else f"tp_size {tp} x pp_size {pp} x dp_size {replicas} needs {world}"
        raise BudgetInputError("gpus", f"{len(gpus)} GPU(s) given but {need}", f"declare at least {world} GPUs or lower the parallel sizes")
    tp = world
    notes: List[str] = []
    totals = []
    ranks = []
    for i, g in enumerate(gpus):
        if not isinstance(g, dict):
            raise BudgetInputError(f"gpus[{i}]", "must be a dict", "give name and memory_total_mib")
        total = _num(g, "memory_total_mib", i)
        if total is None or total <= 0:
            raise BudgetInputError(
                f"gpus[{i}].memory_total_mib", "is missing or zero", "give each GPU's memory.total in MiB (nvidia-smi --query-gpu=memory.total)"
            )
        totals.append(total)
        for key, scale in (("memory_free_mib", 1), ("memory_used_mib", 1), ("pre_model_load_gib", 1024)):
            amount = _num(g, key, i)
            if amount is not None and amount * scale > total:
                raise BudgetInputError(
                    f"gpus[{i}].{key}",
                    f"{amount} is more than the card's memory_total_mib {total:g}",
                    "pass the figures of one GPU, as nvidia_gpu_info reports them",
                )
    for i, g in enumerate(gpus[:tp]):
        total = totals[i]
        pre_direct = _num(g, "pre_model_load_gib", i)
        free = _num(g, "memory_free_mib", i)
        used = _num(g, "memory_used_mib", i)
        overhead = CONTEXT_OVERHEAD_GIB + (NCCL_OVERHEAD_GIB if tp > 1 else 0.0)
        if pre_direct is not None:
            free_gib, pre = pre_direct + overhead, pre_direct
        else:
            if free is None:
                free = total - used if used is not None else total
                notes.append(f"gpus[{i}]: free memory not given; assumed {'total - used' if used is not None else 'the whole card'}")
            free_gib = free / 1024
            pre = free_gib - overhead
        ranks.append({"index": g.get("index", i), "name": g.get("name", "GPU"), "total_gib": total / 1024, "free_gib": free_gib, "pre_model_load_gib": pre})
    if any(_num(g, "pre_model_load_gib", i) is None for i, g in enumerate(gpus[:tp])):
        notes.append(
            f"pre_model_load = free - {CONTEXT_OVERHEAD_GIB} GiB CUDA context"
            + (f" - {NCCL_OVERHEAD_GIB} GiB NCCL/custom all-reduce" if tp > 1 else "")
            + " (estimate; SGLang logs the real value as 'Load weight begin. avail mem=')"
        )
    return ranks, min(totals), notes


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


# ------------------------------------------------------------------------------------------------
# Core
# ------------------------------------------------------------------------------------------------
def _stage_spec(spec: ModelSpec, pp: int, rank: int, env: Dict[str, str]) -> ModelSpec:
    """The spec of pipeline stage ``rank`` of ``pp`` (the whole model when pp is 1)."""
    if pp <= 1:
        return spec
    partition = env.get("SGLANG_PP_LAYER_PARTITION")
    key = (id(spec), "pp", pp, rank, partition)
    cached = _SPEC_VARIANTS.get(key)
    if cached is None:
        cached = replace(spec, stage=pipeline_stage(spec.num_layers, rank, pp, partition))
        _SPEC_VARIANTS[key] = cached
        _SPEC_KEEPALIVE[id(spec)] = spec
    return cached


def _core(
    spec: ModelSpec,
    total: Optional[int],
    source: str,
    override: Optional[Dict[str, Any]],
    ranks: List[Dict[str, Any]],
    gpu_mem_mib: float,
    sm: int,
    args: Dict[str, Any],
    release: SGLangRelease,
    env: Dict[str, str],
) -> Dict[str, Any]:
    # With pipeline parallel, rank 0 (pipeline stage 0) is sized, as its log reports it; the last stage, which holds
    # the lm_head, is checked for its weights too.
    whole = _effective_spec(spec, args, release, sm)
    pp = int(args.get("pp_size") or 1)
    spec = _stage_spec(whole, pp, 0, env)
    r = resolve_args(spec, args, release, gpu_mem_mib, sm, env)
    _check_parallel(spec, r)
    dp_lm_head = bool(args.get("enable_dp_lm_head"))
    rope_reserve = rope_reserve_rows(r.context_len, r.spec_steps, r.spec_draft_tokens, env)
    wb = _weights(spec, r.tp, r.ep, total, source, override, r.attn_tp, dp_lm_head, release, rope_reserve)
    offload = float(args.get("cpu_offload_gb") or 0)
    if offload > 0:  # utils/offloader.py: parameters up to cpu_offload_gb * 1024**3 bytes stay in host memory
        wb = replace(wb, target_param_bytes=max(0, wb.target_param_bytes - int(offload * GIB)))
    out: Dict[str, Any] = {"resolved": r, "weights": wb, "error": None, "sizing": None, "root_cause": "none"}
    cell = cell_size(spec, r)
    per_req = mamba_per_req(spec, r)
    out["cell"], out["per_req"] = cell, per_req
    pre_list = [x["pre_model_load_gib"] for x in ranks]
    pre = min(pre_list)
    if r.tp > 1:
        pre = _f32(pre)
    out["pre"] = pre
    checks: List[str] = []
    out["checks"] = checks
    try:
        checks.append("model_config")  # ModelConfig loads config.json before any argument is checked
        load_error = config_load_error(spec.raw_config or spec.raw_text_config, release, bool(args.get("trust_remote_code")))
        if load_error:
            raise StartupError("ValueError", load_error, "unsupported_architecture")
        checks.append("context_length")
        if r.context_error:
            raise StartupError("ValueError", r.context_error, "context_length_exceeds_model")
        checks.append("quantization")  # ModelConfig._verify_quantization, after the context length
        unmodelled = spec.quant.unmodelled_method
        if unmodelled == "" and args.get("quantization"):
            unmodelled = None  # --quantization names the method the checkpoint's config leaves out
        quant_error = unknown_quantization_error(unmodelled, release)
        if quant_error:
            raise StartupError("ValueError", quant_error, "unsupported_quantization")
        if unmodelled and not override and not total:
            raise unmodelled_quant_error(unmodelled)
        checks.append("server_args")
        if r.arg_error:
            raise StartupError(r.arg_error[0], r.arg_error[1], "incompatible_feature_combination")
        checks.append("tp_memory_balance")
        if r.tp > 1:
            local = max(pre_list)
            if pre < local * 0.9:
                msg = MSG_IMBALANCE.format(min_name=release.sizing.messages.imbalance_min_name, pre=pre, local=local, local09=local * 0.9)
                if str(env.get("SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK", "1")).lower() in ("0", "false", "no"):
                    out.setdefault("extra_warnings", []).append({"id": "tp_memory_imbalance", "message": msg})
                else:
                    raise StartupError("RuntimeError", msg, "tp_memory_imbalance")
        checks.append("weight_load")  # the quantization config is built first, when the model loads
        quant_error = (
            release.sizing.quant_config_check(spec, args, sm) or modelopt_fp4_capability_error(spec, sm, release) or fp8_block_shape_error(spec, r.tp, r.ep)
        )
        if quant_error:
            raise quant_error
        build_error = encoder_config_error(spec.raw_config, spec.layout, release)  # then the model class is built
        if build_error:
            raise StartupError("AttributeError", build_error, "unsupported_architecture")
        heads_error = vision_heads_error(spec, r.tp, release)
        if heads_error:
            raise StartupError("AssertionError", heads_error, "invalid_argument_value")
        eagle = r.spec_algorithm in ("EAGLE", "EAGLE3", "STANDALONE")
        load = (wb.target_param_bytes + wb.target_buffer_bytes) / GIB
        if release.sizing.draft_loaded_before_sizing and eagle and spec.has_mtp_head:
            load += (wb.draft_param_bytes + wb.draft_buffer_bytes) / GIB
        if load >= pre:
            raise StartupError(
                "torch.OutOfMemoryError",
                f"CUDA out of memory while loading weights: {load:.2f} GiB per GPU needed, {pre:.2f} GiB free after CUDA context and NCCL",
                "cuda_oom_weights",
            )
        if pp > 1:
            last = _stage_spec(whole, pp, pp - 1, env)
            lw = _weights(last, r.tp, r.ep, total, source, None, r.attn_tp, dp_lm_head, release, rope_reserve)
            last_load = (lw.target_param_bytes + lw.target_buffer_bytes) / GIB
            if last_load >= pre:
                raise StartupError(
                    "torch.OutOfMemoryError",
                    f"CUDA out of memory while loading weights on the last pipeline stage (layers {last.stage.start}-{last.stage.end - 1}): "
                    f"{last_load:.2f} GiB per GPU needed, {pre:.2f} GiB free after CUDA context and NCCL",
                    "cuda_oom_weights",
                )
        checks.append("pool_sizing")
        out["sizing"] = size_pools(spec, wb, r, pre, cell, per_req)
        checks.append("worker_asserts")
    except StartupError as exc:
        out["error"] = exc
        out["root_cause"] = exc.root_cause
    return out


def _check_parallel(spec: ModelSpec, r: Resolved) -> None:
    tp = r.tp
    if tp < 1:
        raise BudgetInputError("server_args.tp_size", f"must be >= 1, got {tp}", "use a positive --tp-size")
    if spec.num_heads % r.attn_tp:
        raise BudgetInputError(
            "server_args.tp_size", f"tp_size {tp} does not divide num_attention_heads {spec.num_heads}", f"use a tp_size that divides {spec.num_heads}"
        )
    if spec.num_kv_heads % r.attn_tp and r.attn_tp % spec.num_kv_heads:
        raise BudgetInputError(
            "server_args.tp_size",
            f"tp_size {tp} and num_key_value_heads {spec.num_kv_heads} divide neither way",
            "use a tp_size that divides the KV heads or is a multiple of them",
        )
    if spec.family == "gdn" and spec.linear_num_value_heads % r.attn_tp:
        raise BudgetInputError(
            "server_args.tp_size",
            f"tp_size {tp} does not divide linear_num_value_heads {spec.linear_num_value_heads}",
            "use a tp_size that divides the linear-attention value heads",
        )
    if spec.family == "mamba2" and not spec.layout.short_conv and spec.mamba_num_heads % r.attn_tp:
        raise BudgetInputError(
            "server_args.tp_size", f"tp_size {tp} does not divide mamba_num_heads {spec.mamba_num_heads}", "use a tp_size that divides the mamba heads"
        )
    mfs = r.mem_fraction_static
    if not (0 < mfs < 1):
        raise BudgetInputError(
            "server_args.mem_fraction_static", f"must be inside (0, 1), got {mfs}", "pass a fraction such as 0.85, or omit it for SGLang's default"
        )


def _normalize_args(server_args: Any, release: SGLangRelease) -> Dict[str, Any]:
    if server_args is None:
        return {}
    if not isinstance(server_args, dict):
        raise BudgetInputError("server_args", f"must be a dict keyed by SGLang dest names, got {type(server_args).__name__}", "pass e.g. {'tp_size': 2}")
    args = {str(k).lstrip("-").replace("-", "_"): v for k, v in server_args.items()}
    try:  # the flag validator types the values the way SGLang's argparse would, and rejects unknown flags
        from ..flag_validator import FlagValidationError, validate_server_args
    except ImportError:  # pragma: no cover - the validator ships with the collection
        validate_server_args = None
    if validate_server_args is not None:
        try:
            typed = validate_server_args(args, release.version, check_required=False)
        except FlagValidationError as exc:
            raise BudgetInputError("server_args", str(exc), "correct the flag as described, then re-run") from None
        if isinstance(typed, dict):
            args = dict(args, **typed)
    for key in ("mem_fraction_static", "mamba_full_memory_ratio", "swa_full_tokens_ratio"):
        if args.get(key) is not None:
            try:
                args[key] = float(args[key])
            except (TypeError, ValueError):
                raise BudgetInputError(f"server_args.{key}", f"must be a number, got {args[key]!r}", "pass a decimal such as 0.85") from None
            if not 0 <= args[key] <= 1000:
                raise BudgetInputError(f"server_args.{key}", f"must be from 0 to 1000, got {args[key]}", "pass a decimal such as 0.85")
    for key in (
        "tp_size",
        "pp_size",
        "dp_size",
        "ep_size",
        "context_length",
        "max_running_requests",
        "max_mamba_cache_size",
        "page_size",
        "speculative_num_steps",
        "speculative_eagle_topk",
        "speculative_num_draft_tokens",
        "chunked_prefill_size",
        "max_total_tokens",
        "cuda_graph_max_bs",
        "cuda_graph_max_bs_decode",
    ):
        if args.get(key) is not None:
            try:
                args[key] = int(args[key])
            except (TypeError, ValueError, OverflowError):
                raise BudgetInputError(f"server_args.{key}", f"must be an integer, got {args[key]!r}", "pass a whole number") from None
            if args[key] < 0 or args[key] > _MAX_COUNT_ARG:
                raise BudgetInputError(f"server_args.{key}", f"must be from 0 to {_MAX_COUNT_ARG}, got {args[key]}", "pass a positive number")
    for key in ("page_size", "context_length"):
        if args.get(key) is not None and args[key] < 1:
            raise BudgetInputError(f"server_args.{key}", f"must be at least 1, got {args[key]}", "pass a positive number, or leave it out for SGLang's default")
    for key in ("tp_size", "pp_size", "dp_size", "ep_size"):
        if args.get(key) is not None and not 1 <= int(args[key]) <= 4096:
            raise BudgetInputError(
                f"server_args.{key}", f"must be from 1 to 4096, got {args[key]}", "pass the number of GPUs (or replicas) this parallel dimension uses"
            )
    if args.get("mem_fraction_static") is not None and not 0 < args["mem_fraction_static"] < 1:
        raise BudgetInputError(
            "server_args.mem_fraction_static",
            f"must be inside (0, 1), got {args['mem_fraction_static']}",
            "pass a fraction such as 0.85, or omit it for SGLang's default",
        )
    return args


def architecture_of(spec: ModelSpec, release: SGLangRelease) -> ArchitectureSupport:
    """How ``release`` treats the checkpoint's class (verified or generic); refuses one it special-cases, or a
    config the release's config class would misread."""
    support = resolve_architecture(spec.architecture, spec.raw_config or spec.raw_text_config, release)
    if spec.layers_from_block_type and not release.sizing.nemotron_h_reads_layers_block_type:
        raise BudgetInputError(
            "model.config.layers_block_type",
            f"SGLang {release.version}'s Nemotron-H config reads only hybrid_override_pattern, so it would build its default layer pattern for this checkpoint",
            "pin SGLang 0.5.10 or newer (sglang_version)",
        )
    return support


def _refuse_unmodelled(model: Any, release: SGLangRelease, field_error: BudgetInputError) -> None:
    """A class the engine does not model is refused by name before its fields are judged: a real config of a class
    SGLang special-cases (a per-layer list where the generic layout reads a number, MLA without head_dim) is not bad
    input, only one the generic layout cannot read. Returns when the class is verified or generic (the field error
    stands)."""
    config = (model.get("config") if "config" in model else model) if isinstance(model, dict) else None
    archs = config.get("architectures") if isinstance(config, dict) else None
    if not isinstance(archs, list) or not archs or not isinstance(archs[0], str) or archs[0] in VERIFIED:
        return
    try:
        resolve_architecture(archs[0], config, release)
    except BudgetInputError as refusal:
        raise refusal from field_error


def _prepare(model, gpus, server_args, sglang_version, allow_nearest_profile, env):
    try:
        rv = (
            ResolvedRelease(sglang_version.version, sglang_version)
            if isinstance(sglang_version, SGLangRelease)
            else resolve_release(str(sglang_version), allow_nearest=allow_nearest_profile, sized=True)
        )
    except UnsupportedVersionError as exc:
        raise BudgetInputError("sglang_version", str(exc), "pin a supported release, or set allow_nearest_profile") from exc
    args = _normalize_args(server_args, rv.release)
    tp = int(args.get("tp_size") or args.get("tensor_parallel_size") or 1)
    pp = int(args.get("pp_size") or 1)
    dp = int(args.get("dp_size") or 1)
    dp_attention = bool(args.get("enable_dp_attention")) or int(args.get("attn_dp_size") or 1) > 1
    replicas = dp if dp > 1 and not dp_attention else 1  # DP replicas are separate TP groups on other GPUs
    try:
        spec, total, source, override = _model_inputs(model)
    except BudgetInputError as exc:
        _refuse_unmodelled(model, rv.release, exc)
        raise
    architecture_of(spec, rv.release)
    ranks, gpu_mem, notes = _gpu_baselines(gpus, tp, pp, replicas)
    env = {str(k): str(v) for k, v in (env or {}).items()}
    if pp > 1:
        if args.get("speculative_algorithm"):
            raise BudgetInputError(
                "server_args.pp_size",
                "pipeline parallel with speculative decoding is not modelled (which stage holds the draft and its KV)",
                "budget the launch without speculation, or with pp_size 1",
            )
        first = pipeline_stage(spec.num_layers, 0, pp, env.get("SGLANG_PP_LAYER_PARTITION"))
        notes.append(
            f"pp_size {pp}: sized for pipeline stage 0 (layers {first.start}-{first.end - 1} of {spec.num_layers}, the numbers rank 0 logs); "
            f"the last stage is checked for its weights only"
        )
    return rv, args, spec, total, source, override, ranks, gpu_mem, _sm(gpus[0]), notes, env


# ------------------------------------------------------------------------------------------------
# Verdict
# ------------------------------------------------------------------------------------------------
def _verdict(spec: ModelSpec, core: Dict[str, Any]) -> Tuple[str, str, List[Dict[str, str]], Dict[str, float]]:
    r: Resolved = core["resolved"]
    warnings = list(core.get("extra_warnings", []))
    if core["error"] is not None:
        return "fails", core["root_cause"], warnings, {}
    s: Sizing = core["sizing"]
    warnings += s.warnings
    needs = runtime_needs(spec, core["weights"], r, s, core["cell"], core["per_req"])
    slack = core["pre"] * (1 - r.mem_fraction_static)
    hard = sum(v for k, v in needs.items() if k != "graphs_and_activations" and v > 0)
    headroom = slack - sum(needs.values())
    verdict, root = "fits", "none"
    if slack < hard:
        # A release that loads the draft only after the target pools exist: if its weights alone overflow, that OOM
        # happens while loading weights; otherwise the allocations after sizing run out during graph capture.
        peak = needs.get("draft_weights_peak", 0.0)
        root = "cuda_oom_weights" if peak and slack < peak else "cuda_oom_cuda_graph"
        return (
            "fails",
            root,
            warnings
            + [
                {
                    "id": "cuda_graph_headroom_low",
                    "message": f"the non-static slack {slack:.2f} GiB cannot hold what SGLang allocates after sizing "
                    f"({hard:.2f} GiB: " + ", ".join(f"{k} {v:.2f}" for k, v in needs.items() if v > 0 and k != "graphs_and_activations") + ")",
                }
            ],
            needs,
        )
    if headroom < 0:
        # SGLang's reserve heuristic is generous (it prices 1.5 MiB per prefill token); below it is a warning,
        # below half of it capture is likely to OOM and the launch counts as degraded.
        graphs = needs.get("graphs_and_activations", 0.0)
        warnings.append(
            {
                "id": "cuda_graph_headroom_low",
                "message": f"slack {slack:.2f} GiB leaves {slack - hard:.2f} GiB after post-sizing "
                f"allocations, below SGLang's own {graphs:.2f} GiB estimate for CUDA graphs and "
                f"prefill activations; capture may OOM (lower --cuda-graph-max-bs or "
                f"--chunked-prefill-size, not raise --mem-fraction-static)",
            }
        )
        if slack - hard < graphs / 2:
            verdict, root = "degraded", "cuda_oom_cuda_graph"
    if s.max_total_num_tokens < r.context_len:
        own = r.release.sizing.messages.kv_pool_below_context
        if own is None:
            text = (
                f"KV pool holds {s.max_total_num_tokens} tokens, fewer than --context-length {r.context_len}: one "
                f"full-length request cannot fit (SGLang {r.release.version} starts without saying so)"
            )
        else:
            text = own.format(tokens=s.max_total_num_tokens, context=r.context_len)
        warnings.append({"id": "kv_pool_smaller_than_context", "message": text})
        verdict = "degraded"
        root = root if root != "none" else "kv_pool_too_small"
    # A cap below what was asked for (the flag, or the speculative default of 48) degrades service; SGLang's own
    # estimate (2048-4096 when nothing was asked) being capped is normal and stays a warning.
    if r.max_running_requests is not None and s.max_running_requests < max(1, r.max_running_requests // r.attn_dp):
        verdict = "degraded"
        if root == "none":
            root = "mamba_pool_too_small" if spec.is_mambaish else "kv_pool_too_small"
    return verdict, root, warnings, needs


def _message(spec: ModelSpec, core: Dict[str, Any], verdict: str) -> str:
    r: Resolved = core["resolved"]
    wb: WeightBreakdown = core["weights"]
    head = (
        f"SGLang {r.release.version}, {spec.architecture}, TP {r.tp}, mem_fraction_static {r.mem_fraction_static:.3f}, "
        f"pre {core['pre']:.2f} GiB, weights {wb.target_param_bytes / GIB:.2f} GiB/GPU"
    )
    if core["error"] is not None:
        return f"{verdict}: {head}: {core['error'].etype}: {core['error'].message}"
    s: Sizing = core["sizing"]
    tail = f"{s.max_total_num_tokens} KV tokens, max_running_requests {s.max_running_requests}, context {r.context_len}"
    if spec.is_mambaish:
        tail += f", {s.mamba_slots} mamba slots"
    return f"{verdict}: {head}: {tail}"


def _min_viable_mfs(spec, total, source, override, ranks, gpu_mem, sm, args, release, env) -> Optional[float]:
    """Smallest fraction (0.001 steps) at which the sizing raises nothing."""

    def ok(m: float) -> bool:
        c = _core(spec, total, source, override, ranks, gpu_mem, sm, dict(args, mem_fraction_static=m), release, env)
        return c["error"] is None

    lo, hi = 1, 999
    if not ok(hi / 1000):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid / 1000):
            hi = mid
        else:
            lo = mid + 1
    return hi / 1000


def evaluate(
    model: Any,
    gpus: Any,
    server_args: Any,
    sglang_version: Union[str, SGLangRelease],
    *,
    allow_nearest_profile: bool = False,
    env: Optional[Dict[str, str]] = None,
    with_fixes: bool = True,
) -> Dict[str, Any]:
    """Predict what ``sglang_version`` does at startup for this model, GPUs and flags (JSON-safe dict).

    ``sglang_version``: a release of the registry by its version string, or an :class:`SGLangRelease` itself.

    ``model``: a ModelSpec, a model directory, or a dict ``{"config", "hf_quant_config", "safetensors_index",
    "safetensors_headers", "path"}`` (only ``config`` is required); an optional ``"weights"`` entry
    (``target_param_bytes``, ``target_buffer_bytes``, ``draft_param_bytes``, ``draft_buffer_bytes`` per GPU)
    replaces the engine's own weight estimate, e.g. with a measured "mem usage".
    ``gpus``: dicts with ``name`` and ``memory_total_mib`` at least; ``memory_free_mib`` (or ``memory_used_mib``)
    when measured; ``pre_model_load_gib`` to give SGLang's baseline directly (free memory after the CUDA context
    and NCCL, as logged by "Load weight begin. avail mem="). Without it the baseline is free memory minus
    ``CONTEXT_OVERHEAD_GIB`` (+ ``NCCL_OVERHEAD_GIB`` when several GPUs work together), said in ``warnings``.
    ``server_args``: dest-keyed SGLang flags, typed by the flag validator. ``env``: SGLang environment variables
    that change sizing (``SGLANG_MAMBA_SSM_DTYPE``, ``SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK``, ...).
    Raises BudgetInputError for bad input; SGLang's own failures are returned in ``error``/``root_cause``."""
    rv, args, spec, total, source, override, ranks, gpu_mem, sm, notes, env = _prepare(model, gpus, server_args, sglang_version, allow_nearest_profile, env)
    core = _core(spec, total, source, override, ranks, gpu_mem, sm, args, rv.release, env)
    verdict, root, warnings, needs = _verdict(spec, core)
    r: Resolved = core["resolved"]
    wb: WeightBreakdown = core["weights"]
    s: Optional[Sizing] = core["sizing"]
    if rv.confidence == "nearest":
        warnings.append({"id": "nearest_profile", "message": f"no profile for SGLang {rv.requested}; used {rv.release.version}"})
    if rv.release.verified_by == "source":
        warnings.append(
            {
                "id": "release_not_oracle_checked",
                "message": f"SGLang {rv.release.version}'s sizing is read from its source and not yet checked "
                f"against that release's own sizing code (bench/oracle); treat the numbers as "
                f"less certain",
            }
        )
    for n in notes + r.notes:
        warnings.append({"id": "assumption", "message": n})
    if r.spec_algorithm in ("EAGLE", "EAGLE3", "STANDALONE") and not spec.has_mtp_head:
        warnings.append(
            {
                "id": "draft_weights_unknown",
                "message": f"{r.spec_algorithm} needs a separate draft model (speculative_draft_model_path); "
                f"its weights and KV are not counted, so the prediction is optimistic"
                + ("" if rv.release.sizing.draft_loaded_before_sizing else f" for the slack ({rv.release.version} loads the draft after sizing)"),
            }
        )
    eagle = r.spec_algorithm in ("EAGLE", "EAGLE3", "STANDALONE") and spec.has_mtp_head
    draft_gib = (wb.draft_param_bytes + wb.draft_buffer_bytes) / GIB if eagle else 0.0
    slack_needs = sum(needs.values()) if needs else 0.0
    per_gpu = []
    for rank in ranks:
        # the pools are sized from the smallest baseline; a rank that started with more keeps the difference
        slack = core["pre"] * (1 - r.mem_fraction_static) + max(0.0, rank["pre_model_load_gib"] - core["pre"])
        per_gpu.append(
            {
                "index": rank["index"],
                "name": rank["name"],
                "total_gib": round(rank["total_gib"], 3),
                "free_gib": round(rank["free_gib"], 3),
                "pre_model_load_gib": round(rank["pre_model_load_gib"], 3),
                "weights_gib": round((wb.target_param_bytes + wb.target_buffer_bytes) / GIB, 3),
                "draft_gib": round(draft_gib, 3),
                "mamba_pool_gib": round((s.mamba_main_gib + s.mamba_spec_gib) if s else 0.0, 3),
                "kv_pool_gib": round(s.kv_pool_gib if s else 0.0, 3),
                "headroom_gib": round(slack - slack_needs, 3) if s else None,
            }
        )
    min_mfs = _min_viable_mfs(spec, total, source, override, ranks, gpu_mem, sm, args, rv.release, env)
    err = core["error"]
    architecture = architecture_of(spec, rv.release)
    if architecture.support == "unloadable":
        warnings.append({"id": "architecture_not_in_release", "message": absent_class_message(spec.architecture, rv.release)})
    if architecture.support == "generic":
        warnings.append(
            {
                "id": "generic_architecture",
                "message": f"{spec.architecture} is not on the verified list: sized with the standard "
                f"attention layout from config.json's {', '.join(architecture.fields_used)}; "
                f"bench/bench_budget.py reports what such predictions are worth",
            }
        )
    result = {
        "sglang_version": rv.requested,
        "profile": rv.release.version,
        "confidence": "generic" if architecture.support == "generic" else rv.confidence,
        "verified_by": rv.release.verified_by,
        "architecture": architecture.to_dict(),
        "verdict": verdict,
        "root_cause": root,
        "message": _message(spec, core, verdict),
        "error": {"type": err.etype, "message": err.message} if err else None,
        "warnings": warnings,
        "resolved_args": r.to_dict(),
        # SGLang's startup checks in the order the release runs them; the last one is where it stopped
        "checks": [{"id": c, "passed": not (err and i == len(core["checks"]) - 1)} for i, c in enumerate(core["checks"])],
        "budget": {
            "per_gpu": per_gpu,
            "totals": {
                "max_total_num_tokens": s.max_total_num_tokens if s else None,
                "swa_max_total_num_tokens": s.swa_tokens if s else None,
                "max_running_requests": s.max_running_requests if s else None,
                "mamba_slots": s.mamba_slots if s and spec.is_mambaish else None,
                "context_len": r.context_len,
                "mem_fraction_static": round(r.mem_fraction_static, 5),
                "min_viable_mem_fraction_static": min_mfs,
                "cell_size_bytes": core["cell"]["cell"],
                "mamba_state_per_req_bytes": core["per_req"] or None,
                "weights_source": wb.source,
                "runtime_needs_gib": {k: round(v, 3) for k, v in needs.items()},
            },
        },
        "fixes": [],
    }
    if with_fixes and verdict != "fits":
        result["fixes"] = _search_fixes(spec, total, source, override, ranks, gpu_mem, sm, args, rv.release, env, gpus)
    return result


# ------------------------------------------------------------------------------------------------
# Fixes
# ------------------------------------------------------------------------------------------------
_VERDICT_RANK = {"fits": 0, "degraded": 1, "fails": 2}
_SIDE_EFFECT = {
    "max_running_requests": 0,
    "mem_fraction_static": 0,
    "max_mamba_cache_size": 0,
    "tp_size": 0,
    "chunked_prefill_size": 0,
    "cuda_graph_max_bs": 0,
    "cuda_graph_max_bs_decode": 0,
    "mamba_full_memory_ratio": 0,
    "context_length": 1,
    "mamba_ssm_dtype": 1,
    "kv_cache_dtype": 1,
    "quantization": 1,
    "speculative_num_steps": 2,
    "speculative_algorithm": 2,
}
# What a fix costs besides capacity, by the rank above: "none" (only concurrency, pool split, parallelism),
# "quality" (shorter context or lower precision), "speed" (less or no speculative decoding).
SIDE_EFFECTS = ("none", "quality", "speed")


def fix_side_effect(changes: Dict[str, Any]) -> str:
    """The side effect of a fix's flag changes (the worst of its flags; an unknown flag counts as quality)."""
    return SIDE_EFFECTS[max(_SIDE_EFFECT.get(k, 1) for k in changes)]


def _quick(spec, total, source, override, ranks, gpu_mem, sm, args, release, env, margin: float = 0.0):
    if margin:
        ranks = [dict(x, pre_model_load_gib=x["pre_model_load_gib"] - margin) for x in ranks]
    core = _core(spec, total, source, override, ranks, gpu_mem, sm, args, release, env)
    verdict, root, warnings, needs = _verdict(spec, core)
    return core, verdict


def _search_fixes(spec, total, source, override, ranks, gpu_mem, sm, args, release, env, gpus) -> List[Dict[str, Any]]:
    base = (spec, total, source, override, ranks, gpu_mem, sm)
    r0 = resolve_args(spec, args, release, gpu_mem, sm, env)
    candidates: List[Dict[str, Any]] = []

    def robust(changes: Dict[str, Any]) -> Optional[Tuple[Dict[str, Any], str]]:
        new = dict(args)
        for k, v in changes.items():
            if v is None:
                new.pop(k, None)
            else:
                new[k] = v
        try:
            core, verdict = _quick(*base, new, release, env)
            v_margin = _quick(*base, new, release, env, margin=FIX_MARGIN_GIB)[1]
        except BudgetInputError:
            return None
        if verdict == "fails":
            return None
        if v_margin == "fails" or (_VERDICT_RANK[v_margin] > _VERDICT_RANK[verdict]):
            verdict = "degraded" if verdict == "fits" else verdict
        return core, verdict

    def add(changes: Dict[str, Any], summary: str) -> None:
        got = robust(changes)
        if got is None:
            return
        core, verdict = got
        s = core["sizing"]
        candidates.append(
            {
                "changes": changes,
                "verdict": verdict,
                "max_total_num_tokens": s.max_total_num_tokens,
                "max_running_requests": s.max_running_requests,
                "summary": summary,
                "side_effect": fix_side_effect(changes),
            }
        )

    R = r0.max_running_requests
    spec_on = r0.spec_algorithm is not None
    base_core, base_verdict = _quick(*base, args, release, env)
    if base_verdict == "fits":
        return []
    # 1. max_running_requests: largest that fits (with margin). For a launch that starts, only when the request
    #    cap is what degrades it: asking for what SGLang will grant anyway costs nothing and makes it explicit
    upper = R if R is not None else 4096
    best = None
    capped = any(w["id"] == "max_running_requests_capped" for w in (base_core["sizing"].warnings if base_core["sizing"] else []))
    if base_verdict != "fails" and not capped:
        upper = 0
    top = upper - (1 if R is not None else 0)
    # Not monotonic: fewer requests leave a larger KV pool, whose unbudgeted draft copy eats the slack. Scan down
    # from the top (the usual case is a handful of steps), then bisect what is left.
    for cand in range(top, max(0, top - 64), -1):
        got = robust({"max_running_requests": cand})
        if got is not None and got[1] == "fits":
            best = cand
            break
    lo, hi = 1, (top - 64 if best is None else 0)
    while lo <= hi:
        mid = (lo + hi) // 2
        got = robust({"max_running_requests": mid})
        if got is not None and got[1] == "fits":
            best = mid
            lo = mid + 1
        else:
            hi = mid - 1
    if best is not None:
        add({"max_running_requests": best}, f"cap concurrency at {best} requests")
    # 2. minimum mem_fraction_static that fits and leaves the runtime slack
    for step in range(max(1, int(r0.mem_fraction_static * 1000) + 1), 991):
        m = step / 1000
        got = robust({"mem_fraction_static": m})
        if got is not None and got[1] == "fits":
            add({"mem_fraction_static": m}, f"raise --mem-fraction-static to {m}")
            break
    # 2b. the other side: too little slack for what comes after sizing -> lower the fraction, or shrink what the
    #     slack must hold (prefill chunk, decode graph batch)
    low_slack = any(w["id"] == "cuda_graph_headroom_low" for w in _verdict(spec, base_core)[2])
    if base_core["root_cause"] == "cuda_oom_cuda_graph" or (base_verdict == "degraded" and low_slack):
        for step in range(int(r0.mem_fraction_static * 1000) - 1, 100, -1):
            m = step / 1000
            got = robust({"mem_fraction_static": m})
            if got is not None and got[1] == "fits":
                add({"mem_fraction_static": m}, f"lower --mem-fraction-static to {m} to leave room for CUDA graphs")
                break
        if r0.chunked_prefill_size > 2048:
            half = r0.chunked_prefill_size // 2
            add({"chunked_prefill_size": half}, f"halve --chunked-prefill-size to {half} (smaller prefill activations)")
        bs_dest = release.sizing.cuda_graph_max_bs_flags[0]
        if r0.cuda_graph_max_bs > 8:
            half_bs = r0.cuda_graph_max_bs // 2
            add({bs_dest: half_bs}, f"capture decode CUDA graphs up to batch {half_bs} only")
    # 3. bf16 SSM state
    if spec.is_mambaish and r0.mamba_ssm_dtype == "float32":
        add({"mamba_ssm_dtype": "bfloat16"}, "store the recurrent SSM state in bfloat16 (halves it; lower precision)")
    # 4. shorter context: the model's own maximum first when the flag exceeds it, then halving
    ctx = r0.context_len
    tried = [spec.derived_context_len] if r0.context_error else []
    tried += [c for c in (ctx // 2, ctx // 4, 32768, 16384, 8192) if 0 < c < min(ctx, spec.derived_context_len)]
    fallback = None
    for c in tried:
        got = robust({"context_length": c})
        if got is not None and got[1] == "fits":
            add({"context_length": c}, f"shorten --context-length to {c}")
            fallback = None
            break
        if got is not None and fallback is None:
            fallback = c
    if fallback is not None and r0.context_error:
        add({"context_length": fallback}, f"set --context-length to {fallback}, the model's maximum")
    # 4b. 8-bit weights or KV cache (native FP8 needs SM 8.9+)
    if sm >= 89 and base_core["root_cause"] == "cuda_oom_weights" and spec.quant.method is None:
        add({"quantization": "fp8"}, "quantize the weights to FP8 at load time (changes numerics)")
    if sm >= 89 and r0.kv_bytes >= 2 and base_core["root_cause"] in ("kv_pool_too_small", "mamba_pool_too_small"):
        add({"kv_cache_dtype": "fp8_e4m3"}, "store the KV cache in FP8 (halves it; changes numerics)")
    # 5. more TP
    tp = r0.tp
    if len(gpus) >= 2 * tp:
        add({"tp_size": 2 * tp}, f"spread the model over {2 * tp} GPUs")
    # 6. fewer draft tokens / no speculation
    if spec_on:
        if (r0.spec_draft_tokens or 0) > 2:
            add({"speculative_num_steps": 1, "speculative_eagle_topk": 1, "speculative_num_draft_tokens": 2}, "speculate 1 step (2 draft tokens)")
        add(
            {"speculative_algorithm": None, "speculative_num_steps": None, "speculative_eagle_topk": None, "speculative_num_draft_tokens": None},
            "turn speculative decoding off",
        )
    # 6b. give the mamba state a larger share of the pool (auto-fit path only): more slots, fewer KV tokens.
    #     Without the radix cache and with a request cap, the slots follow the requests and the ratio sizes nothing.
    if spec.is_mambaish and r0.max_mamba_cache_size is None and not (r0.disable_radix_cache and r0.max_running_requests is not None):
        best_ratio = None
        for ratio in (1.5, 2.0, 3.0, 4.0, 6.0):
            if ratio <= r0.mamba_full_memory_ratio:
                continue
            got = robust({"mamba_full_memory_ratio": ratio})
            if got is None or got[0]["sizing"].max_total_num_tokens < ctx:
                break
            best_ratio = (ratio, got[0]["sizing"].max_running_requests)
        if best_ratio is not None:
            add({"mamba_full_memory_ratio": best_ratio[0]}, f"give the mamba state pool a {best_ratio[0]}:1 share of the KV pool ({best_ratio[1]} requests)")
    # 7. explicit mamba slots, where pinning them also caps the speculative states
    if spec.is_mambaish and release.sizing.mamba_spec_states_follow_slots and not r0.disable_radix_cache:
        for k in (64, 48, 32, 24, 16, 8):
            got = robust({"max_mamba_cache_size": k})
            if got is not None and got[1] == "fits":
                add({"max_mamba_cache_size": k}, f"pin the mamba pool to {k} slots")
                break

    def key(c):
        kind = SIDE_EFFECTS.index(c["side_effect"])
        ctx_ok = min(1.0, c["max_total_num_tokens"] / max(1, ctx))
        return (_VERDICT_RANK[c["verdict"]], kind, -(c["max_running_requests"] * ctx_ok), -c["max_total_num_tokens"])

    seen = set()
    out = []
    for c in sorted(candidates, key=key):
        sig = json.dumps(c["changes"], sort_keys=True)
        if sig not in seen:
            seen.add(sig)
            out.append(c)
    return out


def find_fixes(
    model: Any, gpus: Any, server_args: Any, sglang_version: str, *, allow_nearest_profile: bool = False, env: Optional[Dict[str, str]] = None
) -> List[Dict[str, Any]]:
    """Concrete flag changes that make the launch fit, each re-evaluated, ranked by least capacity lost."""
    rv, args, spec, total, source, override, ranks, gpu_mem, sm, notes, env = _prepare(model, gpus, server_args, sglang_version, allow_nearest_profile, env)
    return _search_fixes(spec, total, source, override, ranks, gpu_mem, sm, args, rv.release, env, gpus)
