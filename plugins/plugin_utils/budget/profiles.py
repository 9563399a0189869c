# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Argument resolution and startup sizing, replayed from SGLang's source; what differs by release is read from
the release's :class:`~.behaviour.SizingBehaviour`, and the functions named there live here.

0.5.9 (wheel paths): ``server_args.py`` ``_handle_gpu_memory_settings`` (:911-1069),
``_handle_mamba_radix_cache`` (:1699-1764), ``_handle_speculative_decoding`` (:2352-2450),
``model_executor/model_runner.py`` (:828-851 baseline + imbalance, :590-600 max_running_requests),
``model_executor/model_runner_kv_cache_mixin.py`` (:98-419 cell, profile, handle_max_mamba_cache,
init_memory_pool), ``managers/tp_worker.py`` (:282-294 asserts).

0.5.23: ``arg_groups/memory_hook.py`` (:89-343 buckets and default fraction, :357-399 graph reserve),
``arg_groups/overrides.py`` (:453-487 mamba radix strategy), ``arg_groups/speculative_hook.py``,
``mem_cache/kv_cache_configurator.py`` (:2990-3060 profile, :3062-3088 mamba ratio, :3119-3172
max_num_reqs, :3229-3409 mamba pool split), ``model_executor/pool_configurator.py`` (:94-99, :220-320,
:637-647, hybrid SWA), ``distributed/bootstrap.py`` (:441-452 imbalance).

Everything here is plain arithmetic on floats and ints so that one sizing costs microseconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, List, Optional, Tuple

from .architectures import ReleaseArchitectures, release_architectures
from .behaviour import DsaScheme, PrefillGraphScheme, SizingBehaviour
from .errors import BudgetInputError
from .model_spec import ModelSpec
from .weights import WeightBreakdown

if TYPE_CHECKING:  # pragma: no cover
    from ..releases import SGLangRelease

GIB = 1 << 30
MIB = 1 << 20

# auto_choose_speculative_params (0.5.9 server_args.py:5741-5775; same table in 0.5.23)
SPEC_553_ARCHS = {"LlamaForCausalLM", "Grok1ForCausalLM", "Grok1VForCausalLM"}

# The speculative algorithms whose draft weights, KV and states the engine sizes (NEXTN is EAGLE with the MTP head).
MODELLED_SPECULATION = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM")
SSM_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
KV_DTYPE_BYTES = {"fp8_e5m2": 1, "fp8_e4m3": 1, "bf16": 2, "bfloat16": 2, "float16": 2, "fp16": 2, "float32": 4, "mxfp8": 1}

MSG_CONTEXT = (
    "Warning: User-specified context_length ({ctx}) is greater than the derived context_length "
    "({derived}). This may lead to incorrect model outputs or CUDA errors. Note that the derived "
    "context_length may differ from max_position_embeddings in the model's config. To allow overriding "
    "this maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"
)
MSG_IMBALANCE = (
    "The memory capacity is unbalanced. Some GPUs may be occupied by other processes. "
    "{min_name}={pre!r}, local_gpu_memory={local!r}, local_gpu_memory * 0.9={local09!r}"
)
MSG_REQS_ZERO = "max_running_request is zero"
MSG_POOL_SMALL = "Memory pool size is too small"


class StartupError(Exception):
    """SGLang would stop at startup with this exception (type name and exact message)."""

    def __init__(self, etype: str, message: str, root_cause: str):
        super().__init__(message)
        self.etype = etype
        self.message = message
        self.root_cause = root_cause


# ------------------------------------------------------------------------------------------------
# Argument resolution
# ------------------------------------------------------------------------------------------------
def _opt(args: Dict[str, Any], *names: str) -> Any:
    for n in names:
        if args.get(n) is not None:
            return args[n]
    return None


def _bucket(behaviour: SizingBehaviour, gpu_mem: Optional[float], tp: int):
    """(chunked_prefill_size, decode cuda graph max_bs) for the card's total MiB."""
    if gpu_mem is None:
        return 4096, 160
    if gpu_mem < 20 * 1024:
        return 2048, 8
    if gpu_mem < 35 * 1024:
        chunk, small_tp, large_tp = behaviour.mid_memory_bucket
        return chunk, small_tp if tp < 4 else large_tp
    if gpu_mem < 60 * 1024:
        return 4096, 32 if tp < 4 else 160
    if gpu_mem < 160 * 1024:
        return 8192, 256 if tp < 4 else 512
    return 16384, 512


@lru_cache(maxsize=256)
def _decode_graph_bs(max_bs: int, spec_on: bool, includes_max: bool) -> Tuple[int, ...]:
    return tuple(decode_graph_bs(max_bs, spec_on, includes_max))


def decode_graph_bs(max_bs: int, spec_on: bool, includes_max: bool) -> List[int]:
    """The decode CUDA-graph batch sizes; ``includes_max``: the release appends max_bs when the steps miss it."""
    if spec_on:
        bs = list(range(1, 9)) + list(range(10, 33, 2)) + list(range(40, 65, 4)) + list(range(72, 257, 8)) + list(range(272, max_bs + 1, 16))
    else:
        bs = [1, 2, 4, 8, 12] + list(range(16, 257, 8)) + list(range(272, 512, 16)) + list(range(512, max_bs + 1, 32))
    bs = [b for b in bs if b <= max_bs]
    if includes_max and max_bs not in bs:
        bs.append(max_bs)
    return bs


@lru_cache(maxsize=256)
def _prefill_graph_count(max_bs: int) -> int:
    return len(prefill_graph_bs(max_bs))


def prefill_graph_bs(max_bs: int) -> List[int]:
    """0.5.23 ``generate_prefill_cuda_graph_batch_sizes`` (tokens)."""
    sizes = (
        list(range(4, 33, 4))
        + list(range(48, 257, 16))
        + list(range(288, 513, 32))
        + list(range(576, 1025, 64))
        + list(range(1280, 4097, 256))
        + list(range(4608, max_bs + 1, 512))
    )
    return [s for s in sizes if s <= max_bs]


def mla_prefill_graph_tokens_2048(chunked_prefill_size: int) -> int:
    """``memory_hook.py`` up to 0.5.22: MLA prefill graphs capture up to 2048 tokens whatever the chunk."""
    return 2048


def mla_prefill_graph_tokens_chunk_upto_8192(chunked_prefill_size: int) -> int:
    """``memory_hook.py`` (0.5.23 :234-238): the chunked prefill size, capped at 8192 for MLA."""
    return min(8192, chunked_prefill_size)


def prefill_graphs_off(scheme: PrefillGraphScheme, spec: ModelSpec, args: Dict[str, Any], algo: Optional[str], catalog: ReleaseArchitectures) -> bool:
    """Whether the release captures no prefill (piecewise) CUDA graphs for this launch; ``catalog`` holds the
    release's multimodal allowlists."""
    if scheme.opt_in_flag is not None:
        return not args.get(scheme.opt_in_flag)
    if args.get("disable_cuda_graph") and scheme.backend_flag is not None:
        return True
    if scheme.opt_out_flag is not None and args.get(scheme.opt_out_flag):
        return True
    if scheme.backend_flag is not None and str(args.get(scheme.backend_flag) or "") == "disabled":
        return True
    return scheme.auto_off is not None and scheme.auto_off(spec, args, algo, catalog)


def prefill_graph_max_tokens(b: SizingBehaviour, spec: ModelSpec, args: Dict[str, Any], chunk: int) -> int:
    """The largest prefill graph size: the flag, or the chunk (MLA: the release's rule), then the release's caps."""
    scheme = b.prefill_graphs
    tokens = args.get(scheme.max_tokens_flag)
    if not tokens:
        tokens = b.mla_prefill_graph_max_tokens(chunk) if spec.is_mla else chunk
        if scheme.capped_by_max_total_tokens and args.get("max_total_tokens") is not None:
            tokens = min(tokens, int(args["max_total_tokens"]))  # memory_hook.py: the default is capped
    if scheme.capped_by_context and args.get("context_length") is not None:
        tokens = min(int(tokens), int(args["context_length"]))
    return int(tokens)


# ServerArgs._handle_piecewise_cuda_graph (0.5.10 server_args.py:1078-1138, 0.5.13 the same list less speculation):
# the switches that turn piecewise CUDA graphs off by themselves.
_PIECEWISE_OFF_FLAGS = (
    "enable_dp_attention",
    "enable_torch_compile",
    "lora_paths",
    "enable_lora",
    "enable_hierarchical_cache",
    "enable_deterministic_inference",
    "enable_symm_mem",
    "enable_eplb",
    "debug_cuda_graph",
    "enable_dsa_prefill_context_parallel",
)


def piecewise_graphs_auto_off(archs: FrozenSet[str], with_speculation: bool) -> Callable[..., bool]:
    """``_handle_piecewise_cuda_graph`` of 0.5.10-0.5.13 and the tc_piecewise rules of 0.5.14
    (``_disable_tc_piecewise_cudagraph_if_incompatible``): disabled archs, multimodal models (but the release's
    ``multimodal_piecewise_cuda_graph_supported_model_archs``), and the switches above (``with_speculation``:
    speculative decoding too, as in 0.5.10)."""

    def auto_off(spec: ModelSpec, args: Dict[str, Any], algo: Optional[str], catalog: ReleaseArchitectures) -> bool:
        if args.get("enforce_piecewise_cuda_graph"):
            return False
        multimodal = spec.is_multimodal and spec.architecture not in catalog.multimodal_piecewise_graph_archs
        if spec.architecture in archs or multimodal or (with_speculation and algo is not None):
            return True
        if any(args.get(flag) for flag in _PIECEWISE_OFF_FLAGS) or int(args.get("pp_size") or 1) > 1:
            return True
        if float(args.get("cpu_offload_gb") or 0) > 0 or int(args.get("attn_cp_size") or 1) > 1:
            return True
        if str(args.get("moe_a2a_backend") or "none") != "none" or str(args.get("disaggregation_mode") or "null") != "null":
            return True
        return "gguf" in (str(args.get("load_format") or ""), str(args.get("quantization") or "")) or args.get("expert_distribution_recorder_mode") is not None

    return auto_off


