# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SGLang releases this collection knows, each one frozen object, in release order.

Everything that differs by release is here or in a generated data file this module names: the install pins
(``data/sglang-releases.json``, from each wheel's METADATA by ``scripts/gen_release_pins.py``), the flag catalog
(``data/sglang-flags-<V>.json``), the startup sizing behaviour (``budget/behaviour.py`` fields, read from that
release's source) and how a requested version maps onto a release. Nothing else in the collection compares
version strings.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, replace
from typing import Dict, Optional, Tuple

from .budget import profiles
from .budget.behaviour import (
    GLM4_MOE_GATE_MODEL_DTYPE,
    NEMOTRON_H_ROUTER_FLOAT32,
    WEIGHT_DTYPE_QUIRKS,
    DsaScheme,
    Messages,
    PrefillGraphScheme,
    SizingBehaviour,
)


DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
PINS_FILE = os.path.join(DATA_DIR, "sglang-releases.json")


@dataclass(frozen=True)
class InstallPins:
    """What the release's wheel pins (its METADATA), and the CUDA build of the torch wheel it pins."""

    wheel: str
    sha256: str
    requires_python: str
    python_tags: Tuple[str, ...]
    torch: str
    torch_cuda: str
    flashinfer: str
    flashinfer_extra: Optional[str]
    cuda_python: str
    kernel: str
    kernel_distribution: str
    transformers: str

    @property
    def python_min(self) -> str:
        """The lowest Python the wheel admits (``>=3.11`` -> ``3.11``)."""
        return self.requires_python.lstrip(">=").split(",", maxsplit=1)[0].strip()

    @property
    def cuda_major(self) -> str:
        return self.torch_cuda.split(".")[0]


def _load_pins() -> Dict[str, InstallPins]:
    with open(PINS_FILE, encoding="utf-8") as handle:
        data = json.load(handle)
    return {
        entry["version"]: InstallPins(
            wheel=entry["wheel"],
            sha256=entry["sha256"],
            requires_python=entry["requires_python"],
            python_tags=tuple(entry["python_tags"]),
            torch=entry["torch"],
            torch_cuda=entry["torch_cuda"],
            flashinfer=entry["flashinfer"],
            flashinfer_extra=entry["flashinfer_extra"],
            cuda_python=entry["cuda_python"],
            kernel=entry["sgl_kernel"],
            kernel_distribution=entry["sgl_kernel_distribution"],
            transformers=entry["transformers"],
        )
        for entry in data["releases"]
    }


@dataclass(frozen=True)
class SGLangRelease:
    """One SGLang release: its version, its wheel's pins, what its startup sizing does and how that was verified.

    ``sizing`` is ``None`` for a release whose flags and pins are known but whose startup sizing is not modelled
    yet; the budget engine then refuses it by name (or, when allowed, uses the nearest modelled release)."""

    version: str
    pins: InstallPins
    sizing: Optional[SizingBehaviour]
    # "oracle": the release's own sizing code was run on a case grid (tests/fixtures/oracle/sglang-<V>.json);
    # "source": the behaviour was read from the release's source and not yet run; None: not modelled
    verified_by: Optional[str]

    @property
    def flag_catalog_file(self) -> str:
        return os.path.join(DATA_DIR, f"sglang-flags-{self.version}.json")


# ---------------------------------------------------------------------------------------------------------------
# 0.5.9 (February 2026): ServerArgs.__post_init__ and ModelRunnerKVCacheMixin (wheel paths in budget/profiles.py)
# ---------------------------------------------------------------------------------------------------------------
_SIZING_0_5_9 = SizingBehaviour(
    default_mem_fraction=profiles.default_mem_fraction_server_args,
    mem_fraction_fallback=0.88,
    decode_graph_reserve_always=True,
    draft_reserve_mib=2 * 1024,
    mla_prefill_reserve_mib=None,
    mid_memory_bucket=(2048, 24, 80),
    decode_graph_bs_includes_max=False,
    cuda_graph_max_bs_flags=("cuda_graph_max_bs",),
    graph_bs_capped_by_max_running_requests=False,
    decode_graph_backend_flag=False,
    prefill_graphs=PrefillGraphScheme(
        max_tokens_flag="piecewise_cuda_graph_max_tokens",
        opt_in_flag="enable_piecewise_cuda_graph",
        opt_out_flag=None,
        backend_flag=None,
        capped_by_max_total_tokens=False,
        capped_by_context=False,
    ),
    mla_prefill_graph_max_tokens=profiles.mla_prefill_graph_tokens_2048,
    attn_dp_size_flag=False,
    spec_v2_env_default=False,  # environ.py SGLANG_ENABLE_SPEC_V2 = EnvBool(False)
    gpt_oss_trtllm_mha_disables_hybrid_swa=True,
    llama4_attention_backends=("fa3", "aiter", "triton", "trtllm_mha", "intel_xpu"),
    glm4v_vision_pads_heads=False,
    gemma3_rope_in_attention=False,  # models/gemma3_causal.py builds no get_rope (0.5.10 on: :210)
    nemotron_h_reads_layers_block_type=False,  # configs/nemotron_h.py: hybrid_override_pattern only
    gemma3_rope_per_layer_type=False,  # transformers 4.57.1 keeps rope_scaling
    trtllm_mha_page_sizes=(16, 32, 64),
    hybrid_sm100_model_overrides=False,
    mamba2_sm100_default_backend="flashinfer",
    mamba_auto_picks_extra_buffer=False,
    no_buffer_forces_page_one=False,
    resolve_mamba_strategy=profiles.mamba_strategy_server_args,
    # server_args.py:1548-1660: the archs whose radix cache goes through the strategy, and those with extra_buffer
    mamba_radix_archs=frozenset(
        {"Qwen3NextForCausalLM", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration", "NemotronHForCausalLM", "Lfm2ForCausalLM"}
    ),
    mamba_extra_buffer_archs=frozenset({"Qwen3NextForCausalLM", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"}),
    honours_language_model_only=False,
    quant_config_check=profiles.quant_check_modelopt_fp8_only,
    modelopt_fp4_min_sm=100,  # layers/quantization/modelopt_quant.py:952
    mxfp4_sm100_intermediate_pad=256,
    weight_dtype_quirks=WEIGHT_DTYPE_QUIRKS,
    draft_loaded_before_sizing=False,  # scheduler.py:563-565 builds the draft worker after the target's pools
    draft_kv_in_fraction=False,
    hybrid_swa_ratio_cell=False,
    swa_request_cap=False,
    multimodal_runtime_reservation=False,
    large_hopper_vl_serving_archs=frozenset(),
    # server_args.py _set_default_nsa_kv_cache_dtype / _set_default_nsa_backends (:1129-1180), page 64 (:1258),
    # model_runner_kv_cache_mixin.py:70-79 (an index-K row on every layer), nsa_indexer.py:181-203
    dsa=DsaScheme(
        attention_backend="nsa",
        fp8_sm100_backend="flashmla_kv",
        indexer_skips_shared_layers=False,
        index_kpool_pages=False,
        cell_prices_fp8_row=False,
        fused_wk_weights_proj=False,
        draft_cell_splits_indexer=False,
    ),
    config_type_fallbacks=frozenset({"deepseek_v32"}),  # utils/hf_transformers_utils.py:178-206, :318-323
    mamba_split=profiles.mamba_split_mixin,
    mamba_slots_per_request=profiles.mamba_slots_per_request_mixin,
    mamba_skip_decode_lock_env=False,
    mamba_padding_slots_after_sizing=True,
    mamba_spec_states_follow_slots=False,
    kv_tokens=profiles.kv_tokens_mixin,
    request_cap=profiles.request_cap_mixin,
    requests_per_worker_at_least_one=False,
    asserts_max_req_input_len=True,
    messages=Messages(
        not_enough_memory=("Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static={mfs!r}"),
        imbalance_min_name="min_per_gpu_memory",
        kv_no_room=None,
        mamba_zero=None,
        mamba_requests=None,
        kv_pool_below_context=None,
        swa_pool_below_window=None,
    ),
)

# ---------------------------------------------------------------------------------------------------------------
# 0.5.23 (October 2026): arg_groups hooks and KVCacheConfigurator (wheel paths in budget/profiles.py)
# ---------------------------------------------------------------------------------------------------------------
_HYBRID_EXTRA_BUFFER_0_5_18 = frozenset(
    {"Qwen3NextForCausalLM", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration", "NemotronHForCausalLM"}
)
_HYBRID_EXTRA_BUFFER_0_5_23 = frozenset(
    {
        "Qwen3NextForCausalLM",
        "Qwen3_5ForConditionalGeneration",
        "Qwen3_5MoeForConditionalGeneration",
        "Qwen3_5ForCausalLM",
        "Qwen3_5MoeForCausalLM",
        "NemotronHForCausalLM",
    }
)
_SIZING_0_5_23 = SizingBehaviour(
    default_mem_fraction=profiles.default_mem_fraction_memory_hook,
    mem_fraction_fallback=0.95,
    decode_graph_reserve_always=False,
    draft_reserve_mib=0,  # no draft allowance from 0.5.14
    mla_prefill_reserve_mib=1.5 * 1024,
    mid_memory_bucket=(4096, 48, 160),
    decode_graph_bs_includes_max=True,
    cuda_graph_max_bs_flags=("cuda_graph_max_bs_decode", "cuda_graph_max_bs"),
    graph_bs_capped_by_max_running_requests=True,  # memory_hook.py:182-188
    decode_graph_backend_flag=True,
    prefill_graphs=PrefillGraphScheme(
        max_tokens_flag="cuda_graph_max_bs_prefill",
        opt_in_flag=None,
        opt_out_flag=None,
        backend_flag="cuda_graph_backend_prefill",
        capped_by_max_total_tokens=True,
        capped_by_context=False,
        # arg_groups/cuda_graph_hook.py disable_breakable_cudagraph_if_incompatible (the same rules since 0.5.18)
        auto_off=profiles.breakable_graphs_auto_off(
            lora_and_dp_attention=False,
            validated_a2a=frozenset({"none", "deepep", "megamoe", "flashinfer"}),
            mla=False,
        ),
    ),
    mla_prefill_graph_max_tokens=profiles.mla_prefill_graph_tokens_chunk_upto_8192,
    attn_dp_size_flag=True,
    spec_v2_env_default=None,
    gpt_oss_trtllm_mha_disables_hybrid_swa=False,
    llama4_attention_backends=("fa3", "aiter", "triton", "ascend", "trtllm_mha", "intel_xpu"),  # ascend from 0.5.10
    glm4v_vision_pads_heads=True,  # from 0.5.10
    gemma3_rope_in_attention=True,  # models/gemma3_causal.py:218 get_rope per attention
    nemotron_h_reads_layers_block_type=True,  # configs/nemotron_h.py _resolve_layers_block_type
    gemma3_rope_per_layer_type=True,  # transformers 5.x Gemma3TextConfig rope_parameters
    trtllm_mha_page_sizes=(16, 32, 64, 128),
    hybrid_sm100_model_overrides=True,  # model_overrides/qwen3_5.py
    mamba2_sm100_default_backend=None,  # model_overrides/nemotron_h.py
    mamba_auto_picks_extra_buffer=True,
    no_buffer_forces_page_one=False,  # the hooks' validators refuse it instead
    resolve_mamba_strategy=profiles.mamba_strategy_hooks,
    mamba_radix_archs=_HYBRID_EXTRA_BUFFER_0_5_23,  # every hybrid arch goes through the hooks' strategy pass
    mamba_extra_buffer_archs=_HYBRID_EXTRA_BUFFER_0_5_23,
    honours_language_model_only=True,  # configs/model_config.py is_lm_only
    quant_config_check=profiles.quant_check_mixed_by_layers,
    modelopt_fp4_min_sm=80,  # layers/quantization/modelopt_quant.py:1549
    mxfp4_sm100_intermediate_pad=128,
    weight_dtype_quirks=frozenset(),
    draft_loaded_before_sizing=True,
    draft_kv_in_fraction=True,  # pool_configurator.py:259-314
    hybrid_swa_ratio_cell=True,
    swa_request_cap=True,  # SWARequestCapPoolConfigurator
    multimodal_runtime_reservation=True,  # kv_cache_configurator.py mm_runtime_reservation_gb
    large_hopper_vl_serving_archs=frozenset({"Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration"}),
    # arg_groups/overrides.py _dsa_kv_cache_dtype_default / _dsa_split_backend_resolution, model_overrides/
    # deepseek_v2.py (page 64 x index_kpool), pool_configurator.py _compute_dsa_indexer_cell_size, models/
    # deepseek_v2.py (an Indexer only where the layer computes its own top-k), dsa/dsa_indexer.py wk_weights_proj
    dsa=DsaScheme(
        attention_backend="dsa",
        fp8_sm100_backend="trtllm",
        indexer_skips_shared_layers=True,
        index_kpool_pages=True,
        cell_prices_fp8_row=True,
        fused_wk_weights_proj=True,
        draft_cell_splits_indexer=True,  # pool_configurator.py:275-309 (new in 0.5.18)
    ),
    config_type_fallbacks=frozenset(),  # deepseek_v32 is a registered alias (utils/hf_transformers/common.py)
    mamba_split=profiles.mamba_split_configurator,
    mamba_slots_per_request=profiles.mamba_slots_per_request_configurator,
    mamba_skip_decode_lock_env=True,  # environ.py (0.5.17 :982)
    mamba_padding_slots_after_sizing=False,
    mamba_spec_states_follow_slots=True,
    kv_tokens=profiles.kv_tokens_configurator,
    request_cap=profiles.request_cap_configurator,
    requests_per_worker_at_least_one=True,
    asserts_max_req_input_len=False,
    messages=Messages(
        not_enough_memory="Not enough memory. Please try to increase --mem-fraction-static.",
        imbalance_min_name="pre_model_load_memory",
        kv_no_room=(
            "Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static={mfs}. "
            "Raise --mem-fraction-static above {sugg:.3f} (minimum viable = 1 - available/pre = "
            "{minv:.4f}). If using speculative decoding, draft weights are now counted."
        ),
        mamba_zero=(
            "Not enough GPU memory for hybrid (mamba/linear-attention) state cache. Computed "
            "max_mamba_cache_size={k} (total_rest_memory={rest:.2f} GB, mamba_cache_per_req={mb:.2f} MB). "
            "Try: (1) reduce --max-running-requests, (2) increase --mem-fraction-static, "
            "(3) reduce --speculative-num-draft-tokens, or (4) use GPUs with more memory."
        ),
        mamba_requests=(
            "Hybrid (mamba/linear-attention) state cache is too small to serve any requests. "
            "max_mamba_cache_size={k}, mamba_ratio={ratio}, resulting max_num_reqs={n}. "
            "Try: (1) reduce --max-running-requests, (2) increase --mem-fraction-static, or "
            "(3) use GPUs with more memory."
        ),
        # managers/tp_worker.py:558-567
        kv_pool_below_context=(
            "KV pool holds {tokens} tokens, fewer than --context-length {context}. One "
            "full-length request cannot fit, so long requests will be refused or truncated at "
            "serving time. Lower --context-length, raise --mem-fraction-static, or free memory "
            "taken before the pool is sized."
        ),
        swa_pool_below_window=(
            "SWA pool ({swa} tokens) cannot hold even one request: the prefill admission floor "
            "is sliding_window_size ({window}) + page_size ({page}). Increase "
            "--swa-full-tokens-ratio or the total KV budget."
        ),
    ),
)

# ---------------------------------------------------------------------------------------------------------------
# Releases between them, each its successor's behaviour with what scripts/release_diff.py shows changed
# ---------------------------------------------------------------------------------------------------------------
# 0.5.22: MLA prefill graphs capture 2048 tokens (arg_groups/memory_hook.py:236-240); max_running_requests per
# attention-DP worker is not floored at 1 (mem_cache/kv_cache_configurator.py:2910 _handle_max_mamba_cache,
# :2800 resolve_max_num_reqs); tp_worker.py has no KV-below-context warning (0.5.23 tp_worker.py:558-567).
_SIZING_0_5_22 = replace(
    _SIZING_0_5_23,
    mla_prefill_graph_max_tokens=profiles.mla_prefill_graph_tokens_2048,
    requests_per_worker_at_least_one=False,
    messages=replace(_SIZING_0_5_23.messages, kv_pool_below_context=None),
)
# 0.5.21: the default decode graph max bs is not capped by --max-running-requests (added at 0.5.22
# memory_hook.py:186-188), and there is no --attn-dp-size (the DP-attention reserve reads dp_size).
_SIZING_0_5_21 = replace(
    _SIZING_0_5_22,
    graph_bs_capped_by_max_running_requests=False,
    attn_dp_size_flag=False,
    dsa=replace(_SIZING_0_5_22.dsa, index_kpool_pages=False),  # the 64 x index_kpool page is new in 0.5.22
)
# 0.5.20 sizes as 0.5.21: the SWA pool sized from the request cap is SWAChunkCapPoolConfigurator there (0.5.20
# model_executor/pool_configurator.py:799, the same formula inline; 0.5.21 moves it to compute_swa_request_cap),
# and the rest of the diff is the ps.* -> self.* refactor.
# 0.5.19: 20-35 GiB cards get chunked prefill 2048 and decode graphs up to 24 (80 from TP 4), and the default
# fraction without a card size is 0.88 (arg_groups/memory_hook.py handle_gpu_memory_settings, changed in 0.5.20);
# model_overrides/qwen3_vl.py has no large-Hopper serving defaults before 0.5.20.
_SIZING_0_5_19 = replace(_SIZING_0_5_21, mid_memory_bucket=(2048, 24, 80), mem_fraction_fallback=0.88, large_hopper_vl_serving_archs=frozenset())
# 0.5.18: Glm4MoeGate keeps the model dtype (float32 from 0.5.19, models/glm4_moe.py), and the text-only
# Qwen3.5 classes have no extra_buffer (arg_groups/overrides.py _MAMBA_EXTRA_BUFFER_ARCHS gains
# Qwen3_5ForCausalLM / Qwen3_5MoeForCausalLM in 0.5.19).
_SIZING_0_5_18 = replace(
    _SIZING_0_5_19,
    weight_dtype_quirks=frozenset({GLM4_MOE_GATE_MODEL_DTYPE}),
    mamba_radix_archs=_HYBRID_EXTRA_BUFFER_0_5_18,
    mamba_extra_buffer_archs=_HYBRID_EXTRA_BUFFER_0_5_18,
)
# 0.5.17: no multimodal runtime reservation before the pool (kv_cache_configurator.py mm_runtime_reservation_gb,
# new in 0.5.18 :130) and no --language-model-only.
_SIZING_0_5_17 = replace(
    _SIZING_0_5_18,
    # every DSA layer builds an indexer and an index-K row (the shared-top-k skip is new in 0.5.18)
    dsa=replace(_SIZING_0_5_18.dsa, indexer_skips_shared_layers=False, draft_cell_splits_indexer=False),
    multimodal_runtime_reservation=False,
    honours_language_model_only=False,
    # server_args.py _disable_breakable_cudagraph_if_incompatible: MLA (but DSA) and Nemotron-H's hybrid Mamba2
    # prefill have no breakable prefill graphs (both rules are gone in 0.5.18)
    prefill_graphs=replace(
        _SIZING_0_5_18.prefill_graphs,
        auto_off=profiles.breakable_graphs_auto_off(
            lora_and_dp_attention=False,
            nemotron_h=True,
            validated_a2a=frozenset({"none", "deepep", "megamoe", "flashinfer"}),
        ),
    ),
)
# 0.5.16: its default prefill graphs are breakable and off for MLA, DP attention, LoRA and the multimodal models
# not validated for them (server_args.py:3648-3814; the MLA rule is gone in 0.5.17); an explicit
# --context-length caps the prefill graph tokens (server_args.py:4039-4045), trtllm_mha keeps
# pages of 16/32/64 only, SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK does not exist, the mamba split has no padding slot
# (kv_cache_configurator.py:1703-1812), and the FlashInfer MXFP4 MoE pads the per-rank intermediate to 256.
_SIZING_0_5_16 = replace(
    _SIZING_0_5_17,
    dsa=replace(_SIZING_0_5_17.dsa, cell_prices_fp8_row=False),  # pool_configurator.py prices kv_lora + rope bytes
    prefill_graphs=replace(
        _SIZING_0_5_17.prefill_graphs,
        capped_by_context=True,
        auto_off=profiles.breakable_graphs_auto_off(),
    ),
    trtllm_mha_page_sizes=(16, 32, 64),
    mamba_skip_decode_lock_env=False,
    mamba_split=profiles.mamba_split_joint_unpadded,
    mxfp4_sm100_intermediate_pad=256,
)  # layers/quantization/mxfp4.py create_weights: 128 from 0.5.17
# 0.5.15: the same accounting in ModelRunnerKVCacheMixin (model_executor/model_runner_kv_cache_mixin.py:104-245,
# :1196-1323) and pool_configurator.py (SWAChunkCapPoolConfigurator :401 is the SWA request cap), without the SWA
# admission-floor ValueError (new in 0.5.16).
_SIZING_0_5_15 = replace(
    _SIZING_0_5_16,
    messages=replace(_SIZING_0_5_16.messages, swa_pool_below_window=None),
    prefill_graphs=replace(_SIZING_0_5_16.prefill_graphs, auto_off=profiles.breakable_graphs_auto_off()),
)  # its catalog allowlists no multimodal model
# 0.5.14: ModelOpt MIXED_PRECISION always loads as w4afp8 (the NVFP4-layer check is new in 0.5.15,
# configs/model_config.py:1155); the default fraction prices the decode graphs even when they are not captured
# (server_args.py:3284-3285;
# 0.5.15 reserve_for_graph_mb skips them when the decode backend is DISABLED), and the default prefill backend is
# tc_piecewise (model_executor/cuda_graph_config.py:91) with its own rules (server_args.py:2997-3060).
_SIZING_0_5_14 = replace(
    _SIZING_0_5_15,
    # FP8 DSA KV on SM100 decodes with flashmla_kv (trtllm from 0.5.15), and wk / weights_proj stay apart
    dsa=replace(_SIZING_0_5_15.dsa, fp8_sm100_backend="flashmla_kv", fused_wk_weights_proj=False),
    decode_graph_reserve_always=True,
    quant_config_check=profiles.quant_check_mixed_as_w4afp8,
    prefill_graphs=replace(
        _SIZING_0_5_15.prefill_graphs,
        auto_off=profiles.piecewise_graphs_auto_off(
            frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "Qwen3NextForCausalLM", "BailingMoeV2_5ForCausalLM", "LLaDAModelLM"}),
            with_speculation=False,
        ),
    ),
)

# ---------------------------------------------------------------------------------------------------------------
# 0.5.10-0.5.13: ServerArgs.__post_init__ and ModelRunnerKVCacheMixin again, with piecewise prefill graphs on by
# default (wheel paths are the release's own)
# ---------------------------------------------------------------------------------------------------------------
# 0.5.13, against 0.5.14: the default fraction is server_args.py _handle_gpu_memory_settings (:1444-1650: piecewise
# graphs priced unless off, MLA 1.5 GiB, then a 4 GiB draft allowance after the floor) and
# _handle_piecewise_cuda_graph turns them off for multimodal models, torch.compile, DP attention and more (:1078);
# SGLANG_ENABLE_SPEC_V2 defaults to True (environ.py:620); _handle_mamba_radix_cache (:2664-2760) keeps no_buffer
# for "auto", takes page 1 and refuses speculation with the radix cache; the Qwen3.5 SM100 branch (:2505-2535) picks
# trtllm_mha unless no_buffer keeps the radix cache; NemotronH keeps flashinfer on SM100 (nemotron_h_hook.py); the
# draft is built after the target's pools (no draft KV in the cell, no KV-no-room check); the hybrid SWA cell is
# ratio-weighted (pool_configurator.py HybridSWAPoolConfigurator) with no request cap; _resolve_max_num_reqs
# (model_runner_kv_cache_mixin.py:876-906) bounds an explicit --max-running-requests by the 2048-4096 estimate;
# tp_worker still asserts max_req_input_len; the MXFP4 MoE pads to 256.
_SIZING_0_5_13 = replace(
    _SIZING_0_5_14,
    default_mem_fraction=profiles.default_mem_fraction_server_args,
    mem_fraction_fallback=0.88,
    decode_graph_reserve_always=True,
    draft_reserve_mib=4 * 1024,
    mla_prefill_reserve_mib=1.5 * 1024,
    cuda_graph_max_bs_flags=("cuda_graph_max_bs",),
    decode_graph_backend_flag=False,
    prefill_graphs=PrefillGraphScheme(
        max_tokens_flag="piecewise_cuda_graph_max_tokens",
        opt_in_flag=None,
        opt_out_flag="disable_piecewise_cuda_graph",
        backend_flag=None,
        capped_by_max_total_tokens=True,
        capped_by_context=True,
        # configs/model_config.py piecewise_cuda_graph_disabled_model_archs
        auto_off=profiles.piecewise_graphs_auto_off(
            frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "Qwen3NextForCausalLM", "BailingMoeV2_5ForCausalLM", "LLaDAModelLM"}),
            with_speculation=False,
        ),
    ),
    spec_v2_env_default=True,
    resolve_mamba_strategy=profiles.mamba_strategy_server_args_checked,
    # nemotron_h_hook.py:58-62 passes no support_mamba_cache_extra_buffer=False any more (0.5.12 :42-46 did)
    mamba_radix_archs=_SIZING_0_5_9.mamba_radix_archs,
    mamba_extra_buffer_archs=_HYBRID_EXTRA_BUFFER_0_5_18,
    mamba_auto_picks_extra_buffer=False,
    no_buffer_forces_page_one=True,
    mamba2_sm100_default_backend="flashinfer",
    draft_loaded_before_sizing=False,
    draft_kv_in_fraction=False,
    swa_request_cap=False,
    mamba_spec_states_follow_slots=True,
    request_cap=profiles.request_cap_estimate_bounded,
    asserts_max_req_input_len=True,
    mxfp4_sm100_intermediate_pad=256,
    messages=replace(
        _SIZING_0_5_14.messages,
        kv_no_room=None,
        mamba_extra_buffer_without_radix=(
            "mamba extra_buffer is not compatible with --disable-radix-cache. Overlap scheduling is already "
            "supported with no_buffer + disable_radix_cache. Please use --mamba-scheduler-strategy no_buffer instead."
        ),
        mamba_speculation_needs_extra_buffer=(
            "Speculative decoding for {arch} is not compatible with radix cache when using "
            "--mamba-scheduler-strategy no_buffer.To use radix cache with speculative decoding, please use "
            "--mamba-scheduler-strategy extra_buffer and set SGLANG_ENABLE_SPEC_V2=1."
        ),
    ),
)
# 0.5.12: the mamba split is 0.5.9's (model_runner_kv_cache_mixin.py handle_max_mamba_cache: the speculative states
# for every request first, then the ratio's slots), with no slot-count errors; no extra_buffer_lazy; the prefill
# graphs are not capped by --context-length; the Nemotron-H router is float32 and Nemotron-H has no extra_buffer
# (arg_groups/nemotron_h_hook.py:42-46); the extra_buffer refusal has no full stop after "--disable-radix-cache"
# (server_args.py:2398 in 0.5.11).
_SIZING_0_5_12 = replace(
    _SIZING_0_5_13,
    modelopt_fp4_min_sm=100,  # ModelOptFp4Config.get_min_capability: 80 from 0.5.13
    dsa=replace(_SIZING_0_5_13.dsa, attention_backend="nsa"),  # renamed dsa (and --dsa-*-backend) in 0.5.13
    prefill_graphs=replace(
        _SIZING_0_5_13.prefill_graphs,
        capped_by_context=False,
        auto_off=profiles.piecewise_graphs_auto_off(
            frozenset(
                {
                    "DeepseekV32ForCausalLM",
                    "DeepseekV4ForCausalLM",
                    "DeepseekV4ForCausalLMNextN",
                    "Qwen3NextForCausalLM",
                    "GlmMoeDsaForCausalLM",
                    "BailingMoeV2_5ForCausalLM",
                    "LLaDAModelLM",
                }
            ),
            with_speculation=False,
        ),
    ),
    mamba_split=profiles.mamba_split_mixin,
    mamba_spec_states_follow_slots=False,
    mamba_extra_buffer_archs=_SIZING_0_5_9.mamba_extra_buffer_archs,
    weight_dtype_quirks=frozenset({GLM4_MOE_GATE_MODEL_DTYPE, NEMOTRON_H_ROUTER_FLOAT32}),
    messages=replace(
        _SIZING_0_5_13.messages,
        mamba_zero=None,
        mamba_requests=None,
        mamba_extra_buffer_without_radix=(
            "mamba extra_buffer is not compatible with --disable-radix-cache Overlap scheduling is already "
            "supported with no_buffer + disable_radix_cache. Please use --mamba-scheduler-strategy no_buffer instead."
        ),
    ),
)
# 0.5.11: no DeepSeek-V4 classes among the piecewise-disabled archs (configs/model_config.py).
_SIZING_0_5_11 = replace(
    _SIZING_0_5_12,
    # utils/hf_transformers/common.py _load_deepseek_v32_model (a registered alias from 0.5.12)
    config_type_fallbacks=frozenset({"deepseek_v32"}),
    prefill_graphs=replace(
        _SIZING_0_5_12.prefill_graphs,
        auto_off=profiles.piecewise_graphs_auto_off(
            frozenset({"DeepseekV32ForCausalLM", "Qwen3NextForCausalLM", "GlmMoeDsaForCausalLM", "BailingMoeV2_5ForCausalLM", "LLaDAModelLM"}),
            with_speculation=False,
        ),
    ),
)
# 0.5.10: speculative decoding turns the piecewise graphs off too (server_args.py:1089), SGLANG_ENABLE_SPEC_V2
# defaults to False, no_buffer keeps the page size, the hybrid SWA pool is split from a full-size cell
# (model_runner_kv_cache_mixin.py:286-372 _resolve_hybrid_swa_tokens), and "Not enough memory" carries the
# fraction (MemoryPoolConfig is built with it, :45-61, :885-891).
_SIZING_0_5_10 = replace(
    _SIZING_0_5_11,
    prefill_graphs=replace(
        _SIZING_0_5_11.prefill_graphs,
        auto_off=profiles.piecewise_graphs_auto_off(
            frozenset({"DeepseekV32ForCausalLM", "Qwen3NextForCausalLM", "GlmMoeDsaForCausalLM", "BailingMoeV2_5ForCausalLM", "LLaDAModelLM"}),
            with_speculation=True,
        ),
    ),
    spec_v2_env_default=False,
    no_buffer_forces_page_one=False,
    hybrid_swa_ratio_cell=False,
    messages=replace(
        _SIZING_0_5_11.messages, not_enough_memory=("Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static={mfs}")
    ),
)

_PINS = _load_pins()
# (version, sizing, verified_by), in release order; every release here has its pins and its flag catalog.
_REGISTRY = (
    ("0.5.9", _SIZING_0_5_9, "oracle"),
    ("0.5.10", _SIZING_0_5_10, "oracle"),
    ("0.5.10.post1", _SIZING_0_5_10, "oracle"),
    ("0.5.11", _SIZING_0_5_11, "oracle"),
    ("0.5.12", _SIZING_0_5_12, "oracle"),
    ("0.5.12.post1", _SIZING_0_5_12, "oracle"),
    ("0.5.13", _SIZING_0_5_13, "oracle"),
    ("0.5.13.post1", _SIZING_0_5_13, "oracle"),
    ("0.5.14", _SIZING_0_5_14, "oracle"),
    ("0.5.15", _SIZING_0_5_15, "oracle"),
    ("0.5.15.post1", _SIZING_0_5_15, "oracle"),
    ("0.5.16", _SIZING_0_5_16, "oracle"),
    ("0.5.17", _SIZING_0_5_17, "oracle"),
    ("0.5.18", _SIZING_0_5_18, "oracle"),
    ("0.5.19", _SIZING_0_5_19, "oracle"),
    ("0.5.20", _SIZING_0_5_21, "oracle"),
    ("0.5.21", _SIZING_0_5_21, "oracle"),
    ("0.5.22", _SIZING_0_5_22, "oracle"),
    ("0.5.23", _SIZING_0_5_23, "oracle"),
)
RELEASES: Dict[str, SGLangRelease] = {version: SGLangRelease(version, _PINS[version], sizing, verified_by) for version, sizing, verified_by in _REGISTRY}
SUPPORTED_VERSIONS: Tuple[str, ...] = tuple(RELEASES)
SIZED_VERSIONS: Tuple[str, ...] = tuple(v for v, release in RELEASES.items() if release.sizing is not None)


# ---------------------------------------------------------------------------------------------------------------
# Resolution of a requested version
# ---------------------------------------------------------------------------------------------------------------
_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:\.post(\d+))?$")


class UnsupportedVersionError(ValueError):
    """A requested SGLang version is not in the registry and no nearest release was allowed."""


@dataclass(frozen=True)
class ResolvedRelease:
    """The registry's release for a requested SGLang version."""

    requested: str
    release: SGLangRelease

    @property
    def confidence(self) -> str:
        """``exact`` when the requested release is in the registry, ``nearest`` otherwise."""
        return "exact" if self.requested == self.release.version else "nearest"


def parse_version(version: str) -> Tuple[int, int, int, int]:
    """(major, minor, patch, post) of an SGLang version string such as ``0.5.9`` or ``v0.5.10.post1``."""
    match = _VERSION_RE.match(str(version).strip())
    if not match:
        raise UnsupportedVersionError(
            f"sglang_version {version!r} is not a version string; expected MAJOR.MINOR.PATCH[.postN] such as "
            f"{SUPPORTED_VERSIONS[-1]!r} (supported: {', '.join(SUPPORTED_VERSIONS)})"
        )
    return tuple(int(g or 0) for g in match.groups())  # type: ignore[return-value]


def nearest_release(version: str, sized: bool = False) -> SGLangRelease:
    """The registry release closest to ``version`` (only those with modelled sizing when ``sized``): the oldest for
    an older version, the newest for a newer one, else the closest patch and post release (of two equally close,
    the older)."""
    wanted = parse_version(version)
    candidates = [r for r in RELEASES.values() if r.sizing is not None or not sized]
    if wanted <= parse_version(candidates[0].version):
        return candidates[0]
    if wanted >= parse_version(candidates[-1].version):
        return candidates[-1]

    def distance(release: SGLangRelease) -> Tuple[Tuple[int, ...], Tuple[int, int, int, int]]:
        have = parse_version(release.version)
        return tuple(abs(a - b) for a, b in zip(have, wanted)), have

    return min(candidates, key=distance)


def resolve_release(requested: str, allow_nearest: bool = False, sized: bool = False) -> ResolvedRelease:
    """Map ``requested`` onto a registry release, or fail naming the supported list and the fix.

    ``sized``: the caller needs the startup sizing (the budget engine); a known release without it counts as
    missing, with its own message."""
    requested = str(requested).strip().lstrip("v")
    known = RELEASES.get(requested)
    if known is not None and (known.sizing is not None or not sized):
        return ResolvedRelease(requested, known)
    nearest = nearest_release(requested, sized=sized)
    if allow_nearest:
        return ResolvedRelease(requested, nearest)
    if known is not None:
        raise UnsupportedVersionError(
            f"SGLang {requested}'s startup memory sizing is not modelled yet (modelled: {', '.join(SIZED_VERSIONS)}); "
            f"its flags and install pins are known. Allow the nearest modelled release ({nearest.version}) "
            f"explicitly and accept a lower confidence, or pin a modelled release"
        )
    raise UnsupportedVersionError(
        f"sglang_version {requested!r} is not a release llmops.sglang knows (supported: "
        f"{', '.join(SUPPORTED_VERSIONS)}); pin one of those, or allow the nearest release ({nearest.version}) "
        f"explicitly and accept a lower confidence"
    )


def with_behaviour(release: SGLangRelease, **changes) -> SGLangRelease:
    """A copy of ``release`` with some sizing fields changed (the next release is mostly its predecessor)."""
    return replace(release, sizing=replace(release.sizing, **changes))
