# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which classes the budget predicts per SGLang release: verified, generic, or refused by name.

The release catalogs (``plugins/plugin_utils/data/sglang-archs-<V>.json``) are generated from the real wheels by
``scripts/gen_arch_catalog.py``; the configs are real ones from ``tests/fixtures/model-configs`` (SOURCES.md)."""

import json
from pathlib import Path

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import evaluate
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.errors import BudgetInputError
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.model_spec import build_model_spec
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.architectures import VERIFIED, non_generic_keys, release_architectures, resolve_architecture
from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import SUPPORTED_VERSIONS, resolve_release

CONFIGS = Path(__file__).resolve().parents[3] / "fixtures" / "model-configs"
H100 = {"name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559}


def config(name):
    return json.loads((CONFIGS / name / "config.json").read_text())


def release(version):
    return resolve_release(version).release


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_every_registry_release_has_a_catalog_of_its_wheel(version):
    catalog = release_architectures(version)
    data = json.loads((Path(__file__).resolve().parents[4] / "plugins" / "plugin_utils" / "data" / f"sglang-archs-{version}.json").read_text())
    assert data["wheel_filename"].startswith(f"sglang-{version}-") and len(data["wheel_sha256"]) == 64
    assert len(catalog.entry_classes) == data["entry_class_count"] > 150
    # every verified class is a class of the newest release
    if version == SUPPORTED_VERSIONS[-1]:
        assert set(VERIFIED) <= set(catalog.entry_classes)


def test_catalog_spot_values_read_from_the_wheels_by_hand():
    """Read by hand from the wheels, so a wrong generator cannot hide behind its own output."""
    new, old = release_architectures("0.5.23"), release_architectures("0.5.9")
    assert new.entry_classes["MixtralForCausalLM"] == "models/mixtral.py"
    assert new.entry_classes["Phi3ForCausalLM"] == "models/llama.py"  # llama.py EntryClass list
    assert "Gemma4ForConditionalGeneration" in new.entry_classes and "Gemma4ForConditionalGeneration" not in old.entry_classes
    # configs/model_config.py is_hybrid_swa_model lists Llama 4; _derive_model_shapes the MLA classes
    assert any(w.startswith("configs/model_config.py:") for w in new.special_cased["Llama4ForConditionalGeneration"])
    assert any(w.startswith("configs/model_config.py:") for w in new.special_cased["DeepseekV32ForCausalLM"])
    # 0.5.9 server_args.py picks the attention backend for Gemma 2 by name
    assert "server_args.py:ServerArgs" in old.special_cased["Gemma2ForCausalLM"]
    assert new.config_model_types["falcon_h1"].startswith("configs/falcon_h1.py:")
    # config types are the registered ones: get_config's _CONFIG_REGISTRY classes (JetNemotronConfig annotates its
    # model_type), its aliases (kimi_k2), and what configs/ modules register at import (lfm2's CONFIG_MAPPING
    # _extra_content, inkling's loop over {model_type: class}); InternVL's InternLM2Config is only defined
    assert old.config_model_types["jet_nemotron"] == "configs/jet_nemotron.py:JetNemotronConfig"
    assert old.config_model_types["lfm2"] == "configs/lfm2.py:Lfm2Config"
    assert new.config_model_types["kimi_k2"] == "utils/hf_transformers/common.py:_CONFIG_REGISTRY"
    assert new.config_model_types["inkling_model"] == "configs/inkling.py:InklingModelConfig"
    assert "internlm2" not in old.config_model_types and "internlm2" not in new.config_model_types
    # cosmos3_omni: a plain AutoConfig.register of a type transformers 5.19 ships raises, so SGLang's class loses;
    # cohere2_moe: the same raise, then its except branch writes CONFIG_MAPPING._extra_content, which wins
    assert "cosmos3_omni" not in new.config_model_types and new.config_model_types["cohere2_moe"] == "configs/cohere2_moe.py:Cohere2MoeConfig"


def test_verified_class_resolves_as_verified():
    got = resolve_architecture("MixtralForCausalLM", config("mistralai__Mixtral-8x7B-v0.1"), release("0.5.23"))
    assert got.support == "verified" and got.sglang_module == "models/mixtral.py"


def test_a_standard_unverified_class_is_generic_and_names_its_fields():
    cfg = config("nvidia__Llama-3_3-Nemotron-Super-49B-v1")
    cfg = {k: v for k, v in cfg.items() if k != "block_configs"}
    cfg["architectures"] = ["OrionForCausalLM"]
    got = resolve_architecture("OrionForCausalLM", cfg, release("0.5.23"))
    assert got.support == "generic" and "hidden_size" in got.fields_used and "num_key_value_heads" in got.fields_used


def test_a_class_sglang_special_cases_is_refused_by_name_with_where():
    with pytest.raises(BudgetInputError) as exc:
        resolve_architecture("DeepseekV4ForCausalLM", config("deepseek-ai__DeepSeek-V4-Flash"), release("0.5.23"))
    assert exc.value.field == "model.config.architectures"
    assert "DeepseekV4ForCausalLM" in str(exc.value) and "configs/model_config.py" in str(exc.value)


def test_a_config_with_state_space_fields_is_not_predicted_generically():
    cfg = dict(config("nvidia__Llama-3_3-Nemotron-Super-49B-v1"))  # DeciLM: per-layer block_configs
    assert "block_configs" in non_generic_keys(cfg)
    with pytest.raises(BudgetInputError, match="block_configs"):
        resolve_architecture("DeciLMForCausalLM", cfg, release("0.5.23"))
    assert non_generic_keys({"layer_types": ["full_attention", "sliding_attention"]}) == ()
    assert non_generic_keys({"layer_types": ["conv", "full_attention"]}) == ("layer_types",)


def test_a_class_the_pinned_release_lacks_names_the_first_release_with_it():
    with pytest.raises(BudgetInputError) as exc:
        evaluate({"config": config("deepseek-ai__DeepSeek-V4-Flash")}, [H100] * 8, {"tp_size": 8}, "0.5.9")
    assert "DeepseekV4ForCausalLM is not a model class of SGLang 0.5.9" in str(exc.value)
    assert "is the first release that has it" in str(exc.value)


def test_an_unknown_class_is_refused_with_the_verified_list():
    with pytest.raises(BudgetInputError) as exc:
        evaluate({"config": dict(config("meta-llama__Llama-3.1-8B-Instruct"), architectures=["NoSuchForCausalLM"])}, [H100], {}, "0.5.23")
    assert "Transformers backend" in str(exc.value) and "MixtralForCausalLM" in str(exc.value)


def test_mixtral_8x7b_on_two_h100_gets_a_verdict_and_numbers():
    """Issue 13's acceptance case: Mixtral-8x7B-Instruct on 2x H100, TP 2 (the v0.1 base config: same shapes)."""
    res = evaluate({"config": config("mistralai__Mixtral-8x7B-v0.1")}, [H100] * 2, {"tp_size": 2}, "0.5.23")
    assert res["verdict"] in ("fits", "degraded") and res["architecture"]["support"] == "verified"
    assert res["confidence"] == "exact" and res["budget"]["totals"]["max_total_num_tokens"] > 100_000
    # 46.7 B parameters in BF16 over two GPUs
    assert 42 < res["budget"]["per_gpu"][0]["weights_gib"] < 45


