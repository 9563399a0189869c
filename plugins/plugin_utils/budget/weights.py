# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Weight bytes per GPU, sharded the way SGLang's model classes shard them.

Order of sources for the checkpoint's size: ``model.safetensors.index.json`` ``metadata.total_size``,
then the safetensors headers (``read_safetensors_header`` reads the 8-byte length and the JSON header,
never a tensor), then the architecture's shapes. The per-GPU split always comes from the shapes
(SGLang's layers: ``VocabParallelEmbedding``/``ParallelLMHead`` pad the vocab to 64 and split it,
``QKVParallelLinear`` replicates KV heads when ``kv_heads < tp``, norms and plain ``ReplicatedLinear``
layers are copied to every rank, MoE experts are split over TP/EP, GDN ``A_log`` stays fp32). When the
checkpoint's total is known, the per-GPU figure is the shape split scaled to that total.

Buffers resident when the pool is sized: the fp32 RoPE ``cos_sin_cache`` (``cache_len x rotary_dim x 4``,
one per process because ``_ROPE_DICT`` is shared; the ViT's too; both as grown by load_model's pre-expansion),
and for MLA the absorbed ``w_kc``/``w_vc`` copies that
``post_load_weights`` creates in the model dtype.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Tuple

from ansible_collections.llmops.sglang.plugins.module_utils.safetensors_header import (
    SafetensorsHeaderError,
    read_header_object,
)

from .architectures import GLM4_MOE_DECODERS, release_architectures
from .behaviour import GLM4_MOE_GATE_MODEL_DTYPE, NEMOTRON_H_ROUTER_FLOAT32, QWEN3_5_A_LOG_MODEL_DTYPE
from .errors import BudgetInputError
from .model_spec import DsaBuild, ModelSpec, num_labels

if TYPE_CHECKING:  # pragma: no cover
    from ..releases import SGLangRelease

VOCAB_PAD = 64  # layers/vocab_parallel_embedding.py DEFAULT_VOCAB_PADDING_SIZE


def read_safetensors_header(path: str) -> Dict[str, Any]:
    """Return the JSON header of a ``.safetensors`` file, reading only its first 8 + N bytes."""
    try:
        return read_header_object(path)
    except OSError as exc:
        raise BudgetInputError("model.path", f"cannot read {path}: {exc.strerror}", "check the path and its permissions") from None
    except SafetensorsHeaderError as exc:
        raise BudgetInputError("model.path", f"{path} is not a complete safetensors shard: {exc}", "re-download the shard") from None


def header_total_bytes(headers: Iterable[Dict[str, Any]]) -> int:
    """Sum of tensor bytes described by safetensors headers (``data_offsets`` are exact)."""
    total = 0
    for header in headers:
        for name, meta in header.items():
            if name == "__metadata__" or not isinstance(meta, dict):
                continue
            start, end = meta.get("data_offsets", (0, 0))
            total += int(end) - int(start)
    return total


def checkpoint_total_bytes(index: Optional[Dict[str, Any]], headers: Optional[List[Dict[str, Any]]]) -> Tuple[Optional[int], str]:
    """The checkpoint's tensor bytes and where they came from."""
    if index:
        total = (index.get("metadata") or {}).get("total_size")
        if isinstance(total, (int, float)) and total > 0:
            return int(total), "safetensors_index"
    if headers:
        return header_total_bytes(headers), "safetensors_headers"
    return None, "shapes"


def _pad(n: int, to: int) -> int:
    return (n + to - 1) // to * to


@dataclass
class Linear:
    """One weight matrix on one rank: ``out x in`` elements, ``count`` copies (experts)."""

    layer: Optional[int]
    name: str
    out: int
    inp: int
    count: int = 1
    quantizable: bool = True
    bias: int = 0
    elem_bytes: Optional[float] = None  # fixed element size (norms in fp32, A_log)


_FUSED_W13 = ("experts.gate_proj", "experts.up_proj")  # the expert rows FusedMoE packs into one w13 tensor


