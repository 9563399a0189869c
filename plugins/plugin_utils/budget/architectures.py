# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which model classes the budget engine predicts, and how each lays out its weights.

Three kinds of support, decided per SGLang release (``data/sglang-archs-<V>.json``, generated from the wheel by
``scripts/gen_arch_catalog.py``):

* **verified**: the class is in :data:`VERIFIED` with the layout SGLang's model class builds; the oracle
  (``bench/oracle``) checks it on real configs.
* **generic**: the release registers the class (``EntryClass``), none of its sizing files names it, its
  ``model_type`` is not one of SGLang's own config classes, and its config carries nothing beyond standard
  attention and MLP/MoE fields. SGLang then builds the standard paged-attention KV pool for it, and the engine
  predicts it with a Llama-style layout read from those fields (``confidence: generic``). A dense class SGLang
  has no implementation of, whose ``model_type`` the pinned transformers knows, runs on SGLang's Transformers
  backend and is predicted the same way.
* everything else is refused by name: a class the release does not serve, or one it special-cases
  (MLA, hybrid SWA, linear attention, multimodal towers, ...) that is not modelled here.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple

from .errors import BudgetInputError

if TYPE_CHECKING:  # pragma: no cover
    from ..releases import SGLangRelease

DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


@dataclass(frozen=True)
class PooledHead:
    """The ``nn.Linear`` layers (model dtype, on every rank, never quantized) a pooling class puts over the pooled
    hidden state: ``dense_layers`` of hidden x hidden, then one to ``labels`` outputs (0: the config's
    ``num_labels``), all with a bias or all without."""

    dense_layers: int = 0
    bias: bool = False
    labels: int = 0


@dataclass(frozen=True)
class ArchitectureLayout:
    """The weight layout of one SGLang model class (``models/<module>``), as far as sizing sees it.

    ``family`` selects the KV/state pool: dense|moe (standard GQA), mla, swa (hybrid SWA: GPT-OSS, Llama 4), gdn,
    mamba2. ``gpt_oss_blocks``: GPT-OSS's attention sinks, biased router and fused biased experts (swa family);
    ``gemma4_blocks``: Gemma 4's two attention geometries (the full layers' global_head_dim and, with
    attention_k_eq_v, num_global_key_value_heads), and with enable_moe_block its router (a scale and an unquantized
    projection), per-expert scales and experts beside the dense MLP, with three more norms (swa family);
    ``swa_full_every``: every n-th layer is global and the others slide, with the window ``attention_chunk_size``
    (Llama 4's chunked attention; 0: the config's ``layer_types``, the window ``sliding_window`` - 1).
    ``qkv_bias``: ``None`` is on when any of the config's ``bias_key`` is (default ``bias_default``); ``o_bias``: ``None`` is
    the same as the qkv bias. ``qk_norm``: "" none, "head" (one ``head_dim`` RMSNorm for q and one for k),
    "projection" (over the rank's heads), "full_projection" (over all heads, replicated on every rank);
    ``qk_norm_key`` names a config switch that turns it on (Cohere's ``use_qk_norm``).
    ``norms_per_layer``: norm weights of ``hidden_size`` per decoder layer; ``norm_bias``: LayerNorms with a bias;
    ``norm_params``: False for parameter-free norms. ``tie``: "config" (``tie_word_embeddings``, default
    ``tie_default``), "always" (no lm_head is built) or "never". ``lm_head_bias``: the head has a bias.
    ``rope_rows_key``: a config key whose value sets the RoPE cache rows when present (Command-R).
    ``shared_expert_gate``: a 1 x hidden sigmoid gate beside the shared expert. ``all_layers_moe``: the class makes
    every layer MoE whatever ``decoder_sparse_step`` / ``mlp_only_layers`` say. ``partial_rotary_default``: the
    rotary fraction when the config gives none. ``embed_replicated``: a plain ``nn.Embedding`` (every rank holds
    the whole table, unpadded). ``rope_layout``: "standard" (one cache, the config's scaling), or
    "local_global_unscaled" (Gemma 3: two unscaled caches, one per RoPE base, where the release builds them),
    "per_layer_type" (Gemma 4: one cache per layer type, as wide as that type's head), or
    "none" (no rotary embedding, so no cache).
    ``config_aliases``: (field, the name SGLang's config class reads it from; dotted for a nested field).
    ``experts_quantizable``: False when the class builds its experts without the quant config.
    ``router_float32``: the MoE gate's weight is float32 (a release may differ: ``weight_dtype_quirks``).
    ``ffn_default_multiple``: the MLP width is this multiple of ``hidden_size`` when the config gives none (GPT-J's
    ``n_inner: null``). ``position_rows_offset``: a learned position table of ``max_position_embeddings`` plus this
    many rows, a plain ``nn.Embedding`` on every rank (-1: none; ``rope_layout`` "none" for a class without RoPE).
    ``embed_dim_key``: a config key giving the token embedding's (and untied head's) width when it differs from
    ``hidden_size``, bridged by replicated project_in/project_out layers (OPT's ``word_embed_proj_dim``).
    ``final_norm_key``: a config switch, default on, without which the final norm is not built (OPT's
    ``do_layer_norm_before``). ``mlp_bias_key``: a config switch (default off) for the MLP's biases, read instead of
    ``mlp_bias`` when the config holds it (Apertus' ``mlp_bias``).
    Pooling classes (SGLang serves them as embedding, reward or classification models): ``lm_head`` False builds no
    head over the vocabulary, ``pooled_head`` the replicated ``nn.Linear`` layers that score the pooled state, and
    ``encoder_embeddings`` the BERT-style input embeddings of an encoder ("bert": position and token-type tables as
    VocabParallelEmbedding, "roberta": as plain ``nn.Embedding``; both add a LayerNorm and a ``position_ids``
    parameter), whose layers end in no final norm (``final_norm`` False)."""

    family: str
    module: str
    qkv_bias: Optional[bool] = None
    bias_key: Tuple[str, ...] = ("attention_bias",)
    bias_default: bool = False
    o_bias: Optional[bool] = None
    qk_norm: str = ""
    qk_norm_key: str = ""
    gated_mlp: bool = True
    mlp_bias: Optional[bool] = False  # None: same as the qkv bias
    norms_per_layer: int = 2
    norm_bias: bool = False
    norm_params: bool = True
    tie: str = "config"
    tie_default: bool = False
    lm_head_bias: bool = False
    rope_rows_key: str = ""
    shared_expert_gate: bool = False
    all_layers_moe: bool = False
    router_float32: bool = False
    experts_quantizable: bool = True
    partial_rotary_default: float = 1.0
    embed_replicated: bool = False
    rope_layout: str = "standard"
    config_aliases: Tuple[Tuple[str, str], ...] = ()
    # the class's own default --attention-backend on (SM100, SM80 and newer, older) when the user gives none
    attention_backend_by_sm: Tuple[str, ...] = ()
    multimodal: bool = False
    # the shared expert's module name, which ignore lists match (qwen2_moe.py's shared_expert; DeepSeek-style
    # classes' shared_experts)
    shared_expert_prefix: str = "mlp.shared_expert"
    vision_tower: str = "qwen3_vl"  # the ViT a multimodal class builds (weights._VISION_TOWERS)
    # defaults of SGLang's own vision config class, for the fields a config.json leaves out
    vision_defaults: Tuple[Tuple[str, Any], ...] = ()
    # defaults of the text config class (the pinned transformers'), for the fields a composite config.json leaves out
    text_defaults: Tuple[Tuple[str, Any], ...] = ()
    short_conv: bool = False  # mamba2 family: LFM2's short-conv layers (a conv state, no SSM state) beside attention
    ffn_default_multiple: int = 0
    position_rows_offset: int = -1
    embed_dim_key: str = ""
    final_norm_key: str = ""
    mlp_bias_key: str = ""
    gpt_oss_blocks: bool = False
    gemma4_blocks: bool = False
    swa_full_every: int = 0
    # the vision tower is built only with --enable-multimodal (ModelConfig's mm_disabled_models), which is not modelled
    vision_opt_in: bool = False
    # ModelConfig's mm_disabled_models: multimodal is off unless --enable-multimodal, yet the class builds its tower;
    # the start is then sized as a text model (no multimodal reservation, fraction or graph rules)
    multimodal_opt_in: bool = False
    lm_head: bool = True
    pooled_head: Optional[PooledHead] = None
    encoder_embeddings: str = ""
    final_norm: bool = True


