# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Per-component numbers over the real config.json files, each derived by hand in the test.

Formulas follow SGLang's source (see plugins/plugin_utils/budget/*.py docstrings); the expected values are
written out from the config's dimensions, not read back from the engine.
"""

import pathlib

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import evaluate, load_model_dir
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.model_spec import build_model_spec
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.weights import compute_weights, rope_cache_bytes
from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import RELEASES

NEWEST = RELEASES["0.5.23"]  # the release these shape tests were derived against

GIB = 1 << 30
CONFIGS = pathlib.Path(__file__).resolve().parents[4] / "tests/fixtures/model-configs"
H100 = {"name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559, "compute_capability": "9.0"}


def load(name):
    return load_model_dir(str(CONFIGS / name))


def spec_of(name):
    m = load(name)
    return build_model_spec(m["config"], m.get("hf_quant_config"))


def run(name, args, version="0.5.23", gpu=None, pre=79.0, count=None, weights_gib=None):
    gpu = gpu or H100
    model = load(name)
    if weights_gib is not None:
        model["weights"] = {"target_param_bytes": int(weights_gib * GIB)}
    tp = int(args.get("tp_size", 1))
    gpus = [dict(gpu, index=i, pre_model_load_gib=pre) for i in range(count or tp)]
    return evaluate(model, gpus, args, version, with_fixes=False)


def test_llama31_8b_weights_cell_context_by_hand():
    spec = spec_of("meta-llama__Llama-3.1-8B-Instruct")
    per_layer = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096
    params = 32 * per_layer + 2 * 128256 * 4096 + 4096
    wb = compute_weights(spec, 1, release=NEWEST)
    assert wb.target_param_bytes == params * 2 == 16_060_522_496
    assert rope_cache_bytes(spec) == 131072 * 128 * 4  # fp32 cos_sin_cache
    assert spec.derived_context_len == 131072  # llama3 rope: factor not applied
    res = run("meta-llama__Llama-3.1-8B-Instruct", {"mem_fraction_static": 0.88}, weights_gib=14.96)
    t = res["budget"]["totals"]
    assert t["cell_size_bytes"] == 8 * 256 * 32 * 2
    # oracle-0.5.23.md section 4: ((79.0 - 14.96) - 79.0 * 0.12) GiB / 131,072 B = 446,955; reqs clamp to 2048
    assert (t["max_total_num_tokens"], t["max_running_requests"]) == (446_955, 2048)


def test_llama31_8b_default_fraction_on_h100_0523():
    res = run("meta-llama__Llama-3.1-8B-Instruct", {}, weights_gib=14.96)
    # 512 + 8192*1.5 + 1024/8 + 2*256 + 8*58 prefill graph sizes = 13904 MiB -> round(67655/81559, 3) = 0.83
    assert res["budget"]["totals"]["mem_fraction_static"] == 0.83
    assert res["budget"]["totals"]["max_total_num_tokens"] == 414_597  # oracle-0.5.23.md section 4


def test_llama31_8b_default_fraction_on_h100_059():
    res = run("meta-llama__Llama-3.1-8B-Instruct", {}, version="0.5.9", weights_gib=14.96)
    # 0.5.9: 512 + 12288 + 512 + 128 = 13440 MiB > 10 GiB floor -> round(68119/81559, 3) = 0.835
    assert res["budget"]["totals"]["mem_fraction_static"] == 0.835


def test_qwen3_8b_gqa_cell_at_tp2():
    res = run("Qwen__Qwen3-8B", {"tp_size": 2, "mem_fraction_static": 0.8})
    assert res["budget"]["totals"]["cell_size_bytes"] == (8 // 2) * (128 + 128) * 36 * 2


def test_qwen25_72b_bias_context_and_tp4_cell():
    spec = spec_of("Qwen__Qwen2.5-72B-Instruct")
    assert spec.derived_context_len == 32768 and spec.attention_bias
    res = run("Qwen__Qwen2.5-72B-Instruct", {"tp_size": 4, "mem_fraction_static": 0.85})
    assert res["budget"]["totals"]["cell_size_bytes"] == 2 * 256 * 80 * 2
    per_layer = (8192 * 8192 + 8192) / 4 + 2 * (8192 * 1024 + 1024) / 4 + 8192 * 8192 / 4 + 3 * 8192 * 29568 / 4 + 2 * 8192
    params = 80 * per_layer + 2 * 152064 / 4 * 8192 + 8192
    assert compute_weights(spec, 4, release=NEWEST).target_param_bytes == pytest.approx(params * 2, abs=16)


def test_mistral_7b_matches_oracle_sweep():
    # oracle-0.5.23.md section 5 breadth sweep (H100 stub, free 79 GiB, W 13.52 GiB) -> 426,425 tokens
    res = run("mistralai__Mistral-7B-Instruct-v0.3", {}, weights_gib=13.52)
    assert res["budget"]["totals"]["max_total_num_tokens"] == pytest.approx(426_425, rel=0.001)
    assert spec_of("mistralai__Mistral-7B-Instruct-v0.3").derived_context_len == 32768


def test_qwen3_30b_a3b_moe_experts_split_over_tp():
    spec = spec_of("Qwen__Qwen3-30B-A3B")
    assert spec.num_experts == 128 and all(layer[1] == "moe" for layer in spec.layers)
    experts_per_layer = 128 * 3 * 2048 * 768
    wb1, wb2 = compute_weights(spec, 1, release=NEWEST), compute_weights(spec, 2, release=NEWEST)
    # experts halve exactly; embedding/lm_head halve; norms, router and q/k norms stay replicated
    replicated = 48 * (2 * 2048 + 2 * 128 + 128 * 2048) + 2048
    assert wb1.target_param_bytes - wb2.target_param_bytes == pytest.approx((wb1.target_param_bytes - replicated * 2) / 2, rel=1e-6)
    assert experts_per_layer * 48 * 2 / 2 < wb2.target_param_bytes
    res = run("Qwen__Qwen3-30B-A3B", {"tp_size": 2, "mem_fraction_static": 0.85}, weights_gib=28.47)
    assert res["budget"]["totals"]["max_total_num_tokens"] == pytest.approx(845_049, rel=0.001)  # oracle sweep


def test_qwen3_32b_fp8_block_scales():
    spec = spec_of("Qwen__Qwen3-32B-FP8")
    assert spec.quant.method == "fp8" and spec.quant.block == (128, 128)
    wb = compute_weights(spec, 1, release=NEWEST)
    # fp8 linear: 1 B per element + fp32 scale per 128x128 block; embeddings and norms bf16
    lin = 64 * (5120 * 8192 + 2 * 5120 * 1024 + 8192 * 5120 + 3 * 5120 * 25600)
    scales = 64 * 4 * (64 * 40 + 2 * 8 * 40 + 40 * 64 + 2 * 200 * 40 + 40 * 200)
    bf16 = 2 * (2 * 151936 * 5120 + 64 * (2 * 5120 + 2 * 128) + 5120)
    assert wb.target_param_bytes == lin + scales + bf16
    res = run("Qwen__Qwen3-32B-FP8", {"mem_fraction_static": 0.88}, weights_gib=31.99)
    assert res["budget"]["totals"]["max_total_num_tokens"] == pytest.approx(153_729, rel=0.001)  # oracle sweep


def test_deepseek_v3_mla_cell_not_tp_divided_and_yarn_context():
    spec = spec_of("deepseek-ai__DeepSeek-V3")
    assert spec.is_mla and spec.derived_context_len == 163840
    assert rope_cache_bytes(spec) == 4096 * 40 * 64 * 4  # YaRN cache: original x factor rows
    res = run(
        "deepseek-ai__DeepSeek-V3",
        {"tp_size": 8, "mem_fraction_static": 0.85},
        pre=139.0,
        gpu={"name": "NVIDIA H200", "memory_total_mib": 143771, "compute_capability": "9.0"},
        weights_gib=79.33,
    )
    t = res["budget"]["totals"]
    assert t["cell_size_bytes"] == (512 + 64) * 61 * 2
    assert t["max_total_num_tokens"] == pytest.approx(593_131, rel=0.001)  # oracle sweep
    assert compute_weights(spec, 8, release=NEWEST).target_param_bytes / GIB == pytest.approx(79.29, abs=0.05)


def test_deepseek_nextn_draft_kv_budgeted_only_in_0523():
    args = {"tp_size": 8, "mem_fraction_static": 0.85, "speculative_algorithm": "NEXTN"}
    gpu = {"name": "NVIDIA H200", "memory_total_mib": 143771, "compute_capability": "9.0"}
    new = run("deepseek-ai__DeepSeek-V3", args, pre=139.0, gpu=gpu)
    old = run("deepseek-ai__DeepSeek-V3", args, version="0.5.9", pre=139.0, gpu=gpu)
    cell = (512 + 64) * 61 * 2
    assert new["budget"]["totals"]["cell_size_bytes"] == cell + int(cell * 1 / 61)
    assert old["budget"]["totals"]["cell_size_bytes"] == cell
    assert new["budget"]["per_gpu"][0]["draft_gib"] > 1.0  # NextN layer + its own embedding and lm_head


def test_gpt_oss_20b_hybrid_swa_split():
    spec = spec_of("openai__gpt-oss-20b")
    assert len(spec.swa_layer_ids) == 12 and len(spec.full_attention_layer_ids) == 12
    assert spec.derived_context_len == 131072 and spec.quant.method == "mxfp4"
    # modules_to_not_convert names "model.layers.*.self_attn": attention stays bf16, experts are mxfp4
    assert spec.quant.algo_for(3, "self_attn.q_proj") is None
    assert spec.quant.algo_for(3, "mlp.experts.down_proj") == "mxfp4"
    attn = 24 * (2880 * 4096 + 4096 + 2 * (2880 * 512 + 512) + 4096 * 2880 + 2880 + 64 + 2 * 2880) * 2
    experts = 24 * 32 * ((2 * 2880 * 2880) + 2880 * 2880) * (0.5 + 1 / 32) + 24 * 32 * (2 * 2880 + 2880) * 2
    router = 24 * (32 * 2880 + 32) * 2
    embed = 2 * 201088 * 2880 * 2 + 2880 * 2
    wb = compute_weights(spec, 1, release=NEWEST)
    assert wb.target_param_bytes == pytest.approx(attn + experts + router + embed, rel=1e-6)
    # the oracle sweep measured 12.85 GiB from SGLang's classes (params + the 32 MiB YaRN rope cache)
    assert (wb.target_param_bytes + wb.target_buffer_bytes) / GIB == pytest.approx(12.85, abs=0.01)
    res = run("openai__gpt-oss-20b", {"mem_fraction_static": 0.85}, weights_gib=12.85)
    t = res["budget"]["totals"]
    per = 8 * (64 + 64) * 2
    assert t["cell_size_bytes"] == pytest.approx(per * 12 + 0.8 * per * 12)
    # oracle sweep: full 1,318,064 / SWA 1,054,451
    assert t["max_total_num_tokens"] == pytest.approx(1_318_064, rel=0.001)
    assert t["swa_max_total_num_tokens"] == pytest.approx(1_054_451, rel=0.001)


def test_gpt_oss_20b_hybrid_swa_059_solves_the_ratio_after_profiling():
    res = run("openai__gpt-oss-20b", {"mem_fraction_static": 0.85}, version="0.5.9", weights_gib=12.85)
    t = res["budget"]["totals"]
    per = 2048
    raw = int(((79.0 - 12.85) - 79.0 * 0.15) * GIB) // (per * 24)
    full = int(raw * per * 24 / (per * 12 + 0.8 * per * 12))
    assert t["max_total_num_tokens"] == full and t["swa_max_total_num_tokens"] == int(full * 0.8)


def test_qwen3_next_gdn_state_and_oracle_sweep():
    spec = spec_of("Qwen__Qwen3-Next-80B-A3B-Instruct")
    assert len(spec.state_layer_ids) == 36 and len(spec.full_attention_layer_ids) == 12
    res = run("Qwen__Qwen3-Next-80B-A3B-Instruct", {"tp_size": 4, "mem_fraction_static": 0.85}, weights_gib=37.25)
    t = res["budget"]["totals"]
    conv = (32 * 128 + 2 * 16 * 128) // 4 * 3 * 2
    ssm = (32 // 4) * 128 * 128 * 4
    assert t["mamba_state_per_req_bytes"] == (conv + ssm) * 36
    assert t["cell_size_bytes"] == 1 * 512 * 12 * 2  # 2 KV heads < TP 4: one replicated head per rank
    assert (t["mamba_slots"], t["max_running_requests"]) == (786, 157)
    assert t["max_total_num_tokens"] == pytest.approx(1_375_832, rel=0.001)


def test_nemotron3_nano_mamba2_pattern_and_oracle_sweep():
    spec = spec_of("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    pattern = spec.raw_text_config["hybrid_override_pattern"]
    assert len(spec.state_layer_ids) == pattern.count("M") == 23
    assert len(spec.full_attention_layer_ids) == pattern.count("*") == 6
    res = run("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", {"mem_fraction_static": 0.85}, weights_gib=58.82)
    t = res["budget"]["totals"]
    conv = (64 * 64 + 2 * 8 * 128) * 3 * 2
    ssm = 64 * 64 * 128 * 4
    assert t["mamba_state_per_req_bytes"] == (conv + ssm) * 23
    assert t["cell_size_bytes"] == 2 * 256 * 6 * 2
    assert (t["mamba_slots"], t["max_running_requests"]) == (85, 17)
    assert t["max_total_num_tokens"] == pytest.approx(769_008, rel=0.001)


def test_nemotron_h_56b_attention_head_dim_and_short_context():
    spec = spec_of("nvidia__Nemotron-H-56B-Base-8K")
    assert spec.head_dim == 128 and spec.derived_context_len == 8192
    res = run("nvidia__Nemotron-H-56B-Base-8K", {"tp_size": 2, "mem_fraction_static": 0.85, "context_length": 16384})
    assert res["root_cause"] == "context_length_exceeds_model" and res["error"]["type"] == "ValueError"
    assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in res["error"]["message"]


def test_r1_14b_awq_packed_weights():
    spec = spec_of("neody__r1-14b-awq")
    assert spec.quant.method == "awq" and spec.quant.bits == 4
    wb = compute_weights(spec, 1, release=NEWEST)

    def awq(out, inp):
        return out * inp // 2 + (inp // 128) * out // 2 + (inp // 128) * out * 2

    q_bias = 5120 + 2 * 1024
    per_layer = awq(5120, 5120) + 2 * awq(1024, 5120) + awq(5120, 5120) + 2 * awq(13824, 5120) + awq(5120, 13824) + 2 * (q_bias + 2 * 5120)
    expected = 48 * per_layer + 2 * (2 * 152064 * 5120 + 5120)
    assert wb.target_param_bytes == expected


def test_llama31_70b_modelopt_fp8_kv_cache_is_fp8():
    res = run("nvidia__Llama-3.1-70B-Instruct-FP8", {"tp_size": 2, "mem_fraction_static": 0.85})
    assert res["budget"]["totals"]["cell_size_bytes"] == 4 * 256 * 80 * 1  # kv_cache_quant_algo FP8
    spec = spec_of("nvidia__Llama-3.1-70B-Instruct-FP8")
    # lm_head excluded from quantization: stays bf16
    assert spec.quant.algo_for(None, "lm_head") is None and spec.quant.algo_for(0, "mlp.up_proj") == "modelopt_fp8"


def test_qwen36_nvfp4_mixed_precision_per_module():
    spec = spec_of("nvidia__Qwen3.6-27B-NVFP4")
    assert spec.quant.algo_for(0, "mlp.gate_proj") == "modelopt_fp4"
    assert spec.quant.algo_for(0, "linear_attn.in_proj_qkv") == "modelopt_fp8"
    bf16 = compute_weights(spec_of("Qwen__Qwen3.6-27B"), 2, release=NEWEST).target_param_bytes
    fp4 = compute_weights(spec, 2, release=NEWEST).target_param_bytes
    assert 0.3 < fp4 / bf16 < 0.5
    res = run(
        "nvidia__Qwen3.6-27B-NVFP4",
        {"tp_size": 2, "mem_fraction_static": 0.85},
        gpu={"name": "NVIDIA RTX A6000", "memory_total_mib": 49140, "compute_capability": "8.6"},
        pre=47.3,
    )
    assert res["budget"]["totals"]["cell_size_bytes"] == 2 * 512 * 16 * 1


def test_glm47_nextn_cell_inflation_0523():
    args = {"tp_size": 8, "mem_fraction_static": 0.9, "speculative_algorithm": "EAGLE"}
    h200 = {"name": "NVIDIA H200", "memory_total_mib": 143771, "compute_capability": "9.0"}
    res = run("zai-org__GLM-4.7", args, gpu=h200, pre=139.0)
    cell = 1 * 256 * 92 * 2
    assert res["budget"]["totals"]["cell_size_bytes"] == cell + int(cell / 92)
    assert res["resolved_args"]["spec_draft_tokens"] == 4


@pytest.mark.parametrize(
    "name, n_layers, n_full",
    [
        ("Qwen__Qwen3.5-27B", 64, 16),
        ("Qwen__Qwen3.5-35B-A3B", 40, 10),
        ("Qwen__Qwen3.5-122B-A10B", 48, 12),
        ("Qwen__Qwen3.5-397B-A17B", 60, 15),
    ],
)
def test_qwen35_family_full_attention_every_fourth_layer(name, n_layers, n_full):
    spec = spec_of(name)
    assert spec.num_layers == n_layers and len(spec.full_attention_layer_ids) == n_full
    assert spec.full_attention_layer_ids[:2] == [3, 7]
    assert spec.is_multimodal and spec.mtp_num_hidden_layers == 1


def test_qwen35_35b_nextn_on_one_h100_fails_like_the_oracle():
    # oracle sweep: SGLang's own 'Not enough GPU memory for hybrid ... Computed max_mamba_cache_size=-11'
    res = run("Qwen__Qwen3.5-35B-A3B", {"speculative_algorithm": "NEXTN", "mem_fraction_static": 0.85}, weights_gib=68.92)
    assert res["error"]["type"] == "RuntimeError"
    assert "Computed max_mamba_cache_size=-1" in res["error"]["message"]


def test_minimax_m27_fp8_moe_context():
    spec = spec_of("MiniMaxAI__MiniMax-M2.7")
    assert spec.derived_context_len == 204800 and spec.num_experts == 256
    assert spec.quant.algo_for(0, "mlp.gate") is None  # modules_to_not_convert
    res = run(
        "MiniMaxAI__MiniMax-M2.7",
        {"tp_size": 4, "mem_fraction_static": 0.85},
        pre=139.0,
        gpu={"name": "NVIDIA H200", "memory_total_mib": 143771, "compute_capability": "9.0"},
    )
    assert res["budget"]["totals"]["cell_size_bytes"] == 2 * 256 * 62 * 2
    assert res["verdict"] in ("fits", "degraded")


B200 = {"name": "NVIDIA B200", "memory_total_mib": 183359, "compute_capability": "10.0"}


@pytest.mark.parametrize(
    "name, version, gpu, backend, page",
    [
        ("meta-llama__Llama-3.1-8B-Instruct", "0.5.9", H100, "fa3", 1),  # MHA on Hopper: fa3
        ("meta-llama__Llama-3.1-8B-Instruct", "0.5.9", B200, "trtllm_mha", 64),  # trtllm_mha forces page 64
        ("deepseek-ai__DeepSeek-V3", "0.5.9", B200, "trtllm_mla", 64),
        ("deepseek-ai__DeepSeek-V3", "0.5.23", H100, "fa3", 1),
        ("openai__gpt-oss-20b", "0.5.9", B200, "trtllm_mha", 64),
        ("Qwen__Qwen3.6-27B", "0.5.9", B200, "triton", 1),
        ("Qwen__Qwen3.6-27B", "0.5.23", B200, "trtllm_mha", 64),
        ("Qwen__Qwen3.6-27B", "0.5.23", {"name": "NVIDIA RTX A6000", "memory_total_mib": 49140}, "flashinfer", 1),
    ],
)
def test_default_attention_backend_decides_the_page_size(name, version, gpu, backend, page):
    res = run(name, {"tp_size": 8 if "DeepSeek" in name else 1, "mem_fraction_static": 0.8}, version=version, gpu=gpu, pre=gpu["memory_total_mib"] / 1024 - 1)
    assert res["resolved_args"]["attention_backend"] == backend
    assert res["resolved_args"]["page_size"] == page
    tokens = res["budget"]["totals"]["max_total_num_tokens"]
    assert tokens is None or tokens % page == 0


def test_gpt_oss_on_blackwell_loses_hybrid_swa_memory():
    res = run("openai__gpt-oss-20b", {"mem_fraction_static": 0.8}, version="0.5.9", gpu=B200, pre=178.0)
    assert res["resolved_args"]["hybrid_swa"] is False
    assert res["budget"]["totals"]["cell_size_bytes"] == 8 * 128 * 24 * 2  # all 24 layers as full attention


def test_dp_attention_replicates_attention_and_divides_requests():
    gpu = {"name": "NVIDIA H200", "memory_total_mib": 143771, "compute_capability": "9.0"}
    base = {"tp_size": 8, "mem_fraction_static": 0.85, "max_running_requests": 64}
    tp = run("deepseek-ai__DeepSeek-V3", base, pre=139.0, gpu=gpu, version="0.5.9")
    dp = run("deepseek-ai__DeepSeek-V3", dict(base, dp_size=8, enable_dp_attention=True), pre=139.0, gpu=gpu, version="0.5.9")
    spec = spec_of("deepseek-ai__DeepSeek-V3")
    # attention per layer on one rank, fp8 with 128x128 fp32 block scales, split 8 ways vs whole:
    # q_b 1536 -> 128*192, kv_b 512 -> 128*256, o 128*128 -> 7168 (fused_qkv_a is replicated either way)

    def fp8(out, inp):
        return out * inp + -(-out // 128) * -(-inp // 128) * 4

    whole = fp8(128 * 192, 1536) + fp8(128 * 256, 512) + fp8(7168, 128 * 128)
    split = fp8(16 * 192, 1536) + fp8(16 * 256, 512) + fp8(7168, 16 * 128)
    embed = (129280 - 129280 // 8) * 7168 * 2  # embedding split over attn_tp = 1 instead of 8
    absorbed = 61 * (128 - 16) * (128 + 128) * 512 * 1  # fp8 w_kc/w_vc per rank follow the attention heads
    grow = (dp["budget"]["per_gpu"][0]["weights_gib"] - tp["budget"]["per_gpu"][0]["weights_gib"]) * GIB
    assert grow == pytest.approx(61 * (whole - split) + embed + absorbed, rel=0.002)
    assert spec.is_mla
    assert dp["budget"]["totals"]["max_running_requests"] == 64 // 8


def test_0523_attn_dp_divides_mamba_slots_and_requests():
    args = {"tp_size": 4, "mem_fraction_static": 0.85, "attn_dp_size": 2, "max_running_requests": 48, "disable_radix_cache": True}
    res = run("Qwen__Qwen3-Next-80B-A3B-Instruct", args, weights_gib=40.0)
    t = res["budget"]["totals"]
    assert t["mamba_slots"] == 24 and t["max_running_requests"] == 24
    # attention TP is 2: one KV head per rank, GDN state split 2 ways
    assert t["cell_size_bytes"] == 1 * 512 * 12 * 2
    conv = (32 * 128 + 2 * 16 * 128) // 2 * 3 * 2
    assert t["mamba_state_per_req_bytes"] == (conv + 16 * 128 * 128 * 4) * 36


def test_online_fp8_quantization_and_float32_dtype():
    base = run("meta-llama__Llama-3.1-8B-Instruct", {"mem_fraction_static": 0.8})
    fp8 = run("meta-llama__Llama-3.1-8B-Instruct", {"mem_fraction_static": 0.8, "quantization": "fp8"})
    f32 = run("meta-llama__Llama-3.1-8B-Instruct", {"mem_fraction_static": 0.8, "dtype": "float32"})
    linear = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
    saved = (base["budget"]["per_gpu"][0]["weights_gib"] - fp8["budget"]["per_gpu"][0]["weights_gib"]) * GIB
    assert saved == pytest.approx(linear, rel=0.001)  # 2 B -> 1 B per linear element (+ tiny scales)
    assert f32["budget"]["totals"]["cell_size_bytes"] == 2 * base["budget"]["totals"]["cell_size_bytes"]


def test_float32_checkpoint_is_served_in_16_bit():
    cfg = dict(load("meta-llama__Llama-3.1-8B-Instruct")["config"], torch_dtype="float32")
    assert build_model_spec(cfg).dtype_bytes == 2


def test_gpt_oss_swa_pool_sized_from_the_request_cap_0523():
    args = {"mem_fraction_static": 0.85, "disable_radix_cache": True, "max_running_requests": 16}
    res = run("openai__gpt-oss-20b", args, weights_gib=12.85)
    t = res["budget"]["totals"]
    # compute_swa_request_cap: (window 127 + eviction 128 x 1 + page 1 + decode page 1) x 16 + 2 chunks x 8192 + 1;
    # the window is models/gpt_oss.py get_attention_sliding_window_size = config.sliding_window (128) - 1
    cap = (127 + 128 + 1 + 1) * 16 + 2 * 8192 + 1
    assert t["swa_max_total_num_tokens"] == cap
    avail = int(((79.0 - 12.85) - 79.0 * 0.15) * GIB)
    assert t["max_total_num_tokens"] == (avail - cap * 2048 * 12) // (2048 * 12)


def test_0523_default_fraction_without_graphs():
    no_graphs = {"cuda_graph_backend_decode": "disabled", "cuda_graph_backend_prefill": "disabled"}
    res = run("meta-llama__Llama-3.1-8B-Instruct", no_graphs, weights_gib=14.96)
    # 512 + 8192*1.5 + 128 = 12928 MiB (no graph reserve) -> round((81559 - 12928) / 81559, 3)
    assert res["budget"]["totals"]["mem_fraction_static"] == round((81559 - 12928) / 81559, 3)


@pytest.mark.parametrize(
    "name, tp, oracle_gib",
    [
        # oracle-0.5.23.md section 5 breadth sweep: per-GPU bytes of SGLang's own classes built on the meta device
        ("Qwen__Qwen3-30B-A3B", 2, 28.47),
        ("Qwen__Qwen3-32B-FP8", 1, 31.99),
        ("Qwen__Qwen3-Next-80B-A3B-Instruct", 4, 37.25),
        ("openai__gpt-oss-20b", 1, 12.85),
        ("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 1, 58.82),
        ("deepseek-ai__DeepSeek-V3", 8, 79.33),
        ("mistralai__Mistral-7B-Instruct-v0.3", 1, 13.52),
    ],
)
def test_shape_weights_match_the_oracle_sweep(name, tp, oracle_gib):
    spec = spec_of(name)
    wb = compute_weights(spec, tp, release=NEWEST)
    resident = wb.target_param_bytes + wb.target_buffer_bytes
    if spec.is_mla:  # the sweep built the classes without post_load_weights: no absorbed w_kc/w_vc yet
        from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.weights import mla_absorbed_bytes

        resident -= mla_absorbed_bytes(spec, tp)
    assert resident / GIB == pytest.approx(oracle_gib, abs=0.006)


def test_qwen35_35b_target_plus_draft_matches_the_oracle_sweep():
    wb = compute_weights(spec_of("Qwen__Qwen3.5-35B-A3B"), 1, release=NEWEST)
    total = wb.target_param_bytes + wb.target_buffer_bytes + wb.draft_param_bytes
    assert total / GIB == pytest.approx(68.92, abs=0.006)


def test_qwen3_next_nextn_draft_is_built_without_a_config_field():
    """Qwen3-Next's config declares no MTP layers, but SGLang rewrites it to Qwen3NextForCausalLMMTP with one layer
    (configs/model_config.py): its own embedding + lm_head, fc 2H->H, one gated-attention MoE layer."""
    spec = spec_of("Qwen__Qwen3-Next-80B-A3B-Instruct")
    assert spec.has_mtp_head and spec.num_nextn_predict_layers is None
    tp, h = 4, 2048
    layer = (
        512 * 3 * h * 512 // tp
        + 3 * h * 512 // tp
        + 512 * h
        + h  # experts, shared expert, router, gate
        + h * (16 // tp) * 256 * 2
        + 2 * h * 256
        + (16 // tp) * 256 * h  # gated q, k/v (1 head/rank), o
        + 2 * 256
        + 2 * h
    ) * 2  # q/k norms, layer norms
    draft = layer + 2 * h * h * 2 + 3 * h * 2 + 2 * (151936 // tp) * h * 2  # fc, norms, embedding + lm_head
    assert compute_weights(spec, tp, release=NEWEST).draft_param_bytes == draft
    res = run("Qwen__Qwen3-Next-80B-A3B-Instruct", {"tp_size": 4, "mem_fraction_static": 0.85, "speculative_algorithm": "NEXTN"})
    assert res["budget"]["per_gpu"][0]["draft_gib"] == pytest.approx(draft / GIB, abs=0.001)
    # no num_nextn_predict_layers in the target config: the draft KV is not in the 0.5.23 cell
    assert res["budget"]["totals"]["cell_size_bytes"] == 1 * 512 * 12 * 2


@pytest.mark.parametrize("version, hidden, inter", [("0.5.23", 3072, 2944), ("0.5.9", 3072, 3072)])
def test_gpt_oss_mxfp4_experts_padded_for_flashinfer_on_blackwell(version, hidden, inter):
    """FlashInfer's MXFP4 MoE (the Blackwell default) pads the experts: FusedMoE rounds hidden 2880 -> 3072 and
    create_weights the intermediate (to 128 in 0.5.23, 256 in 0.5.9); Hopper takes the checkpoint's sizes."""
    h100 = run("openai__gpt-oss-20b", {"mem_fraction_static": 0.8}, version=version)
    b200 = run("openai__gpt-oss-20b", {"mem_fraction_static": 0.8}, version=version, gpu=B200, pre=178.0)

    def experts(hid, itm):
        return 24 * 32 * ((3 * hid * itm) * (0.5 + 1 / 32) + (2 * itm + hid) * 2)

    grow = (b200["budget"]["per_gpu"][0]["weights_gib"] - h100["budget"]["per_gpu"][0]["weights_gib"]) * GIB
    assert grow == pytest.approx(experts(hidden, inter) - experts(2880, 2880), rel=0.002)
