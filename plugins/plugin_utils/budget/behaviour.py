# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What an SGLang release does at each point where startup sizing differs between releases, as data.

The budget engine reads these fields and never a version string. The registry of releases
(``plugin_utils/releases.py``) fills one :class:`SizingBehaviour` per release from that release's source; where
two releases run different algorithms, the field holds the function that replays the release's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, FrozenSet, Optional, Tuple

# Per-model dtype corrections of the weight bytes (``weights.compute_weights``), named by what the release's
# model class allocates differently from the parameter shapes' model dtype.
QWEN3_5_A_LOG_MODEL_DTYPE = "qwen3_5_a_log_model_dtype"  # GDN A_log built in the model dtype (not float32)
GLM4_MOE_GATE_MODEL_DTYPE = "glm4_moe_gate_model_dtype"  # Glm4MoeGate weight in the model dtype (not float32)
NEMOTRON_H_ROUTER_FLOAT32 = "nemotron_h_router_float32"  # NemotronHMoE router ReplicatedLinear in float32
WEIGHT_DTYPE_QUIRKS = frozenset({QWEN3_5_A_LOG_MODEL_DTYPE, GLM4_MOE_GATE_MODEL_DTYPE, NEMOTRON_H_ROUTER_FLOAT32})


@dataclass(frozen=True)
class PrefillGraphScheme:
    """How a release switches prefill (piecewise) CUDA graphs on and off and bounds their token sizes."""

    max_tokens_flag: str  # the flag that sets the largest captured prefill size
    opt_in_flag: Optional[str]  # graphs only with this flag (0.5.9 --enable-piecewise-cuda-graph)
    opt_out_flag: Optional[str]  # graphs unless this flag (0.5.10-0.5.13 --disable-piecewise-cuda-graph)
    backend_flag: Optional[str]  # graphs unless this flag is "disabled" (--cuda-graph-backend-prefill)
    capped_by_max_total_tokens: bool  # the default size is capped by --max-total-tokens
    capped_by_context: bool  # an explicit --context-length caps the size
    auto_off: Optional[Callable[..., bool]] = None  # (spec, args, algo, catalog) -> the release turns them off by itself


@dataclass(frozen=True)
class DsaScheme:
    """How a release builds and sizes DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5: ``is_deepseek_dsa``)."""

    attention_backend: str  # the --attention-backend DSA models default to ("nsa" before 0.5.13)
    # the DSA decode backend an FP8 KV cache picks on SM100 (trtllm keeps the raw MLA row, the others add block
    # scales); below SM100 FP8 picks flashmla, and a bf16 KV flashmla_sparse / fa3 (trtllm on SM100), in every release
    fp8_sm100_backend: str
    # layers that reuse the previous layer's top-k (dsa_layer_skips_topk) build no indexer and hold no index-K rows
    indexer_skips_shared_layers: bool
    index_kpool_pages: bool  # the page size is 64 x index_kpool (else 64)
    # the cell prices DSATokenToKVPool's FP8 row (block scales, bf16 rope: calculate_mla_kv_cache_dim); before 0.5.17
    # it prices kv_lora_rank + qk_rope_head_dim bytes, though the pool allocates the wider row
    cell_prices_fp8_row: bool
    # a rotary-interleaved indexer fuses wk and weights_proj into one bf16 projection (wk_weights_proj)
    fused_wk_weights_proj: bool
    # an MTP draft budgeted in the cell takes its share of the latent rows only, plus its own index rows (before
    # 0.5.18 the generic share of the whole cell, index rows included)
    draft_cell_splits_indexer: bool


@dataclass(frozen=True)
class Messages:
    """The exact texts the release raises or logs at startup (``None``: the release has no such check)."""

    not_enough_memory: str  # RuntimeError when the pool gets no tokens; may use {mfs!r}
    imbalance_min_name: str  # the first name in the TP memory imbalance RuntimeError
    kv_no_room: Optional[str]  # ValueError when weights leave nothing for the KV cache
    mamba_zero: Optional[str]  # RuntimeError when the mamba state cache gets no slot
    mamba_requests: Optional[str]  # RuntimeError when the mamba cache serves no request
    kv_pool_below_context: Optional[str]  # the warning when one full-length request cannot fit
    swa_pool_below_window: Optional[str]  # ValueError when the SWA pool cannot admit one request
    mamba_extra_buffer_without_radix: Optional[str] = None  # ValueError: extra_buffer with --disable-radix-cache
    mamba_speculation_needs_extra_buffer: Optional[str] = None  # ValueError: speculation + no_buffer + radix