def test_a_generic_prediction_says_so_in_confidence_and_warnings():
    # Orion ships its config class as remote code (auto_map), so it loads with --trust-remote-code
    cfg = dict(
        config("meta-llama__Llama-3.1-8B-Instruct"),
        architectures=["OrionForCausalLM"],
        model_type="orion",
        auto_map={"AutoConfig": "configuration_orion.OrionConfig"},
    )
    res = evaluate({"config": cfg}, [H100], {"trust_remote_code": True}, "0.5.23")
    assert res["confidence"] == "generic" and res["architecture"]["support"] == "generic"
    assert any(w["id"] == "generic_architecture" for w in res["warnings"])
    assert res["budget"]["totals"]["max_total_num_tokens"] > 0


def test_gemma3_embedding_is_whole_on_every_rank_and_its_rope_caches_follow_the_release():
    """models/gemma3_causal.py: Gemma3TextScaledWordEmbedding is an nn.Embedding (not split, not padded); from
    0.5.10 each attention builds get_rope with the local and the global base (two unscaled fp32 caches)."""
    from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.weights import rope_caches, target_linears

    cfg = config("Creekside__gemma-3")  # gemma-3-4b's text config: vocab 262208, linear x8
    spec = build_model_spec(cfg)
    embed = next(r for r in target_linears(spec, tp=2) if r.name == "embed_tokens")
    assert embed.out == cfg["vocab_size"] and spec.tie_embeddings
    assert rope_caches(spec, release("0.5.23")) == [(131072, 256 * 4)] * 2  # the x8 factor is not applied
    assert rope_caches(spec, release("0.5.10")) == [(131072, 256 * 4)] * 2
    assert rope_caches(spec, release("0.5.9")) == []