def _dense(module: str, **kw: Any) -> ArchitectureLayout:
    return ArchitectureLayout(family="dense", module=module, **kw)


def _moe(module: str, **kw: Any) -> ArchitectureLayout:
    return ArchitectureLayout(family="moe", module=module, **kw)


# SGLang 0.5.23 ``srt/models`` module of each class (the same class exists in 0.5.9 unless noted in the release's
# architecture catalog). Layout facts cite the module that builds them.
_LLAMA_BIAS = ("attention_bias", "bias")  # llama.py: bias=getattr(config, "attention_bias", False) or "bias"
_SHARED_EXPERTS = "mlp.shared_experts"  # deepseek_v2.py, glm4_moe.py, nemotron_h.py: self.shared_experts

# GPT-2 style field names (GPT2Config / GPTJConfig / GPTBigCodeConfig attribute_map)
_GPT2_NAMES = (
    ("hidden_size", "n_embd"),
    ("num_attention_heads", "n_head"),
    ("num_hidden_layers", "n_layer"),
    ("max_position_embeddings", "n_positions"),
    ("intermediate_size", "n_inner"),
)

# GPT-2's block as gpt2.py and gpt_bigcode.py build it: c_attn/c_proj and c_fc/c_proj with bias (MLP width n_inner or
# 4 x hidden), LayerNorms with bias, a plain wpe embedding, no rotary embedding, lm_head = transformer.wte
_GPT2_BLOCK: Dict[str, Any] = dict(
    qkv_bias=True,
    o_bias=True,
    gated_mlp=False,
    mlp_bias=True,
    norm_bias=True,
    tie="always",
    ffn_default_multiple=4,
    position_rows_offset=0,
    rope_layout="none",
    config_aliases=_GPT2_NAMES,
)

# models/bert.py BertLayer (roberta.py reuses BertEncoder): qkv_proj and the attention output dense with bias, a
# non-gated intermediate/output MLP with bias, two LayerNorms with bias per layer, no final norm and no rotary
# embedding; every head is a KV head (head_dim = hidden / heads); no head over the vocabulary
_BERT_ENCODER: Dict[str, Any] = dict(
    qkv_bias=True, o_bias=True, gated_mlp=False, mlp_bias=True, norm_bias=True, rope_layout="none", lm_head=False, final_norm=False
)
# CrossEncodingPooler's BertPooler dense / RobertaClassificationHead dense, then the classifier (out_proj), with bias
_CROSS_ENCODER_HEAD = PooledHead(dense_layers=1, bias=True)

# gemma3_causal.py's decoder, which gemma3_mm.py builds under its vision tower too
_GEMMA3_DECODER = {"qk_norm": "head", "norms_per_layer": 4, "tie_default": True, "embed_replicated": True, "rope_layout": "local_global_unscaled"}

