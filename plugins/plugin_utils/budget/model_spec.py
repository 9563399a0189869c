# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A model's memory-relevant shape, read from a real Hugging Face ``config.json`` the way SGLang reads it.

Sources (SGLang 0.5.9 and 0.5.23 wheels, package-relative):
- context length: ``utils/hf_transformers_utils.py:get_context_length`` (0.5.9) and
  ``utils/hf_transformers/common.py:get_context_length`` (0.5.23): the first of
  ``max_sequence_length, seq_length, max_seq_len, model_max_length, max_position_embeddings`` times the
  rope factor, where the factor is 1 when ``original_max_position_embeddings`` is present or the rope type
  is ``llama3``.
- hybrid GDN layers: ``configs/qwen3_next.py``: linear layers are those with
  ``(l + 1) % full_attention_interval != 0``; ``layer_types`` is not read.
- mamba2 hybrids: ``configs/nemotron_h.py``: ``hybrid_override_pattern`` (M mamba, * attention,
  - MLP, E MoE).
- hybrid SWA: ``configs/model_config.py:is_hybrid_swa_model`` / ``get_hybrid_layer_ids``.
- mamba SSM dtype: ``configs/mamba_utils.py:mamba2_state_dtype`` (env/flag > config > float32).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from .architectures import GLM4_MOE_DECODERS, VERIFIED, ArchitectureLayout, generic_layout
from .errors import BudgetInputError

DTYPE_BYTES = {
    "float32": 4,
    "float": 4,
    "fp32": 4,
    "bfloat16": 2,
    "bf16": 2,
    "float16": 2,
    "fp16": 2,
    "half": 2,
    "float8_e4m3fn": 1,
    "fp8": 1,
}

_CONTEXT_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length", "max_position_embeddings")


@dataclass
class QuantSpec:
    """How the checkpoint stores linear weights."""

    method: Optional[str] = None  # fp8 | awq | gptq | ct_wna16 | modelopt_fp8 | modelopt_fp4 | modelopt_mixed | mxfp4
    block: Optional[Tuple[int, int]] = None  # fp8 block size; None = per-tensor (or per-channel, below)
    # compressed-tensors FP8 with strategy "channel": a float32 scale per output row (ChannelQuantScaleParameter)
    channel_scales: bool = False
    symmetric: bool = True  # compressed-tensors WNA16: no zero points
    bits: int = 16
    group_size: int = 128
    not_converted: Tuple[str, ...] = ()  # module-name patterns left in the model dtype
    per_module: Dict[str, str] = field(default_factory=dict)  # modelopt MIXED_PRECISION: "<layer>.<suffix>" -> algo
    kv_cache_fp8: bool = False  # checkpoint declares FP8 KV (kv_cache_quant_algo)
    desc_act: bool = False
    # config.json's quantization_config says quant_method "modelopt": its quant_algo (SGLang reads this file
    # before hf_quant_config.json, and 0.5.9 maps plain "modelopt" to ModelOptFp8Config)
    modelopt_config_algo: Optional[str] = None
    # a quant_method whose storage the engine does not derive: SGLang may refuse it (the release's
    # ``quantization_methods``); otherwise only the checkpoint's own byte total sizes it. "" is a
    # quantization_config without any quant_method (an MLX re-save's {"group_size": 64, "bits": 4}), None none at all
    unmodelled_method: Optional[str] = None

    def algo_for(self, layer: Optional[int], name: str) -> Optional[str]:
        """The storage format of one linear module (``None`` = model dtype)."""
        if self.method is None:
            return None
        full = name if layer is None else f"layers.{layer}.{name}"
        if self.not_converted and _module_left_unquantized(self.not_converted, full):
            return None
        if self.method == "modelopt_mixed":
            return self.per_module.get(full)
        return self.method