@pytest.mark.parametrize(
    "change, field",
    [
        ({"num_experts_per_tok": 9}, "num_experts_per_tok"),  # Mixtral has 8 experts
        ({"layer_types": ["full_attention"] * 4}, "layer_types"),  # 32 layers
        ({"num_attention_heads": 31, "num_key_value_heads": 1}, "num_attention_heads"),  # 4096 / 31, no head_dim
    ],
)
def test_fields_that_contradict_each_other_are_refused_by_name(change, field):
    cfg = dict(config("mistralai__Mixtral-8x7B-v0.1"), **change)
    cfg.pop("head_dim", None)
    with pytest.raises(BudgetInputError) as exc:
        evaluate({"config": cfg}, [H100] * 2, {"tp_size": 1}, "0.5.23")
    assert exc.value.field == f"model.config.{field}"


def test_every_real_config_of_a_verified_class_parses():
    """The consistency checks hold for every real config of the fixtures (they must never refuse a real one)."""

    unmodelled_quant = {"bitsandbytes", "exl2", ""}  # bnb, EXL2 and MLX checkpoints: refused on purpose
    for path in sorted(CONFIGS.glob("*/config.json")):
        cfg = json.loads(path.read_text())
        quant = cfg.get("quantization_config")
        if cfg["architectures"][0] in VERIFIED and not (quant and str(quant.get("quant_method") or "") in unmodelled_quant):
            build_model_spec(cfg)


def test_custom_code_the_pinned_transformers_lacks_needs_trust_remote_code():
    """Kimi-K2's config names its own config class (auto_map) for model_type kimi_k2, which no pinned transformers
    ships and SGLang's config registry aliases only from 0.5.13 (utils/hf_transformers/common.py); MiniMax-M2's
    minimax_m2 arrived with transformers 5.3 (0.5.10's pin). The oracle's 0.5.9 cases raised this ValueError."""
    kimi, minimax = config("moonshotai__Kimi-K2-Instruct"), config("MiniMaxAI__MiniMax-M2.7")
    h200 = {"name": "NVIDIA H200", "memory_total_mib": 143771}
    res = evaluate({"config": minimax}, [h200] * 4, {"tp_size": 4}, "0.5.9", with_fixes=False)
    assert res["verdict"] == "fails" and res["error"]["type"] == "ValueError"
    assert "trust_remote_code=True" in res["error"]["message"] and res["checks"][-1]["id"] == "model_config"
    assert evaluate({"config": minimax}, [h200] * 4, {"tp_size": 4}, "0.5.10", with_fixes=False)["error"] is None
    assert evaluate({"config": kimi}, [h200] * 8, {"tp_size": 8}, "0.5.9", with_fixes=False)["error"]["type"] == "ValueError"
    trusted = evaluate({"config": kimi}, [h200] * 8, {"tp_size": 8, "trust_remote_code": True}, "0.5.9", with_fixes=False)
    assert trusted["checks"][0] == {"id": "model_config", "passed": True}
    assert evaluate({"config": kimi}, [h200] * 8, {"tp_size": 8}, "0.5.23", with_fixes=False)["error"] is None


def test_nemotron_h_layers_block_type_and_latent_moe():
    """configs/nemotron_h.py (0.5.10 on) reads layers_block_type when the pattern string is absent; models/nemotron_h.py
    runs latent-MoE experts at moe_latent_size between two replicated projections."""
    from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.weights import target_linears

    ultra = config("nvidia__NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16")  # layers_block_type, no num_hidden_layers
    spec = build_model_spec(ultra)
    assert spec.num_layers == len(ultra["layers_block_type"]) and spec.layers_from_block_type
    assert spec.moe_latent_size == ultra["moe_latent_size"]
    rows = {r.name: r for r in target_linears(spec, tp=8) if r.layer == spec.layers.index(("none", "moe"))}
    assert rows["mlp.experts.up_proj"].inp == ultra["moe_latent_size"]
    assert rows["mlp.fc1_latent_proj"].out == ultra["moe_latent_size"]
    with pytest.raises(BudgetInputError, match="reads only hybrid_override_pattern"):
        evaluate({"config": ultra}, [{"name": "NVIDIA H200", "memory_total_mib": 143771}] * 8, {"tp_size": 8}, "0.5.9")