VERIFIED: Dict[str, ArchitectureLayout] = {
    "LlamaForCausalLM": _dense("llama.py", bias_key=_LLAMA_BIAS),
    "MistralForCausalLM": _dense("mistral.py", bias_key=_LLAMA_BIAS),
    # gemma.py: gelu gate_up, two RMSNorms ((1 + w) folded into the weight at load), logits from embed_tokens
    "GemmaForCausalLM": _dense("gemma.py", tie="always"),
    # gemma3_causal.py: a plain nn.Embedding (Gemma3TextScaledWordEmbedding: whole and unpadded on every rank),
    # q/k RMSNorm over head_dim, four Gemma3RMSNorm per layer, tied by default; get_rope with the local and the
    # global base and rope_scaling {"rope_type": "default"}; sliding layers only mask attention (one full pool)
    "Gemma3ForCausalLM": _dense("gemma3_causal.py", **_GEMMA3_DECODER),
    # gemma3_mm.py: Gemma3ForCausalLM (text_config, with transformers' Gemma3TextConfig defaults: 4.57.1 and 5.19.0 agree)
    # under SigLIP (siglip.py, split over TP) and Gemma3MultiModalProjector (a vision x text projection and a norm)
    "Gemma3ForConditionalGeneration": _dense(
        "gemma3_mm.py",
        **_GEMMA3_DECODER,
        multimodal=True,
        multimodal_opt_in=True,
        vision_tower="siglip",
        text_defaults=(
            ("vocab_size", 262208),
            ("hidden_size", 2304),
            ("intermediate_size", 9216),
            ("num_hidden_layers", 26),
            ("num_attention_heads", 8),
            ("num_key_value_heads", 4),
            ("head_dim", 256),
            ("max_position_embeddings", 131072),
            ("sliding_window", 4096),
        ),
    ),
    # glm4.py: qkv bias = attention_bias (default on), o_proj none, input/post_attention/post_self_attn/post_mlp
    # RMSNorm, rotary over partial_rotary_factor (default 0.5) of the head
    "Glm4ForCausalLM": _dense("glm4.py", bias_default=True, o_bias=False, norms_per_layer=4, partial_rotary_default=0.5),
    # arcee.py: up/down relu2 MLP (not gated), Llama attention, never tied ("Arcee does not tie word embeddings")
    "ArceeForCausalLM": _dense("arcee.py", bias_key=_LLAMA_BIAS, gated_mlp=False, tie="never"),
    # ernie4.py: LlamaAttention with bias = use_bias on qkv and o_proj, gated MLP, tied by default
    "Ernie4_5_ForCausalLM": _dense("ernie4.py", bias_key=("use_bias",), tie_default=True),
    # granite.py: qkv/o and the MLP without bias whatever the config says; the multipliers are scalars
    "GraniteForCausalLM": _dense("granite.py", qkv_bias=False),
    # exaone.py with SGLang's ExaoneConfig (configs/exaone.py): num_layers, tie_word_embeddings default on
    "ExaoneForCausalLM": _dense("exaone.py", qkv_bias=False, tie_default=True, config_aliases=(("num_hidden_layers", "num_layers"),)),
    # stablelm.py: qkv bias = use_qkv_bias, o_proj none, LayerNorms with bias, rotary over rope_pct, its own
    # unquantized head
    "StableLmForCausalLM": _dense("stablelm.py", bias_key=("use_qkv_bias",), o_bias=False, norm_bias=True, tie="never"),
    "Qwen2ForCausalLM": _dense("qwen2.py", qkv_bias=True, o_bias=False),  # qwen2.py: qkv bias=True, o_proj none
    # llama.py: class Phi3ForCausalLM(LlamaForCausalLM) loads the fused qkv/gate_up checkpoint; no biases
    "Phi3ForCausalLM": _dense("llama.py"),
    # gemma2.py: gelu gate_up, input/post_attention/pre_feedforward/post_feedforward GemmaRMSNorm, logits from
    # embed_tokens (no lm_head); sliding layers only mask attention (not hybrid SWA): one full-size pool
    "Gemma2ForCausalLM": _dense("gemma2.py", norms_per_layer=4, tie="always"),
    # commandr.py: parallel block with one weight-only LayerNorm, per-head q/k LayerNorm split over TP when
    # use_qk_norm, logits from embed_tokens, RoPE rows = model_max_length when set
    "CohereForCausalLM": _dense(
        "commandr.py", qkv_bias=False, qk_norm="projection", qk_norm_key="use_qk_norm", norms_per_layer=1, tie="always", rope_rows_key="model_max_length"
    ),
    # commandr.py: class Cohere2ForCausalLM(CohereForCausalLM); its sliding layers only mask attention
    "Cohere2ForCausalLM": _dense(
        "commandr.py", qkv_bias=False, qk_norm="projection", qk_norm_key="use_qk_norm", norms_per_layer=1, tie="always", rope_rows_key="model_max_length"
    ),
    # olmo.py: qkv_proj and o_proj bias = attention_bias, gate_up/down without bias, input/post_attention and the
    # final norm are nn.LayerNorm(elementwise_affine=False, bias=False) (no parameters), head_dim = hidden / heads,
    # lm_head = embed_tokens when tie_word_embeddings
    "OlmoForCausalLM": _dense("olmo.py", norm_params=False),
    # olmo2.py: post-attention and post-feedforward RMSNorm only, q_norm over hidden and k_norm over all KV heads
    # on every rank
    # and its override (0.5.9 server_args.py:1499-1519, 0.5.23 arg_groups/model_overrides/olmo2.py) defaults the
    # attention backend to trtllm_mha on SM100, fa3 from SM80, triton below
    "Olmo2ForCausalLM": _dense("olmo2.py", qk_norm="full_projection", attention_backend_by_sm=("trtllm_mha", "fa3", "triton")),
    # starcoder2.py: c_fc/c_proj (not gated) and qkv/o with bias = use_bias (default True), LayerNorms with bias
    "Starcoder2ForCausalLM": _dense(
        "starcoder2.py", bias_key=("use_bias",), bias_default=True, gated_mlp=False, mlp_bias=None, norm_bias=True, tie_default=True
    ),
    # gpt_j.py: GPTJ's own field names (n_embd, n_head, n_layer, n_positions; transformers' GPTJConfig maps them),
    # head_dim = n_embd / n_head with every head a KV head, qkv_proj and out_proj without bias, fc_in/fc_out with
    # bias (ColumnParallelLinear's default) of width n_inner or 4 x n_embd when null (GPTJBlock), one ln_1 LayerNorm
    # per block (parallel attention and MLP) and ln_f, rotary over config.rotary_dim with max_position =
    # max_position_embeddings, its own ParallelLMHead with bias (asserts not tie_word_embeddings)
    "GPTJForCausalLM": _dense(
        "gpt_j.py",
        qkv_bias=False,
        o_bias=False,
        gated_mlp=False,
        mlp_bias=True,
        norms_per_layer=1,
        norm_bias=True,
        tie="never",
        lm_head_bias=True,
        ffn_default_multiple=4,
        config_aliases=_GPT2_NAMES,
    ),
    # gpt2.py: GPT-2's field names (n_embd, n_head, n_layer, n_positions, n_inner; transformers' GPT2Config maps
    # them), c_attn and c_proj with bias, c_fc/c_proj MLP with bias of width n_inner or 4 x hidden when null
    # (GPT2Block), ln_1/ln_2/ln_f LayerNorms with bias, no rotary embedding, wpe a plain nn.Embedding of
    # max_position_embeddings rows (every rank), lm_head = transformer.wte (always tied)
    "GPT2LMHeadModel": _dense("gpt2.py", **_GPT2_BLOCK),
    # gpt_bigcode.py: GPT-2's field names and block (c_attn/c_proj with bias, c_fc/c_proj with bias of n_inner or
    # 4 x hidden, ln_1/ln_2/ln_f LayerNorms with bias, wpe nn.Embedding, no rotary embedding, lm_head =
    # transformer.wte); multi_query gives one KV head (replicated on every rank), as ModelConfig counts it
    "GPTBigCodeForCausalLM": _dense("gpt_bigcode.py", **_GPT2_BLOCK),
    # chatglm.py (ChatGLM2/3, GLM-4-9B) with SGLang's ChatGLMConfig (configs/chatglm.py: num_layers, ffn_hidden_size,
    # padded_vocab_size, seq_length as max_position_embeddings; ModelConfig's KV heads = multi_query_group_num):
    # query_key_value bias = add_bias_linear or add_qkv_bias; dense and the gated dense_h_to_4h/dense_4h_to_h bias =
    # add_bias_linear, false in every ChatGLM2/3 and GLM-4 config; head_dim = hidden / heads; rotary over half the
    # head with seq_length rows; input/post_attention RMSNorms and final_layernorm; output_layer a separate
    # ParallelLMHead (never tied)
    "ChatGLMModel": _dense(
        "chatglm.py",
        bias_key=("add_bias_linear", "add_qkv_bias"),
        o_bias=False,
        tie="never",
        partial_rotary_default=0.5,
        config_aliases=(
            ("num_hidden_layers", "num_layers"),
            ("intermediate_size", "ffn_hidden_size"),
            ("vocab_size", "padded_vocab_size"),
            ("max_position_embeddings", "seq_length"),
        ),
    ),
    # opt.py: qkv_proj/out_proj and fc1/fc2 (not gated) bias = enable_bias (OPTConfig default on),
    # self_attn_layer_norm and final_layer_norm per layer and the decoder's final_layer_norm (only when
    # do_layer_norm_before) are LayerNorms with bias, no rotary embedding: OPTLearnedPositionalEmbedding is an
    # nn.Embedding of max_position_embeddings + 2 rows of hidden_size; embed_tokens (and the untied lm_head) are
    # word_embed_proj_dim wide, with ReplicatedLinear project_in/project_out (no bias) when that is not hidden_size;
    # lm_head = embed_tokens when tie_word_embeddings (PretrainedConfig default on)
    "OPTForCausalLM": _dense(
        "opt.py",
        bias_key=("enable_bias",),
        bias_default=True,
        gated_mlp=False,
        mlp_bias=None,
        norm_bias=True,
        tie_default=True,
        position_rows_offset=2,
        rope_layout="none",
        embed_dim_key="word_embed_proj_dim",
        final_norm_key="do_layer_norm_before",
        config_aliases=(("intermediate_size", "ffn_dim"),),
    ),
    # persimmon.py: query_key_value and dense with bias, q_layernorm/k_layernorm = nn.LayerNorm(head_dim) (weight
    # and bias) when qk_layernorm, dense_h_to_4h/dense_4h_to_h (relu2, not gated) with bias, input/post_attention and
    # final LayerNorms with bias, rotary over partial_rotary_factor (PersimmonConfig default 0.5) of head_dim =
    # hidden / heads, its own lm_head without bias (never tied)
    "PersimmonForCausalLM": _dense(
        "persimmon.py",
        qkv_bias=True,
        o_bias=True,
        gated_mlp=False,
        mlp_bias=True,
        norm_bias=True,
        qk_norm="head",
        qk_norm_key="qk_layernorm",
        tie="never",
        partial_rotary_default=0.5,
    ),
    # internlm2.py: wqkv and wo without bias whatever the config says, head_dim = hidden / heads, gate_up/w2 without
    # bias, attention_norm and ffn_norm, its own ``output`` ParallelLMHead (never tied)
    "InternLM2ForCausalLM": _dense("internlm2.py", qkv_bias=False, tie="never"),
    # llama.py: class InternLM3ForCausalLM(LlamaForCausalLM) (its ``qkv_bias`` key is not read)
    "InternLM3ForCausalLM": _dense("llama.py", bias_key=_LLAMA_BIAS),
    # phi.py: parallel block, one LayerNorm with bias, qkv/dense/fc1/fc2 with bias, lm_head with bias
    "PhiForCausalLM": _dense("phi.py", qkv_bias=True, gated_mlp=False, mlp_bias=True, norms_per_layer=1, norm_bias=True, lm_head_bias=True),
    # apertus.py (0.5.9 and 0.5.23): qkv_proj and o_proj bias = attention_bias (a ``qkv_bias`` key, which InternLM3
    # configs carry, would override the qkv one: no Apertus config has it); up_proj/down_proj with xIELU (not gated,
    # two scalar parameters per layer) and bias = mlp_bias; q_norm/k_norm RMSNorm over head_dim (always built);
    # attention_layernorm and feedforward_layernorm; lm_head = embed_tokens when tie_word_embeddings
    "ApertusForCausalLM": _dense("apertus.py", gated_mlp=False, qk_norm="head", mlp_bias_key="mlp_bias"),
    # mixtral.py: every layer MoE (num_local_experts x intermediate_size), router without bias
    "MixtralForCausalLM": _moe("mixtral.py", tie="never"),
    # dbrx.py: DBRX's own field names (d_model, n_heads, n_layers, attn_config, ffn_config), raw expert tensors split
    # over TP and never quantized, weight-only LayerNorms, its own lm_head
    "DbrxForCausalLM": _moe(
        "dbrx.py",
        qkv_bias=False,
        all_layers_moe=True,
        tie="never",
        experts_quantizable=False,
        config_aliases=(
            ("hidden_size", "d_model"),
            ("num_attention_heads", "n_heads"),
            ("num_hidden_layers", "n_layers"),
            ("max_position_embeddings", "max_seq_len"),
            ("num_key_value_heads", "attn_config.kv_n_heads"),
            ("num_local_experts", "ffn_config.moe_num_experts"),
            ("intermediate_size", "ffn_config.ffn_hidden_size"),
        ),
    ),
    # Pooling classes: SGLang serves them as embedding, reward or classification models (configs/model_config.py
    # is_generation_model), over the decoder or encoder named; none builds an lm_head.
    # bert.py: BertModel's BertEmbedding (word, position and token-type VocabParallelEmbedding, LayerNorm,
    # position_ids) under BertEncoder; its Pooler has no parameters
    "BertModel": _dense("bert.py", encoder_embeddings="bert", **_BERT_ENCODER),
    # bert.py: BertModel(use_bert_pooler=True) and the classifier nn.Linear(hidden, num_labels)
    "BertForSequenceClassification": _dense("bert.py", encoder_embeddings="bert", pooled_head=_CROSS_ENCODER_HEAD, **_BERT_ENCODER),
    # roberta.py: RobertaEmbedding (word table a VocabParallelEmbedding, position and token-type tables nn.Embedding)
    # under BertEncoder; the CLS Pooler has no parameters (the sparse head only with --sparse-head)
    "XLMRobertaModel": _dense("roberta.py", encoder_embeddings="roberta", **_BERT_ENCODER),
    # roberta.py: RobertaClassificationHead (dense hidden x hidden, out_proj to num_labels, both with bias)
    "XLMRobertaForSequenceClassification": _dense("roberta.py", encoder_embeddings="roberta", pooled_head=_CROSS_ENCODER_HEAD, **_BERT_ENCODER),
    # llama_embedding.py: class MistralModel(LlamaEmbeddingModel): LlamaModel and a last-token Pooler
    "MistralModel": _dense("llama_embedding.py", bias_key=_LLAMA_BIAS, lm_head=False),
    # llama_reward.py: LlamaModel and score = nn.Linear(hidden, num_labels, bias=False)
    "LlamaForSequenceClassification": _dense("llama_reward.py", bias_key=_LLAMA_BIAS, lm_head=False, pooled_head=PooledHead()),
    # gemma2_reward.py: Gemma2Model (gemma2.py's layers) and score = nn.Linear(hidden, num_labels, bias=False)
    "Gemma2ForSequenceClassification": _dense("gemma2_reward.py", norms_per_layer=4, lm_head=False, pooled_head=PooledHead()),
    # qwen2_rm.py: Qwen2Model and score = Sequential(Linear(hidden, hidden), ReLU, Linear(hidden, 1)) with biases
    "Qwen2ForRewardModel": _dense("qwen2_rm.py", qkv_bias=True, o_bias=False, lm_head=False, pooled_head=PooledHead(dense_layers=1, bias=True, labels=1)),
    # qwen2_classification.py: Qwen2Model and score = nn.Linear(hidden, num_labels) with bias
    "Qwen2ForSequenceClassification": _dense("qwen2_classification.py", qkv_bias=True, o_bias=False, lm_head=False, pooled_head=PooledHead(bias=True)),
    # qwen3_classification.py: Qwen3ForPooledOutput (Qwen3Model) and score = nn.Linear(hidden, num_labels) with bias
    "Qwen3ForSequenceClassification": _dense("qwen3_classification.py", qk_norm="head", lm_head=False, pooled_head=PooledHead(bias=True)),
    # internlm2_reward.py: InternLM2Model and v_head = nn.Linear(hidden, 1, bias=False)
    "InternLM2ForRewardModel": _dense("internlm2_reward.py", qkv_bias=False, lm_head=False, pooled_head=PooledHead(labels=1)),
    # granitemoe.py: num_local_experts x intermediate_size in every layer, no biases, router without bias
    "GraniteMoeForCausalLM": _moe("granitemoe.py", qkv_bias=False, all_layers_moe=True),
    # olmoe.py: every layer MoE, q_norm and k_norm over the whole hidden size on every rank, its own lm_head
    "OlmoeForCausalLM": _moe("olmoe.py", qkv_bias=False, qk_norm="full_projection", tie="never", all_layers_moe=True),
    # phimoe.py: qkv/o bias = attention_bias, LayerNorms with bias, every layer MoE, lm_head with bias
    "PhiMoEForCausalLM": _moe("phimoe.py", norm_bias=True, lm_head_bias=True, all_layers_moe=True),
    # qwen2_moe.py: qkv bias (qkv_bias, default on), every layer MoE (is_layer_sparse = True: decoder_sparse_step and
    # mlp_only_layers are not read), a shared expert of shared_expert_intermediate_size with its 1 x hidden gate,
    # its own lm_head
    "Qwen2MoeForCausalLM": _moe(
        "qwen2_moe.py", bias_key=("qkv_bias",), bias_default=True, o_bias=False, shared_expert_gate=True, tie="never", all_layers_moe=True
    ),
    "Qwen3ForCausalLM": _dense("qwen3.py", qk_norm="head"),
    "Qwen3MoeForCausalLM": _moe("qwen3_moe.py", qk_norm="head"),
    # minimax_m2.py: the gate is ReplicatedLinear(params_dtype=torch.float32) in every registry release
    "MiniMaxM2ForCausalLM": _moe("minimax_m2.py", qk_norm="projection", router_float32=True),
    # glm4_moe.py Glm4MoeGate: float32 weight (GLM4_MOE_GATE_MODEL_DTYPE releases: the model dtype)
    "Glm4MoeForCausalLM": _moe("glm4_moe.py", router_float32=True, shared_expert_prefix=_SHARED_EXPERTS),
    # glm4v_moe.py: Glm4MoeModel (GLM-4.5's decoder, text_config) under the GLM-4V ViT (glm4v.py Glm4vVisionModel)
    "Glm4vMoeForConditionalGeneration": _moe("glm4v_moe.py", router_float32=True, shared_expert_prefix=_SHARED_EXPERTS, multimodal=True, vision_tower="glm4v"),
    "DeepseekV3ForCausalLM": ArchitectureLayout(family="mla", module="deepseek_v2.py", shared_expert_prefix=_SHARED_EXPERTS),
    "DeepseekV2ForCausalLM": ArchitectureLayout(family="mla", module="deepseek_v2.py", shared_expert_prefix=_SHARED_EXPERTS),
    # deepseek_v2.py with DeepSeek Sparse Attention: an Indexer per top-k layer and its index-K cache
    # (model_spec.DsaSpec, behaviour.DsaScheme)
    "DeepseekV32ForCausalLM": ArchitectureLayout(family="mla", module="deepseek_v2.py", shared_expert_prefix=_SHARED_EXPERTS),
    # glm4_moe.py: class GlmMoeDsaForCausalLM(DeepseekV2ForCausalLM), the same DSA layers
    "GlmMoeDsaForCausalLM": ArchitectureLayout(family="mla", module="glm4_moe.py", shared_expert_prefix=_SHARED_EXPERTS),
    # kimi_k25.py: DeepseekV3ForCausalLM over text_config under MoonViT and its projector
    # (configs/kimi_k25.py KimiK25VisionConfig reads num_hidden_layers, hidden_size, ... with its own defaults; the
    # checkpoints' vt_* keys are kept as extra attributes, and only the projector reads vt_hidden_size)
    "KimiK25ForConditionalGeneration": ArchitectureLayout(
        family="mla",
        module="kimi_k25.py",
        shared_expert_prefix=_SHARED_EXPERTS,
        multimodal=True,
        vision_tower="moonvit",
        vision_defaults=(
            ("patch_size", 14),
            ("init_pos_emb_height", 64),
            ("init_pos_emb_width", 64),
            ("num_attention_heads", 16),
            ("num_hidden_layers", 27),
            ("hidden_size", 1152),
            ("intermediate_size", 4304),
            ("merge_kernel_size", (2, 2)),
            ("text_hidden_size", 7168),
        ),
    ),
    "GptOssForCausalLM": ArchitectureLayout(family="swa", module="gpt_oss.py", qkv_bias=True, o_bias=True, gpt_oss_blocks=True),
    # gemma4_mm.py over gemma4_causal.py (0.5.23): sliding and full layers (layer_types) with their own head_dim and KV
    # heads (utils/hf_transformers/config.py _apply_gemma4_attention_overrides), pooled as hybrid SWA with the
    # window sliding_window - 1; qkv_proj holds V for the k_eq_v layers too; q/k Gemma4RMSNorm over head_dim (v_norm a
    # buffer); four norms per layer; Gemma3TextScaledWordEmbedding (whole on every rank) tied to the head; one RoPE
    # cache per layer type; the Gemma 4 ViT split over TP and the embed_vision projection; triton attention below
    # SM100 (model_overrides/gemma4.py)
    "Gemma4ForConditionalGeneration": ArchitectureLayout(
        family="swa",
        module="gemma4_mm.py",
        qk_norm="head",
        norms_per_layer=4,
        tie_default=True,
        embed_replicated=True,
        rope_layout="per_layer_type",
        attention_backend_by_sm=("trtllm_mha", "triton", "triton"),
        multimodal=True,
        vision_tower="gemma4",
        gemma4_blocks=True,
    ),
    # mllama4.py over llama4.py, text only (ModelConfig leaves multimodal off for it unless --enable-multimodal, so
    # no vision tower is built): every fourth layer global without RoPE, the others chunked attention that
    # configs/model_config.py get_hybrid_layer_ids pools as SWA with the window attention_chunk_size
    # (load_model_utils.resolve_sliding_window_size); qkv/o without bias, the q/k RMSNorm without weights; MoE every
    # interleave_moe_layer_step-th layer (router in the model dtype, unquantized; a shared expert of the experts'
    # width), the other layers an MLP of intermediate_size_mlp; the LlamaForCausalLM head
    "Llama4ForConditionalGeneration": ArchitectureLayout(family="swa", module="mllama4.py", qkv_bias=False, o_bias=False, swa_full_every=4, vision_opt_in=True),
    "Qwen3NextForCausalLM": ArchitectureLayout(family="gdn", module="qwen3_next.py", qk_norm="head", shared_expert_gate=True),
    # qwen3_vl.py: Qwen3LLMModel (Qwen3's decoder) under the Qwen3-VL ViT, which adds one deepstack merger per
    # vision_config.deepstack_visual_indexes entry
    "Qwen3VLForConditionalGeneration": _dense("qwen3_vl.py", qk_norm="head", multimodal=True),
    # qwen3_vl_moe.py: Qwen3MoeLLMModel (Qwen3-MoE's decoder, text_config) under the same ViT
    "Qwen3VLMoeForConditionalGeneration": _moe("qwen3_vl_moe.py", qk_norm="head", multimodal=True),
    # qwen2_5_vl.py: Qwen2Model (qkv bias, o_proj none) under the Qwen2.5-VL ViT (window attention, RMSNorm, gated
    # MLP), lm_head = embed_tokens when tie_word_embeddings
    "Qwen2_5_VLForConditionalGeneration": _dense("qwen2_5_vl.py", qkv_bias=True, o_bias=False, multimodal=True, vision_tower="qwen2_5_vl"),
    "Qwen3_5ForConditionalGeneration": ArchitectureLayout(family="gdn", module="qwen3_5.py", qk_norm="head", shared_expert_gate=True, multimodal=True),
    "Qwen3_5MoeForConditionalGeneration": ArchitectureLayout(family="gdn", module="qwen3_5.py", qk_norm="head", shared_expert_gate=True, multimodal=True),
    "Qwen3_5ForCausalLM": ArchitectureLayout(family="gdn", module="qwen3_5.py", qk_norm="head", shared_expert_gate=True),
    "Qwen3_5MoeForCausalLM": ArchitectureLayout(family="gdn", module="qwen3_5.py", qk_norm="head", shared_expert_gate=True),
    # lfm2.py: ShortConv layers (in_proj 3 x hidden, a depthwise conv of conv_L_cache per channel, out_proj; bias =
    # conv_bias) whose conv state SGLang pools as a mamba2 state without SSM part (configs/lfm2.py
    # mamba2_cache_params), GQA layers with q/k RMSNorm over head_dim, operator_norm and ffn_norm, embedding_norm as
    # the final norm, and its own lm_head (a tied checkpoint's embedding is copied into it)
    "Lfm2ForCausalLM": ArchitectureLayout(family="mamba2", module="lfm2.py", qk_norm="head", tie="never", short_conv=True),
    "NemotronHForCausalLM": ArchitectureLayout(
        family="mamba2", module="nemotron_h.py", gated_mlp=False, norms_per_layer=1, shared_expert_prefix=_SHARED_EXPERTS
    ),
}