# The classes configs/model_config.py is_deepseek_dsa names that the engine models, when the config has index_topk
DSA_ARCHITECTURES = frozenset({"DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "GlmMoeDsaForCausalLM"})


@dataclass(frozen=True)
class DsaSpec:
    """The DeepSeek Sparse Attention indexer of a checkpoint (DeepSeek-V3.2, GLM-5)."""

    index_head_dim: int
    index_n_heads: int
    index_kpool: int  # index keys pooled per index-K row
    rope_interleave: bool  # indexer_rope_interleave: the indexer is not neox-style
    topk_layer_ids: Tuple[int, ...]  # the layers that compute their own top-k (the others reuse the previous one's)


@dataclass(frozen=True)
class DsaBuild:
    """Which layers a release gives an Indexer, and whether it fuses wk with weights_proj (behaviour.DsaScheme)."""

    indexer_layer_ids: FrozenSet[int]
    fused_wk_weights_proj: bool


def dsa_layer_skips_topk(config: Dict[str, Any], layer: int) -> bool:
    """configs/model_config.py ``dsa_layer_skips_topk`` (0.5.23): whether a layer reuses the previous layer's top-k
    indices, from ``indexer_types``, LongCat's ``cli_factor``, ``index_topk_pattern`` or ``index_topk_freq`` with
    ``index_skip_topk_offset``."""
    types = config.get("indexer_types")
    if types is not None:
        return 0 <= layer < len(types) and types[layer] == "shared"
    cli = int(config.get("cli_factor") or 1)
    if cli > 1:
        return layer % cli != 0
    pattern = config.get("index_topk_pattern")
    if pattern is not None:
        return layer < len(pattern) and pattern[layer] == "S"
    freq = int(config.get("index_topk_freq") or 1)
    offset = config.get("index_skip_topk_offset")
    if offset is not None:
        return max(layer - int(offset) + 1, 0) % freq != 0
    return max(layer - 1, 0) % freq != 0


@functools.lru_cache(maxsize=64)
def _skip_matchers(patterns: Tuple[str, ...]) -> Tuple[Tuple[Any, str], ...]:
    """The checkpoint's list of modules left in the model dtype, compiled once: a compressed-tensors "re:" entry is a
    regex over the module's name (utils.py check_equal_or_regex_match), any other a dotted name (``*`` a wildcard
    within one component) after the checkpoint prefixes, or a bare last component."""
    out = []
    for pat in patterns:
        if pat.startswith("re:"):
            out.append((re.compile(pat[3:]), ""))
            continue
        pat = re.sub(r"^(model\.)?(language_model\.)?(model\.)?", "", pat)
        out.append((re.compile(r"(^|\.)" + re.escape(pat).replace(r"\*", r"[^.]*") + r"($|\.)"), pat))
    return tuple(out)


# A fused module and the checkpoint modules it packs (the model classes' packed_modules_mapping): it stays in the model
# dtype only when every one of them does
_PACKED_MODULES = {"fused_qkv_a_proj_with_mqa": ("q_a_proj", "kv_a_proj_with_mqa")}


def _module_left_unquantized(patterns: Tuple[str, ...], full: str) -> bool:
    parent, dot, last = full.rpartition(".")
    shards = _PACKED_MODULES.get(last)
    if shards:
        return all(_left_unquantized(patterns, f"{parent}{dot}{shard}", shard) for shard in shards)
    return _left_unquantized(patterns, full, last)


@functools.lru_cache(maxsize=1 << 16)
def _left_unquantized(patterns: Tuple[str, ...], full: str, last: str) -> bool:
    for rx, dotted in _skip_matchers(patterns):
        if dotted:
            if rx.search(full) or dotted == last:
                return True
        elif rx.match(full) or rx.match("model." + full):
            return True
    return False


@dataclass(frozen=True)
class PipelineStage:
    """The decoder layers ``[start, end)`` that one pipeline-parallel rank builds (``get_pp_indices``)."""

    rank: int
    size: int
    start: int
    end: int

    @property
    def first(self) -> bool:
        return self.rank == 0

    @property
    def last(self) -> bool:
        return self.rank == self.size - 1


def pipeline_stage(num_layers: int, rank: int, size: int, partition: Optional[str] = None) -> PipelineStage:
    """``distributed/utils.py get_pp_indices`` (0.5.9-0.5.23): SGLANG_PP_LAYER_PARTITION when set (its layer
    counts, one per stage), else ``num_layers // size`` each with the remainder going one by one to the last stages."""
    if size > 1 and partition:
        try:
            counts = [int(part) for part in partition.split(",")]
        except ValueError:
            raise BudgetInputError(
                "env.SGLANG_PP_LAYER_PARTITION", f"is not a list of layer counts: {partition!r}", "give one count per stage, e.g. 30,31"
            ) from None
        if len(counts) != size or sum(counts) != num_layers:
            raise BudgetInputError(
                "env.SGLANG_PP_LAYER_PARTITION",
                f"gives {len(counts)} stages and {sum(counts)} layers for pp_size {size} and {num_layers} layers",
                f"give {size} counts that add up to {num_layers}",
            )
        start = sum(counts[:rank])
        return PipelineStage(rank, size, start, start + counts[rank])
    base, extra = divmod(num_layers, size)
    if rank >= size - extra:
        start = rank * (base + 1) - (size - extra)
        return PipelineStage(rank, size, start, start + base + 1)
    return PipelineStage(rank, size, rank * base, rank * base + base)


@dataclass
class ModelSpec:
    """Everything the budget engine needs about one checkpoint (text model, vision tower, draft head)."""

    architecture: str
    family: str
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    v_head_dim: int
    intermediate_size: int
    vocab_size: int
    tie_embeddings: bool
    dtype_bytes: int
    max_position_embeddings: int
    derived_context_len: int
    rotary_dim: int
    rope_cache_len: int
    attention_bias: bool = False
    o_proj_bias: bool = False
    qk_norm: bool = False
    attn_output_gate: bool = False
    # per-layer layout: (mixer, ffn); mixer in full|swa|linear|mamba|none, ffn in dense|moe|none
    layers: List[Tuple[str, str]] = field(default_factory=list)
    # the pipeline stage this spec is sized for (None: the whole model, pp_size 1)
    stage: Optional[PipelineStage] = None
    # MoE
    num_experts: int = 0
    moe_intermediate_size: int = 0
    shared_expert_intermediate_size: int = 0
    gated_mlp: bool = True
    router_bias: bool = False
    # MLA
    q_lora_rank: Optional[int] = None
    kv_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    # sliding window
    sliding_window: Optional[int] = None
    # the sliding layers' own KV geometry where it differs from the full layers' (Gemma 4); 0: the same
    swa_head_dim: int = 0
    swa_num_kv_heads: int = 0
    # GDN (Qwen3-Next / 3.5 / 3.6)
    linear_num_key_heads: int = 0
    linear_num_value_heads: int = 0
    linear_key_head_dim: int = 0
    linear_value_head_dim: int = 0
    linear_conv_kernel_dim: int = 0
    # mamba2 (Nemotron-H)
    mamba_num_heads: int = 0
    mamba_head_dim: int = 0
    mamba_n_groups: int = 0
    ssm_state_size: int = 0
    conv_kernel: int = 0
    mamba_ssm_dtype: Optional[str] = None  # from the config; None = not declared
    layers_from_block_type: bool = False  # Nemotron-H config with layers_block_type only (no pattern string)
    moe_latent_size: int = 0  # Nemotron-H latent MoE: the experts' width
    # speculative heads declared by the checkpoint
    num_nextn_predict_layers: Optional[int] = None
    mtp_num_hidden_layers: int = 0
    dsa: Optional[DsaSpec] = None  # DeepSeek Sparse Attention (is_deepseek_dsa)
    dsa_build: Optional[DsaBuild] = None  # how the release builds its indexers (weights.compute_weights sets it)
    # multimodal
    is_multimodal: bool = False
    vision: Optional[Dict[str, Any]] = None
    vision_replicated: bool = False  # --mm-enable-dp-encoder: the ViT is not split over TP
    moe_pad: Tuple[int, int] = (0, 0)  # (hidden, per-rank intermediate) alignment of padded MoE weights
    # NVFP4 experts keep a swizzled copy of their block scales (all but the TRT-LLM MoE runner)
    fp4_moe_swizzled_scales: bool = True
    config_language_model_only: bool = False  # checkpoint declares language_model_only (0.5.23 reads it)
    quant: QuantSpec = field(default_factory=QuantSpec)
    layout: ArchitectureLayout = field(default_factory=lambda: VERIFIED["LlamaForCausalLM"], repr=False)
    norms_per_layer: int = 2
    mlp_bias: bool = False
    embed_dim: int = 0  # token embedding width when it is not hidden_size (layout.embed_dim_key)
    raw_text_config: Dict[str, Any] = field(default_factory=dict, repr=False)
    raw_config: Dict[str, Any] = field(default_factory=dict, repr=False)

    # ---- derived views (cached: the sizing path reads them on every evaluation) -----------------
    def _ids(self, kinds: Tuple[str, ...]) -> List[int]:
        cache = self.__dict__.setdefault("_id_cache", {})
        start, end = self.stage_layer_range
        key = (kinds, len(self.layers), start, end)
        if key not in cache:
            cache[key] = [i for i in range(start, end) if self.layers[i][0] in kinds]
        return cache[key]

    @property
    def stage_layer_range(self) -> Tuple[int, int]:
        """The decoder layers this rank builds: its pipeline stage's, else all of them."""
        return (self.stage.start, min(self.stage.end, len(self.layers))) if self.stage else (0, len(self.layers))

    @property
    def stage_num_layers(self) -> int:
        return self.stage.end - self.stage.start if self.stage else self.num_layers

    @property
    def first_stage(self) -> bool:
        return self.stage is None or self.stage.first

    @property
    def last_stage(self) -> bool:
        return self.stage is None or self.stage.last

    @property
    def full_attention_layer_ids(self) -> List[int]:
        return self._ids(("full",))

    @property
    def swa_layer_ids(self) -> List[int]:
        return self._ids(("swa",))

    @property
    def state_layer_ids(self) -> List[int]:
        """Layers that keep a recurrent (GDN, mamba2 or short-conv) state instead of KV."""
        return self._ids(("linear", "mamba", "conv"))

    @property
    def is_mambaish(self) -> bool:
        return self.family in ("gdn", "mamba2")

    @property
    def is_hybrid_swa(self) -> bool:
        return self.family == "swa"

    @property
    def is_mla(self) -> bool:
        return self.family == "mla"

    @property
    def has_mtp_head(self) -> bool:
        """SGLang can build a path-less NEXTN/MTP draft from this checkpoint (configs/model_config.py rewrites
        Qwen3-Next to Qwen3NextForCausalLMMTP with one layer even though its config declares none)."""
        return bool(self.num_nextn_predict_layers) or self.mtp_num_hidden_layers > 0 or self.architecture == "Qwen3NextForCausalLM"


def _need(cfg: Dict[str, Any], key: str, where: str) -> Any:
    if key not in cfg or cfg[key] is None:
        raise BudgetInputError(
            f"model.config.{where}{key}", "is missing from config.json", "pass the model's real config.json from its Hugging Face repository (unmodified)"
        )
    return cfg[key]


def _int(cfg: Dict[str, Any], key: str, where: str, default: Any = None) -> int:
    value = cfg.get(key, default)
    if value is None:
        return _need(cfg, key, where)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise BudgetInputError(f"model.config.{where}{key}", f"must be a non-negative number, got {value!r}", "pass the model's real config.json")
    return int(value)


def num_labels(config: Dict[str, Any]) -> int:
    """transformers' ``PretrainedConfig.num_labels``: the size of ``id2label`` when the config has one, else its
    ``num_labels`` (default 2)."""
    id2label = config.get("id2label")
    if isinstance(id2label, dict) and id2label:
        return len(id2label)
    labels = config.get("num_labels", 2)
    if isinstance(labels, bool) or not isinstance(labels, int) or not 0 < labels <= 1 << 20:
        raise BudgetInputError("model.config.num_labels", f"must be a whole number from 1 to {1 << 20}, got {labels!r:.60}", _FIX)
    return labels


def derive_context_length(text_cfg: Dict[str, Any]) -> int:
    """SGLang's ``get_context_length`` (identical in 0.5.9 and 0.5.23)."""
    rope = text_cfg.get("rope_scaling")
    factor = 1
    if rope:
        factor = rope.get("factor", 1)
        if "original_max_position_embeddings" in rope or rope.get("rope_type") == "llama3":
            factor = 1
    for key in _CONTEXT_KEYS:
        val = text_cfg.get(key)
        if val is not None:
            return int(factor * val)
    return 2048


def _rope_cache(text_cfg: Dict[str, Any], rotary_dim: int, max_pos: int) -> int:
    """Rows of the fp32 ``cos_sin_cache`` SGLang's rotary module allocates at construction."""
    rope = text_cfg.get("rope_scaling") or {}
    kind = rope.get("rope_type") or rope.get("type")
    if kind in ("yarn", "deepseek_yarn") and rope.get("original_max_position_embeddings"):
        # YaRN caches original_max_position * factor rows (layers/rotary_embedding.py YaRNScaling*).
        return int(rope["original_max_position_embeddings"] * rope.get("factor", 1))
    if kind in ("linear", "dynamic") and isinstance(rope.get("factor"), (int, float)):
        # LinearScalingRotaryEmbedding / DynamicNTKScalingRotaryEmbedding: max_position * factor rows
        return int(max_pos * rope["factor"])
    return max_pos


def _quant(cfg: Dict[str, Any], text: Dict[str, Any], hf_quant: Optional[Dict[str, Any]]) -> QuantSpec:
    qc = cfg.get("quantization_config") or text.get("quantization_config")
    spec = _quant_storage(qc, hf_quant)
    if isinstance(qc, dict) and str(qc.get("quant_method") or "").lower() == "modelopt":
        spec.modelopt_config_algo = str(qc.get("quant_algo") or "").upper()
    return spec


def _quant_storage(qc: Optional[Dict[str, Any]], hf_quant: Optional[Dict[str, Any]]) -> QuantSpec:
    if hf_quant and isinstance(hf_quant.get("quantization"), dict):
        q = hf_quant["quantization"]
        algo = str(q.get("quant_algo") or "").upper()
        kv_fp8 = str(q.get("kv_cache_quant_algo") or "").upper() == "FP8"
        excl = tuple(q.get("exclude_modules") or ())
        if algo == "MIXED_PRECISION":
            per = {}
            for name, spec in (q.get("quantized_layers") or {}).items():
                a = str(spec.get("quant_algo", "")).upper()
                algo_name = "modelopt_fp4" if "NVFP4" in a else "modelopt_fp8"
                m = re.search(r"layers\.(\d+)\.(.+)$", name)
                if m:
                    per[f"layers.{m.group(1)}.{m.group(2)}"] = algo_name
                elif not re.search(r"(^|\.)mtp(\.|$)", name):
                    per[name.rsplit(".", 1)[-1] if name.endswith("lm_head") else name] = algo_name
            return QuantSpec(method="modelopt_mixed", per_module=per, kv_cache_fp8=kv_fp8, not_converted=excl)
        if "FP4" in algo:
            return QuantSpec(method="modelopt_fp4", bits=4, group_size=16, not_converted=excl, kv_cache_fp8=kv_fp8)
        if "FP8" in algo:
            return QuantSpec(method="modelopt_fp8", bits=8, not_converted=excl, kv_cache_fp8=kv_fp8)
        return QuantSpec(kv_cache_fp8=kv_fp8)
    if not qc:
        return QuantSpec()
    method = str(qc.get("quant_method") or "").lower()
    if "quant_method" not in qc and re.search("FP4|FP8", str(qc.get("quant_algo") or "").upper()):
        method = "modelopt"  # configs/model_config.py _parse_quant_hf_config: a flat ModelOpt block without quant_method
    skip = tuple(qc.get("modules_to_not_convert") or qc.get("ignored_layers") or qc.get("ignore") or ())
    kv_fp8 = str(qc.get("kv_cache_quant_algo") or "").upper() == "FP8"
    if method == "fp8":
        block = qc.get("weight_block_size")
        return QuantSpec(method="fp8", block=tuple(block) if block else None, bits=8, not_converted=skip, kv_cache_fp8=kv_fp8)
    if method in ("awq", "awq_marlin", "gptq", "gptq_marlin"):
        return QuantSpec(
            method="gptq" if method.startswith("gptq") else "awq",
            bits=int(qc.get("bits", 4)),
            group_size=int(qc.get("group_size", 128) or 128),
            not_converted=skip,
            desc_act=bool(qc.get("desc_act", False)),
        )
    if method == "mxfp4":
        return QuantSpec(method="mxfp4", bits=4, group_size=32, not_converted=skip)
    if method == "modelopt":
        algo = str(qc.get("quant_algo", "")).upper()
        return QuantSpec(
            method="modelopt_fp4" if "FP4" in algo else "modelopt_fp8",
            bits=4 if "FP4" in algo else 8,
            group_size=16,
            not_converted=skip + tuple(qc.get("exclude_modules") or ()),
            kv_cache_fp8=_modelopt_flat_kv_fp8(qc, kv_fp8),
        )
    if method == "compressed-tensors":
        groups = qc.get("config_groups") or {}
        bits, strategy, block, weights = 16, "", None, {}
        for g in groups.values():
            w = (g or {}).get("weights") or {}
            if w.get("num_bits"):
                weights = dict(w, input_activations=(g or {}).get("input_activations"))
                bits = int(w["num_bits"])
                strategy = str(w.get("strategy") or "").lower()
                structure = w.get("block_structure")
                whole = isinstance(structure, list) and len(structure) == 2 and all(isinstance(b, int) and not isinstance(b, bool) and b > 0 for b in structure)
                block = tuple(structure) if strategy == "block" and whole else None
        kv = qc.get("kv_cache_scheme") or {}
        if bits in (4, 8) and weights.get("type") == "int" and not (weights.get("input_activations") or {}):
            # W4A16/W8A16 (CompressedTensorsWNA16, its Marlin MoE scheme)
            return QuantSpec(
                method="ct_wna16",
                bits=bits,
                group_size=int(weights.get("group_size") or -1),
                not_converted=tuple(qc.get("ignore") or ()),
                kv_cache_fp8=kv.get("num_bits") == 8,
                symmetric=weights.get("symmetric", True) is not False,
            )
        return QuantSpec(
            method="fp8" if bits == 8 else ("gptq" if bits == 4 else None),
            bits=bits,
            block=block,
            channel_scales=bits == 8 and strategy == "channel",
            not_converted=tuple(qc.get("ignore") or ()),
            kv_cache_fp8=kv.get("num_bits") == 8,
        )
    return QuantSpec(unmodelled_method=method, not_converted=skip, kv_cache_fp8=kv_fp8)


def _modelopt_flat_kv_fp8(qc: Dict[str, Any], kv_cache_quant_algo_fp8: bool) -> bool:
    """A flat (config.json) ModelOpt config's FP8 KV cache (modelopt_quant.py from_config, 0.5.9-0.5.23): a
    ``kv_cache_scheme`` dict of type float and 8 bits, or the scheme name FP8, wins over ``kv_cache_quant_algo``."""
    scheme = qc.get("kv_cache_scheme")
    if isinstance(scheme, dict):
        return scheme.get("type") == "float" and scheme.get("num_bits") == 8
    if isinstance(scheme, str):
        return scheme.strip().upper() == "FP8"
    return kv_cache_quant_algo_fp8


def unmodelled_quant_error(method: str) -> BudgetInputError:
    """The refusal of a checkpoint whose quantized storage the engine cannot derive and whose byte total is unknown."""
    return BudgetInputError(
        "model.config.quantization_config.quant_method",
        f"{method!r} is not modelled",
        "use an fp8, awq, gptq, modelopt (nvfp4/fp8), mxfp4 or compressed-tensors checkpoint, "
        "or pass model.safetensors.index.json so the weight bytes are read, not derived",
    )


def _nested(cfg: Dict[str, Any], dotted: str) -> Any:
    value: Any = cfg
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


# configs/model_config.py get_total_num_kv_heads (0.5.9 and 0.5.23): the first of these that is set, else one KV
# head per attention head
_KV_HEAD_KEYS = ("n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num", "num_attention_groups")


def _kv_head_count(text: Dict[str, Any], where: str, heads: int) -> int:
    if text.get("multi_query") and not text.get("new_decoder_architecture"):
        return 1
    for key in _KV_HEAD_KEYS:
        if text.get(key) is not None:
            return _int(text, key, where)
    return heads


def _has_qk_norm(layout: ArchitectureLayout, text: Dict[str, Any]) -> bool:
    """q/k norms as the class builds them: always, behind a config switch (``qk_norm_key``), or, for a class this
    engine does not know, when the config says ``use_qk_norm``."""
    if layout.qk_norm:
        return not layout.qk_norm_key or bool(text.get(layout.qk_norm_key))
    return bool(text.get("use_qk_norm"))


def _gdn_layers(text: Dict[str, Any], n: int) -> List[str]:
    interval = _int(text, "full_attention_interval", "text_config.", 4)
    return ["linear" if (i + 1) % interval != 0 else "full" for i in range(n)]


# Every count the engine reads from a config (top level, text_config, vision_config), with the range a real
# checkpoint stays inside. Outside it the arithmetic means nothing (0 layers divide by zero, 1e7 layers build
# millions of rows), so the field is refused before any sizing.
_COUNT_BOUNDS = {
    "num_hidden_layers": (1, 1024),
    "hidden_size": (1, 1 << 18),
    "num_attention_heads": (1, 1 << 14),
    "num_key_value_heads": (1, 1 << 14),
    "head_dim": (1, 1 << 14),
    "attention_head_dim": (1, 1 << 14),
    "intermediate_size": (1, 1 << 21),
    "moe_intermediate_size": (0, 1 << 21),
    "shared_expert_intermediate_size": (0, 1 << 21),
    "moe_shared_expert_intermediate_size": (0, 1 << 21),
    "vocab_size": (1, 1 << 24),
    "max_position_embeddings": (1, 1 << 27),
    "original_max_position_embeddings": (1, 1 << 27),
    "sliding_window": (0, 1 << 27),
    "num_experts": (0, 1 << 16),
    "num_local_experts": (0, 1 << 16),
    "n_routed_experts": (0, 1 << 16),
    "n_shared_experts": (0, 1 << 10),
    "num_nextn_predict_layers": (0, 64),
    "mtp_num_hidden_layers": (0, 64),
    "kv_lora_rank": (0, 1 << 16),
    "index_head_dim": (1, 1 << 14),
    "index_n_heads": (1, 1 << 12),
    "index_kpool": (1, 1 << 10),
    "q_lora_rank": (0, 1 << 16),
    "qk_nope_head_dim": (0, 1 << 14),
    "qk_rope_head_dim": (0, 1 << 14),
    "v_head_dim": (0, 1 << 14),
    "rotary_dim": (0, 1 << 14),
    "linear_num_key_heads": (0, 1 << 14),
    "linear_num_value_heads": (0, 1 << 14),
    "linear_key_head_dim": (0, 1 << 14),
    "linear_value_head_dim": (0, 1 << 14),
    "linear_conv_kernel_dim": (0, 64),
    "mamba_num_heads": (0, 1 << 14),
    "mamba_head_dim": (0, 1 << 14),
    "n_groups": (0, 1 << 14),
    "ssm_state_size": (0, 1 << 14),
    "conv_kernel": (0, 64),
    "full_attention_interval": (0, 1024),
    "first_k_dense_replace": (0, 1024),
    "moe_layer_freq": (1, 1024),
    "decoder_sparse_step": (1, 1024),
    "num_experts_per_tok": (0, 1 << 16),
    "depth": (0, 1024),
}
_OBJECT_FIELDS = ("text_config", "vision_config", "rope_scaling", "rope_parameters", "quantization_config")
_FIX = "pass the model's real config.json from its Hugging Face repository (unmodified)"


def _check_fields(cfg: Dict[str, Any], where: str) -> None:
    for key in _OBJECT_FIELDS:
        if cfg.get(key) is not None and not isinstance(cfg[key], dict):
            raise BudgetInputError(f"model.config.{where}{key}", f"must be a JSON object, got {cfg[key]!r:.60}", _FIX)
    for key, (low, high) in _COUNT_BOUNDS.items():
        value = cfg.get(key)
        if value is None:
            continue
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or (isinstance(value, float) and math.isnan(value))
            or not low <= value <= high
            or int(value) != value
        ):
            raise BudgetInputError(f"model.config.{where}{key}", f"must be a whole number from {low} to {high}, got {value!r:.60}", _FIX)
    factor = cfg.get("partial_rotary_factor")
    if factor is not None and (isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0 < factor <= 1):
        raise BudgetInputError(f"model.config.{where}partial_rotary_factor", f"must be in (0, 1], got {factor!r:.60}", _FIX)
    for key in ("layer_types", "mlp_only_layers", "weight_block_size"):
        value = cfg.get(key)
        if value is not None and not isinstance(value, list):
            raise BudgetInputError(f"model.config.{where}{key}", f"must be a list, got {value!r:.60}", _FIX)
    if isinstance(cfg.get("quantization_config"), dict):
        _check_quant(cfg["quantization_config"], where)
    rope = cfg.get("rope_scaling") or {}
    scale = rope.get("factor")
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale <= 1e4):
        raise BudgetInputError(f"model.config.{where}rope_scaling.factor", f"must be a number in (0, 10000], got {scale!r:.60}", _FIX)