def test_a_class_without_an_sglang_implementation_runs_on_the_transformers_backend():
    """SmolLM3ForCausalLM has no SGLang class in any registry release; transformers 5.19 (0.5.23's pin) ships
    model_type smollm3, so SGLang serves it through TransformersForCausalLM with a standard KV pool."""
    cfg = dict(config("meta-llama__Llama-3.1-8B-Instruct"), architectures=["SmolLM3ForCausalLM"], model_type="smollm3")
    got = resolve_architecture("SmolLM3ForCausalLM", cfg, release("0.5.23"))
    assert got.support == "generic" and "Transformers backend" in got.sglang_module
    with pytest.raises(BudgetInputError, match="Transformers backend"):  # an unknown model_type: no backend
        resolve_architecture("SmolLM3ForCausalLM", dict(cfg, model_type="no_such_type"), release("0.5.23"))


def test_a_model_type_no_one_knows_is_transformers_refusal_without_auto_map():
    """The oracle's MiMo-7B cases (model_type mimo, no auto_map) raised this in 0.5.9 and 0.5.23: neither SGLang's
    config registry nor the pinned transformers has the type, and there is no remote code to trust."""
    cfg = dict(config("meta-llama__Llama-3.1-8B-Instruct"), model_type="mimo")
    res = evaluate({"config": cfg}, [H100], {}, "0.5.23", with_fixes=False)
    assert res["error"]["type"] == "ValueError" and res["root_cause"] == "unsupported_architecture"
    assert res["error"]["message"].startswith(
        "The checkpoint you are trying to load has model type `mimo` but Transformers does not recognize this architecture."
    )
    assert evaluate({"config": cfg}, [H100], {"trust_remote_code": True}, "0.5.23", with_fixes=False)["error"]


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])
def test_internlm2_loads_only_through_its_remote_code(version):
    """configs/internvl.py defines an InternLM2Config (model_type internlm2) for InternVL's language tower, but
    get_config's _CONFIG_REGISTRY (0.5.9 utils/hf_transformers_utils.py, 0.5.23 utils/hf_transformers/common.py)
    does not list it, so AutoConfig does not know internlm2, nor does the pinned transformers: the checkpoint's
    auto_map code needs --trust-remote-code. Trusted, SGLang serves it with its own models/internlm2.py
    InternLM2ForCausalLM (fused wqkv, Llama-shaped layers), a verified layout (the oracle's stand-in for the remote
    config module, bench/oracle/harness_common.py)."""
    cfg = config("internlm__internlm2-chat-7b-sft")
    refused = evaluate({"config": cfg}, [H100], {}, version, with_fixes=False)
    assert refused["verdict"] == "fails" and refused["root_cause"] == "unsupported_architecture"
    assert refused["error"]["type"] == "ValueError" and refused["checks"][-1]["id"] == "model_config"
    message = refused["error"]["message"]
    assert message.startswith("The repository ") and " contains custom code which must be executed to correctly load the model." in message
    assert message.endswith("Please pass the argument `trust_remote_code=True` to allow custom code to be run.")
    trusted = evaluate({"config": cfg}, [H100], {"trust_remote_code": True}, version, with_fixes=False)
    assert trusted["error"] is None and trusted["checks"][0] == {"id": "model_config", "passed": True}
    arch = trusted["architecture"]
    assert (arch["name"], arch["support"], arch["sglang_module"]) == ("InternLM2ForCausalLM", "verified", "models/internlm2.py")
    assert trusted["confidence"] != "generic" and trusted["budget"]["totals"]["max_total_num_tokens"] > 0


def _kimi_weights(name, gpu, args):
    gpus = [dict(gpu, index=i) for i in range(8)]
    res = evaluate({"config": config(name)}, gpus, dict({"tp_size": 8, "context_length": 8192}, **args), "0.5.23", with_fixes=False)
    return res["budget"]["per_gpu"][0]["weights_gib"]


def test_nvfp4_experts_keep_swizzled_scales_unless_the_trtllm_runner_takes_them():
    """ModelOptNvFp4FusedMoEMethod allocates a swizzled copy of each expert's FP8 block scales (1/16 byte per weight)
    unless the flashinfer TRT-LLM runner aliases them, which the DeepSeek family picks by default on sm100."""
    hopper = {"name": "NVIDIA H200", "memory_total_mib": 143771, "compute_capability": "9.0"}
    blackwell = {"name": "NVIDIA B200", "memory_total_mib": 183359, "compute_capability": "10.0"}
    swizzled = _kimi_weights("nvidia__Kimi-K2.5-NVFP4", hopper, {})
    asked = _kimi_weights("nvidia__Kimi-K2.5-NVFP4", hopper, {"moe_runner_backend": "flashinfer_trtllm"})
    by_default = _kimi_weights("nvidia__Kimi-K2.5-NVFP4", blackwell, {})
    with_a2a = _kimi_weights("nvidia__Kimi-K2.5-NVFP4", blackwell, {"moe_a2a_backend": "deepep", "ep_size": 8})
    # 60 MoE layers x 384 experts x 3 x 7168 x 2048 weights / 16 per scale byte, over 8 ranks
    scale_gib = 60 * 384 * 3 * 7168 * 2048 / 16 / 8 / 2**30
    assert swizzled - asked == pytest.approx(scale_gib, rel=1e-3)
    assert by_default == pytest.approx(asked, abs=1e-6)
    assert with_a2a > by_default