# The classes over glm4_moe.py's Glm4MoeModel: an e_score_correction_bias beside every router, and Glm4MoeGate's
# weight dtype (a release quirk, GLM4_MOE_GATE_MODEL_DTYPE)
GLM4_MOE_DECODERS = frozenset({"Glm4MoeForCausalLM", "Glm4vMoeForConditionalGeneration"})

# Config keys that mean a layer kind or tower the generic layout does not describe (state-space or linear
# attention, MLA, multimodal towers, chunked or per-layer attention kinds). A config holding one is refused.
_NON_GENERIC_KEYS = (
    "mamba",
    "ssm",
    "conv_l_cache",
    "linear_attn",
    "linear_num",
    "hybrid",
    "full_attn_idxs",
    "block_types",
    "kv_lora_rank",
    "vision_config",
    "audio_config",
    "text_config",
    "attention_chunk_size",
    "altup",
    "laurel",
    "efficient_attention",
    "lightning",
    "attn_type_list",
    "no_rope_layers",
    "alibi",
    "global_attn_every_n_layers",
    "num_nextn_predict_layers",
    "block_configs",
)
_EXPERT_COUNT_KEYS = ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts")
GENERIC_FIELDS = (
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "intermediate_size",
    "vocab_size",
    "tie_word_embeddings",
    "attention_bias",
    "max_position_embeddings",
    "rope_scaling",
    "torch_dtype",
)
GENERIC_MOE_FIELDS = _EXPERT_COUNT_KEYS + (
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "n_shared_experts",
    "decoder_sparse_step",
    "first_k_dense_replace",
    "mlp_only_layers",
)