_QUANT_COUNTS = {"group_size": (-1, 1 << 16), "num_bits": (1, 32)}
# the methods whose bits the engine reads (as SGLang's GPTQ/AWQ configs do: a whole number of bits per weight);
# others may carry an average (an EXL2 re-quantisation's "bits": 4.25) that only their own loader reads
_WHOLE_BITS_METHODS = ("awq", "awq_marlin", "gptq", "gptq_marlin")


def _check_quant(qc: Dict[str, Any], where: str) -> None:
    block = qc.get("weight_block_size")
    if block is not None and (
        not isinstance(block, list) or len(block) != 2 or not all(isinstance(b, int) and not isinstance(b, bool) and 0 < b <= 1 << 16 for b in block)
    ):
        raise BudgetInputError(f"model.config.{where}quantization_config.weight_block_size", f"must be two positive whole numbers, got {block!r:.60}", _FIX)
    for key, (low, high) in _QUANT_COUNTS.items():
        value = qc.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high):
            raise BudgetInputError(f"model.config.{where}quantization_config.{key}", f"must be a whole number from {low} to {high}, got {value!r:.60}", _FIX)
    bits = qc.get("bits")
    whole = str(qc.get("quant_method") or "").lower() in _WHOLE_BITS_METHODS
    if bits is not None and (isinstance(bits, bool) or not isinstance(bits, (int, float)) or not 1 <= bits <= 32 or (whole and int(bits) != bits)):
        kind = "a whole number" if whole else "a number"
        raise BudgetInputError(f"model.config.{where}quantization_config.bits", f"must be {kind} from 1 to 32, got {bits!r:.60}", _FIX)
    for key in ("quant_method", "quant_algo", "kv_cache_quant_algo"):
        if qc.get(key) is not None and not isinstance(qc[key], str):
            raise BudgetInputError(f"model.config.{where}quantization_config.{key}", f"must be a string, got {qc[key]!r:.60}", _FIX)
    for key in ("modules_to_not_convert", "ignored_layers", "ignore", "exclude_modules"):
        if qc.get(key) is not None and not isinstance(qc[key], list):
            raise BudgetInputError(f"model.config.{where}quantization_config.{key}", f"must be a list, got {qc[key]!r:.60}", _FIX)