def test_compressed_tensors_regex_ignores_keep_those_modules_in_the_model_dtype():
    """Kimi-K2.5's int4 recipe ignores re:.*self_attn.* and re:.*shared_experts.* (compressed-tensors matches "re:"
    entries as regexes over the module name): only the routed experts are packed, with a bf16 scale per 32."""
    spec = build_model_spec(config("moonshotai__Kimi-K2.5"))
    q = spec.quant
    assert (q.method, q.bits, q.group_size, q.symmetric) == ("ct_wna16", 4, 32, True)
    assert q.algo_for(3, "self_attn.kv_b_proj") is None and q.algo_for(3, "mlp.shared_experts.down_proj") is None
    assert q.algo_for(0, "mlp.gate_proj") is None and q.algo_for(3, "mlp.experts.gate_proj") == "ct_wna16"


def test_lfm2_short_conv_layers_pool_a_conv_state_and_keep_their_own_lm_head():
    """LFM2-350M (full_attn_idxs, block_ff_dim 6656 auto-adjusted to 4608): ten short-conv layers whose only state is
    hidden x (conv_L_cache - 1) per request (configs/lfm2.py mamba2_cache_params), six GQA layers of KV."""
    spec = build_model_spec(config("LiquidAI__LFM2-350M"))
    assert spec.intermediate_size == 4608 and len(spec.state_layer_ids) == 10 and len(spec.full_attention_layer_ids) == 6
    gpu = dict(H100, compute_capability="9.0", pre_model_load_gib=79.0)
    res = evaluate({"config": config("LiquidAI__LFM2-350M")}, [gpu], {"context_length": 8192}, "0.5.23", with_fixes=False)
    assert res["budget"]["totals"]["mamba_state_per_req_bytes"] == 10 * 1024 * 2 * 2
    assert res["budget"]["totals"]["cell_size_bytes"] == 6 * 8 * 64 * 2 * 2
    b200 = {"name": "NVIDIA B200", "memory_total_mib": 183359, "compute_capability": "10.0", "pre_model_load_gib": 178.0}
    on_blackwell = evaluate({"config": config("LiquidAI__LFM2-350M")}, [b200], {"context_length": 8192}, "0.5.23", with_fixes=False)
    assert on_blackwell["resolved_args"]["attention_backend"] == "flashinfer"  # model_overrides/lfm2.py
    refused = evaluate({"config": config("LiquidAI__LFM2-350M")}, [gpu], {"context_length": 8192, "attention_backend": "triton"}, "0.5.9", with_fixes=False)
    assert refused["error"]["type"] == "AssertionError" and "does not support triton attention backend" in refused["error"]["message"]


RTX4090 = {"name": "NVIDIA GeForce RTX 4090", "memory_total_mib": 24564}


def _weights(cfg, version="0.5.23", tp=1):
    from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.weights import compute_weights

    return compute_weights(build_model_spec(cfg), tp, release=release(version))


def test_a_reward_model_drops_the_lm_head_for_its_score_layer():
    """Skywork-Reward-Llama-3.1-8B is Llama-3.1-8B with score = nn.Linear(4096, 1, bias=False) (llama_reward.py)."""
    reward = config("Skywork__Skywork-Reward-Llama-3.1-8B")
    assert resolve_architecture("LlamaForSequenceClassification", reward, release("0.5.23")).support == "verified"
    causal = dict(reward, architectures=["LlamaForCausalLM"])
    head = (128257 + 63) // 64 * 64 * 4096 * 2  # ParallelLMHead over the vocabulary padded to 64, bf16
    assert _weights(causal).target_param_bytes - _weights(reward).target_param_bytes == head - 4096 * 2