@dataclass(frozen=True)
class ReleaseArchitectures:
    """One release's architecture catalog (``data/sglang-archs-<V>.json``)."""

    version: str
    entry_classes: Dict[str, str]
    special_cased: Dict[str, Tuple[str, ...]]
    config_model_types: Dict[str, str]
    quantization_methods: Tuple[str, ...]
    multimodal_piecewise_graph_archs: frozenset
    multimodal_breakable_graph_archs: frozenset
    transformers_version: str
    transformers_model_types: frozenset
    transformers_causal_lm_classes: frozenset
    # model_type -> config class of the pinned transformers that gives no default position_embedding_type
    configs_without_position_embedding_type: Dict[str, str]
    # model_type -> the pinned config class's tie_word_embeddings default (composite configs that leave it out)
    tie_word_embeddings_defaults: Dict[str, bool]
    # the classes --language-model-only accepts (ServerArgs.LANGUAGE_MODEL_ONLY_ARCHITECTURES); None: no such list
    language_model_only_archs: Optional[Tuple[str, ...]]


@functools.lru_cache(maxsize=None)
def release_architectures(version: str) -> ReleaseArchitectures:
    path = os.path.join(DATA_DIR, f"sglang-archs-{version}.json")
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError:
        raise BudgetInputError(
            "sglang_version", f"{version} has no architecture catalog ({path})", f"run `make catalogs` (scripts/gen_arch_catalog.py {version})"
        ) from None
    return ReleaseArchitectures(
        version=version,
        entry_classes=data["entry_classes"],
        special_cased={k: tuple(v) for k, v in data["special_cased"].items()},
        config_model_types=data["config_model_types"],
        quantization_methods=tuple(data["quantization_methods"]),
        multimodal_piecewise_graph_archs=frozenset(data["multimodal_graph_archs"]["piecewise"]),
        multimodal_breakable_graph_archs=frozenset(data["multimodal_graph_archs"]["breakable"]),
        transformers_version=data["transformers"]["version"],
        transformers_model_types=frozenset(data["transformers"]["model_types"]),
        transformers_causal_lm_classes=frozenset(data["transformers"]["causal_lm_classes"]),
        configs_without_position_embedding_type=data["transformers"]["configs_without_position_embedding_type"],
        tie_word_embeddings_defaults=data["transformers"]["tie_word_embeddings_defaults"],
        language_model_only_archs=None if data.get("language_model_only_archs") is None else tuple(data["language_model_only_archs"]),
    )