def validate_config_fields(config: Dict[str, Any]) -> None:
    """Refuse, naming the field and its value, every config field the engine reads that has the wrong type or a
    value outside what a real checkpoint holds, before any arithmetic uses it."""
    _check_fields(config, "")
    for sub in ("text_config", "vision_config"):
        if isinstance(config.get(sub), dict):
            _check_fields(config[sub], sub + ".")


def build_model_spec(config: Any, hf_quant_config: Optional[Dict[str, Any]] = None) -> ModelSpec:
    """Parse a real HF ``config.json`` dict (plus an optional ``hf_quant_config.json``) into a ModelSpec."""
    if not isinstance(config, dict) or not config:
        raise BudgetInputError(
            "model.config",
            "is not a JSON object (config.json missing, empty or malformed)",
            "point model at the directory holding the model's config.json, or pass its parsed dict",
        )
    archs = config.get("architectures")
    if not isinstance(archs, list) or not archs or not isinstance(archs[0], str):
        raise BudgetInputError("model.config.architectures", "is missing or not a list of class names", "use the unmodified config.json of the checkpoint")
    arch = archs[0]
    validate_config_fields(config)
    # an unverified class is parsed with the generic layout; the engine decides per release whether SGLang treats
    # it generically (architectures.resolve_architecture) before any number is returned
    layout = VERIFIED.get(arch) or generic_layout("", config)
    family = layout.family
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    where = "text_config." if text is not config else ""
    if layout.text_defaults and text is not config:
        text = {**dict(layout.text_defaults), **text}
    aliased = {field: _nested(text, alias) for field, alias in layout.config_aliases if field not in text}
    aliased = {field: value for field, value in aliased.items() if value is not None}
    if aliased:
        text = dict(text, **aliased)
    hidden = _int(text, "hidden_size", where)
    if family == "mamba2" and "num_hidden_layers" not in text and isinstance(text.get("layers_block_type"), list):
        text = dict(text, num_hidden_layers=len(text["layers_block_type"]))  # configs/nemotron_h.py derives it
    n_layers = _int(text, "num_hidden_layers", where)
    heads = _int(text, "num_attention_heads", where)
    kv_heads = _kv_head_count(text, where, heads)
    head_dim = int(text.get("head_dim") or text.get("attention_head_dim") or hidden // max(heads, 1))
    vocab = _int(text, "vocab_size", where)
    if layout.tie == "config":
        tie = bool(config.get("tie_word_embeddings", text.get("tie_word_embeddings", layout.tie_default)))
    else:
        tie = layout.tie == "always"
    dtype = str(text.get("torch_dtype") or text.get("dtype") or config.get("torch_dtype") or config.get("dtype") or "bfloat16")
    # configs/model_config.py _get_and_verify_dtype: with --dtype auto a float32 (or undeclared) checkpoint is
    # served in float16, bf16/fp16 stay as they are; --dtype float32 is applied by the engine (_effective_spec).
    dtype_bytes = min(2, DTYPE_BYTES.get(dtype.replace("torch.", ""), 2))
    max_pos = _int(text, "max_position_embeddings", where, 2048)
    rope_params = text.get("rope_parameters") or {}
    partial = float(text.get("partial_rotary_factor") or rope_params.get("partial_rotary_factor") or text.get("rope_pct") or layout.partial_rotary_default)
    rotary_dim = int(text.get("rotary_dim") or head_dim * partial)
    if layout.qkv_bias is None:
        qkv_bias = any(bool(text.get(k)) for k in layout.bias_key) if any(k in text for k in layout.bias_key) else layout.bias_default
    else:
        qkv_bias = layout.qkv_bias
    rope_rows = max_pos
    if layout.rope_rows_key and text.get(layout.rope_rows_key):
        rope_rows = _int(text, layout.rope_rows_key, where)
    spec = ModelSpec(
        architecture=arch,
        family=family,
        hidden_size=hidden,
        num_layers=n_layers,
        num_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        v_head_dim=head_dim,
        intermediate_size=int(text.get("intermediate_size") or hidden * layout.ffn_default_multiple),
        vocab_size=vocab,
        tie_embeddings=tie,
        dtype_bytes=dtype_bytes,
        max_position_embeddings=max_pos,
        derived_context_len=derive_context_length(text),
        rotary_dim=rotary_dim,
        rope_cache_len=rope_rows if layout.rope_layout in _UNSCALED_ROPE_LAYOUTS else _rope_cache(text, rotary_dim, rope_rows),
        attention_bias=qkv_bias,
        o_proj_bias=qkv_bias if layout.o_bias is None else layout.o_bias,
        qk_norm=_has_qk_norm(layout, text),
        quant=_quant(config, text, hf_quant_config),
        raw_text_config=text,
        raw_config=config,
        layout=layout,
        norms_per_layer=layout.norms_per_layer,
        mlp_bias=bool(text.get(layout.mlp_bias_key)) if layout.mlp_bias_key else qkv_bias if layout.mlp_bias is None else layout.mlp_bias,
        embed_dim=int(text.get(layout.embed_dim_key) or hidden) if layout.embed_dim_key else 0,
        gated_mlp=layout.gated_mlp,
        num_nextn_predict_layers=text.get("num_nextn_predict_layers"),
        mtp_num_hidden_layers=int(text.get("mtp_num_hidden_layers") or 0),
        is_multimodal=layout.multimodal,
        vision={**dict(layout.vision_defaults), **(config.get("vision_config") or {})} if layout.multimodal else None,
        config_language_model_only=bool(config.get("language_model_only", False)),
    )
    ffn = "dense"
    if family in ("moe", "gdn") and (text.get("num_experts") or text.get("num_local_experts") or text.get("n_routed_experts")):
        ffn = "moe"
    if family == "moe" or ffn == "moe":
        experts = text.get("num_experts") or text.get("num_local_experts") or text.get("n_routed_experts")
        if not experts:
            raise BudgetInputError(
                "model.config.num_experts",
                f"is missing or null for the MoE class {arch}",
                "give num_experts (or num_local_experts / n_routed_experts) as in the checkpoint's config.json",
            )
        spec.num_experts = int(experts)
        spec.moe_intermediate_size = int(text.get("moe_intermediate_size") or text.get("intermediate_size"))
        shared = text.get("shared_expert_intermediate_size")
        if shared is None and text.get("n_shared_experts"):
            shared = int(text["n_shared_experts"]) * spec.moe_intermediate_size
        spec.shared_expert_intermediate_size = int(shared or 0)
        spec.router_bias = bool(text.get("use_routing_bias")) or arch in GLM4_MOE_DECODERS
    if family == "dense" or family == "moe":
        first_dense = int(text.get("first_k_dense_replace", 0) or 0)
        sparse_step = int(text.get("decoder_sparse_step", 1) or 1)
        mlp_only = set(text.get("mlp_only_layers") or [])
        if layout.all_layers_moe:
            first_dense, sparse_step, mlp_only = 0, 1, set()
        spec.layers = [
            ("full", "moe" if family == "moe" and i >= first_dense and (i + 1) % sparse_step == 0 and i not in mlp_only else "dense") for i in range(n_layers)
        ]
    elif family == "mla":
        spec.q_lora_rank = text.get("q_lora_rank")
        spec.kv_lora_rank = _int(text, "kv_lora_rank", where)
        spec.qk_nope_head_dim = _int(text, "qk_nope_head_dim", where)
        spec.qk_rope_head_dim = _int(text, "qk_rope_head_dim", where)
        spec.v_head_dim = _int(text, "v_head_dim", where)
        spec.head_dim = spec.qk_nope_head_dim + spec.qk_rope_head_dim
        spec.rotary_dim = spec.qk_rope_head_dim
        spec.rope_cache_len = _rope_cache(text, spec.rotary_dim, max_pos)
        spec.num_experts = int(text.get("n_routed_experts") or 0)
        spec.moe_intermediate_size = int(text.get("moe_intermediate_size") or 0)
        spec.shared_expert_intermediate_size = int(text.get("n_shared_experts") or 0) * spec.moe_intermediate_size
        spec.router_bias = text.get("topk_method") == "noaux_tc"
        first_dense = int(text.get("first_k_dense_replace", 0) or 0)
        freq = int(text.get("moe_layer_freq", 1) or 1)
        spec.layers = [("full", "moe" if spec.num_experts and i >= first_dense and i % freq == 0 else "dense") for i in range(n_layers)]
        if arch in DSA_ARCHITECTURES and text.get("index_topk") is not None:
            spec.dsa = DsaSpec(
                index_head_dim=_int(text, "index_head_dim", where),
                index_n_heads=_int(text, "index_n_heads", where),
                index_kpool=int(text.get("index_kpool") or 1),
                rope_interleave=bool(text.get("indexer_rope_interleave", False)),
                topk_layer_ids=tuple(i for i in range(n_layers) if not dsa_layer_skips_topk(text, i)),
            )
    elif family == "swa" and layout.gemma4_blocks:
        _gemma4_layers(spec, text, where, n_layers)
    elif family == "swa" and layout.swa_full_every:
        every = layout.swa_full_every
        spec.sliding_window = _int(text, "attention_chunk_size", where)
        spec.num_experts = int(text.get("num_local_experts") or 0)
        spec.moe_intermediate_size = _int(text, "intermediate_size", where)
        spec.shared_expert_intermediate_size = spec.moe_intermediate_size
        spec.intermediate_size = _int(text, "intermediate_size_mlp", where, spec.moe_intermediate_size)
        step = int(text.get("interleave_moe_layer_step", 1) or 0)  # llama4.py Llama4DecoderLayer._is_moe_layer
        moe = [spec.num_experts > 0 if step == 0 else (i + 1) % step == 0 for i in range(n_layers)]
        spec.layers = [("full" if (i + 1) % every == 0 else "swa", "moe" if moe[i] else "dense") for i in range(n_layers)]
    elif family == "swa":
        types = text.get("layer_types")
        if isinstance(types, list) and len(types) == n_layers:
            mix = ["swa" if t == "sliding_attention" else "full" for t in types]
        else:  # configs/model_config.py get_hybrid_layer_ids for GptOss: even layers slide
            mix = ["swa" if i % 2 == 0 else "full" for i in range(n_layers)]
        # the window SGLang sizes with is the model class's (resolve_sliding_window_size): models/gpt_oss.py
        # get_attention_sliding_window_size returns config.sliding_window - 1 (0.5.9 :101, 0.5.23 :131)
        spec.sliding_window = _int(text, "sliding_window", where) - 1
        spec.num_experts = int(text.get("num_local_experts") or 0)
        spec.moe_intermediate_size = int(text.get("intermediate_size"))
        spec.attention_bias = True
        spec.router_bias = True
        spec.layers = [(m, "moe") for m in mix]
    elif family == "gdn":
        spec.linear_num_key_heads = _int(text, "linear_num_key_heads", where)
        spec.linear_num_value_heads = _int(text, "linear_num_value_heads", where)
        spec.linear_key_head_dim = _int(text, "linear_key_head_dim", where)
        spec.linear_value_head_dim = _int(text, "linear_value_head_dim", where)
        spec.linear_conv_kernel_dim = _int(text, "linear_conv_kernel_dim", where)
        spec.attn_output_gate = bool(text.get("attn_output_gate", True))
        spec.mamba_ssm_dtype = text.get("mamba_ssm_dtype")
        spec.layers = [(m, ffn) for m in _gdn_layers(text, n_layers)]
    elif family == "mamba2" and layout.short_conv:
        _short_conv_layers(spec, text, where, n_layers)
    elif family == "mamba2":
        pattern = _mamba2_pattern(text, where, n_layers)
        spec.layers_from_block_type = "hybrid_override_pattern" not in text
        kind = {"M": ("mamba", "none"), "*": ("full", "none"), "-": ("none", "dense"), "E": ("none", "moe")}
        spec.layers = [kind[c] for c in pattern]
        spec.mamba_num_heads = _int(text, "mamba_num_heads", where)
        spec.mamba_head_dim = _int(text, "mamba_head_dim", where)
        spec.mamba_n_groups = _int(text, "n_groups", where)
        spec.ssm_state_size = _int(text, "ssm_state_size", where)
        spec.conv_kernel = _int(text, "conv_kernel", where)
        spec.gated_mlp = False
        spec.mamba_ssm_dtype = text.get("mamba_ssm_dtype")
        if "E" in pattern:
            spec.num_experts = int(text.get("n_routed_experts") or 0)
            spec.moe_intermediate_size = int(text.get("moe_intermediate_size") or 0)
            # models/nemotron_h.py: one shared MLP of moe_shared_expert_intermediate_size x n_shared_experts; latent
            # MoE (moe_latent_size) runs the experts in that width between two replicated projections
            spec.shared_expert_intermediate_size = int(text.get("moe_shared_expert_intermediate_size") or 0) * int(text.get("n_shared_experts") or 1)
            spec.moe_latent_size = int(text.get("moe_latent_size") or 0)
            spec.router_bias = True
    if heads and kv_heads and heads % kv_heads:
        raise BudgetInputError(
            f"model.config.{where}num_key_value_heads", f"{kv_heads} does not divide num_attention_heads {heads}", "use the unmodified config.json"
        )
    _check_consistency(text, where, spec)
    return spec


# RoPE layouts whose caches are built with max_position_embeddings rows whatever the config's scaling says
_UNSCALED_ROPE_LAYOUTS = ("local_global_unscaled", "per_layer_type")
# transformers Gemma4TextConfig defaults for the keys its config.json may leave out
_GEMMA4_DEFAULTS = {"sliding_window": 512, "global_head_dim": 512, "hidden_size_per_layer_input": 256, "num_kv_shared_layers": 0}


def _gemma4_layers(spec: ModelSpec, text: Dict[str, Any], where: str, n_layers: int) -> None:
    """Gemma 4 as transformers' Gemma4TextConfig (5.19.0) and SGLang 0.5.23 read it: ``layer_types`` (default five
    sliding to one full, the last layer forced full); the full layers take ``global_head_dim`` and, with
    ``attention_k_eq_v``, ``num_global_key_value_heads`` (config.py _apply_gemma4_attention_overrides makes those
    the model's head_dim and KV heads, the sliding ones ``swa_*``; 0.5.11-0.5.21 swap them the same way for such a
    config); the window is ``sliding_window`` - 1 (gemma4_causal.py), halved first for bidirectional attention;
    ``enable_moe_block`` adds the experts."""
    for key, what in (("hidden_size_per_layer_input", "per-layer input embeddings"), ("num_kv_shared_layers", "KV-shared layers")):
        value = text.get(key, _GEMMA4_DEFAULTS[key])
        if value:
            raise BudgetInputError(
                f"model.config.{where}{key}",
                f"is {value}: Gemma 4's {what} (the E2B/E4B checkpoints) are not modelled by the budget engine",
                "budget a Gemma 4 checkpoint without them (31B, 26B-A4B), or size this one with a real start",
            )
    types = list(text.get("layer_types") or ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(n_layers)])
    types[-1] = "full_attention"
    moe = bool(text.get("enable_moe_block"))
    spec.layers = [("swa" if t == "sliding_attention" else "full", "moe" if moe else "dense") for t in types]
    window = _int(text, "sliding_window", where, _GEMMA4_DEFAULTS["sliding_window"])
    if text.get("use_bidirectional_attention") == "all":
        window = window // 2 + 1
    spec.sliding_window = window - 1
    spec.swa_head_dim, spec.swa_num_kv_heads = spec.head_dim, spec.num_kv_heads
    spec.head_dim = spec.v_head_dim = spec.rotary_dim = _int(text, "global_head_dim", where, _GEMMA4_DEFAULTS["global_head_dim"])
    if text.get("num_global_key_value_heads") and not text.get("attention_k_eq_v"):
        # 0.5.11-0.5.21 (utils/hf_transformers/config.py) take num_global_key_value_heads whenever it is given, 0.5.22
        # on (transformers 5.19's per_layer_config) only with attention_k_eq_v: the releases disagree on this config
        raise BudgetInputError(
            f"model.config.{where}num_global_key_value_heads",
            "is given without attention_k_eq_v, which SGLang releases read differently (0.5.22 and later ignore it)",
            "use the checkpoint's unmodified config.json; every published Gemma 4 checkpoint sets attention_k_eq_v with it",
        )
    if text.get("num_global_key_value_heads"):
        spec.num_kv_heads = _int(text, "num_global_key_value_heads", where)
    if moe:
        spec.num_experts = _int(text, "num_experts", where)
        spec.moe_intermediate_size = _int(text, "moe_intermediate_size", where)