def breakable_graphs_auto_off(
    lora_and_dp_attention: bool = True,
    nemotron_h: bool = False,
    validated_a2a: FrozenSet[str] = frozenset({"none"}),
    mla: bool = True,
) -> Callable[..., bool]:
    """``_disable_breakable_cudagraph_if_incompatible`` of a release whose default prefill backend is breakable on
    CUDA: 0.5.15-0.5.16 (0.5.16 server_args.py:3763-3814; also LoRA and DP attention), 0.5.17 (server_args.py,
    ``nemotron_h``: the hybrid Mamba2 prefill, and only the unvalidated a2a backends), and 0.5.18 on (``mla`` off:
    0.5.18 server_args.py:4666-4715, from 0.5.20 arg_groups/cuda_graph_hook.py). Multimodal models but those in
    the release's ``multimodal_breakable_cuda_graph_supported_model_archs``, DeepSeek-V4 and context
    parallelism are refused by all; MLA but DSA by the releases with ``mla``."""

    def auto_off(spec: ModelSpec, args: Dict[str, Any], algo: Optional[str], catalog: ReleaseArchitectures) -> bool:
        if (mla and spec.is_mla and spec.dsa is None) or spec.architecture.startswith("DeepseekV4"):
            return True
        if nemotron_h and spec.architecture.startswith("NemotronH"):
            return True
        if lora_and_dp_attention and (args.get("lora_paths") or args.get("enable_lora") or args.get("enable_dp_attention")):
            return True
        if int(args.get("attn_cp_size") or 1) > 1 or int(args.get("dcp_size") or 1) > 1 or args.get("enable_two_batch_overlap"):
            return True
        return str(args.get("moe_a2a_backend") or "none") not in validated_a2a or (
            spec.is_multimodal and spec.architecture not in catalog.multimodal_breakable_graph_archs
        )

    return auto_off


_W4AFP8_MIN_SM = 90  # layers/quantization/w4afp8.py W4AFp8Config.get_min_capability (0.5.10-0.5.23)


def quant_check_modelopt_fp8_only(spec: ModelSpec, args: Dict[str, Any], sm: int) -> Optional[StartupError]:
    """0.5.9 (configs/model_config.py _verify_quantization, layers/quantization/__init__.py): config.json's
    quant_method "modelopt" maps to ModelOptFp8Config, whose from_config rejects a quant_algo without "FP8"
    (modelopt_quant.py:461), e.g. NVFP4 or MIXED_PRECISION checkpoints."""
    algo = spec.quant.modelopt_config_algo
    user = str(args.get("quantization") or "").lower()
    if algo is None or "FP8" in algo or user not in ("", "modelopt", "modelopt_fp8"):
        return None
    return StartupError(
        "ValueError",
        "ModelOptFp8Config only supports static FP8 quantization in SGLang. For FP4 "
        "quantization, use ModelOptFp4Config. Check the quantization config for your "
        "model's configuration.",
        "unsupported_quantization",
    )


def _w4afp8_below_capability(sm: int) -> Optional[StartupError]:
    if sm >= _W4AFP8_MIN_SM:
        return None
    # model_loader/loader.py _get_quantization_config (0.5.12 :246-256)
    return StartupError(
        "ValueError",
        f"The quantization method w4afp8 is not supported for the current GPU. Minimum capability: {_W4AFP8_MIN_SM}. Current capability: {sm}.",
        "unsupported_gpu_arch",
    )


def _modelopt_mixed_checkpoint(spec: ModelSpec, args: Dict[str, Any]) -> bool:
    return spec.quant.method == "modelopt_mixed" and not str(args.get("quantization") or "") and not spec.architecture.startswith("NemotronH")


def _w4afp8_block_misfit(spec: ModelSpec, args: Dict[str, Any]) -> Optional[StartupError]:
    """W4AFp8Config gives every linear layer Fp8LinearMethod with 128x128 blocks (0.5.12
    layers/quantization/w4afp8.py:78-102), whose create_weights refuses an output partition that is not a multiple
    of 128 (fp8.py:378). Replayed for the first gated-DeltaNet layer, built before any other quantized linear
    (models/qwen3_5.py:162-176: in_proj_qkvz, then in_proj_ba); other families' layers are not checked."""
    if spec.family != "gdn":
        return None
    tp = int(args.get("tp_size") or 1)
    key = spec.linear_num_key_heads * spec.linear_key_head_dim // tp
    value = spec.linear_num_value_heads * spec.linear_value_head_dim // tp
    for size in (key, key, value, value, spec.linear_num_value_heads // tp, spec.linear_num_value_heads // tp):
        if size % 128:
            return StartupError(
                "ValueError", f"Weight output_partition_size = {size} is not divisible by weight quantization block_n = 128.", "quant_shard_misaligned"
            )
    return None


def fp8_block_shape_error(spec: ModelSpec, tp: int, ep: int) -> Optional[StartupError]:
    """The FP8 block-quant shape checks of the first MLP that fails them, in layer order (the same in 0.5.9 and
    0.5.23): ``Fp8MoEMethod.create_weights`` (layers/quantization/fp8.py: the per-rank expert intermediate must be a
    multiple of block_n, and of block_k under TP) and ``Fp8LinearMethod.validate_block_quant_shapes`` (the merged
    gate_up partitions a multiple of block_n, the row-parallel down input of block_k)."""
    if spec.quant.method != "fp8" or not spec.quant.block:
        return None
    block_n, block_k = spec.quant.block
    for i, (_mixer, ffn) in enumerate(spec.layers):
        if ffn == "moe" and spec.layout.experts_quantizable and spec.quant.algo_for(i, "mlp.experts.gate_proj"):
            part = spec.moe_intermediate_size // max(1, tp // ep)
            if part % block_n:
                return StartupError(
                    "ValueError",
                    f"The output_size of gate's and up's weight = {part} is not divisible by weight quantization block_n = {block_n}.",
                    "quant_shard_misaligned",
                )
            if tp > 1 and part % block_k:
                return StartupError(
                    "ValueError",
                    f"The input_size of down's weight = {part} is not divisible by weight quantization block_k = {block_k}.",
                    "quant_shard_misaligned",
                )
        elif ffn == "dense" and tp > 1 and spec.quant.algo_for(i, "mlp.gate_proj"):
            part = spec.intermediate_size // tp
            if part % block_n:
                return StartupError(
                    "ValueError",
                    f"Weight output_partition_size = {part} is not divisible by weight quantization block_n = {block_n}.",
                    "quant_shard_misaligned",
                )
            if part % block_k:
                return StartupError(
                    "ValueError",
                    f"Weight input_size_per_partition = {part} is not divisible by weight quantization block_k = {block_k}.",
                    "quant_shard_misaligned",
                )
    return None


def quant_check_mixed_as_w4afp8(spec: ModelSpec, args: Dict[str, Any], sm: int) -> Optional[StartupError]:
    """0.5.10-0.5.14 ``_parse_modelopt_quant_config`` (0.5.12 configs/model_config.py:1001-1019): a ModelOpt
    MIXED_PRECISION checkpoint other than Nemotron-H loads as w4afp8, which needs SM 90 and 128-wide blocks."""
    if not _modelopt_mixed_checkpoint(spec, args):
        return None
    return _w4afp8_below_capability(sm) or _w4afp8_block_misfit(spec, args)


def quant_check_mixed_by_layers(spec: ModelSpec, args: Dict[str, Any], sm: int) -> Optional[StartupError]:
    """0.5.15+ ``_parse_modelopt_quant_config`` (0.5.20 configs/model_config.py:1571-1581): MIXED_PRECISION with
    NVFP4 layers is modelopt_mixed; without any, w4afp8 (SM 90)."""
    if not _modelopt_mixed_checkpoint(spec, args) or "modelopt_fp4" in spec.quant.per_module.values():
        return None
    return _w4afp8_below_capability(sm) or _w4afp8_block_misfit(spec, args)


def vlm_factor(spec: ModelSpec) -> float:
    """``adjust_mem_fraction_for_vlm``: 0.95 x clamp(1 - 0.1 (L H^2 / (24 * 1024^2) - 1), 0.8, 1.05).

    SGLang reads ``vision_config.num_hidden_layers`` (24 when absent; Qwen3.5 declares ``depth``)."""
    v = spec.vision or {}
    layers = v.get("num_hidden_layers", 24)
    hidden = v.get("hidden_size", 1024)
    ratio = layers * hidden**2 / (24 * 1024**2)
    return 0.95 * max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))


@dataclass(frozen=True)
class FractionInputs:
    """What the default ``--mem-fraction-static`` reserve formula reads, once the graph sizes are resolved."""

    spec: ModelSpec
    args: Dict[str, Any]
    gpu_mem_mib: Optional[float]
    tp: int
    pp: int
    dp: int
    attn_dp: int
    chunked_prefill_size: int
    cuda_graph_max_bs: int
    prefill_graph_sizes: int
    disable_cuda_graph: bool
    prefill_graph_off: bool
    spec_algorithm: Optional[str]
    fallback: float  # the fraction when the card's memory is unknown
    decode_reserve_always: bool  # the decode graphs are priced even when they are not captured
    draft_reserve_mib: int  # the flat EAGLE/MTP draft allowance
    mla_prefill_reserve_mib: Optional[float]  # the flat MLA prefill-graph price (None: 8 MiB per size)


def _reserve_base(f: FractionInputs) -> float:
    act = max(f.chunked_prefill_size, 2048) if f.chunked_prefill_size > 0 else max(int(f.args.get("max_prefill_tokens") or 16384), 2048)
    return 512 + act * 1.5 + f.tp * f.pp / 8 * 1024


def _prefill_graph_reserve(f: FractionInputs) -> float:
    if f.spec.is_mla and f.mla_prefill_reserve_mib is not None:
        return f.mla_prefill_reserve_mib
    return f.prefill_graph_sizes * 8