@dataclass(frozen=True)
class ArchitectureSupport:
    """How the engine predicts one checkpoint's class under one release (returned as ``architecture``)."""

    name: str
    support: str  # verified | generic | unloadable (the release cannot even load its config.json)
    sglang_module: str
    fields_used: Tuple[str, ...] = ()

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "support": self.support, "sglang_module": self.sglang_module, "fields_used": list(self.fields_used)}


# ``layer_types`` values of plain attention: SGLang gives a class it does not list as hybrid SWA one full-size KV
# pool, sliding layers included (configs/model_config.py is_hybrid_swa_model).
_ATTENTION_LAYER_TYPES = frozenset({"full_attention", "sliding_attention"})


def non_generic_keys(config: Dict[str, Any]) -> Tuple[str, ...]:
    """The keys of ``config`` that the generic layout cannot describe."""
    keys = [k for k in config if any(marker in k.lower() for marker in _NON_GENERIC_KEYS)]
    types = config.get("layer_types")
    if isinstance(types, list) and not set(map(str, types)) <= _ATTENTION_LAYER_TYPES:
        keys.append("layer_types")
    return tuple(sorted(keys))


def is_moe_config(config: Dict[str, Any]) -> bool:
    return any(config.get(k) for k in _EXPERT_COUNT_KEYS)