def test_reward_heads_follow_each_class():
    """qwen2_rm.py: Linear(h, h) + Linear(h, 1), both with bias; qwen2_classification.py: Linear(h, num_labels) with
    bias; the labels are id2label's, else num_labels, else transformers' default of 2."""
    from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.model_spec import num_labels

    rm = config("Qwen__Qwen2.5-Math-RM-72B")
    causal = dict(rm, architectures=["Qwen2ForCausalLM"])
    h, vocab = rm["hidden_size"], (rm["vocab_size"] + 63) // 64 * 64
    head = vocab * h * 2 if not rm.get("tie_word_embeddings") else 0
    assert _weights(causal).target_param_bytes - _weights(rm).target_param_bytes == head - (h * h + h + h + 1) * 2
    assert num_labels({"id2label": {"0": "a", "1": "b", "2": "c"}, "num_labels": 7}) == 3
    assert num_labels({"num_labels": 5}) == 5 and num_labels({}) == 2
    with pytest.raises(BudgetInputError, match="num_labels"):
        num_labels({"num_labels": "one"})


def test_bert_encoder_weights_count_its_embedding_tables_and_no_final_norm():
    """bge-base-en-v1.5 (BertModel, 110M parameters): word, position and token-type VocabParallelEmbedding tables
    (padded to 64), LayerNorm and position_ids, 12 BertLayers with biases; float32 is served as float16."""
    bge = config("BAAI__bge-base-en-v1.5")
    h, i, layers = 768, 3072, 12
    per_layer = 3 * h * h + 3 * h + h * h + h + i * h + i + h * i + h + 2 * 2 * h
    embeddings = (30528 + 512 + 64) * h + 2 * h + 512
    assert _weights(bge).target_param_bytes == (embeddings + layers * per_layer) * 2


@pytest.mark.parametrize("version,fails", [("0.5.9", False), ("0.5.23", True)])
def test_an_encoder_config_without_position_embedding_type_fails_where_transformers_5_is_pinned(version, fails):
    """transformers 5 dropped BertConfig's position_embedding_type default, which bert.py reads: the nlptown
    sentiment model's config.json (transformers 2 era) has no such key."""
    res = evaluate(config("nlptown__bert-base-multilingual-uncased-sentiment"), [RTX4090], {}, version, with_fixes=False)
    if fails:
        assert res["error"]["type"] == "AttributeError"
        assert res["error"]["message"] == "'BertConfig' object has no attribute 'position_embedding_type'"
    else:
        assert res["error"] is None and res["budget"]["totals"]["max_total_num_tokens"] > 0


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])
def test_a_quantization_config_without_quant_method_is_sglangs_unknown_empty_method(version):
    """An MLX re-save keeps {"group_size": 64, "bits": 4} as its quantization_config: ModelConfig finds no
    quant_method (nor a ModelOpt quant_algo) and refuses the empty one; --quantization names it instead."""
    mlx = config("mlx-community__c4ai-command-r7b-12-2024-4bit")
    res = evaluate(mlx, [RTX4090], {}, version, with_fixes=False)
    assert res["error"]["type"] == "ValueError"
    assert res["error"]["message"].startswith("Unknown quantization method: . Must be one of ['fp8', ")
    named = evaluate(mlx, [RTX4090], {"quantization": "fp8"}, version, with_fixes=False)
    assert not named["error"] or not named["error"]["message"].startswith("Unknown quantization method: .")


def test_llama4_pools_its_chunked_layers_as_swa_and_caches_rope_for_ten_million_positions():
    """Llama-4-Scout: every fourth layer global (NoPE), the other 36 chunked attention pooled as SWA with the
    8192-token chunk as window; 16 experts and a shared expert per layer; one llama3 RoPE cache of
    max_position_embeddings (10,485,760) rows x 128 x fp32 = 5 GiB, as SGLang 0.5.23 builds it."""
    from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.weights import rope_cache_bytes

    scout = build_model_spec(config("meta-llama__Llama-4-Scout-17B-16E-Instruct"))
    assert scout.is_hybrid_swa and scout.sliding_window == 8192
    assert [i for i, (mixer, _ffn) in enumerate(scout.layers) if mixer == "full"] == list(range(3, 48, 4))
    assert {ffn for _mixer, ffn in scout.layers} == {"moe"} and scout.num_experts == 16
    assert scout.shared_expert_intermediate_size == scout.moe_intermediate_size == 8192
    assert rope_cache_bytes(scout) == 10485760 * 128 * 4
    with pytest.raises(BudgetInputError, match="enable_multimodal"):
        evaluate(config("meta-llama__Llama-4-Scout-17B-16E-Instruct"), [H100] * 4, {"tp_size": 4, "enable_multimodal": True}, "0.5.23", with_fixes=False)