def _linear_bytes(lin: Linear, spec: ModelSpec) -> float:
    n = lin.out * lin.inp
    bias = lin.bias * spec.dtype_bytes
    if lin.elem_bytes is not None:
        return (n * lin.elem_bytes + bias) * lin.count
    algo = spec.quant.algo_for(lin.layer, lin.name) if lin.quantizable else None
    if algo is None:
        per = n * spec.dtype_bytes
    elif algo == "fp8":
        block = spec.quant.block
        if block:
            scales = math.ceil(lin.out / block[0]) * math.ceil(lin.inp / block[1]) * 4
        else:
            scales = lin.out * 4 if spec.quant.channel_scales else 4
        per = n + scales
    elif algo == "modelopt_fp8":
        per = n + 8
    elif algo in ("awq", "gptq"):
        g = spec.quant.group_size if spec.quant.group_size > 0 else lin.inp
        groups = math.ceil(lin.inp / g)
        per = n * spec.quant.bits / 8 + groups * lin.out * spec.quant.bits / 8 + groups * lin.out * 2
        if algo == "gptq":
            per += lin.inp * 4
    elif algo == "ct_wna16":
        per = _wna16_bytes(lin, spec)
    elif algo == "modelopt_fp4":
        per = n / 2 + n / 16 + 8
        if lin.count > 1 and spec.fp4_moe_swizzled_scales:
            # ModelOptNvFp4FusedMoEMethod.create_weights: a swizzled copy of the block scales (rows padded to 128,
            # scale columns to 4) beside them, unless the flashinfer TRT-LLM (or MegaMoE) runner aliases it; gate
            # and up are one w13 tensor, padded together
            rows = _pad(2 * lin.out, 128) // 2 if lin.name.endswith(_FUSED_W13) else _pad(lin.out, 128)
            per += rows * _pad(lin.inp // 16, 4)
    elif algo == "mxfp4":
        per = n / 2 + n / 32
    else:
        per = n * spec.dtype_bytes
    return (per + bias) * lin.count


def _wna16_bytes(lin: Linear, spec: ModelSpec) -> float:
    """compressed-tensors W4A16/W8A16: packed int32 weights and a model-dtype scale per group (a zero point per group
    too when asymmetric). A dense module keeps its int64 weight_shape; an expert (CompressedTensorsWNA16MoEMethod)
    a float32 one and, whatever the actorder, int32 g_idx and sort indices over its input, once per fused w13
    (counted on gate_proj) and once for w2."""
    q = spec.quant
    g = q.group_size if q.group_size > 0 else lin.inp
    groups = math.ceil(lin.inp / g)
    per = lin.out * lin.inp * q.bits / 8 + groups * lin.out * spec.dtype_bytes
    if not q.symmetric:
        per += groups * lin.out * q.bits / 8
    if lin.count == 1:
        return per + 16
    if lin.name.endswith("up_proj"):
        return per
    return per + 8 + 2 * lin.inp * 4


def _norm(layer: Optional[int], name: str, size: int) -> Linear:
    return Linear(layer, name, size, 1, quantizable=False)


def _attention(spec: ModelSpec, i: int, tp: int) -> List[Linear]:
    h, hd, kv_total = spec.hidden_size, spec.head_dim, spec.num_kv_heads
    if spec.swa_head_dim and i < len(spec.layers) and spec.layers[i][0] == "swa":  # Gemma 4: the sliding layers' own shape
        hd, kv_total = spec.swa_head_dim, spec.swa_num_kv_heads
    q_heads = spec.num_heads // tp
    kv = max(1, kv_total // tp)
    gate = 2 if spec.attn_output_gate else 1
    bias = spec.attention_bias
    out = [
        Linear(i, "self_attn.q_proj", q_heads * hd * gate, h, bias=q_heads * hd * gate if bias else 0),
        Linear(i, "self_attn.k_proj", kv * hd, h, bias=kv * hd if bias else 0),
        Linear(i, "self_attn.v_proj", kv * hd, h, bias=kv * hd if bias else 0),
        Linear(i, "self_attn.o_proj", h, q_heads * hd, bias=h if spec.o_proj_bias else 0),
    ]
    if spec.qk_norm:
        if spec.layout.qk_norm == "projection":
            out += [_norm(i, "self_attn.q_norm", q_heads * hd), _norm(i, "self_attn.k_norm", kv * hd)]
        elif spec.layout.qk_norm == "full_projection":  # replicated: every rank holds the whole norm
            out += [_norm(i, "self_attn.q_norm", spec.num_heads * hd), _norm(i, "self_attn.k_norm", kv_total * hd)]
        else:  # one head_dim norm each for q and k (a LayerNorm with a bias where the class's norms have one)
            size = hd * (2 if spec.layout.norm_bias else 1)
            out += [_norm(i, "self_attn.q_norm", size), _norm(i, "self_attn.k_norm", size)]
    if spec.layout.gpt_oss_blocks:  # attention sinks, one per local head
        out.append(_norm(i, "self_attn.sinks", q_heads))
    return out


def _mla(spec: ModelSpec, i: int, tp: int) -> List[Linear]:
    h, heads = spec.hidden_size, spec.num_heads // tp
    qk = spec.qk_nope_head_dim + spec.qk_rope_head_dim
    out: List[Linear] = []
    if spec.q_lora_rank:
        out.append(Linear(i, "self_attn.fused_qkv_a_proj_with_mqa", spec.q_lora_rank + spec.kv_lora_rank + spec.qk_rope_head_dim, h))
        out.append(_norm(i, "self_attn.q_a_layernorm", spec.q_lora_rank))
        out.append(Linear(i, "self_attn.q_b_proj", heads * qk, spec.q_lora_rank))
    else:
        out.append(Linear(i, "self_attn.q_proj", heads * qk, h))
        out.append(Linear(i, "self_attn.kv_a_proj_with_mqa", spec.kv_lora_rank + spec.qk_rope_head_dim, h))
    out.append(_norm(i, "self_attn.kv_a_layernorm", spec.kv_lora_rank))
    out.append(Linear(i, "self_attn.kv_b_proj", heads * (spec.qk_nope_head_dim + spec.v_head_dim), spec.kv_lora_rank))
    out.append(Linear(i, "self_attn.o_proj", h, heads * spec.v_head_dim))
    if spec.dsa is not None and spec.dsa_build is not None and (i >= spec.num_layers or i in spec.dsa_build.indexer_layer_ids):
        out += _dsa_indexer(spec, i)
    return out


def _dsa_indexer(spec: ModelSpec, i: int) -> List[Linear]:
    """One layer's Indexer (layers/attention/dsa/dsa_indexer.py, 0.5.9 nsa/nsa_indexer.py), replicated on every rank:
    wq_b from the q latent (quantized with the checkpoint), wk (quantized) and a bf16 weights_proj, or one bf16
    wk_weights_proj where the release fuses a rotary-interleaved indexer, and a float32 LayerNorm over the key. An
    MTP layer always has one."""
    dsa, h = spec.dsa, spec.hidden_size
    rows = [Linear(i, "self_attn.indexer.wq_b", dsa.index_n_heads * dsa.index_head_dim, spec.q_lora_rank or h)]
    if spec.dsa_build.fused_wk_weights_proj and dsa.rope_interleave:
        rows.append(Linear(i, "self_attn.indexer.wk_weights_proj", dsa.index_head_dim + dsa.index_n_heads, h, quantizable=False, elem_bytes=2))
    else:
        rows.append(Linear(i, "self_attn.indexer.wk", dsa.index_head_dim, h))
        rows.append(Linear(i, "self_attn.indexer.weights_proj", dsa.index_n_heads, h, quantizable=False, elem_bytes=2))
    return rows + [Linear(i, "self_attn.indexer.k_norm", 2 * dsa.index_head_dim, 1, quantizable=False, elem_bytes=4)]


def _gdn(spec: ModelSpec, i: int, tp: int) -> List[Linear]:
    h = spec.hidden_size
    kh, vh = spec.linear_num_key_heads, spec.linear_num_value_heads
    kd, vd = spec.linear_key_head_dim, spec.linear_value_head_dim
    conv_dim = 2 * kh * kd + vh * vd
    return [
        Linear(i, "linear_attn.in_proj_qkv", conv_dim // tp, h),
        Linear(i, "linear_attn.in_proj_z", vh * vd // tp, h),
        Linear(i, "linear_attn.in_proj_b", vh // tp, h),
        Linear(i, "linear_attn.in_proj_a", vh // tp, h),
        Linear(i, "linear_attn.conv1d", conv_dim // tp, spec.linear_conv_kernel_dim, quantizable=False),
        Linear(i, "linear_attn.A_log", vh // tp, 1, elem_bytes=4),  # kept in fp32 (models/qwen3_next.py)
        Linear(i, "linear_attn.dt_bias", vh // tp, 1, quantizable=False),
        _norm(i, "linear_attn.norm", vd),
        Linear(i, "linear_attn.out_proj", h, vh * vd // tp),
    ]


def _mamba2(spec: ModelSpec, i: int, tp: int) -> List[Linear]:
    h = spec.hidden_size
    heads, hd, state = spec.mamba_num_heads, spec.mamba_head_dim, spec.ssm_state_size
    groups = spec.mamba_n_groups
    if groups % tp:
        groups += tp - groups  # configs/mamba_utils.py extra_groups_for_head_shards
    inter = heads * hd
    conv_dim = inter + 2 * groups * state
    bias = bool(spec.raw_text_config.get("use_conv_bias", True))
    return [
        Linear(i, "mixer.in_proj", (2 * inter + 2 * groups * state + heads) // tp, h),
        Linear(i, "mixer.conv1d", conv_dim // tp, spec.conv_kernel, quantizable=False, bias=conv_dim // tp if bias else 0),
        Linear(i, "mixer.A", heads // tp, 1, elem_bytes=4),
        Linear(i, "mixer.D", heads // tp, 1, quantizable=False),  # layers/attention/mamba/mamba.py:
        Linear(i, "mixer.dt_bias", heads // tp, 1, quantizable=False),  # A fp32, D and dt_bias model dtype
        _norm(i, "mixer.norm", inter // tp),
        Linear(i, "mixer.out_proj", h, inter // tp),
    ]


def _short_conv(spec: ModelSpec, i: int, tp: int) -> List[Linear]:
    """LFM2's Lfm2ShortConv: in_proj to the B, C and x gates, a depthwise conv weight of conv_L_cache per channel
    (kept in the model dtype), out_proj; biases with conv_bias; all split over the TP group."""
    h = spec.hidden_size
    bias = bool(spec.raw_text_config.get("conv_bias", False))
    return [
        Linear(i, "conv.in_proj", 3 * h // tp, h, bias=3 * h // tp if bias else 0),
        Linear(i, "conv.conv", h // tp, spec.conv_kernel, quantizable=False, bias=h // tp if bias else 0),
        Linear(i, "conv.out_proj", h, h // tp, bias=h if bias else 0),
    ]


def _mlp(spec: ModelSpec, i: Optional[int], inter: int, tp: int, prefix: str = "mlp", count: int = 1, hidden: Optional[int] = None) -> List[Linear]:
    h = hidden or spec.hidden_size
    bias = spec.mlp_bias and prefix == "mlp"
    up = [Linear(i, f"{prefix}.up_proj", inter // tp, h, count=count, bias=inter // tp if bias else 0)]
    if spec.gated_mlp:
        up.insert(0, Linear(i, f"{prefix}.gate_proj", inter // tp, h, count=count, bias=inter // tp if bias else 0))
    return up + [Linear(i, f"{prefix}.down_proj", h, inter // tp, count=count, bias=h if bias else 0)]


def _moe(spec: ModelSpec, i: int, tp: int, ep: int) -> List[Linear]:
    h, e = spec.hidden_size, spec.num_experts
    out: List[Linear] = []
    moe_tp = max(1, tp // ep)
    local_experts = math.ceil(e / ep)
    inter = spec.moe_intermediate_size
    if spec.layout.gpt_oss_blocks:  # fused gate_up with biases, router with bias
        out.append(Linear(i, "mlp.router", e, h, quantizable=False, bias=e))
        hp, ip = h, inter // moe_tp
        if spec.moe_pad[0]:
            hp = _pad(h, spec.moe_pad[0])
        if spec.moe_pad[1]:
            ip = _pad(ip, spec.moe_pad[1])
        out.append(Linear(i, "mlp.experts.gate_up_proj", 2 * ip, hp, count=local_experts, bias=2 * ip))
        out.append(Linear(i, "mlp.experts.down_proj", hp, ip, count=local_experts, bias=hp))
        return out
    # the router: a model-dtype ReplicatedLinear unless the class keeps it in float32 (Glm4MoeGate, MiniMax-M2)
    out.append(Linear(i, "mlp.gate", e, h, quantizable=False, elem_bytes=4 if spec.layout.router_float32 else None))
    if spec.router_bias:
        out.append(Linear(i, "mlp.gate.e_score_correction_bias", e, 1, elem_bytes=4))
    experts = _mlp(spec, i, inter, moe_tp, prefix="mlp.experts", count=local_experts, hidden=spec.moe_latent_size or None)
    if spec.moe_latent_size:  # models/nemotron_h.py fc1/fc2_latent_proj: replicated, quantized
        out += [Linear(i, "mlp.fc1_latent_proj", spec.moe_latent_size, h), Linear(i, "mlp.fc2_latent_proj", h, spec.moe_latent_size)]
    if not spec.layout.experts_quantizable:
        experts = [replace(lin, quantizable=False) for lin in experts]
    out += experts
    if spec.shared_expert_intermediate_size:
        out += _mlp(spec, i, spec.shared_expert_intermediate_size, tp, prefix=spec.layout.shared_expert_prefix)
        if spec.layout.shared_expert_gate:
            out.append(Linear(i, "mlp.shared_expert_gate", 1, h, quantizable=False))
    return out


def _gemma4_moe_block(spec: ModelSpec, i: int, tp: int, ep: int) -> List[Linear]:
    """gemma4_causal.py with enable_moe_block: the dense MLP, Gemma4Router (a hidden-wide scale and a replicated
    projection built without the quant config), Gemma4MoE's per-expert scales and experts, and the three norms
    around the MoE branch."""
    h, e = spec.hidden_size, spec.num_experts
    rows = _mlp(spec, i, spec.intermediate_size, tp)
    rows += [_norm(i, "router.scale", h), Linear(i, "router.proj", e, h, quantizable=False), _norm(i, "moe.per_expert_scale", e)]
    rows += _mlp(spec, i, spec.moe_intermediate_size, max(1, tp // ep), prefix="moe.experts", count=math.ceil(e / ep))
    return rows + [_norm(i, "moe_branch_norms", 3 * h)]


def _decoder_layer(spec: ModelSpec, i: int, mixer: str, ffn: str, tp: int, ep: int, attn_tp: Optional[int] = None) -> List[Linear]:
    """One layer on one rank; the mixer is split over the attention TP group (``tp / attn_dp``)."""
    h = spec.hidden_size
    atp = attn_tp or tp
    out: List[Linear] = []
    if mixer in ("full", "swa"):
        out += _mla(spec, i, atp) if spec.is_mla else _attention(spec, i, atp)
    elif mixer == "linear":
        out += _gdn(spec, i, atp)
    elif mixer == "mamba":
        out += _mamba2(spec, i, atp)
    elif mixer == "conv":
        out += _short_conv(spec, i, tp)
    if ffn == "dense":
        out += _mlp(spec, i, spec.intermediate_size, tp)
    elif ffn == "moe" and spec.layout.gemma4_blocks:
        out += _gemma4_moe_block(spec, i, tp, ep)
    elif ffn == "moe":
        out += _moe(spec, i, tp, ep)
    if spec.layout.norm_params:
        out += [_norm(i, f"norm{k}", h * (2 if spec.layout.norm_bias else 1)) for k in range(spec.norms_per_layer)]
    return out


def _vocab_rows(spec: ModelSpec, tp: int) -> int:
    """Rows per rank of a VocabParallelEmbedding / ParallelLMHead: the vocabulary padded to 64 at every TP size,
    TP 1 included (layers/vocab_parallel_embedding.py ``num_embeddings_padded``), then split."""
    return _pad(spec.vocab_size, VOCAB_PAD) // tp


def _embeddings(spec: ModelSpec, tp: int, own_head: bool = True, attn_tp: Optional[int] = None, dp_lm_head: bool = False, draft: bool = False) -> List[Linear]:
    """Embedding and lm_head rows on one rank.

    With DP attention (``attn_tp < tp``) DeepSeek's embedding uses the attention TP group
    (``use_attn_tp_group``), Qwen3.5's is replicated (``enable_tp=not is_dp_attention_enabled()``), others keep
    the full TP split; the lm_head uses the attention group only with ``--enable-dp-lm-head``."""
    atp = attn_tp or tp
    embed_tp = tp
    if atp < tp:
        embed_tp = atp if spec.is_mla else (1 if spec.architecture.startswith("Qwen3_5") else tp)
    embed_rows = spec.vocab_size if spec.layout.embed_replicated else _vocab_rows(spec, embed_tp)
    width = spec.embed_dim or spec.hidden_size
    out = [Linear(None, "embed_tokens", embed_rows, width, quantizable=False)]
    if width != spec.hidden_size:
        out += [Linear(None, "project_in", spec.hidden_size, width), Linear(None, "project_out", width, spec.hidden_size)]
    if spec.layout.position_rows_offset >= 0:
        positions = spec.max_position_embeddings + spec.layout.position_rows_offset
        out.append(Linear(None, "embed_positions", positions, spec.hidden_size, quantizable=False))
    if spec.layout.encoder_embeddings:
        out += _encoder_embeddings(spec, tp)
    if own_head and spec.layout.pooled_head is not None:
        out += _pooled_head(spec)
    if own_head and spec.layout.lm_head and not spec.tie_embeddings:
        head_tp = atp if dp_lm_head else tp
        # ParallelLMHead takes the quant config; only modelopt mixed-precision checkpoints list it (NVFP4 lm_head);
        # the MTP draft's own head is built under the draft's quant config, which excludes it
        rows = _vocab_rows(spec, head_tp)
        out.append(
            Linear(
                None,
                "lm_head",
                rows,
                width,
                bias=rows if spec.layout.lm_head_bias else 0,
                quantizable=spec.quant.method == "modelopt_mixed" and not draft,
            )
        )
    return out


def _encoder_embeddings(spec: ModelSpec, tp: int) -> List[Linear]:
    """A BERT-style encoder's input embeddings beside the word table (models/bert.py BertEmbedding, roberta.py
    RobertaEmbedding): position and token-type tables (VocabParallelEmbedding, padded and split, in bert.py;
    ``nn.Embedding`` on every rank in roberta.py), a LayerNorm with bias and the ``position_ids`` parameter of
    ``max_position_embeddings`` elements, all in the model dtype."""
    h, positions = spec.hidden_size, spec.max_position_embeddings
    types = int(spec.raw_text_config.get("type_vocab_size") or 2)
    if spec.layout.encoder_embeddings == "bert":
        tables = [(_pad(positions, VOCAB_PAD) // tp, "embed_positions"), (_pad(types, VOCAB_PAD) // tp, "embed_token_types")]
    else:
        tables = [(positions, "embed_positions"), (types, "embed_token_types")]
    rows = [Linear(None, name, count, h, quantizable=False) for count, name in tables]
    return rows + [_norm(None, "embed_layer_norm", 2 * h), _norm(None, "embed_position_ids", positions)]


def _pooled_head(spec: ModelSpec) -> List[Linear]:
    """A pooling class's scoring layers (``PooledHead``), whole on every rank."""
    head, h = spec.layout.pooled_head, spec.hidden_size
    labels = head.labels or num_labels(spec.raw_config)
    rows = [Linear(None, f"score.dense{k}", h, h, quantizable=False, bias=h if head.bias else 0) for k in range(head.dense_layers)]
    return rows + [Linear(None, "score", labels, h, quantizable=False, bias=labels if head.bias else 0)]


def _biased_vit_block(prefix: str, h: int, inter: int, tp: int) -> List[Linear]:
    """One ViT block as Qwen3-VL's and SigLIP's towers build it: two LayerNorms with bias, a biased QKV and output
    projection and an fc1/fc2 MLP split over TP (the row-parallel biases whole)."""
    return [
        Linear(None, f"{prefix}.norms", 4 * h, 1, quantizable=False),
        Linear(None, f"{prefix}.attn.qkv", 3 * h // tp, h, quantizable=False, bias=3 * h // tp),
        Linear(None, f"{prefix}.attn.proj", h, h // tp, quantizable=False, bias=h),
        Linear(None, f"{prefix}.mlp.fc1", inter // tp, h, quantizable=False, bias=inter // tp),
        Linear(None, f"{prefix}.mlp.fc2", h, inter // tp, quantizable=False, bias=h),
    ]


def _qwen3_vl_vision(v: Dict[str, Any], spec: ModelSpec, tp: int) -> List[Linear]:
    """The Qwen3-VL ViT (models/qwen3_vl.py Qwen3VLMoeVisionModel, also Qwen3.5/3.6's), built without the quant
    config: patch embedding, blocks, the merger and one deepstack merger per ``deepstack_visual_indexes`` entry (its
    LayerNorm after the 2x2 shuffle, over the merged width)."""
    h = int(v.get("hidden_size", 1152))
    depth = int(v.get("depth") or v.get("num_hidden_layers") or 27)
    inter = int(v.get("intermediate_size", 4304))
    patch = int(v.get("patch_size", 16))
    tpatch = int(v.get("temporal_patch_size", 2))
    chans = int(v.get("in_channels", 3))
    merge = int(v.get("spatial_merge_size", 2))
    out_h = int(v.get("out_hidden_size", spec.hidden_size))
    npos = int(v.get("num_position_embeddings", 2304))
    m = h * merge * merge
    rows = [
        Linear(None, "visual.patch_embed", h, chans * tpatch * patch * patch, quantizable=False, bias=h),
        # pos_embed is a VocabParallelEmbedding in SGLang, so it is split over TP too
        Linear(None, "visual.pos_embed", npos // tp, h, quantizable=False),
    ]
    for b in range(depth):
        rows += _biased_vit_block(f"visual.blocks.{b}", h, inter, tp)
    rows += [
        Linear(None, "visual.merger.norm", 2 * h, 1, quantizable=False),
        Linear(None, "visual.merger.fc1", m // tp, m, quantizable=False, bias=m // tp),
        Linear(None, "visual.merger.fc2", out_h, m // tp, quantizable=False, bias=out_h),
    ]
    for d in range(len(v.get("deepstack_visual_indexes") or ())):
        rows += [
            Linear(None, f"visual.deepstack_merger_list.{d}.norm", 2 * m, 1, quantizable=False),
            Linear(None, f"visual.deepstack_merger_list.{d}.fc1", m // tp, m, quantizable=False, bias=m // tp),
            Linear(None, f"visual.deepstack_merger_list.{d}.fc2", out_h, m // tp, quantizable=False, bias=out_h),
        ]
    return rows


def _qwen2_5_vl_vision(v: Dict[str, Any], spec: ModelSpec, tp: int) -> List[Linear]:
    """The Qwen2.5-VL ViT (models/qwen2_5_vl.py Qwen2_5_VisionTransformer), built with the checkpoint's quant config
    (its ``ignore`` list names the modules left in the model dtype): a Conv3d patch embedding without bias, no
    position table (2-D rotary), blocks of two RMSNorms, qkv/proj with bias and a gated SiLU MLP with bias whose
    width is ``intermediate_size`` rounded up to 8, and the merger (``ln_q`` RMSNorm over the ViT width, then
    ``mlp.0``/``mlp.2`` with bias over the 2x2-merged width)."""
    h = int(v.get("hidden_size", 1280))
    depth = int(v.get("depth") or 32)
    inter = (int(v.get("intermediate_size", 3420)) + 7) // 8 * 8
    patch = int(v.get("patch_size", 14))
    tpatch = int(v.get("temporal_patch_size", 2))
    chans = int(v.get("in_channels") or v.get("in_chans") or 3)
    merge = int(v.get("spatial_merge_size", 2))
    out_h = int(v.get("out_hidden_size", spec.hidden_size))
    m = h * merge * merge
    rows = [Linear(None, "visual.patch_embed.proj", h, chans * tpatch * patch * patch, quantizable=False)]
    for b in range(depth):
        rows += [
            Linear(None, f"visual.blocks.{b}.norms", 2 * h, 1, quantizable=False),
            Linear(None, f"visual.blocks.{b}.attn.qkv", 3 * h // tp, h, bias=3 * h // tp),
            Linear(None, f"visual.blocks.{b}.attn.proj", h, h // tp, bias=h),
            Linear(None, f"visual.blocks.{b}.mlp.gate_proj", inter // tp, h, bias=inter // tp),
            Linear(None, f"visual.blocks.{b}.mlp.up_proj", inter // tp, h, bias=inter // tp),
            Linear(None, f"visual.blocks.{b}.mlp.down_proj", h, inter // tp, bias=h),
        ]
    return rows + [
        Linear(None, "visual.merger.ln_q", h, 1, quantizable=False),
        Linear(None, "visual.merger.mlp.0", m // tp, m, bias=m // tp),
        Linear(None, "visual.merger.mlp.2", out_h, m // tp, bias=out_h),
    ]


def _moonvit_vision(v: Dict[str, Any], spec: ModelSpec, tp: int) -> List[Linear]:
    """Kimi-K2.5's MoonViT (models/kimi_k25.py MoonViT3dPretrainedModel) and its K2VLMultiModalProjector, built
    without the quant config (but a ModelSlim one) and cast to the model dtype, its dimensions from SGLang's
    KimiK25VisionConfig (``vision_defaults`` fill what config.json leaves out): a Conv2d patch embedding with bias,
    a learned ``init_pos_emb_height x init_pos_emb_width`` position table, blocks of two LayerNorms, TP-sharded
    qkv/proj with bias (VisionAttention) and an MLP2 of plain replicated ``nn.Linear`` with bias, the final
    LayerNorm, then the projector (LayerNorm, two replicated linears with bias over the 2x2-merged width). The
    4 x width sin-cos ``time_weight`` buffer (9 KB) is left out."""
    h, depth, inter = int(v["hidden_size"]), int(v["num_hidden_layers"]), int(v["intermediate_size"])
    patch = int(v["patch_size"])
    pos_rows = int(v["init_pos_emb_height"]) * int(v["init_pos_emb_width"])
    merge_h, merge_w = v["merge_kernel_size"][:2]
    vt = int(v.get("vt_hidden_size") or h)  # K2VLMultiModalProjector reads vt_hidden_size
    m = vt * int(merge_h) * int(merge_w)
    out_h = int(v["text_hidden_size"])
    rows = [
        Linear(None, "vision_tower.patch_embed.proj", h, 3 * patch * patch, quantizable=False, bias=h),
        Linear(None, "vision_tower.patch_embed.pos_emb", pos_rows, h, quantizable=False),
    ]
    for b in range(depth):
        rows += [
            Linear(None, f"vision_tower.encoder.blocks.{b}.norms", 4 * h, 1, quantizable=False),
            Linear(None, f"vision_tower.encoder.blocks.{b}.attn.qkv", 3 * h // tp, h, quantizable=False, bias=3 * h // tp),
            Linear(None, f"vision_tower.encoder.blocks.{b}.attn.proj", h, h // tp, quantizable=False, bias=h),
            Linear(None, f"vision_tower.encoder.blocks.{b}.mlp.fc0", inter, h, quantizable=False, bias=inter),
            Linear(None, f"vision_tower.encoder.blocks.{b}.mlp.fc1", h, inter, quantizable=False, bias=h),
        ]
    return rows + [
        Linear(None, "vision_tower.encoder.final_layernorm", 2 * h, 1, quantizable=False),
        Linear(None, "mm_projector.pre_norm", 2 * vt, 1, quantizable=False),
        Linear(None, "mm_projector.linear_1", m, m, quantizable=False, bias=m),
        Linear(None, "mm_projector.linear_2", out_h, m, quantizable=False, bias=out_h),
    ]


# The ViT each multimodal layout's ``vision_tower`` names.
def _glm4v_vision(v: Dict[str, Any], spec: ModelSpec, tp: int) -> List[Linear]:
    """The GLM-4V ViT (models/glm4v.py Glm4vVisionModel, GLM-4.1V and GLM-4.5V/4.6V), built without the quant config:
    a Conv3d patch embedding with bias, a learned position table of (image_size / patch_size)^2 rows, blocks of two
    RMSNorms, qkv (bias = attention_bias) and proj without bias over the heads padded to a multiple of TP, a gated SiLU MLP of out_hidden_size without bias; the
    post-conv and post RMSNorms, a 2x2 Conv2d downsample with bias to out_hidden_size, and the merger (a replicated
    proj, a LayerNorm, a gated MLP of intermediate_size)."""
    h = int(v.get("hidden_size", 1536))
    depth = int(v.get("depth", 24))
    patch = int(v.get("patch_size", 14))
    tpatch = int(v.get("temporal_patch_size", 2))
    chans = int(v.get("in_channels", 3))
    merge = int(v.get("spatial_merge_size", 2))
    out_h = int(v.get("out_hidden_size", spec.hidden_size))
    inter = int(v.get("intermediate_size", 13696))
    positions = (int(v.get("image_size", 336)) // patch) ** 2
    heads = int(v.get("num_heads", 12))
    # layers/attention/vision_utils.py update_vit_attn_dummy_heads_config: zero heads pad the attention to a
    # multiple of TP (releases that do not pad refuse such a TP: engine.vision_heads_error)
    width = -(-heads // tp) * tp * (h // heads)
    qkv_bias = 3 * width // tp if v.get("attention_bias") else 0
    rows = [
        Linear(None, "visual.patch_embed", h, chans * tpatch * patch * patch, quantizable=False, bias=h),
        Linear(None, "visual.embeddings.position_embedding", positions, h, quantizable=False),
    ]
    for b in range(depth):
        rows += [
            Linear(None, f"visual.blocks.{b}.norms", 2 * h, 1, quantizable=False),
            Linear(None, f"visual.blocks.{b}.attn.qkv", 3 * width // tp, h, quantizable=False, bias=qkv_bias),
            Linear(None, f"visual.blocks.{b}.attn.proj", h, width // tp, quantizable=False),
            Linear(None, f"visual.blocks.{b}.mlp.gate_up_proj", 2 * out_h // tp, h, quantizable=False),
            Linear(None, f"visual.blocks.{b}.mlp.down_proj", h, out_h // tp, quantizable=False),
        ]
    return rows + [
        Linear(None, "visual.post_norms", 2 * h, 1, quantizable=False),
        Linear(None, "visual.downsample", out_h, h * merge * merge, quantizable=False, bias=out_h),
        Linear(None, "visual.merger.proj", out_h, out_h, quantizable=False),
        Linear(None, "visual.merger.post_projection_norm", 2 * out_h, 1, quantizable=False),
        Linear(None, "visual.merger.gate_up_proj", 2 * inter // tp, out_h, quantizable=False),
        Linear(None, "visual.merger.down_proj", out_h, inter // tp, quantizable=False),
    ]


def _gemma4_vision(v: Dict[str, Any], spec: ModelSpec, tp: int) -> List[Linear]:
    """gemma4_vision.py (0.5.23): the patch embedder (input_proj over 3 x patch^2, a two-row-set learned position
    table), per layer a QKV and an output projection and a gated MLP split over TP, q/k norms over head_dim (v_norm a
    buffer) and four layer norms; then gemma4_mm.py's embed_vision projection to the text width, on every rank."""
    h = int(v.get("hidden_size", 1152))
    heads = int(v.get("num_attention_heads", 16))
    kv_heads = int(v.get("num_key_value_heads", heads))
    hd = int(v.get("head_dim") or h // heads)
    inter = int(v.get("intermediate_size", 4304))
    patch = int(v.get("patch_size", 16))
    rows = [
        Linear(None, "vision_tower.patch_embedder.input_proj", h, 3 * patch * patch, quantizable=False),
        Linear(None, "vision_tower.patch_embedder.position_embedding_table", 2 * int(v.get("position_embedding_size", 10240)), h, quantizable=False),
    ]
    for b in range(int(v.get("num_hidden_layers", 27))):
        rows += [
            Linear(None, f"vision_tower.encoder.layers.{b}.self_attn.qkv_proj", (heads + 2 * kv_heads) * hd // tp, h, quantizable=False),
            Linear(None, f"vision_tower.encoder.layers.{b}.self_attn.o_proj", h, heads * hd // tp, quantizable=False),
            Linear(None, f"vision_tower.encoder.layers.{b}.norms", 4 * h + 2 * hd, 1, quantizable=False),
            Linear(None, f"vision_tower.encoder.layers.{b}.mlp.gate_up_proj", 2 * inter // tp, h, quantizable=False),
            Linear(None, f"vision_tower.encoder.layers.{b}.mlp.down_proj", h, inter // tp, quantizable=False),
        ]
    return rows + [Linear(None, "embed_vision.embedding_projection", spec.hidden_size, h, quantizable=False)]


def _siglip_vision(v: Dict[str, Any], spec: ModelSpec, tp: int) -> List[Linear]:
    """siglip.py SiglipVisionModel (Gemma 3): the patch Conv2d with bias, a VocabParallelEmbedding of
    (image_size / patch_size)^2 positions, per layer two LayerNorms and a biased qkv/proj and fc1/fc2 split over TP
    (the row-parallel biases whole), a post LayerNorm; then gemma3_mm.py's projector (vision x text weight and a
    vision-wide norm), on every rank."""
    h = int(v.get("hidden_size", 768))
    inter = int(v.get("intermediate_size", 3072))
    patch = int(v.get("patch_size", 16))
    positions = (int(v.get("image_size", 224)) // patch) ** 2
    rows = [
        Linear(None, "vision_tower.embeddings.patch_embedding", h, int(v.get("num_channels", 3)) * patch * patch, quantizable=False, bias=h),
        Linear(None, "vision_tower.embeddings.position_embedding", _pad(positions, VOCAB_PAD) // tp, h, quantizable=False),
    ]
    for b in range(int(v.get("num_hidden_layers", 12))):
        rows += _biased_vit_block(f"vision_tower.encoder.layers.{b}", h, inter, tp)
    return rows + [
        Linear(None, "vision_tower.post_layernorm", 2 * h, 1, quantizable=False),
        Linear(None, "multi_modal_projector.mm_input_projection_weight", h, spec.hidden_size, quantizable=False),
        Linear(None, "multi_modal_projector.mm_soft_emb_norm", h, 1, quantizable=False),
    ]


_VISION_TOWERS = {
    "qwen3_vl": _qwen3_vl_vision,
    "qwen2_5_vl": _qwen2_5_vl_vision,
    "moonvit": _moonvit_vision,
    "glm4v": _glm4v_vision,
    "gemma4": _gemma4_vision,
    "siglip": _siglip_vision,
}
# the towers that build no rotary embedding of their own (Gemma 4's ViT and SigLIP use a learned position table)
_VISION_TOWERS_WITHOUT_ROPE = frozenset({"gemma4", "siglip"})


def _vision(spec: ModelSpec, tp: int) -> List[Linear]:
    """The rank's vision-tower rows, TP-sharded unless ``--mm-enable-dp-encoder`` replicates the ViT."""
    v = spec.vision or {}
    if not v:
        return []
    return _VISION_TOWERS[spec.layout.vision_tower](v, spec, 1 if spec.vision_replicated else tp)


_EMBED_ROWS = ("embed_tokens", "project_in", "project_out", "embed_positions", "embed_token_types", "embed_layer_norm", "embed_position_ids")


def _stage_embeddings(spec: ModelSpec, tp: int, attn_tp: Optional[int], dp_lm_head: bool) -> List[Linear]:
    """The embedding rows on the first pipeline stage and the lm_head on the last (the others build PPMissingLayer);
    a last stage with tied embeddings builds its own embedding for the head (models/llama.py)."""
    rows = _embeddings(spec, tp, attn_tp=attn_tp, dp_lm_head=dp_lm_head)
    if spec.stage is None:
        return rows
    keep_embed = spec.first_stage or (spec.last_stage and spec.tie_embeddings and spec.layout.lm_head)
    return [r for r in rows if (r.name in _EMBED_ROWS and keep_embed) or (r.name not in _EMBED_ROWS and spec.last_stage)]


def target_linears(spec: ModelSpec, tp: int, ep: int = 1, attn_tp: Optional[int] = None, dp_lm_head: bool = False) -> List[Linear]:
    """The rows this rank loads: its pipeline stage's decoder layers (all without pipeline parallel)."""
    rows = _stage_embeddings(spec, tp, attn_tp, dp_lm_head)
    start, end = spec.stage_layer_range
    for i in range(start, end):
        mixer, ffn = spec.layers[i]
        rows += _decoder_layer(spec, i, mixer, ffn, tp, ep, attn_tp)
    final_norm = not spec.layout.final_norm_key or spec.raw_text_config.get(spec.layout.final_norm_key, True)
    if spec.layout.norm_params and spec.layout.final_norm and final_norm and spec.last_stage:
        rows.append(_norm(None, "norm", spec.hidden_size * (2 if spec.layout.norm_bias else 1)))
    if spec.first_stage:
        rows += _vision(spec, tp)
    return rows


def draft_linears(spec: ModelSpec, tp: int, ep: int = 1, own_embed_head: bool = True, attn_tp: Optional[int] = None, dp_lm_head: bool = False) -> List[Linear]:
    """The NEXTN/MTP draft head as SGLang builds it from the target checkpoint.

    Qwen3.5/3.6 and Qwen3-Next (``models/qwen3_5_mtp.py``, ``qwen3_next_mtp.py``): replicated ``fc`` 2H->H,
    two pre-fc norms, one full-attention decoder layer, a final norm and its own embedding + lm_head.
    DeepSeek/GLM NextN (``models/deepseek_nextn.py``, ``glm4_moe_nextn.py``): replicated ``eh_proj``, enorm,
    hnorm, one decoder layer, ``shared_head.norm`` and its own embedding + lm_head.
    """
    if not spec.has_mtp_head:
        return []
    h = spec.hidden_size
    n = max(1, spec.mtp_num_hidden_layers or int(spec.num_nextn_predict_layers or 1))
    idx = spec.num_layers  # checkpoint names the head after the last layer
    ffn = "moe" if spec.num_experts else "dense"
    rows: List[Linear] = []
    if own_embed_head:
        rows += _embeddings(spec, tp, attn_tp=attn_tp, dp_lm_head=dp_lm_head, draft=True)
    rows.append(Linear(None, "mtp.fc", h, 2 * h, quantizable=False))
    rows += [_norm(None, "mtp.norms", 3 * h)]
    for k in range(n):
        rows += _decoder_layer(spec, idx + k, "full", ffn, tp, ep, attn_tp)
    return rows


def linears_bytes(rows: List[Linear], spec: ModelSpec) -> int:
    return int(sum(_linear_bytes(r, spec) for r in rows))


VISION_ROPE_ROWS = 8192  # models/qwen3_vl.py: the ViT's get_rope(max_position=8192, rotary_dim=head_dim // 2)


def rope_reserve_rows(context_len: int, spec_steps: Optional[int], spec_draft_tokens: Optional[int], env: Optional[Dict[str, str]] = None) -> Tuple[int, int]:
    """(reserve, align) of ``reserve_rope_cache_for_long_sequences`` (utils/common.py, both versions), which
    ``ModelRunner.load_model`` runs before the pools are sized: context + steps x draft tokens x
    SGLANG_SPEC_EXPANSION_SAFETY_FACTOR (2) + SGLANG_ROPE_CACHE_SAFETY_MARGIN (256), aligned up to
    SGLANG_ROPE_CACHE_ALIGN (128)."""
    env = env or {}
    factor = _env_int(env, "SGLANG_SPEC_EXPANSION_SAFETY_FACTOR", 2)
    margin = _env_int(env, "SGLANG_ROPE_CACHE_SAFETY_MARGIN", 256)
    align = max(1, _env_int(env, "SGLANG_ROPE_CACHE_ALIGN", 128))
    reserve = context_len + int(spec_steps or 0) * int(spec_draft_tokens or 0) * factor + margin
    return (reserve + align - 1) // align * align, align


def _env_int(env: Dict[str, str], name: str, default: int) -> int:
    try:
        return int(env.get(name, default))
    except (TypeError, ValueError):
        raise BudgetInputError(
            f"env.{name}", f"must be an integer, got {env[name]!r}", f"set it to a whole number or leave it unset (SGLang's default is {default})"
        ) from None


def _rope_rows(built: int, reserve: Optional[Tuple[int, int]]) -> int:
    """Rows of one ``cos_sin_cache`` after ``RotaryEmbedding._ensure_cos_sin_cache_length(reserve - 1)``: a cache
    shorter than the reserve is replaced by a longer one (the old tensor is freed, and
    ``get_available_gpu_memory`` empties torch's cache before the pool is sized)."""
    if not reserve:
        return built
    rows, align = reserve
    needed = rows - 1
    return built if needed < built else (needed + align) // align * align


def rope_cache_bytes(spec: ModelSpec, reserve: Optional[Tuple[int, int]] = None, release: Optional["SGLangRelease"] = None) -> int:
    """The fp32 ``cos_sin_cache`` buffers (rows x rotary_dim) resident when the pool is sized: the text model's
    (one per process: ``_ROPE_DICT`` shares it) and, for Qwen3-VL-style vision towers, the ViT's; both grown
    to ``reserve`` rows (``rope_reserve_rows``) when that is longer than what construction built.

    Nemotron-H attention layers carry no rotary embedding (``models/nemotron_h.py`` builds none)."""
    return sum(_rope_rows(rows, reserve) * row_bytes for rows, row_bytes in rope_caches(spec, release))


def rope_caches(spec: ModelSpec, release: Optional["SGLangRelease"] = None) -> List[Tuple[int, int]]:
    """(rows as constructed, bytes per row) of each distinct RoPE ``cos_sin_cache`` the model builds (``release``
    decides the classes whose caches differ by release; without it, the newest behaviour)."""
    caches = []
    if spec.layout.rope_layout == "local_global_unscaled":
        if release is None or release.sizing.gemma3_rope_in_attention:
            caches += [(spec.rope_cache_len, spec.rotary_dim * 4)] * 2  # one per RoPE base
    elif spec.layout.rope_layout == "per_layer_type":  # get_rope per Gemma 4 layer type: the sliding head, the full one
        caches += [(spec.rope_cache_len, spec.swa_head_dim * 4), (spec.rope_cache_len, spec.rotary_dim * 4)]
    elif (spec.family != "mamba2" or spec.layout.short_conv) and spec.layout.rope_layout != "none":  # Nemotron-H: no RoPE
        caches.append((spec.rope_cache_len, spec.rotary_dim * 4))
    if spec.vision and spec.layout.vision_tower not in _VISION_TOWERS_WITHOUT_ROPE:
        head_dim = int(spec.vision.get("hidden_size", 1152)) // int(spec.vision.get("num_heads", 16))
        caches.append((VISION_ROPE_ROWS, head_dim // 2 * 4))
    return caches


def mla_absorbed_bytes(spec: ModelSpec, tp: int) -> int:
    """``w_kc``/``w_vc`` made by the DeepSeek weight loader's ``post_load_weights`` per rank
    (``models/deepseek_common/deepseek_weight_loader.py``): new contiguous copies of ``kv_b_proj``; FP8 block
    checkpoints keep them in FP8 on CUDA (DeepGEMM bmm or per-tensor requant), others in the model dtype."""
    if not spec.is_mla:
        return 0
    heads = spec.num_heads // tp
    elem = 1 if spec.quant.algo_for(0, "self_attn.kv_b_proj") in ("fp8", "modelopt_fp8") else spec.dtype_bytes
    per_layer = heads * (spec.qk_nope_head_dim + spec.v_head_dim) * spec.kv_lora_rank * elem
    return per_layer * spec.stage_num_layers


def gemma_norm_buffer_bytes(spec: ModelSpec) -> int:
    """Qwen3.5/3.6 GemmaRMSNorm keeps a ``weight + 1`` copy per norm (input/post-attention norms, q/k norms,
    final norm) as a buffer in the model dtype; the oracle counted ~1.3 MiB of them for Qwen3.6-27B."""
    if not spec.architecture.startswith("Qwen3_5"):
        return 0
    n_full = len(spec.full_attention_layer_ids)
    return (2 * spec.stage_num_layers * spec.hidden_size + 2 * n_full * spec.head_dim + spec.hidden_size) * spec.dtype_bytes


def tied_by_release_default(spec: ModelSpec, release: "SGLangRelease") -> bool:
    """Whether the lm_head is the embedding: a composite config that leaves tie_word_embeddings out takes the pinned
    transformers config class's default (catalog ``tie_word_embeddings_defaults``), which SGLang's class reads."""
    config = spec.raw_config or {}
    defaults = release_architectures(release.version).tie_word_embeddings_defaults
    model_type = str(config.get("model_type") or "")
    if spec.layout.tie != "config" or "tie_word_embeddings" in config or model_type not in defaults:
        return spec.tie_embeddings
    # transformers 5 forwards a pre-v5 save's text_config tie_word_embeddings to the outer config
    return defaults[model_type] or bool(spec.raw_text_config.get("tie_word_embeddings"))


@dataclass
class WeightBreakdown:
    """Per-GPU bytes of one TP rank, and where the checkpoint total came from."""

    target_param_bytes: int
    target_buffer_bytes: int
    draft_param_bytes: int
    draft_buffer_bytes: int
    draft_embed_head_bytes: int
    source: str
    checkpoint_total_bytes: Optional[int]


def compute_weights(
    spec: ModelSpec,
    tp: int,
    ep: int = 1,
    checkpoint_total: Optional[int] = None,
    source: str = "shapes",
    attn_tp: Optional[int] = None,
    dp_lm_head: bool = False,
    *,
    release: "SGLangRelease",
    rope_reserve: Optional[Tuple[int, int]] = None,
) -> WeightBreakdown:
    """Per-GPU target and draft bytes (draft = the MTP/NEXTN head SGLang would build for EAGLE).

    ``release`` matters for details of the classes, its ``weight_dtype_quirks``: some releases' ``models/qwen3_5.py``
    builds the GDN ``A_log`` in the model dtype (others, and Qwen3-Next in all, in float32), their Glm4MoeGate in
    the model dtype (others in float32) and their Nemotron-H router in float32 (others in the model dtype). ``rope_reserve`` (``rope_reserve_rows``) is the RoPE
    pre-expansion of ``load_model``; without it the caches keep their constructed length."""
    quirks = release.sizing.weight_dtype_quirks
    tied = tied_by_release_default(spec, release)
    if tied != spec.tie_embeddings:
        spec = replace(spec, tie_embeddings=tied)
    if spec.dsa is not None:
        scheme = release.sizing.dsa
        layers = spec.dsa.topk_layer_ids if scheme.indexer_skips_shared_layers else range(spec.num_layers)
        spec = replace(spec, dsa_build=DsaBuild(frozenset(layers), scheme.fused_wk_weights_proj))
    target = linears_bytes(target_linears(spec, tp, ep, attn_tp, dp_lm_head), spec)
    start, end = spec.stage_layer_range
    moe_layers = sum(1 for layer in spec.layers[start:end] if layer[1] == "moe")
    if QWEN3_5_A_LOG_MODEL_DTYPE in quirks and spec.architecture.startswith("Qwen3_5"):
        target -= (4 - spec.dtype_bytes) * (spec.linear_num_value_heads // (attn_tp or tp)) * len(spec.state_layer_ids)
    glm_gate_fix = 0
    if GLM4_MOE_GATE_MODEL_DTYPE in quirks and spec.architecture in GLM4_MOE_DECODERS:
        glm_gate_fix = (4 - spec.dtype_bytes) * spec.num_experts * spec.hidden_size
        target -= glm_gate_fix * moe_layers
    if NEMOTRON_H_ROUTER_FLOAT32 in quirks and spec.architecture == "NemotronHForCausalLM":
        target += (4 - spec.dtype_bytes) * spec.num_experts * spec.hidden_size * moe_layers
    draft_rows = draft_linears(spec, tp, ep, attn_tp=attn_tp, dp_lm_head=dp_lm_head)
    draft = linears_bytes(draft_rows, spec) - (glm_gate_fix if draft_rows and spec.num_experts else 0)
    embed_head = linears_bytes(_embeddings(spec, tp, attn_tp=attn_tp, dp_lm_head=dp_lm_head, draft=True), spec) if draft_rows else 0
    if checkpoint_total:
        # Apportion the real total with the shape split: same fraction per rank as the shapes give.
        whole = replace(spec, stage=None) if spec.stage else spec  # the checkpoint holds every stage
        full = linears_bytes(target_linears(whole, 1, 1), whole)
        mtp_full = linears_bytes(draft_linears(spec, 1, 1, own_embed_head=False), spec)
        shape_total = full + mtp_full
        if shape_total > 0:
            scale = checkpoint_total / shape_total
            target = int(target * scale)
            draft = int((draft - embed_head) * scale) + embed_head if draft_rows else 0
    buffers = rope_cache_bytes(spec, rope_reserve, release) + mla_absorbed_bytes(spec, attn_tp or tp) + gemma_norm_buffer_bytes(spec)
    return WeightBreakdown(
        target_param_bytes=target,
        target_buffer_bytes=buffers,
        draft_param_bytes=draft,
        draft_buffer_bytes=0,
        draft_embed_head_bytes=embed_head,
        source=source,
        checkpoint_total_bytes=checkpoint_total,
    )