def generic_layout(module: str, config: Dict[str, Any]) -> ArchitectureLayout:
    """The Llama-style layout SGLang's standard classes share, read from the config's own fields."""
    return ArchitectureLayout(family="moe" if is_moe_config(config) else "dense", module=module)


def absent_class_message(name: str, release: "SGLangRelease") -> str:
    """That ``release`` does not have class ``name``, and which release first does."""
    served = [v for v in _catalog_versions() if name in release_architectures(v).entry_classes]
    where = (
        f"; SGLang {served[0]} is the first release that has it"
        if served
        else "; no release in the registry has it (SGLang would fall back to its Transformers backend, which the budget does not model)"
    )
    return f"{name} is not a model class of SGLang {release.version}{where}"


def verified_names() -> Tuple[str, ...]:
    return tuple(sorted(VERIFIED))


def _supported_hint() -> str:
    return f"use a verified architecture ({', '.join(verified_names())}), or a standard decoder SGLang does not special-case"


def resolve_architecture(name: str, config: Dict[str, Any], release: "SGLangRelease") -> ArchitectureSupport:
    """Decide whether ``release`` can be predicted for class ``name``; raise BudgetInputError naming why not."""
    catalog = release_architectures(release.version)
    module = catalog.entry_classes.get(name)
    model_type = str(config.get("model_type") or "")
    if (
        module is None
        and name in catalog.transformers_causal_lm_classes
        and model_type in catalog.transformers_model_types
        and not non_generic_keys(config)
        and not is_moe_config(config)
    ):
        # model_loader/utils.py get_model_architecture: a class with no SGLang implementation runs on the
        # Transformers backend (TransformersForCausalLM), which builds the HF model: standard paged KV
        fields = tuple(k for k in GENERIC_FIELDS if k in config)
        return ArchitectureSupport(name=name, support="generic", fields_used=fields, sglang_module="models/transformers.py (Transformers backend)")
    if module is None and name in VERIFIED and not config.get("auto_map") and config_load_error(config, release, False):
        # SGLang stops at loading config.json (transformers does not know its model_type) before it looks the class
        # up: the start-up replay reports that error, and the result says which release has the class
        return ArchitectureSupport(name=name, support="unloadable", sglang_module="")
    if module is None:
        raise BudgetInputError(
            "model.config.architectures",
            absent_class_message(name, release),
            f"pin a release that serves it (sglang_version), or check config.json's architectures; {_supported_hint()}",
        )
    if name in VERIFIED:
        return ArchitectureSupport(name=name, support="verified", sglang_module=module)
    special = catalog.special_cased.get(name)
    if special:
        reason = f"SGLang {release.version} special-cases it in {', '.join(special[:3])}"
    elif model_type in catalog.config_model_types:
        reason = f"SGLang {release.version} parses its model_type {model_type!r} with its own config class ({catalog.config_model_types[model_type]})"
    elif non_generic_keys(config):
        reason = f"its config.json declares {', '.join(non_generic_keys(config)[:4])}, which a standard attention layout does not describe"
    else:
        fields = tuple(k for k in GENERIC_FIELDS + (GENERIC_MOE_FIELDS if is_moe_config(config) else ()) if k in config)
        return ArchitectureSupport(name=name, support="generic", sglang_module=module, fields_used=fields)
    raise BudgetInputError("model.config.architectures", f"{name} ({module}) is not modelled by the budget engine: {reason}", _supported_hint())