def default_mem_fraction_server_args(f: FractionInputs) -> float:
    """``ServerArgs._handle_gpu_memory_settings`` (0.5.9 server_args.py:911-1069; 0.5.13 :1444-1650): the reserve in
    MiB prices the decode graphs, the piecewise prefill graphs when on, DP attention, then after the 10 GiB floor a
    flat draft allowance (STANDALONE 6 GiB)."""
    reserved = _reserve_base(f) + f.cuda_graph_max_bs * 2
    if not f.prefill_graph_off:
        reserved += _prefill_graph_reserve(f)
    if f.attn_dp > 1:
        reserved += f.cuda_graph_max_bs * f.dp * 3 + (f.cuda_graph_max_bs * f.dp * 1.5 if f.cuda_graph_max_bs > 300 else 0)
    if f.gpu_mem_mib is not None and f.gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    if f.spec_algorithm == "STANDALONE":
        reserved += 6 * 1024
    elif f.spec_algorithm is not None and f.spec_algorithm != "NGRAM":
        reserved += f.draft_reserve_mib
    return round((f.gpu_mem_mib - reserved) / f.gpu_mem_mib, 3) if f.gpu_mem_mib else f.fallback


def default_mem_fraction_memory_hook(f: FractionInputs) -> float:
    """``arg_groups/memory_hook.py`` (0.5.23 :89-343): decode graphs only when captured, prefill graphs (1.5 GiB
    for MLA) by default, DP attention per attention-DP worker, no draft allowance (the same formula as
    ``ServerArgs.reserve_for_graph_mb`` from 0.5.15 on)."""
    reserved = _reserve_base(f)
    if f.decode_reserve_always or not f.disable_cuda_graph:
        reserved += f.cuda_graph_max_bs * 2
    if not f.prefill_graph_off:
        reserved += _prefill_graph_reserve(f)
    if f.attn_dp > 1:
        reserved += f.cuda_graph_max_bs * f.attn_dp * 3 + (f.cuda_graph_max_bs * f.attn_dp * 1.5 if f.cuda_graph_max_bs > 300 else 0)
    if f.gpu_mem_mib is not None and f.gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return round((f.gpu_mem_mib - reserved) / f.gpu_mem_mib, 3) if f.gpu_mem_mib else f.fallback


@dataclass
class Resolved:
    release: "SGLangRelease"
    tp: int
    attn_tp: int
    ep: int
    attn_dp: int
    gpu_mem_mib: Optional[float]
    sm: int
    mem_fraction_static: float
    mfs_from_default: bool
    chunked_prefill_size: int
    cuda_graph_max_bs: int
    cuda_graph_bs: List[int]
    prefill_graph_sizes: int
    disable_cuda_graph: bool
    context_len: int
    context_error: Optional[str]
    spec_algorithm: Optional[str]
    spec_steps: Optional[int]
    spec_topk: Optional[int]
    spec_draft_tokens: Optional[int]
    draft_path_given: bool
    max_running_requests: Optional[int]
    max_running_requests_user: Optional[int]
    disable_radix_cache: bool
    mamba_strategy: Optional[str]
    disable_overlap_schedule: bool
    mamba_full_memory_ratio: float
    max_mamba_cache_size: Optional[int]
    mamba_ssm_dtype: str
    page_size: int
    kv_cache_dtype: str
    kv_bytes: float
    max_total_tokens: Optional[int]
    swa_full_tokens_ratio: float
    hybrid_swa: bool
    enable_torch_compile: bool
    attention_backend: str = "flashinfer"
    dsa_raw_kv: bool = False  # DSA with a trtllm backend: the KV row is the plain MLA one (no FP8 block scales)
    deterministic: bool = False
    mm_feature_transport: Optional[str] = None
    vlm_cache_mb: float = 100.0  # SGLANG_VLM_CACHE_SIZE_MB
    mm_feature_cache_mb: float = 1024.0  # SGLANG_MM_FEATURE_CACHE_MB (the CUDA-IPC / VMM transport pools)
    arg_error: Optional[Tuple[str, str]] = None  # SGLang rejects the resolved arguments (type, message)
    env: Dict[str, str] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        out = {"version": self.release.version}
        out.update(self.__dict__)
        out.pop("env", None)
        out.pop("release", None)
        out["cuda_graph_bs"] = list(self.cuda_graph_bs)
        out["arg_error"] = {"type": self.arg_error[0], "message": self.arg_error[1]} if self.arg_error else None
        return out


def _bool_env(env: Dict[str, str], name: str, default: bool) -> bool:
    if name not in env:
        return default
    return str(env[name]).strip().lower() in ("1", "true", "yes", "on")


def _multimodal_transport(args: Dict[str, Any], env: Dict[str, str], large_hopper_vl: bool, mrr_user: Any) -> Tuple[Optional[str], float, float]:
    """The feature transport and the two cache sizes (MiB) that ``mm_runtime_reservation_gb`` takes off the pool:
    the env or their defaults, or model_overrides/qwen3_vl.py's large-Hopper serving defaults (no embedding cache,
    CUDA-IPC transport on one node when nothing retains features, 3 GiB of pools from 400 running requests)."""
    transport = args.get("mm_feature_transport")
    vlm_env, feature_env = env.get("SGLANG_VLM_CACHE_SIZE_MB"), env.get("SGLANG_MM_FEATURE_CACHE_MB")
    vlm_cache_mb = float(vlm_env) if vlm_env is not None else (0.0 if large_hopper_vl else 100.0)
    feature_cache_mb = float(feature_env) if feature_env is not None else 1024.0
    if large_hopper_vl:
        retention = float(args.get("mm_preprocess_cache_size_mb") or 0) > 0 or vlm_cache_mb > 0
        if transport is None and int(args.get("nnodes") or 1) == 1 and not retention:
            transport = "cuda_ipc"
        if feature_env is None and mrr_user is not None and int(mrr_user) >= 400 and not retention and transport == "cuda_ipc":
            feature_cache_mb = 3 * 1024.0
    return transport, vlm_cache_mb, feature_cache_mb