def _short_conv_layers(spec: ModelSpec, text: Dict[str, Any], where: str, n_layers: int) -> None:
    """LFM2 (transformers Lfm2Config, SGLang configs/lfm2.py): ``layer_types`` or, in the first checkpoints,
    ``full_attn_idxs``; the MLP width is ``block_ff_dim`` (else ``intermediate_size``), cut to 2/3, scaled by
    ``block_ffn_dim_multiplier`` and rounded up to ``block_multiple_of`` when ``block_auto_adjust_ff_dim``
    (models/lfm2.py Lfm2MLP). The conv state is a mamba2 state of one head of ``hidden_size`` and no SSM state."""
    types = text.get("layer_types")
    if not isinstance(types, list) or len(types) != n_layers:
        full = text.get("full_attn_idxs")
        full = set(full if isinstance(full, list) else range(n_layers))
        types = ["full_attention" if i in full else "conv" for i in range(n_layers)]
    spec.layers = [("full" if t == "full_attention" else "conv", "dense") for t in types]
    inter = _int(text, "block_ff_dim", where, text.get("intermediate_size", 12288))
    if text.get("block_auto_adjust_ff_dim"):
        inter = int(2 * inter / 3)
        multiplier = text.get("block_ffn_dim_multiplier")
        if multiplier is not None:
            multiple = _int(text, "block_multiple_of", where, 256)
            inter = int(float(multiplier) * inter)
            inter = multiple * ((inter + multiple - 1) // multiple)
    spec.intermediate_size = inter
    spec.mamba_num_heads, spec.mamba_head_dim, spec.mamba_n_groups, spec.ssm_state_size = 1, spec.hidden_size, 1, 0
    spec.conv_kernel = _int(text, "conv_L_cache", where, 3)


_BLOCK_TYPES = {"mamba": "M", "attention": "*", "mlp": "-", "moe": "E"}


def _mamba2_pattern(text: Dict[str, Any], where: str, n_layers: int) -> str:
    """Nemotron-H's layer kinds: ``hybrid_override_pattern`` (M mamba, * attention, - MLP, E MoE) or, from 0.5.10's
    configs/nemotron_h.py, the same as the ``layers_block_type`` list."""
    blocks = text.get("layers_block_type")
    if "hybrid_override_pattern" not in text and isinstance(blocks, list):
        if not all(b in _BLOCK_TYPES for b in blocks) or len(blocks) != n_layers:
            raise BudgetInputError(f"model.config.{where}layers_block_type", f"must list one of {', '.join(_BLOCK_TYPES)} per layer", _FIX)
        return "".join(_BLOCK_TYPES[b] for b in blocks)
    pattern = _need(text, "hybrid_override_pattern", where)
    if not isinstance(pattern, str) or len(pattern) != n_layers or not re.fullmatch(r"[*\-ME]+", pattern):
        raise BudgetInputError(
            "model.config.hybrid_override_pattern",
            "must be a string of M, *, - and E with one character per layer",
            "use the unmodified Nemotron-H config.json",
        )
    return pattern


def _check_consistency(text: Dict[str, Any], where: str, spec: ModelSpec) -> None:
    """Refuse fields that contradict each other (SGLang would fail on them at load time, or size nonsense)."""
    if not (text.get("head_dim") or text.get("attention_head_dim")) and spec.num_heads and spec.hidden_size % spec.num_heads and not spec.is_mla:
        raise BudgetInputError(
            f"model.config.{where}num_attention_heads", f"{spec.num_heads} does not divide hidden_size {spec.hidden_size} and no head_dim is given", _FIX
        )
    types = text.get("layer_types")
    if isinstance(types, list) and 0 < len(types) < spec.num_layers:
        raise BudgetInputError(f"model.config.{where}layer_types", f"names {len(types)} layers but num_hidden_layers is {spec.num_layers}", _FIX)
    top_k = text.get("num_experts_per_tok")
    if spec.num_experts and isinstance(top_k, int) and not isinstance(top_k, bool) and top_k > spec.num_experts:
        raise BudgetInputError(f"model.config.{where}num_experts_per_tok", f"{top_k} is more than the {spec.num_experts} experts", _FIX)