REMOTE_CODE_MESSAGE = (
    "The repository {model} contains custom code which must be executed to correctly load the "
    "model. Please pass the argument `trust_remote_code=True` to allow custom code to be run."
)
UNKNOWN_TYPE_MESSAGE = (
    "The checkpoint you are trying to load has model type `{model_type}` but Transformers does not recognize this "
    "architecture. This could be because of an issue with the checkpoint, or because your version of Transformers is "
    "out of date.\n\nYou can update Transformers with the command `pip install --upgrade transformers`. If this does "
    "not work, and the checkpoint is very new, then there may not be a release version that supports this model yet. "
    "In this case, you can get the most up-to-date code by installing Transformers from source with the command "
    "`pip install git+https://github.com/huggingface/transformers.git`"
)


def config_load_error(config: Dict[str, Any], release: "SGLangRelease", trust_remote_code: bool, model: str = "") -> Optional[str]:
    """transformers' refusal when SGLang loads a config whose ``model_type`` neither SGLang's own config classes nor
    the release's pinned transformers know (utils/hf_transformers get_config -> AutoConfig.from_pretrained): custom
    code named in ``auto_map`` needs ``--trust-remote-code``; without ``auto_map`` the type is unknown."""
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        return None
    catalog = release_architectures(release.version)
    if model_type in catalog.config_model_types or model_type in catalog.transformers_model_types:
        return None
    if model_type in release.sizing.config_type_fallbacks:
        return None
    auto_map = config.get("auto_map")
    if isinstance(auto_map, dict) and "AutoConfig" in auto_map:
        return None if trust_remote_code else REMOTE_CODE_MESSAGE.format(model=model or config.get("_name_or_path") or "of this model")
    return UNKNOWN_TYPE_MESSAGE.format(model_type=model_type)


def encoder_config_error(config: Dict[str, Any], layout: ArchitectureLayout, release: "SGLangRelease") -> Optional[str]:
    """The AttributeError SGLang's BertEmbedding / RobertaEmbedding raise when they read
    ``config.position_embedding_type`` from a config.json without it, under a pinned transformers whose config class
    no longer defaults it (transformers 5), or None."""
    if not layout.encoder_embeddings or "position_embedding_type" in config:
        return None
    cls = release_architectures(release.version).configs_without_position_embedding_type.get(str(config.get("model_type") or ""))
    return f"'{cls}' object has no attribute 'position_embedding_type'" if cls else None


def unknown_quantization_error(method: Optional[str], release: "SGLangRelease") -> Optional[str]:
    """``ModelConfig._verify_quantization``'s refusal of a ``quant_method`` the release's CUDA build does not register
    (``layers/quantization`` ``QUANTIZATION_METHODS``), or None. A quantization_config without quant_method (and
    not ModelOpt's) leaves SGLang with the empty method "", which it refuses too."""
    methods = release_architectures(release.version).quantization_methods
    if method is None or method in methods:
        return None
    return f"Unknown quantization method: {method}. Must be one of {list(methods)}."


@functools.lru_cache(maxsize=1)
def _catalog_versions() -> Tuple[str, ...]:
    from ..releases import SUPPORTED_VERSIONS

    return tuple(SUPPORTED_VERSIONS)