@dataclass(frozen=True)
class SizingBehaviour:
    """One release's startup memory accounting, field by field (each names the code it stands for)."""

    # ---- argument resolution (server_args / arg_groups hooks)
    default_mem_fraction: Callable[..., float]  # the default --mem-fraction-static from the reserve formula
    mem_fraction_fallback: float  # that default when the card's memory is unknown
    decode_graph_reserve_always: bool  # that default prices decode graphs even when they are off
    draft_reserve_mib: int  # that default's flat EAGLE/MTP draft allowance (server_args era)
    mla_prefill_reserve_mib: Optional[float]  # that default's flat MLA prefill-graph price (None: per size)
    mid_memory_bucket: Tuple[int, int, int]  # 20-35 GiB cards: (chunked_prefill, graph max bs TP<4, TP>=4)
    decode_graph_bs_includes_max: bool  # the decode CUDA-graph batch list always ends at max_bs
    cuda_graph_max_bs_flags: Tuple[str, ...]  # the flags read for the decode graph max bs, first = its dest
    graph_bs_capped_by_max_running_requests: bool
    decode_graph_backend_flag: bool  # --cuda-graph-backend-decode disabled turns decode graphs off
    prefill_graphs: PrefillGraphScheme
    mla_prefill_graph_max_tokens: Callable[[int], int]  # chunked_prefill_size -> MLA prefill graph max tokens
    attn_dp_size_flag: bool  # --attn-dp-size sets the attention DP width directly
    # speculation keeps the overlap schedule only with SGLANG_ENABLE_SPEC_V2 (its default here); None: no such switch
    spec_v2_env_default: Optional[bool]
    gpt_oss_trtllm_mha_disables_hybrid_swa: bool
    # the --attention-backend values the Llama 4 check accepts, in its message's order (0.5.9 server_args.py:1462-1468,
    # 0.5.23 arg_groups/model_hook.py:624-631); any other is SGLang's AssertionError
    llama4_attention_backends: Tuple[str, ...]
    # models/glm4v.py builds the ViT blocks with num_dummy_heads (heads padded to a multiple of TP); 0.5.9 does not,
    # so a TP that does not divide the ViT's heads is distributed/utils.py divide's AssertionError
    glm4v_vision_pads_heads: bool
    # models/gemma3_causal.py: each attention builds get_rope (local and global base: two fp32 caches of
    # max_position rows); 0.5.9's classes rotate with inv_freq modules only (no cos_sin_cache)
    gemma3_rope_in_attention: bool
    # the pinned transformers (5.x) stores Gemma 3's RoPE per layer type, so the context length ignores the linear
    # rope factor (0.5.9's transformers 4.57: 131072 x 8 = 1048576 for the 4B, 0.5.23: 131072)
    gemma3_rope_per_layer_type: bool
    # configs/nemotron_h.py reads layers_block_type (a list) when hybrid_override_pattern is absent; 0.5.9 knows only
    # the pattern string and would build its default layer pattern instead
    nemotron_h_reads_layers_block_type: bool
    trtllm_mha_page_sizes: Tuple[int, ...]  # page sizes trtllm_mha keeps; any other becomes 64
    hybrid_sm100_model_overrides: bool  # SM100 GDN backend: trtllm_mha unless page 1 is needed
    mamba2_sm100_default_backend: Optional[str]  # SM100 Mamba2 backend when fixed (None: the model override)
    mamba_auto_picks_extra_buffer: bool  # strategy "auto" is extra_buffer where the arch allows it
    no_buffer_forces_page_one: bool  # no_buffer with the radix cache sets --page-size 1 itself
    resolve_mamba_strategy: Callable[..., Any]  # the hybrid-mamba radix cache strategy pass
    mamba_radix_archs: FrozenSet[str]  # hybrid archs whose radix cache goes through that pass
    mamba_extra_buffer_archs: FrozenSet[str]  # hybrid archs that support the extra_buffer strategy
    # ---- model build and weight load
    honours_language_model_only: bool  # a text-only launch of a VLM builds no vision tower
    quant_config_check: Callable[..., Any]  # (spec, args, sm) -> the quantization config's load-time error
    modelopt_fp4_min_sm: int  # ModelOptFp4Config.get_min_capability, checked when the model loads
    mxfp4_sm100_intermediate_pad: int  # GPT-OSS MXFP4 per-rank intermediate rounding on SM100
    weight_dtype_quirks: FrozenSet[str]  # names from WEIGHT_DTYPE_QUIRKS
    draft_loaded_before_sizing: bool  # the EAGLE/MTP draft is resident when the pool is profiled
    # ---- pool sizing
    draft_kv_in_fraction: bool  # the draft's KV layers are budgeted inside the target's cell
    hybrid_swa_ratio_cell: bool  # hybrid SWA: the cell weights SWA layers by the ratio
    swa_request_cap: bool  # SWARequestCapPoolConfigurator sizes the SWA pool by requests
    multimodal_runtime_reservation: bool  # the VLM embedding cache is taken before the pool
    # model_overrides/qwen3_vl.py: on an SM90+ card of 60 GiB or more these classes default to CUDA-IPC feature
    # transport with no embedding cache, and their decode graphs reach --max-running-requests (up to 512)
    large_hopper_vl_serving_archs: FrozenSet[str]
    dsa: DsaScheme  # DeepSeek Sparse Attention's defaults, indexer layers and KV layout
    # model_types that get_config reloads as another when AutoConfig refuses them (_load_deepseek_v32_model: a
    # deepseek_v32 config read as deepseek_v3 / DeepseekV3ForCausalLM)
    config_type_fallbacks: FrozenSet[str]
    mamba_split: Callable[..., Any]  # profile -> mamba slots and speculative states
    mamba_slots_per_request: Callable[..., int]
    mamba_skip_decode_lock_env: bool  # SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK takes a slot off
    mamba_padding_slots_after_sizing: bool  # the padding slot(s) are allocated outside the sized pool
    mamba_spec_states_follow_slots: bool  # pinned slots also cap the speculative states (capped requests)
    kv_tokens: Callable[..., Any]  # rest -> KV tokens (and the 0.5.9 request estimate)
    request_cap: Callable[..., Any]  # tokens -> max_running_requests and its warnings
    requests_per_worker_at_least_one: bool  # max(1, max_running_requests // attention-DP workers)
    asserts_max_req_input_len: bool  # tp_worker also asserts max_req_len - 5 > 0
    messages: Messages