def resolve_args(spec: ModelSpec, args: Dict[str, Any], release: "SGLangRelease", gpu_mem_mib: Optional[float], sm: int, env: Dict[str, str]) -> Resolved:
    """Replay the release's argument pipeline for the fields that decide memory."""
    b = release.sizing
    tp = int(_opt(args, "tp_size", "tensor_parallel_size", "tp") or 1)
    dp = int(_opt(args, "dp_size") or 1)
    pp = int(_opt(args, "pp_size") or 1)
    attn_dp = dp if (args.get("enable_dp_attention") or (b.attn_dp_size_flag and args.get("attn_dp_size"))) else 1
    if b.attn_dp_size_flag and args.get("attn_dp_size"):
        attn_dp = int(args["attn_dp_size"])
    attn_tp = max(1, tp // attn_dp)
    ep = int(_opt(args, "ep_size", "expert_parallel_size") or 1)
    mfs_user = _opt(args, "mem_fraction_static")
    notes: List[str] = []

    chunk_user = _opt(args, "chunked_prefill_size")
    bs_user = _opt(args, *b.cuda_graph_max_bs_flags)
    chunk_def, bs_def = _bucket(b, gpu_mem_mib, tp)
    chunk = int(chunk_user) if chunk_user is not None else chunk_def
    max_bs = int(bs_user) if bs_user is not None else bs_def
    mrr_user = _opt(args, "max_running_requests")
    if b.graph_bs_capped_by_max_running_requests and bs_user is None and mrr_user is not None and max_bs > int(mrr_user):
        max_bs = int(mrr_user)  # memory_hook.py:182-188
    large_hopper_vl = (
        spec.is_multimodal and spec.architecture in b.large_hopper_vl_serving_archs and sm >= 90 and gpu_mem_mib is not None and gpu_mem_mib >= 60 * 1024
    )
    if large_hopper_vl and bs_user is None and mrr_user is not None and max_bs < int(mrr_user) <= 512:
        max_bs = int(mrr_user)  # model_overrides/qwen3_vl.py expand_multimodal_decode_graph_to_running_limit
    algo = _opt(args, "speculative_algorithm")
    algo = str(algo).upper() if algo else None
    if algo is not None and algo not in MODELLED_SPECULATION:
        raise BudgetInputError(
            "server_args.speculative_algorithm",
            f"{algo} is not a speculative algorithm the budget engine models ({', '.join(MODELLED_SPECULATION)})",
            "preflight without speculation, or with one of those algorithms",
        )
    spec_on = algo is not None
    disable_cuda_graph = bool(args.get("disable_cuda_graph")) or (
        b.decode_graph_backend_flag and str(args.get("cuda_graph_backend_decode") or "") == "disabled"
    )
    prefill_graph_off = prefill_graphs_off(b.prefill_graphs, spec, args, algo, release_architectures(release.version))
    graph_bs = _decode_graph_bs(max_bs, spec_on, b.decode_graph_bs_includes_max)
    prefill_sizes = 0
    if not prefill_graph_off:
        prefill_sizes = _prefill_graph_count(prefill_graph_max_tokens(b, spec, args, chunk))

    mfs_default = mfs_user is None
    if mfs_user is not None:
        mfs = float(mfs_user)
    else:
        mfs = b.default_mem_fraction(
            FractionInputs(
                spec=spec,
                args=args,
                gpu_mem_mib=gpu_mem_mib,
                tp=tp,
                pp=pp,
                dp=dp,
                attn_dp=attn_dp,
                chunked_prefill_size=chunk,
                cuda_graph_max_bs=max_bs,
                prefill_graph_sizes=prefill_sizes,
                disable_cuda_graph=disable_cuda_graph,
                prefill_graph_off=prefill_graph_off,
                spec_algorithm=algo,
                fallback=b.mem_fraction_fallback,
                decode_reserve_always=b.decode_graph_reserve_always,
                draft_reserve_mib=b.draft_reserve_mib,
                mla_prefill_reserve_mib=b.mla_prefill_reserve_mib,
            )
        )
        if spec.is_multimodal and not args.get("language_only") and not args.get("language_model_only"):
            mfs = mfs * vlm_factor(spec)

    # context length (configs/model_config.py _derive_context_length)
    ctx_user = _opt(args, "context_length")
    context_error = None
    if ctx_user is not None and int(ctx_user) > spec.derived_context_len:
        if _bool_env(env, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", False):
            notes.append("context_length above the derived maximum accepted through the env override")
        else:
            context_error = MSG_CONTEXT.format(ctx=int(ctx_user), derived=spec.derived_context_len)
    context_len = int(ctx_user) if ctx_user is not None else spec.derived_context_len

    # speculative defaults
    mrr = int(mrr_user) if mrr_user is not None else None
    steps = _opt(args, "speculative_num_steps")
    topk = _opt(args, "speculative_eagle_topk")
    draft = _opt(args, "speculative_num_draft_tokens")
    disable_overlap = bool(args.get("disable_overlap_schedule"))
    if algo == "NEXTN":
        algo = "EAGLE"
    if algo in ("EAGLE", "EAGLE3", "STANDALONE"):
        if mrr is None:
            mrr = 48
        if steps is None:
            if topk is not None or draft is not None:
                raise BudgetInputError(
                    "server_args.speculative_num_steps",
                    "must be set when speculative_eagle_topk or speculative_num_draft_tokens is",
                    "set all three speculative flags, or none of them for SGLang's defaults",
                )
            steps, topk, draft = (5, 4, 8) if (spec.architecture in SPEC_553_ARCHS and algo != "STANDALONE") else (3, 1, 4)
        topk = int(topk if topk is not None else 1)
        steps = int(steps)
        if topk == 1:
            draft = steps + 1
        draft = int(draft if draft is not None else steps + 1)
        if b.spec_v2_env_default is not None:
            disable_overlap = disable_overlap or not _bool_env(env, "SGLANG_ENABLE_SPEC_V2", b.spec_v2_env_default)
    elif algo == "NGRAM":
        if mrr is None:
            mrr = 48
    # attention backend and page size (server_args.py _handle_attention_backend_compatibility,
    # _handle_page_size and the per-model hooks; arg_groups/model_override_base.py in 0.5.23)
    attn_backend = attention_backend(spec, args, b, sm, args.get("speculative_algorithm"), args.get("speculative_eagle_topk"))
    if spec.layout.vision_opt_in and args.get("enable_multimodal"):
        raise BudgetInputError(
            "server_args.enable_multimodal",
            f"builds {spec.architecture}'s vision tower, which the budget engine does not model",
            "preflight without --enable-multimodal (text only, SGLang's default for this class)",
        )
    model_check_error = None
    text_only_archs = release_architectures(release.version).language_model_only_archs
    if args.get("language_model_only") and text_only_archs is not None and spec.architecture not in text_only_archs:
        # arg_groups/model_hook.py handle_language_model_only (0.5.23): only the listed classes run text-only
        model_check_error = ("ValueError", f"--language-model-only does not support {[spec.architecture]}. Supported: {list(text_only_archs)}.")
    if spec.layout.swa_full_every and attn_backend not in b.llama4_attention_backends:
        allowed = b.llama4_attention_backends
        model_check_error = ("AssertionError", f"{', '.join(allowed[:-1])} or {allowed[-1]} is required for Llama4 model but got {attn_backend}")
    hybrid_swa = spec.is_hybrid_swa and not args.get("disable_hybrid_swa_memory")
    if b.gpt_oss_trtllm_mha_disables_hybrid_swa and spec.layout.gpt_oss_blocks and attn_backend == "trtllm_mha":
        hybrid_swa = False  # the release's GPT-OSS hook: trtllm_mha disables hybrid SWA memory
    page = _opt(args, "page_size")
    page = int(page) if page is not None else 1
    if attn_backend == "flashmla":
        page = 64
    elif attn_backend == "cutlass_mla":
        page = 128
    elif attn_backend == "trtllm_mla" and page not in (32, 64):
        page = 64
    elif attn_backend == "trtllm_mha" and page not in b.trtllm_mha_page_sizes:
        page = 64
    elif attn_backend == "fa4" and not spec.is_mla:
        page = 128
    kv_dtype = str(_opt(args, "kv_cache_dtype") or "auto")
    dsa_raw_kv, dsa_arg_error = False, None
    if spec.dsa is not None:
        dsa = _dsa_resolution(spec, args, b.dsa, sm, kv_dtype)
        attn_backend, page, kv_dtype, dsa_raw_kv, dsa_arg_error = dsa.attention_backend, dsa.page_size, dsa.kv_cache_dtype, dsa.raw_kv, dsa.arg_error
    # hybrid mamba radix strategy
    mamba = b.resolve_mamba_strategy(
        MambaStrategyInputs(
            release=release,
            spec=spec,
            args=args,
            algo=algo,
            draft_tokens=draft,
            disable_radix=bool(args.get("disable_radix_cache")),
            disable_overlap=disable_overlap,
            page_size=page,
            attention_backend=attn_backend,
        )
    )
    disable_radix, disable_overlap, strategy, arg_error = (mamba.disable_radix, mamba.disable_overlap, mamba.strategy, mamba.arg_error)
    arg_error = model_check_error or arg_error or dsa_arg_error
    if spec.layout.short_conv and attn_backend == "triton" and arg_error is None:
        # 0.5.9 server_args.py:1661-1664, 0.5.23 arg_groups/model_hook.py:716-722, after the mamba strategy pass
        arg_error = ("AssertionError", f"{spec.architecture} does not support triton attention backend, as the first layer might not be an attention layer")
    page = mamba.page_size if mamba.page_size is not None else page
    notes.extend(mamba.notes)
    ssm = _opt(args, "mamba_ssm_dtype") or env.get("SGLANG_MAMBA_SSM_DTYPE") or spec.mamba_ssm_dtype or "float32"
    if ssm not in SSM_DTYPE_BYTES:
        ssm = "float32"
    if kv_dtype == "auto":
        kv_bytes = 1 if spec.quant.kv_cache_fp8 else spec.dtype_bytes
    elif kv_dtype in KV_DTYPE_BYTES:
        kv_bytes = KV_DTYPE_BYTES[kv_dtype]
    elif kv_dtype in ("fp4_e2m1", "nvfp4", "fp4_mx_block16"):
        kv_bytes = 0.5 + 1 / 16
    else:
        raise BudgetInputError("server_args.kv_cache_dtype", f"{kv_dtype!r} is not a KV cache dtype", "use auto, fp8_e4m3, fp8_e5m2 or bf16")
    ratio = _opt(args, "mamba_full_memory_ratio")
    mmcs = _opt(args, "max_mamba_cache_size")
    mm_transport, vlm_cache_mb, feature_cache_mb = _multimodal_transport(args, env, large_hopper_vl, mrr_user)
    return Resolved(
        release=release,
        tp=tp,
        attn_tp=attn_tp,
        ep=ep,
        attn_dp=attn_dp,
        gpu_mem_mib=gpu_mem_mib,
        sm=sm,
        mem_fraction_static=mfs,
        mfs_from_default=mfs_default,
        chunked_prefill_size=chunk,
        cuda_graph_max_bs=max_bs,
        cuda_graph_bs=graph_bs,
        prefill_graph_sizes=prefill_sizes,
        disable_cuda_graph=disable_cuda_graph,
        context_len=context_len,
        context_error=context_error,
        spec_algorithm=algo,
        spec_steps=steps,
        spec_topk=topk,
        spec_draft_tokens=draft,
        draft_path_given=bool(args.get("speculative_draft_model_path")),
        max_running_requests=mrr,
        max_running_requests_user=int(mrr_user) if mrr_user is not None else None,
        disable_radix_cache=disable_radix,
        mamba_strategy=strategy if spec.is_mambaish else None,
        disable_overlap_schedule=disable_overlap,
        mamba_full_memory_ratio=float(ratio) if ratio is not None else 0.9,
        max_mamba_cache_size=int(mmcs) if mmcs is not None else None,
        mamba_ssm_dtype=ssm,
        page_size=page,
        kv_cache_dtype=kv_dtype,
        kv_bytes=kv_bytes,
        max_total_tokens=int(args["max_total_tokens"]) if args.get("max_total_tokens") is not None else None,
        attention_backend=attn_backend,
        dsa_raw_kv=dsa_raw_kv,
        arg_error=arg_error,
        deterministic=bool(args.get("enable_deterministic_inference")),
        mm_feature_transport=mm_transport,
        vlm_cache_mb=vlm_cache_mb,
        mm_feature_cache_mb=feature_cache_mb,
        swa_full_tokens_ratio=float(_opt(args, "swa_full_tokens_ratio") or 0.8),
        hybrid_swa=hybrid_swa,
        enable_torch_compile=bool(args.get("enable_torch_compile")),
        env=env,
        notes=notes,
    )


@dataclass(frozen=True)
class MambaStrategyInputs:
    """What the hybrid-mamba radix cache strategy pass reads."""

    release: "SGLangRelease"
    spec: ModelSpec
    args: Dict[str, Any]
    algo: Optional[str]
    draft_tokens: Optional[int]
    disable_radix: bool
    disable_overlap: bool
    page_size: int
    attention_backend: str


@dataclass(frozen=True)
class MambaStrategy:
    """The strategy pass's outcome: the radix cache and overlap switches it leaves, and its assertion, if any."""

    strategy: str
    disable_radix: bool
    disable_overlap: bool
    arg_error: Optional[Tuple[str, str]] = None
    notes: Tuple[str, ...] = ()
    page_size: Optional[int] = None  # the page size the pass set, if it changed it


def _requested_strategy(args: Dict[str, Any]) -> str:
    strategy = _opt(args, "mamba_scheduler_strategy", "mamba_radix_cache_strategy")
    return str(strategy) if strategy else "auto"


def mamba_strategy_server_args(m: MambaStrategyInputs) -> MambaStrategy:
    """``ServerArgs._handle_mamba_radix_cache`` (0.5.9 server_args.py:1699-1764): ``auto`` is no_buffer; the radix
    archs keep the radix cache with the overlap schedule off, or lose it under speculation."""
    strategy, disable_radix, disable_overlap = _requested_strategy(m.args), m.disable_radix, m.disable_overlap
    if not m.spec.is_mambaish:
        return MambaStrategy(strategy, disable_radix, disable_overlap)
    notes: Tuple[str, ...] = ()
    b = m.release.sizing
    if strategy == "auto":
        strategy = "no_buffer"
    if m.spec.architecture in b.mamba_radix_archs and not disable_radix and strategy != "extra_buffer":
        if m.algo is None:
            disable_overlap = True
        else:
            disable_radix = True
            notes = (
                f"{m.release.version} disables the radix cache: speculative decoding is not supported with the "
                f"no_buffer mamba radix cache (server_args.py:1759-1764)",
            )
    arg_error = None
    if strategy == "extra_buffer" and not disable_radix:
        track = int(m.args.get("mamba_track_interval") or 256)
        if m.spec.architecture not in b.mamba_extra_buffer_archs:
            arg_error = ("AssertionError", f"mamba extra_buffer is not supported for {m.spec.architecture} model")
        elif m.draft_tokens is not None and track < m.draft_tokens:
            arg_error = ("AssertionError", f"mamba_track_interval {track} must be greater than or equal to speculative_num_draft_tokens {m.draft_tokens}")
    return MambaStrategy(strategy, disable_radix, disable_overlap, arg_error, notes)


def mamba_strategy_server_args_checked(m: MambaStrategyInputs) -> MambaStrategy:
    """``ServerArgs._handle_mamba_radix_cache`` of 0.5.10-0.5.13 (0.5.13 server_args.py:2664-2760): ``auto`` is
    no_buffer; extra_buffer refuses --disable-radix-cache, no_buffer with the radix cache takes page 1 (from 0.5.11),
    turns the overlap schedule off (or, on trtllm_mha, the radix cache instead), and refuses speculation."""
    strategy, disable_radix, disable_overlap = _requested_strategy(m.args), m.disable_radix, m.disable_overlap
    if not m.spec.is_mambaish or m.spec.architecture not in m.release.sizing.mamba_radix_archs:
        return MambaStrategy(strategy, disable_radix, disable_overlap)
    b, messages = m.release.sizing, m.release.sizing.messages
    if strategy == "auto":
        strategy = "no_buffer"
    if strategy in ("extra_buffer", "extra_buffer_lazy"):
        track = int(m.args.get("mamba_track_interval") or 256)
        if m.spec.architecture not in b.mamba_extra_buffer_archs:
            error = ("AssertionError", f"mamba extra_buffer is not supported for {m.spec.architecture} model")
        elif disable_radix:
            error = ("ValueError", messages.mamba_extra_buffer_without_radix)
        elif m.draft_tokens is not None and strategy == "extra_buffer_lazy":
            error = ("AssertionError", "extra_buffer_lazy is not yet supported with speculative decoding. Use --mamba-scheduler-strategy extra_buffer instead.")
        elif m.draft_tokens is not None and track < m.draft_tokens:
            error = ("AssertionError", f"mamba_track_interval {track} must be greater than or equal to speculative_num_draft_tokens {m.draft_tokens}")
        else:
            error = None
        return MambaStrategy(strategy, disable_radix, disable_overlap, error)
    if disable_radix:
        return MambaStrategy(strategy, disable_radix, disable_overlap)
    page = 1 if b.no_buffer_forces_page_one else None
    if m.algo is not None:
        return MambaStrategy(
            strategy,
            disable_radix,
            disable_overlap,
            ("ValueError", messages.mamba_speculation_needs_extra_buffer.format(arch=m.spec.architecture)),
            page_size=page,
        )
    if m.attention_backend == "trtllm_mha":
        return MambaStrategy(strategy, True, False, page_size=page)
    return MambaStrategy(strategy, disable_radix, True, page_size=page)


def mamba_strategy_hooks(m: MambaStrategyInputs) -> MambaStrategy:
    """``arg_groups/overrides.py`` (0.5.23 :453-487) and the ``mamba_hook.py`` validators: ``auto`` is extra_buffer
    where the overlap schedule (or paging) needs it and the arch supports it on the triton linear backend."""
    strategy, disable_radix, disable_overlap = _requested_strategy(m.args), m.disable_radix, m.disable_overlap
    if not m.spec.is_mambaish:
        return MambaStrategy(strategy, disable_radix, disable_overlap)
    b = m.release.sizing
    triton = str(m.args.get("linear_attn_backend") or "triton") == "triton"
    if not disable_radix and strategy == "auto":
        if (not disable_overlap or m.page_size > 1) and m.spec.architecture in b.mamba_extra_buffer_archs and triton:
            strategy = "extra_buffer"
        else:
            strategy = "no_buffer"
            disable_overlap = True
    arg_error = None
    if not disable_radix:
        # arg_groups/model_hook.py handle_mamba_radix_cache -> mamba_hook.py validators
        track = int(m.args.get("mamba_track_interval") or 256)
        if strategy in ("extra_buffer", "extra_buffer_lazy"):
            if m.spec.architecture not in b.mamba_extra_buffer_archs or not triton:
                arg_error = ("AssertionError", f"extra_buffer is not supported for {m.spec.architecture}; use no_buffer.")
            elif (m.draft_tokens is not None and track < m.draft_tokens) or track % m.page_size:
                arg_error = ("AssertionError", "")
        elif m.page_size != 1:
            arg_error = ("AssertionError", "no_buffer only supports page_size=1.")
        elif not disable_overlap:
            arg_error = ("AssertionError", "no_buffer do not support overlap schedule. Try to set disable_overlap_schedule=True.")
        elif m.attention_backend == "trtllm_mha":
            arg_error = ("AssertionError", "no_buffer do not support trtllm_mha attention backend.")
    return MambaStrategy(strategy, disable_radix, disable_overlap, arg_error)


@dataclass(frozen=True)
class DsaResolution:
    """What SGLang's DeepSeek-family DSA defaults make of the launch's arguments."""

    attention_backend: str
    page_size: int
    kv_cache_dtype: str
    raw_kv: bool  # a trtllm prefill or decode backend: the plain MLA KV row
    arg_error: Optional[Tuple[str, str]] = None


def _dsa_resolution(spec: ModelSpec, args: Dict[str, Any], scheme: DsaScheme, sm: int, kv_dtype: str) -> DsaResolution:
    """The DSA attention backend, the page of 64 index rows (x ``index_kpool``), the KV dtype (auto: FP8 on SM100,
    bf16 below; nothing but those two) and the DSA backends it picks (0.5.9 server_args.py:1129-1265, 0.5.23
    arg_groups/overrides.py _dsa_kv_cache_dtype_default / _dsa_split_backend_resolution)."""
    backend = str(_opt(args, "attention_backend") or scheme.attention_backend)
    page = 64 * (spec.dsa.index_kpool if scheme.index_kpool_pages else 1)
    if kv_dtype == "auto":
        kv_dtype = "fp8_e4m3" if sm >= 100 else "bfloat16"
    kv_dtype = "bfloat16" if kv_dtype == "bf16" else kv_dtype
    if kv_dtype not in ("bfloat16", "fp8_e4m3"):
        return DsaResolution(backend, page, kv_dtype, False, ("AssertionError", "DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype"))
    if kv_dtype == "fp8_e4m3":
        default_prefill = default_decode = scheme.fp8_sm100_backend if sm >= 100 else "flashmla_kv"
    else:
        default_prefill, default_decode = "flashmla_sparse", ("trtllm" if sm >= 100 else "fa3")
    prefill = _opt(args, "dsa_prefill_backend", "nsa_prefill_backend") or default_prefill
    decode = _opt(args, "dsa_decode_backend", "nsa_decode_backend") or default_decode
    return DsaResolution(backend, page, kv_dtype, "trtllm" in (prefill, decode))


def dsa_index_row_bytes(spec: ModelSpec) -> int:
    """One layer's index-K bytes per token: FP8 keys and their float32 block scales, ``index_kpool`` keys a row."""
    dsa = spec.dsa
    return -(-(dsa.index_head_dim + dsa.index_head_dim // 128 * 4) // dsa.index_kpool)


def dsa_indexer_cell_bytes(spec: ModelSpec, scheme: DsaScheme) -> int:
    """The index-K bytes per token (``_compute_dsa_indexer_cell_size``) on every DSA layer of the stage or (from
    0.5.18) only those computing their own top-k."""
    start, end = spec.stage_layer_range
    layers = sum(1 for i in range(start, end) if not scheme.indexer_skips_shared_layers or i in spec.dsa.topk_layer_ids)
    return dsa_index_row_bytes(spec) * layers


def attention_backend(spec: ModelSpec, args: Dict[str, Any], behaviour: SizingBehaviour, sm: int, algo: Optional[str], topk: Optional[int]) -> str:
    """The attention backend SGLang picks when ``--attention-backend`` is not given (it decides the page size)."""
    user = _opt(args, "attention_backend", "decode_attention_backend")
    if user:
        return str(user)
    sm100 = sm in (100, 103)
    topk_one = topk is None or int(topk) == 1
    by_sm = spec.layout.attention_backend_by_sm
    if by_sm:
        return by_sm[0] if sm100 else (by_sm[1] if sm >= 80 else by_sm[2])
    if spec.family == "swa":  # the GptOssForCausalLM and Llama 4 hooks (0.5.23 model_overrides/gpt_oss.py, llama4.py)
        return "trtllm_mha" if sm100 else ("fa3" if sm == 90 else "triton")
    if spec.family == "gdn" and sm100:
        if not behaviour.hybrid_sm100_model_overrides:
            return "triton"  # _handle_mamba_radix_cache(sm100_default_attention_backend="triton")
        # model_overrides/qwen3_5.py (0.5.10-0.5.13 the Qwen3.5 branch of server_args.py): trtllm_mha (page 64)
        # unless the radix cache stays on with no_buffer and no speculation; the strategy pass has already run
        strategy = _opt(args, "mamba_radix_cache_strategy", "mamba_scheduler_strategy") or "auto"
        if strategy == "auto":
            extra = behaviour.mamba_auto_picks_extra_buffer and not args.get("disable_overlap_schedule")
            strategy = "extra_buffer" if extra else "no_buffer"
        if not topk_one:
            return "triton"
        no_buffer_radix = not args.get("disable_radix_cache") and algo is None and strategy == "no_buffer"
        return "triton" if no_buffer_radix else "trtllm_mha"
    if spec.layout.short_conv and sm100:
        return "flashinfer"  # LFM2: 0.5.9 server_args.py:1654-1660, 0.5.23 model_overrides/lfm2.py
    if spec.family == "mamba2" and sm100:
        if behaviour.mamba2_sm100_default_backend is not None:
            return behaviour.mamba2_sm100_default_backend
        # model_overrides/nemotron_h.py: trtllm_mha on SM100 (triton with a topk > 1 speculative tree)
        return "triton" if algo is not None and not topk_one else "trtllm_mha"
    if spec.is_mla:
        if sm100:
            return "trtllm_mla" if spec.architecture == "DeepseekV3ForCausalLM" else "flashinfer"
        return "fa3" if sm == 90 else "triton"
    if sm == 90 and topk_one:
        return "fa3"
    if sm100 and topk_one and (algo is None or topk is not None):
        return "trtllm_mha"
    return "triton" if spec.family == "swa" else "flashinfer"


# ------------------------------------------------------------------------------------------------
# Per-token and per-request sizes
# ------------------------------------------------------------------------------------------------
def _kv_heads(spec: ModelSpec, attn_tp: int) -> int:
    return max(1, spec.num_kv_heads // attn_tp)  # model_config.get_num_kv_heads


def kv_layer_bytes(spec: ModelSpec, r: Resolved, sliding: bool = False) -> float:
    """Bytes per token of one attention layer's KV (``sliding``: a sliding-window layer's, which Gemma 4 shapes
    apart: pool_configurator.py HybridSWAPoolConfigurator ``_swa_per_token``)."""
    if sliding and spec.swa_head_dim:
        return max(1, spec.swa_num_kv_heads // r.attn_tp) * 2 * spec.swa_head_dim * r.kv_bytes
    if spec.is_mla and spec.dsa is not None and not r.dsa_raw_kv and r.kv_bytes == 1 and r.release.sizing.dsa.cell_prices_fp8_row:
        # DSATokenToKVPool's FP8 row: the latent, a float32 scale per 128 of it, and the rope part in bf16
        return spec.kv_lora_rank + spec.kv_lora_rank // 128 * 4 + spec.qk_rope_head_dim * 2
    if spec.is_mla:
        return (spec.kv_lora_rank + spec.qk_rope_head_dim) * r.kv_bytes
    return _kv_heads(spec, r.attn_tp) * (spec.head_dim + spec.v_head_dim) * r.kv_bytes


def cell_size(spec: ModelSpec, r: Resolved) -> Dict[str, Any]:
    """The per-token KV bytes SGLang divides the budget by, and the parts it is made of."""
    per = kv_layer_bytes(spec, r)
    per_swa = kv_layer_bytes(spec, r, sliding=True)
    if spec.is_mambaish:
        n_full, n_swa = len(spec.full_attention_layer_ids), 0
    elif r.hybrid_swa:
        n_full, n_swa = len(spec.full_attention_layer_ids), len(spec.swa_layer_ids)
    else:
        n_full, n_swa = spec.stage_num_layers, 0
    b = r.release.sizing
    if not b.hybrid_swa_ratio_cell or not r.hybrid_swa:
        cell = per * n_full + per_swa * n_swa
    else:
        cell = per * n_full + r.swa_full_tokens_ratio * per_swa * n_swa
    if spec.dsa is not None:
        cell += dsa_indexer_cell_bytes(spec, b.dsa)
    draft_layers = 0
    if r.spec_algorithm in ("EAGLE", "EAGLE3", "STANDALONE") and spec.num_nextn_predict_layers:
        draft_layers = int(spec.num_nextn_predict_layers)
    elif r.spec_algorithm in ("EAGLE", "EAGLE3", "STANDALONE") and r.draft_path_given and spec.has_mtp_head:
        # spec_aux_hidden_state.py: with --speculative-draft-model-path the draft-mode config (rewritten to its
        # MTP form, num_nextn_predict_layers = 1) tells the target how many draft KV layers to budget
        draft_layers = max(1, spec.mtp_num_hidden_layers)
    if b.draft_kv_in_fraction and draft_layers and (n_full + n_swa) > 0 and spec.dsa is not None and b.dsa.draft_cell_splits_indexer:
        # pool_configurator.py:275-309: the draft's share of the target's latent rows, and an index-K row on every
        # draft layer (allocate_all_layers)
        target_kv = int(cell) - dsa_indexer_cell_bytes(spec, b.dsa)
        cell = int(cell) + int(target_kv * draft_layers / (n_full + n_swa)) + dsa_index_row_bytes(spec) * draft_layers
        budgeted_draft = True
    elif b.draft_kv_in_fraction and draft_layers and (n_full + n_swa) > 0:
        # pool_configurator.py:259-314: the draft KV is budgeted when eagle_draft_num_layers is known
        cell = int(cell) + int(int(cell) * draft_layers / (n_full if spec.is_mambaish else n_full + n_swa))
        budgeted_draft = True
    else:
        budgeted_draft = False
    return {
        "cell": cell if isinstance(cell, float) and not cell.is_integer() else int(cell),
        "per_layer": per,
        "per_swa_layer": per_swa,
        "n_full": n_full,
        "n_swa": n_swa,
        "draft_budgeted": budgeted_draft,
        "draft_layers": draft_layers or (1 if spec.has_mtp_head else 0),
    }


def mamba_per_req(spec: ModelSpec, r: Resolved) -> int:
    """``mamba_cache_per_req``: (conv numel x conv bytes + ssm numel x ssm bytes) x state layers."""
    if not spec.is_mambaish:
        return 0
    tp = r.attn_tp
    conv_bytes = SSM_DTYPE_BYTES.get(r.env.get("SGLANG_MAMBA_CONV_DTYPE", "bfloat16"), 2)
    ssm_bytes = SSM_DTYPE_BYTES[r.mamba_ssm_dtype]
    if spec.family == "gdn":
        groups, heads = spec.linear_num_key_heads, spec.linear_num_value_heads
        hd, state, kernel = spec.linear_value_head_dim, spec.linear_key_head_dim, spec.linear_conv_kernel_dim
    else:
        groups, heads = spec.mamba_n_groups, spec.mamba_num_heads
        hd, state, kernel = spec.mamba_head_dim, spec.ssm_state_size, spec.conv_kernel
    if groups % tp:
        groups += tp - groups
    conv_dim = heads * hd + 2 * groups * state
    conv = (conv_dim // tp) * (kernel - 1)
    ssm = (heads // tp) * hd * state
    return (conv * conv_bytes + ssm * ssm_bytes) * len(spec.state_layer_ids)


def swa_request_cap(spec: ModelSpec, r: Resolved) -> Optional[int]:
    """``compute_swa_request_cap`` when the release has ``SWARequestCapPoolConfigurator`` and it is applicable
    (hybrid SWA, radix off, explicit max_running_requests, chunked prefill on), else None."""
    if (
        not r.release.sizing.swa_request_cap
        or not r.hybrid_swa
        or r.max_running_requests is None
        or not r.disable_radix_cache
        or r.chunked_prefill_size <= 0
        or not spec.sliding_window
        or not spec.full_attention_layer_ids
    ):
        return None
    page = r.page_size
    draft = r.spec_draft_tokens or 1
    eviction = max(1, int(r.env.get("SGLANG_SWA_EVICTION_INTERVAL", 128)))
    trailing = spec.sliding_window + eviction * draft + page
    if r.spec_algorithm is None:
        decode_alloc = page
    else:
        steps, topk = r.spec_steps or 1, r.spec_topk or 1
        alloc = max(steps * topk, r.spec_draft_tokens or 1)
        decode_alloc = alloc if r.disable_overlap_schedule else 2 * alloc
    reqs = max(1, r.max_running_requests // r.attn_dp)
    chunks = 1 if r.disable_overlap_schedule else 2
    return (trailing + decode_alloc) * reqs + chunks * r.chunked_prefill_size + page


def mamba_slots_per_request_mixin(r: Resolved) -> int:
    """Mamba state slots one request holds in 0.5.9 (``handle_max_mamba_cache``): 1 without the radix cache,
    3 with no_buffer, 4 (speculative) or 5 with extra_buffer."""
    if r.disable_radix_cache:
        return 1
    if r.mamba_strategy == "extra_buffer":
        return 3 + (1 if r.spec_algorithm is not None else 2)
    return 3


def mamba_slots_per_request_configurator(r: Resolved) -> int:
    """``KVCacheConfigurator`` mamba ratio (0.5.23 :3062-3088): no_buffer 3, extra_buffer 5 with the overlap
    schedule (4 without), extra_buffer_lazy 4; ``SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK`` takes one off the buffered
    strategies in the releases that read it."""
    if r.disable_radix_cache:
        return 1
    skip = r.release.sizing.mamba_skip_decode_lock_env and _bool_env(r.env, "SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK", False)
    base = 3 - (1 if skip else 0)
    if r.mamba_strategy in ("extra_buffer", "extra_buffer_lazy"):
        lazy = r.mamba_strategy == "extra_buffer_lazy"
        return base + (1 if lazy else (2 if not r.disable_overlap_schedule else 1))
    return base + (1 if skip else 0)


def mamba_ratio(r: Resolved) -> int:
    """State slots per request under the release's rule."""
    return r.release.sizing.mamba_slots_per_request(r)


# ------------------------------------------------------------------------------------------------
# Sizing
# ------------------------------------------------------------------------------------------------
@dataclass
class Sizing:
    max_total_num_tokens: int
    max_running_requests: int
    mamba_slots: int
    swa_tokens: Optional[int]
    mamba_main_gib: float
    mamba_spec_gib: float
    kv_pool_gib: float
    warnings: List[Dict[str, str]]


@dataclass
class PoolBudget:
    """The profiled memory as it is carved up: what is left (``rest``, GiB) and what the mamba pools took."""

    rest: float
    mamba_slots: int = 0
    mamba_main_gib: float = 0.0
    mamba_spec_gib: float = 0.0
    request_estimate: Optional[int] = None  # 0.5.9 derives the request cap while counting tokens

    @property
    def mamba_gib(self) -> float:
        return self.mamba_main_gib + self.mamba_spec_gib


@dataclass(frozen=True)
class PoolInputs:
    """The launch's fixed inputs to the pool sizing stages."""

    spec: ModelSpec
    r: Resolved
    cell: Dict[str, Any]
    per_req: int
    spec_on: bool  # speculative decoding with draft tokens (not NGRAM)
    requests: Optional[int]  # max_running_requests after resolution
    draft_tokens: int
    dp_workers: int  # attention-DP workers: requests and mamba slots are per worker


def mamba_split_mixin(p: PoolInputs, pool: PoolBudget) -> None:
    """``ModelRunnerKVCacheMixin.handle_max_mamba_cache`` (0.5.9 :98-419): the speculative states come off the
    profile first, then the slots (explicit, one per request without the radix cache, or the ratio's share)."""
    r, per_req = p.r, p.per_req
    if p.spec_on:
        pool.mamba_spec_gib = per_req * (p.requests // p.dp_workers) * p.draft_tokens / GIB
        pool.rest -= pool.mamba_spec_gib
    if r.max_mamba_cache_size is not None:
        pool.mamba_slots = r.max_mamba_cache_size // p.dp_workers
    elif r.disable_radix_cache and p.requests is not None:
        pool.mamba_slots = p.requests // p.dp_workers
    else:
        pool.mamba_slots = int((pool.rest * r.mamba_full_memory_ratio / (1 + r.mamba_full_memory_ratio) * GIB) // per_req)
    pool.mamba_main_gib = pool.mamba_slots * per_req / GIB
    pool.rest -= pool.mamba_main_gib


def requests_per_worker(p: PoolInputs) -> int:
    """max_running_requests per attention-DP worker (at least 1 in the releases that floor it)."""
    per_worker = p.requests // p.dp_workers
    return max(1, per_worker) if p.r.release.sizing.requests_per_worker_at_least_one else per_worker


def mamba_split_configurator(p: PoolInputs, pool: PoolBudget) -> None:
    """``KVCacheConfigurator`` mamba pool split (0.5.23 :3229-3409): slots plus one padding slot, speculative
    states for (capped requests + 1) x draft tokens; no slot at all is SGLang's RuntimeError."""
    r, per_req, draft, dpw = p.r, p.per_req, p.draft_tokens, p.dp_workers
    ratio = mamba_ratio(r)
    if r.max_mamba_cache_size is not None:
        slots = r.max_mamba_cache_size // dpw
        if p.spec_on:
            capped = min(requests_per_worker(p), slots // ratio)
            pool.mamba_spec_gib = per_req * (capped + 1) * draft / GIB
    elif r.disable_radix_cache and p.requests is not None:
        slots = requests_per_worker(p)
        if p.spec_on:
            pool.mamba_spec_gib = per_req * (slots + 1) * draft / GIB
    else:
        budget = pool.rest * r.mamba_full_memory_ratio / (1 + r.mamba_full_memory_ratio) * GIB
        if p.spec_on:
            slots = int((budget - per_req * (1 + draft)) // (per_req * (1 + draft / ratio)))
            capped = min(requests_per_worker(p), slots // ratio)
            pool.mamba_spec_gib = per_req * (capped + 1) * draft / GIB
        else:
            slots = int((budget - per_req) // per_req)
    pool.mamba_slots = slots
    pool.rest -= pool.mamba_spec_gib
    if slots <= 0:
        raise StartupError("RuntimeError", r.release.sizing.messages.mamba_zero.format(k=slots, rest=pool.rest, mb=per_req / MIB), "mamba_pool_too_small")
    pool.mamba_main_gib = (slots + 1) * per_req / GIB
    pool.rest -= pool.mamba_main_gib


def mamba_split_joint_unpadded(p: PoolInputs, pool: PoolBudget) -> None:
    """``_handle_max_mamba_cache`` of 0.5.13-0.5.16 (0.5.16 mem_cache/kv_cache_configurator.py:1703-1812): the
    slots and speculative states are solved jointly from the ratio's budget, K // ratio capped requests hold
    D states each, and there is no padding slot; no slot at all is SGLang's RuntimeError."""
    r, per_req, draft, dpw = p.r, p.per_req, p.draft_tokens, p.dp_workers
    if r.max_mamba_cache_size is not None:
        slots = r.max_mamba_cache_size // dpw
        if p.spec_on:
            pool.mamba_spec_gib = per_req * min(p.requests // dpw, slots // mamba_ratio(r)) * draft / GIB
    elif r.disable_radix_cache and p.requests is not None:
        slots = p.requests // dpw
        if p.spec_on:
            pool.mamba_spec_gib = per_req * slots * draft / GIB
    else:
        budget = pool.rest * r.mamba_full_memory_ratio / (1 + r.mamba_full_memory_ratio) * GIB
        if p.spec_on:
            ratio = mamba_ratio(r)
            slots = int(budget // (per_req * (1 + draft / ratio)))
            pool.mamba_spec_gib = per_req * min(p.requests // dpw, slots // ratio) * draft / GIB
        else:
            slots = int(budget // per_req)
    pool.mamba_slots = slots
    pool.rest -= pool.mamba_spec_gib
    if slots <= 0:
        raise StartupError("RuntimeError", r.release.sizing.messages.mamba_zero.format(k=slots, rest=pool.rest, mb=per_req / MIB), "mamba_pool_too_small")
    pool.mamba_main_gib = slots * per_req / GIB
    pool.rest -= pool.mamba_main_gib


def kv_tokens_mixin(p: PoolInputs, pool: PoolBudget) -> int:
    """0.5.9 ``init_memory_pool``: tokens = rest / cell (no page rounding here); the request estimate from the
    pool, capped by the mamba slots."""
    r = p.r
    cell_b = p.cell["cell"]
    tokens = int(pool.rest * GIB) // cell_b if cell_b else 0
    reqs = p.requests if p.requests is not None else min(max(int(tokens / r.context_len * 512), 2048), 4096)
    if p.spec.is_mambaish:
        reqs = min(reqs, pool.mamba_slots // mamba_ratio(r))
        if p.spec_on and p.dp_workers > 1:
            reqs = min(reqs, p.requests // p.dp_workers)
    pool.request_estimate = reqs
    return tokens


def kv_tokens_configurator(p: PoolInputs, pool: PoolBudget) -> int:
    """``pool_configurator.py`` (0.5.23 :220-320): page-aligned tokens; with a hybrid-SWA request cap the SWA pool
    is sized from it and everything else goes to the full-attention layers."""
    r, spec, cell = p.r, p.spec, p.cell
    cap = swa_request_cap(spec, r)
    if cap is None:
        return int(int(pool.rest * GIB) // cell["cell"]) // r.page_size * r.page_size
    page = r.page_size
    swa_fixed = -(-cap // page) * page
    fixed_bytes = swa_fixed * cell["per_swa_layer"] * cell["n_swa"]
    avail_bytes = int(pool.rest * GIB)
    tokens = int((avail_bytes - fixed_bytes) // (cell["per_layer"] * cell["n_full"])) // page * page
    if tokens <= 0:
        raise StartupError(
            "RuntimeError",
            f"SWA pool cap ({swa_fixed} tokens, {fixed_bytes / GIB:.2f} GiB) leaves "
            f"no room for the full KV pool within the available "
            f"{avail_bytes / GIB:.2f} GiB. Reduce --max-running-requests, lower "
            f"SGLANG_SWA_EVICTION_INTERVAL, or increase --mem-fraction-static.",
            "kv_pool_too_small",
        )
    return tokens


def request_cap_mixin(p: PoolInputs, pool: PoolBudget, tokens: int, warnings: List[Dict[str, str]]) -> int:
    """0.5.9 ``ModelRunner`` (:590-600): min(tokens / 2 or the requested cap, the estimate)."""
    requests, dpw = p.requests, p.dp_workers
    max_running = min(tokens // 2 if requests is None else requests // dpw, pool.request_estimate)
    if requests is not None and max_running < requests // dpw:
        warnings.append(
            {
                "id": "max_running_requests_capped",
                "message": f"max_running_requests is capped to {max_running} (requested {requests}) by the "
                f"mamba state cache ({pool.mamba_slots} slots, {mamba_ratio(p.r)} per request)",
            }
        )
    return max_running


def request_cap_estimate_bounded(p: PoolInputs, pool: PoolBudget, tokens: int, warnings: List[Dict[str, str]]) -> int:
    """``_resolve_max_num_reqs`` of 0.5.10-0.5.13 (0.5.10 model_runner_kv_cache_mixin.py:840-859): an explicit
    max_running_requests is bounded by the pool estimate (2048-4096), not by tokens / 2; then the mamba slots'
    cap (a RuntimeError at 0 where the release has that message)."""
    r, requests = p.r, p.requests
    est = max(min(int(tokens / r.context_len * 512), 4096), 2048)
    reqs = min(requests // p.dp_workers, est) if requests is not None else min(est, tokens // 2)
    if p.spec.is_mambaish:
        ratio = mamba_ratio(r)
        cap = pool.mamba_slots // ratio
        if cap < reqs:
            warnings.append(
                {
                    "id": "max_running_requests_capped",
                    "message": f"max_running_requests is capped to {cap} by the mamba state cache "
                    f"(max_mamba_cache_size={pool.mamba_slots}, {ratio} state slots per "
                    f"request)",
                }
            )
        reqs = min(reqs, cap)
        if reqs <= 0 and r.release.sizing.messages.mamba_requests is not None:
            raise StartupError("RuntimeError", r.release.sizing.messages.mamba_requests.format(k=pool.mamba_slots, ratio=ratio, n=reqs), "mamba_pool_too_small")
    return reqs


def request_cap_configurator(p: PoolInputs, pool: PoolBudget, tokens: int, warnings: List[Dict[str, str]]) -> int:
    """``KVCacheConfigurator`` max_num_reqs (0.5.23 :3119-3172): the request or the estimate, at most tokens / 2,
    then the mamba slots' cap, with SGLang's own log lines as warnings."""
    r, requests = p.r, p.requests
    est = max(min(int(tokens / r.context_len * 512), 4096), 2048)
    if requests is not None:
        reqs = min(requests_per_worker(p), tokens // 2)
    else:
        reqs = min(est, tokens // 2)
    capped_by_mamba = False
    if p.spec.is_mambaish:
        ratio = mamba_ratio(r)
        cap = pool.mamba_slots // ratio
        if cap < reqs:
            capped_by_mamba = True
            warnings.append(
                {
                    "id": "max_running_requests_capped",
                    "message": f"max_running_requests is capped to {cap} by the mamba state cache "
                    f"(max_mamba_cache_size={pool.mamba_slots}, {ratio} state slots per request). "
                    f"To raise it: increase --mamba-full-memory-ratio or --max-mamba-cache-size, "
                    f"or halve the state size with --mamba-ssm-dtype bfloat16.",
                }
            )
        reqs = min(reqs, cap)
        if reqs <= 0:
            raise StartupError("RuntimeError", r.release.sizing.messages.mamba_requests.format(k=pool.mamba_slots, ratio=ratio, n=reqs), "mamba_pool_too_small")
    if requests is not None and reqs < requests_per_worker(p) and not capped_by_mamba:
        warnings.append(
            {
                "id": "max_running_requests_capped",
                "message": f"max_running_requests was reduced from the requested {requests_per_worker(p)} "
                f"to {reqs} (per dp "
                f"worker) due to the available KV cache capacity.",
            }
        )
    return reqs


def _hybrid_swa_split(p: PoolInputs, tokens: int) -> Tuple[int, Optional[int]]:
    """(full-attention tokens, SWA tokens) of a hybrid-SWA pool of ``tokens``."""
    spec, r, cell = p.spec, p.r, p.cell
    b = r.release.sizing
    per, per_swa, nf, ns = cell["per_layer"], cell["per_swa_layer"], cell["n_full"], cell["n_swa"]
    cap = swa_request_cap(spec, r)
    if b.hybrid_swa_ratio_cell:
        full = tokens
    else:  # the cell counted every layer at its own size: re-split that memory by the ratio
        total_mem = tokens * (per * nf + per_swa * ns)
        full = int(total_mem / (per * nf + r.swa_full_tokens_ratio * per_swa * ns))
    if cap is not None:
        swa_tokens = min(-(-cap // r.page_size) * r.page_size, full if r.max_total_tokens is not None else 1 << 62)
    else:
        swa_tokens = int(full * r.swa_full_tokens_ratio) // r.page_size * r.page_size
    floor_msg = b.messages.swa_pool_below_window
    if floor_msg and cap is None and spec.sliding_window and swa_tokens < spec.sliding_window + r.page_size:
        raise StartupError("ValueError", floor_msg.format(swa=swa_tokens, window=spec.sliding_window, page=r.page_size), "kv_pool_too_small")
    return full // r.page_size * r.page_size, swa_tokens


def size_pools(spec: ModelSpec, wb: WeightBreakdown, r: Resolved, pre: float, cell: Dict[str, Any], per_req: int) -> Sizing:
    """Replay the target worker's profile -> mamba split -> token count -> request cap, raising StartupError."""
    b = r.release.sizing
    eagle = r.spec_algorithm in ("EAGLE", "EAGLE3", "STANDALONE")
    resident = wb.target_param_bytes + wb.target_buffer_bytes
    if b.draft_loaded_before_sizing and eagle and (spec.has_mtp_head or r.draft_path_given):
        resident += wb.draft_param_bytes + wb.draft_buffer_bytes
    avail = pre - resident / GIB
    mfs = r.mem_fraction_static
    mm = 0.0
    if b.multimodal_runtime_reservation and spec.is_multimodal:
        # kv_cache_configurator.py mm_runtime_reservation_gb: embedding cache (+ feature-transport pools)
        mm_mb = r.vlm_cache_mb
        if r.mm_feature_transport in ("cuda_ipc", "cuda_vmm"):
            mm_mb += r.mm_feature_cache_mb
        mm = mm_mb / 1024
    pool = PoolBudget(rest=avail - pre * (1 - mfs) - mm)
    p = PoolInputs(
        spec=spec,
        r=r,
        cell=cell,
        per_req=per_req,
        spec_on=r.spec_algorithm is not None and r.spec_algorithm != "NGRAM",
        requests=r.max_running_requests,
        draft_tokens=r.spec_draft_tokens or 0,
        dp_workers=r.attn_dp,
    )
    warnings: List[Dict[str, str]] = []
    if spec.is_mambaish:
        b.mamba_split(p, pool)
    if b.messages.kv_no_room is not None and pool.rest <= 0:
        minv = 1 - avail / pre
        raise StartupError(
            "ValueError",
            b.messages.kv_no_room.format(mfs=mfs, sugg=math.ceil(minv * 1000) / 1000, minv=minv),
            "mamba_pool_too_small" if spec.is_mambaish and pool.rest + pool.mamba_gib > 0 else "kv_pool_too_small",
        )
    cell_b = cell["cell"]
    tokens = b.kv_tokens(p, pool)
    if r.max_total_tokens is not None:
        if r.max_total_tokens > tokens:
            warnings.append(
                {
                    "id": "max_total_tokens_above_profile",
                    "message": f"max_total_tokens={r.max_total_tokens} is larger than the profiled value {tokens}. Use the profiled value instead.",
                }
            )
        tokens = min(tokens, r.max_total_tokens)
    tokens = tokens // r.page_size * r.page_size
    swa_tokens = None
    if r.hybrid_swa and tokens > 0:
        tokens, swa_tokens = _hybrid_swa_split(p, tokens)
    if tokens <= 0:
        root = "kv_pool_too_small"
        if spec.is_mambaish and (pool.rest + pool.mamba_gib) * GIB >= cell_b:
            root = "mamba_pool_too_small"
        raise StartupError("RuntimeError", b.messages.not_enough_memory.format(mfs=mfs), root)
    max_running = b.request_cap(p, pool, tokens, warnings)
    if max_running <= 0:
        raise StartupError("AssertionError", MSG_REQS_ZERO, "kv_pool_too_small")
    max_req_len = min(r.context_len - 1, tokens - 1)
    # tp_worker asserts max_req_len > 0, and in some releases max_req_input_len = max_req_len - 5 > 0 too
    if max_req_len <= 0 or (b.asserts_max_req_input_len and max_req_len - 5 <= 0):
        raise StartupError("AssertionError", MSG_POOL_SMALL, "kv_pool_too_small")
    return Sizing(
        max_total_num_tokens=tokens,
        max_running_requests=max_running,
        mamba_slots=pool.mamba_slots,
        swa_tokens=swa_tokens,
        mamba_main_gib=pool.mamba_main_gib,
        mamba_spec_gib=pool.mamba_spec_gib,
        kv_pool_gib=tokens * cell_b / GIB,
        warnings=warnings,
    )


def runtime_needs(spec: ModelSpec, wb: WeightBreakdown, r: Resolved, s: Sizing, cell: Dict[str, Any], per_req: int) -> Dict[str, float]:
    """What must come out of the non-static slack after the pools exist (GiB), item by item.

    Hard items are allocated for certain; ``graphs_and_activations`` is SGLang's own reserve heuristic
    (512 MiB + 1.5 MiB per prefill token + 2 MiB per decode graph size + tp/8 GiB [+ 8 MiB per prefill graph])."""
    b = r.release.sizing
    eagle = r.spec_algorithm in ("EAGLE", "EAGLE3", "STANDALONE")
    D = r.spec_draft_tokens or 0
    needs: Dict[str, float] = {}
    if eagle and spec.has_mtp_head:
        if not b.draft_loaded_before_sizing:
            needs["draft_weights_peak"] = (wb.draft_param_bytes + wb.draft_buffer_bytes) / GIB
        else:
            needs["draft_embed_head_freed"] = -wb.draft_embed_head_bytes / GIB
        if not cell["draft_budgeted"]:
            needs["draft_kv_pool"] = (s.max_total_num_tokens + r.page_size) * cell["per_layer"] * max(1, cell["draft_layers"]) / GIB
    if spec.is_mambaish and b.mamba_padding_slots_after_sizing:
        needs["mamba_padding_slots"] = (1 + (D if r.spec_algorithm else 0)) * per_req / GIB
    needs["req_to_token"] = (s.max_running_requests + 1) * (r.context_len + 4 + D) * 4 / GIB
    workspace_mib = 0.0
    if r.attention_backend == "flashinfer":
        # layers/attention/flashinfer_backend.py: 384 MiB global workspace, 512 MiB for Qwen2/Qwen3 dense,
        # 2 GiB with deterministic inference (SGLANG_FLASHINFER_WORKSPACE_SIZE overrides the default)
        workspace_mib = float(r.env.get("SGLANG_FLASHINFER_WORKSPACE_SIZE", 384 * MIB)) / MIB
        if spec.architecture in ("Qwen2ForCausalLM", "Qwen3ForCausalLM"):
            workspace_mib = 512.0
        if r.deterministic:
            workspace_mib = 2048.0
        needs["flashinfer_workspace"] = workspace_mib / 1024
    # SGLang's reserve heuristic; its 512 MiB "constant meta data (attention backend)" covers the workspace
    graph = max(0.0, 512 - workspace_mib) + max(r.chunked_prefill_size, 2048) * 1.5 + r.tp / 8 * 1024
    if not r.disable_cuda_graph:
        graph += 2 * min(r.cuda_graph_max_bs, s.max_running_requests) + 8 * r.prefill_graph_sizes
    needs["graphs_and_activations"] = graph / 1024
    return needs
