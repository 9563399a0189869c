# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which classes the budget predicts per SGLang release: verified, generic, or refused by name.

The release catalogs (``plugins/plugin_utils/data/sglang-archs-<V>.json``) are generated from the real wheels by
``scripts/gen_arch_catalog.py``; the configs are real ones from ``tests/fixtures/model-configs`` (SOURCES.md)."""

import json
from pathlib import Path

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import evaluate
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.errors import BudgetInputError
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.architectures import (
    VERIFIED, non_generic_keys, release_architectures, resolve_architecture)
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
    data = json.loads((Path(__file__).resolve().parents[4] / "plugins" / "plugin_utils" / "data" /
                       f"sglang-archs-{version}.json").read_text())
    assert data["wheel_filename"].startswith(f"sglang-{version}-") and len(data["wheel_sha256"]) == 64
    assert len(catalog.entry_classes) == data["entry_class_count"] > 150
    # every verified class is a class of the newest release
    if version == SUPPORTED_VERSIONS[-1]:
        assert set(VERIFIED) <= set(catalog.entry_classes)


def test_catalog_spot_values_read_from_the_wheels_by_hand():
    """Read by hand from the wheels, so a wrong generator cannot hide behind its own output."""
    new, old = release_architectures("0.5.23"), release_architectures("0.5.9")
    assert new.entry_classes["MixtralForCausalLM"] == "models/mixtral.py"
    assert new.entry_classes["Phi3ForCausalLM"] == "models/llama.py"        # llama.py EntryClass list
    assert "Gemma4ForConditionalGeneration" in new.entry_classes and "Gemma4ForConditionalGeneration" not in old.entry_classes
    # configs/model_config.py is_hybrid_swa_model lists Llama 4; _derive_model_shapes the MLA classes
    assert any(w.startswith("configs/model_config.py:") for w in new.special_cased["Llama4ForConditionalGeneration"])
    assert any(w.startswith("configs/model_config.py:") for w in new.special_cased["DeepseekV32ForCausalLM"])
    # 0.5.9 server_args.py picks the attention backend for Gemma 2 by name
    assert "server_args.py:ServerArgs" in old.special_cased["Gemma2ForCausalLM"]
    assert new.config_model_types["falcon_h1"].startswith("configs/falcon_h1.py:")


def test_verified_class_resolves_as_verified():
    got = resolve_architecture("MixtralForCausalLM", config("mistralai__Mixtral-8x7B-v0.1"), release("0.5.23"))
    assert got.support == "verified" and got.sglang_module == "models/mixtral.py"


def test_a_standard_unverified_class_is_generic_and_names_its_fields():
    cfg = config("nvidia__Llama-3_3-Nemotron-Super-49B-v1")
    cfg = {k: v for k, v in cfg.items() if k != "block_configs"}
    cfg["architectures"] = ["GraniteForCausalLM"]
    got = resolve_architecture("GraniteForCausalLM", cfg, release("0.5.23"))
    assert got.support == "generic" and "hidden_size" in got.fields_used and "num_key_value_heads" in got.fields_used


def test_a_class_sglang_special_cases_is_refused_by_name_with_where():
    with pytest.raises(BudgetInputError) as exc:
        resolve_architecture("DeepseekV32ForCausalLM", config("deepseek-ai__DeepSeek-V3.2"), release("0.5.23"))
    assert exc.value.field == "model.config.architectures"
    assert "DeepseekV32ForCausalLM" in str(exc.value) and "configs/model_config.py" in str(exc.value)


def test_a_config_with_state_space_fields_is_not_predicted_generically():
    cfg = dict(config("nvidia__Llama-3_3-Nemotron-Super-49B-v1"))   # DeciLM: per-layer block_configs
    assert "block_configs" in non_generic_keys(cfg)
    with pytest.raises(BudgetInputError, match="block_configs"):
        resolve_architecture("DeciLMForCausalLM", cfg, release("0.5.23"))
    assert non_generic_keys({"layer_types": ["full_attention", "sliding_attention"]}) == ()
    assert non_generic_keys({"layer_types": ["conv", "full_attention"]}) == ("layer_types",)


def test_a_class_the_pinned_release_lacks_names_the_first_release_with_it():
    with pytest.raises(BudgetInputError) as exc:
        evaluate({"config": config("google__gemma-4-26B-A4B")}, [H100] * 2, {"tp_size": 2}, "0.5.9")
    assert "Gemma4ForConditionalGeneration is not a model class of SGLang 0.5.9" in str(exc.value)
    assert "is the first release that has it" in str(exc.value)


def test_an_unknown_class_is_refused_with_the_verified_list():
    with pytest.raises(BudgetInputError) as exc:
        evaluate({"config": dict(config("meta-llama__Llama-3.1-8B-Instruct"), architectures=["NoSuchForCausalLM"])},
                 [H100], {}, "0.5.23")
    assert "Transformers backend" in str(exc.value) and "MixtralForCausalLM" in str(exc.value)


def test_mixtral_8x7b_on_two_h100_gets_a_verdict_and_numbers():
    """Issue 13's acceptance case: Mixtral-8x7B-Instruct on 2x H100, TP 2 (the v0.1 base config: same shapes)."""
    res = evaluate({"config": config("mistralai__Mixtral-8x7B-v0.1")}, [H100] * 2, {"tp_size": 2}, "0.5.23")
    assert res["verdict"] in ("fits", "degraded") and res["architecture"]["support"] == "verified"
    assert res["confidence"] == "exact" and res["budget"]["totals"]["max_total_num_tokens"] > 100_000
    # 46.7 B parameters in BF16 over two GPUs
    assert 42 < res["budget"]["per_gpu"][0]["weights_gib"] < 45


def test_a_generic_prediction_says_so_in_confidence_and_warnings():
    cfg = dict(config("meta-llama__Llama-3.1-8B-Instruct"), architectures=["GraniteForCausalLM"], model_type="granite")
    res = evaluate({"config": cfg}, [H100], {}, "0.5.23")
    assert res["confidence"] == "generic" and res["architecture"]["support"] == "generic"
    assert any(w["id"] == "generic_architecture" for w in res["warnings"])
    assert res["budget"]["totals"]["max_total_num_tokens"] > 0