@pytest.mark.parametrize("version,tied", [("0.5.9", True), ("0.5.23", False)])
def test_glm45v_ties_its_head_as_the_pinned_config_class_defaults(version, tied):
    """GLM-4.5V's config.json has no tie_word_embeddings: transformers 4.57's Glm4vMoeConfig inherits
    PretrainedConfig's True (0.5.9 builds no lm_head), 5.x's class defaults to False."""
    from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.weights import tied_by_release_default

    spec = build_model_spec(config("zai-org__GLM-4.5V"))
    assert tied_by_release_default(spec, release(version)) is tied


@pytest.mark.parametrize("version,refused", [("0.5.9", True), ("0.5.23", False)])
def test_glm45v_vit_heads_must_split_over_tp_where_the_release_does_not_pad_them(version, refused):
    res = evaluate(config("zai-org__GLM-4.5V"), [H100] * 8, {"tp_size": 8}, version, with_fixes=False)
    if refused:
        assert res["error"]["type"] == "AssertionError" and res["error"]["message"] == "12 is not divisible by 8"
    else:
        assert res["error"] is None


def test_a_class_the_release_lacks_whose_config_it_cannot_load_fails_as_sglang_does():
    """Qwen3.8 (Qwen3_5MoeForCausalLM, model_type qwen3_5_moe_text) under 0.5.9: transformers 4.57 refuses the
    config before SGLang looks the class up; the result says which release first has the class."""
    res = evaluate(config("Qwen__Qwen3.8-2.4T-A95B-FP8"), [H100] * 8, {"tp_size": 8}, "0.5.9", with_fixes=False)
    assert res["architecture"]["support"] == "unloadable"
    assert res["error"]["type"] == "ValueError" and "model type `qwen3_5_moe_text`" in res["error"]["message"]
    assert any(w["id"] == "architecture_not_in_release" and "0.5.17 is the first release" in w["message"] for w in res["warnings"])


@pytest.mark.parametrize(
    "model,field_the_generic_layout_misreads",
    [
        ("XiaomiMiMo__MiMo-V2-Flash", "moe_layer_freq"),  # a per-layer list of 0/1 where the generic layout reads a step
        ("moonshotai__Kimi-K3", "num_attention_heads"),  # MLA: 96 heads that do not divide hidden 7168, no head_dim
    ],
)
def test_a_real_config_of_a_special_cased_class_is_refused_by_name_not_called_malformed(model, field_the_generic_layout_misreads):
    """A class the engine does not model is refused for what it is before the generic layout judges its fields: the
    config is the checkpoint's own, so 'pass the real config.json' would send the operator the wrong way."""
    cfg = config(model)
    with pytest.raises(BudgetInputError) as err:
        evaluate(cfg, [H100] * 8, {"tp_size": 8}, "0.5.23", with_fixes=False)
    assert err.value.field == "model.config.architectures"
    assert "special-cases it" in str(err.value) and cfg["architectures"][0] in str(err.value)
    assert field_the_generic_layout_misreads not in err.value.field
    # the field error it replaces is kept as the cause
    assert isinstance(err.value.__cause__, BudgetInputError) and field_the_generic_layout_misreads in err.value.__cause__.field


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])
def test_an_exl2_checkpoints_average_bits_is_no_malformed_config_but_a_method_sglang_lacks(version):
    """An EXL2 re-quantisation of DBRX ("quant_method": "exl2", "bits": 4.25): ModelConfig refuses the method (the
    oracle agrees); the fractional bits are the format's average, not a corrupt field."""
    res = evaluate(config("ek826__dbrx-instruct-4.25bpw-exl2"), [H100] * 4, {"tp_size": 4}, version, with_fixes=False)
    assert res["error"]["type"] == "ValueError"
    assert res["error"]["message"].startswith("Unknown quantization method: exl2. Must be one of ['fp8', ")
    gptq = dict(config("ek826__dbrx-instruct-4.25bpw-exl2"), quantization_config={"quant_method": "gptq", "bits": 4.25, "group_size": 128})
    with pytest.raises(BudgetInputError, match=r"quantization_config\.bits: must be a whole number from 1 to 32, got 4\.25"):
        evaluate(gptq, [H100] * 4, {"tp_size": 4}, version, with_fixes=False)


