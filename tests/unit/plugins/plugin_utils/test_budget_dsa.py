# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): its defaults, index-K cache and indexer weights per release.

The configs are the real ones under tests/fixtures/model-configs (SOURCES.md); the oracle cases
(tests/fixtures/oracle, arch-DeepSeek-V3.2-*, arch-GLM-5*) check the same paths against SGLang's own code."""

import json
from pathlib import Path

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import evaluate
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.model_spec import build_model_spec, dsa_layer_skips_topk

CONFIGS = Path(__file__).resolve().parents[3] / "fixtures" / "model-configs"
H200 = {"name": "NVIDIA H200", "memory_total_mib": 143771, "compute_capability": "9.0", "pre_model_load_gib": 139.9}
B200 = {"name": "NVIDIA B200", "memory_total_mib": 183359, "compute_capability": "10.0", "pre_model_load_gib": 178.0}


def config(name):
    return json.loads((CONFIGS / name / "config.json").read_text())


def run(name, gpu, args, version="0.5.23"):
    gpus = [dict(gpu, index=i) for i in range(8)]
    return evaluate({"config": config(name)}, gpus, dict({"tp_size": 8, "context_length": 8192}, **args), version, with_fixes=False)


def test_glm_5_2_layers_reuse_topk_as_its_indexer_types_say():
    cfg = config("zai-org__GLM-5.2")
    types = cfg["indexer_types"]
    assert [dsa_layer_skips_topk(cfg, i) for i in range(len(types))] == [t == "shared" for t in types]
    # the same layers from index_topk_freq 4 and index_skip_topk_offset 3, as releases without indexer_types read them
    by_freq = {k: v for k, v in cfg.items() if k != "indexer_types"}
    assert [dsa_layer_skips_topk(by_freq, i) for i in range(len(types))] == [t == "shared" for t in types]
    assert len(build_model_spec(cfg).dsa.topk_layer_ids) == types.count("full") == 21


def test_bf16_kv_on_hopper_prices_the_latent_row_and_one_index_k_row_per_layer():
    res = run("deepseek-ai__DeepSeek-V3.2", H200, {})
    r = res["resolved_args"]
    assert (r["attention_backend"], r["page_size"], r["kv_cache_dtype"]) == ("dsa", 64, "bfloat16")
    # 61 layers x ((512 + 64) x 2 bytes + 128 FP8 index bytes + 4 bytes of scale)
    assert res["budget"]["totals"]["cell_size_bytes"] == 61 * (576 * 2 + 132)


def test_shared_topk_layers_hold_no_index_k_rows_from_0_5_18():
    new = run("zai-org__GLM-5.2-FP8", H200, {})["budget"]["totals"]["cell_size_bytes"]
    old = run("zai-org__GLM-5.2-FP8", H200, {}, version="0.5.17")["budget"]["totals"]["cell_size_bytes"]
    assert new == 78 * 576 * 2 + 21 * 132 and old == 78 * (576 * 2 + 132)


def test_fp8_kv_row_follows_the_release_and_the_backend():
    hopper_fp8 = run("deepseek-ai__DeepSeek-V3.2", H200, {"kv_cache_dtype": "fp8_e4m3"})["budget"]["totals"]["cell_size_bytes"]
    assert hopper_fp8 == 61 * (512 + 512 // 128 * 4 + 64 * 2 + 132)  # flashmla_kv: scaled row
    blackwell = run("deepseek-ai__DeepSeek-V3.2", B200, {})
    assert blackwell["resolved_args"]["kv_cache_dtype"] == "fp8_e4m3"
    assert blackwell["budget"]["totals"]["cell_size_bytes"] == 61 * (576 + 132)  # trtllm: the raw MLA row
    # 0.5.9 prices kv_lora_rank + qk_rope_head_dim bytes whatever the row the pool allocates
    old = run("deepseek-ai__DeepSeek-V3.2", H200, {"kv_cache_dtype": "fp8_e4m3"}, version="0.5.9")
    assert old["resolved_args"]["attention_backend"] == "nsa" and old["budget"]["totals"]["cell_size_bytes"] == 61 * (576 + 132)


def test_a_kv_dtype_dsa_does_not_take_fails_as_sglang_asserts():
    res = run("deepseek-ai__DeepSeek-V3.2", H200, {"kv_cache_dtype": "fp8_e5m2"})
    assert res["verdict"] == "fails" and res["error"]["type"] == "AssertionError"
    assert res["error"]["message"] == "DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype"


def test_the_mtp_draft_takes_its_share_of_latent_rows_and_an_index_row_of_its_own():
    """0.5.23 pool_configurator.py: the draft's KV is the target's latent rows x draft layers / target layers, plus
    an index-K row on each draft layer; 0.5.9 sizes the draft's pool apart (oracle cases gen-GLM-5-FP8-*,
    gen-DeepSeek-V3.2-*)."""
    spec_args = {"speculative_algorithm": "NEXTN", "speculative_num_steps": 3, "speculative_eagle_topk": 1, "speculative_num_draft_tokens": 4}
    plain = run("zai-org__GLM-5-FP8", H200, {})["budget"]["totals"]["cell_size_bytes"]
    with_draft = run("zai-org__GLM-5-FP8", H200, spec_args)["budget"]["totals"]["cell_size_bytes"]
    assert plain == 78 * (1152 + 132) and with_draft == plain + 78 * 1152 // 78 + 132
    assert run("deepseek-ai__DeepSeek-V3.2", H200, spec_args, version="0.5.9")["budget"]["totals"]["cell_size_bytes"] == 61 * (1152 + 132)
    # 0.5.17 budgets the draft in the cell too, but as the generic share of the whole cell, index rows included
    old = run("zai-org__GLM-5-FP8", H200, spec_args, version="0.5.17")["budget"]["totals"]["cell_size_bytes"]
    assert old == plain + plain * 1 // 78


def test_nvfp4_needs_blackwell_in_0_5_9_but_not_from_0_5_13():
    spec = {"config": config("nvidia__DeepSeek-V3.2-NVFP4")}
    spec["hf_quant_config"] = json.loads((CONFIGS / "nvidia__DeepSeek-V3.2-NVFP4" / "hf_quant_config.json").read_text())
    gpus = [dict(H200, index=i) for i in range(8)]
    old = evaluate(spec, gpus, {"tp_size": 8, "context_length": 8192}, "0.5.9", with_fixes=False)
    assert old["error"]["message"].startswith("The quantization method modelopt_fp4 is not supported for the current GPU. Minimum capability: 100.")
    assert evaluate(spec, gpus, {"tp_size": 8, "context_length": 8192}, "0.5.23", with_fixes=False)["error"] is None


def test_0_5_17_keeps_breakable_prefill_graphs_for_dsa_but_not_for_plain_mla():
    """0.5.17 server_args.py _disable_breakable_cudagraph_if_incompatible: "MLA attention (non-DSA)"."""
    dsa = run("deepseek-ai__DeepSeek-V3.2", H200, {}, version="0.5.17")["resolved_args"]["prefill_graph_sizes"]
    mla = run("deepseek-ai__DeepSeek-V3", H200, {}, version="0.5.17")["resolved_args"]["prefill_graph_sizes"]
    assert dsa > 0 and mla == 0