def test_gemma4_pools_its_sliding_and_full_layers_with_their_own_head_shapes():
    """Gemma-4-31B-it: 50 sliding layers (head_dim 256, 16 KV heads) and 10 full ones (global_head_dim 512,
    num_global_key_value_heads 4 with attention_k_eq_v), pooled as hybrid SWA; the oracle's case 00 (TP 2 on H100,
    0.82, 32K) logs 97,293 full and 77,834 SWA tokens with K sizes 1.86 and 14.85 GB."""
    spec = build_model_spec(config("google__gemma-4-31B-it"))
    assert (spec.head_dim, spec.num_kv_heads, spec.swa_head_dim, spec.swa_num_kv_heads) == (512, 4, 256, 16)
    assert len(spec.full_attention_layer_ids) == 10 and len(spec.swa_layer_ids) == 50 and spec.sliding_window == 1023
    res = evaluate(
        config("google__gemma-4-31B-it"), [H100] * 2, {"tp_size": 2, "mem_fraction_static": 0.82, "context_length": 32768}, "0.5.23", with_fixes=False
    )
    totals = res["budget"]["totals"]
    # per token: 10 full layers x 2 KV heads x (512 + 512) x 2 B, plus 0.8 x 50 sliding layers x 8 x (256 + 256) x 2 B
    assert totals["cell_size_bytes"] == pytest.approx(10 * 2 * 1024 * 2 + 0.8 * 50 * 8 * 512 * 2)
    assert totals["max_total_num_tokens"] == pytest.approx(97293, rel=0.01)


def test_gemma4_moe_runs_the_experts_beside_the_dense_mlp_and_0_5_9_cannot_load_its_config():
    """Gemma-4-26B-A4B: every layer has the dense MLP (2112) and 128 experts of 704 with the router; SGLang 0.5.9's
    transformers does not know model_type gemma4, so the start stops loading config.json (the oracle agrees)."""
    spec = build_model_spec(config("google__gemma-4-26B-A4B"))
    assert spec.num_experts == 128 and spec.moe_intermediate_size == 704 and spec.intermediate_size == 2112
    assert {ffn for _mixer, ffn in spec.layers} == {"moe"}
    res = evaluate(config("google__gemma-4-26B-A4B"), [H100] * 2, {"tp_size": 2}, "0.5.9", with_fixes=False)
    assert res["error"]["type"] == "ValueError" and "model type `gemma4` but Transformers does not recognize" in res["error"]["message"]
    assert any(w["id"] == "architecture_not_in_release" for w in res["warnings"])


@pytest.mark.parametrize("key,value", [("hidden_size_per_layer_input", 256), ("num_kv_shared_layers", 20)])
def test_gemma4_per_layer_inputs_and_kv_sharing_are_refused_by_name(key, value):
    """The E2B/E4B checkpoints' per-layer input embeddings and KV-shared layers are not modelled: refused, naming the
    field; a config that leaves hidden_size_per_layer_input out gets transformers' default of 256."""
    cfg = config("google__gemma-4-31B-it")
    cfg = dict(cfg, text_config=dict(cfg["text_config"], **{key: value}))
    with pytest.raises(BudgetInputError, match=f"model.config.text_config.{key}: is {value}: Gemma 4's"):
        build_model_spec(cfg)
    bare = dict(cfg, text_config={k: v for k, v in config("google__gemma-4-31B-it")["text_config"].items() if k != "hidden_size_per_layer_input"})
    with pytest.raises(BudgetInputError, match="hidden_size_per_layer_input: is 256"):
        build_model_spec(bare)


RTX4090_FREE = {"name": "NVIDIA GeForce RTX 4090", "memory_total_mib": 24564}


def test_gemma3_vision_model_builds_its_tower_but_sizes_as_text_unless_multimodal_is_asked_for():
    """gemma-3-4b-it: the text config leaves most fields to transformers' Gemma3TextConfig (8 heads, 4 KV heads, head
    256); SigLIP and the projector are built (the oracle's meta build counts them), but configs/model_config.py keeps
    multimodal off for this class without --enable-multimodal, so no multimodal reservation comes off the pool."""
    spec = build_model_spec(config("google__gemma-3-4b-it"))
    assert (spec.num_heads, spec.num_kv_heads, spec.head_dim, spec.vocab_size) == (8, 4, 256, 262208)
    args = {"tp_size": 1, "context_length": 4096, "max_running_requests": 256}
    text = evaluate(config("google__gemma-3-4b-it"), [RTX4090_FREE], args, "0.5.23", with_fixes=False)
    assert text["budget"]["totals"]["max_total_num_tokens"] == pytest.approx(62734, rel=0.01)  # oracle case 00
    multimodal = evaluate(config("google__gemma-3-4b-it"), [RTX4090_FREE], dict(args, enable_multimodal=True), "0.5.23", with_fixes=False)
    assert multimodal["budget"]["per_gpu"][0]["weights_gib"] == text["budget"]["per_gpu"][0]["weights_gib"]
    assert multimodal["budget"]["totals"]["max_total_num_tokens"] < text["budget"]["totals"]["max_total_num_tokens"]
