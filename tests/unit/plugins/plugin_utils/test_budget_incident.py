# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The incident (Qwen3.6-27B, 2x RTX A6000, TP 2, NEXTN 3/1/4) on both pinned SGLang versions.

Expected numbers come from the research notes (seed-on-0.5.9.md: 0.5.9's own sizing code run on CPU;
oracle-0.5.23.md: 0.5.23's real sizing code run on CPU) and from hand arithmetic written out below.
The GPUs are declared (no hardware here) with the baseline the notes assume, pre = 47.3 GiB.
"""

import json
import pathlib

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import evaluate

GIB = 1 << 30
ROOT = pathlib.Path(__file__).resolve().parents[4]
CONFIG = json.loads((ROOT / "tests/fixtures/model-configs/Qwen__Qwen3.6-27B/config.json").read_text())
A6000 = {"name": "NVIDIA RTX A6000", "memory_total_mib": 49140, "compute_capability": "8.6"}
NEXTN = {
    "tp_size": 2,
    "mem_fraction_static": 0.85,
    "context_length": 65536,
    "speculative_algorithm": "NEXTN",
    "speculative_num_steps": 3,
    "speculative_eagle_topk": 1,
    "speculative_num_draft_tokens": 4,
}
MSG_059 = "Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static={}"
# The seed analysis assumed nothing but the parameters resident at sizing (delta = 0).
SEED_WEIGHTS = {"target_param_bytes": 27_359_368_048}


def gpus(pre=47.3):
    return [dict(A6000, index=i, pre_model_load_gib=pre) for i in range(2)]


def run(args, version, pre=47.3, weights=None, fixes=False):
    model = {"config": CONFIG}
    if weights:
        model["weights"] = weights
    return evaluate(model, gpus(pre), args, version, with_fixes=fixes)


@pytest.mark.parametrize(
    "changes, mfs",
    [
        ({"enable_torch_compile": True}, 0.85),  # attempt 1
        ({"context_length": 32768}, 0.85),  # attempt 2
        ({"mem_fraction_static": 0.88, "mamba_full_memory_ratio": 0.5}, 0.88),  # attempt 3 (the 4th step)
    ],
)
def test_059_every_attempt_fails_with_the_exact_runtime_error(changes, mfs):
    res = run(dict(NEXTN, **changes), "0.5.9")
    assert res["verdict"] == "fails"
    assert res["error"] == {"type": "RuntimeError", "message": MSG_059.format(mfs)}
    # the GDN pool (48 slots + 48 x 4 intermediates) is what does not fit, not the KV pool
    assert res["root_cause"] == "mamba_pool_too_small"
    assert res["resolved_args"]["disable_radix_cache"] is True
    assert res["resolved_args"]["max_running_requests"] == 48


def test_059_hand_derived_state_and_cell():
    res = run(NEXTN, "0.5.9")
    totals = res["budget"]["totals"]
    # conv (128*48 + 2*16*128)/2 x 3 bf16 = 30,720 B; ssm 24 x 128 x 128 fp32 = 1,572,864 B; x 48 GDN layers
    assert totals["mamba_state_per_req_bytes"] == (30_720 + 1_572_864) * 48 == 76_972_032
    # 4 KV heads / TP 2 x (256 + 256) x 16 full-attention layers x 2 B
    assert totals["cell_size_bytes"] == 2 * 512 * 16 * 2 == 32_768


def test_059_max_running_requests_32_reproduces_seed_table():
    # seed-on-0.5.9.md section 5: tokens = (int((pre*0.85 - W)*2^30) - 5*R*per_req) // 32768 with delta = 0
    res = run(dict(NEXTN, max_running_requests=32), "0.5.9", weights=SEED_WEIGHTS)
    t = res["budget"]["totals"]
    assert (t["max_total_num_tokens"], t["mamba_slots"], t["max_running_requests"]) == (106_655, 32, 32)
    by_hand = (int((47.3 * 0.85 - 27_359_368_048 / GIB) * GIB) - 5 * 32 * 76_972_032) // 32_768
    assert abs(t["max_total_num_tokens"] - by_hand) <= 1


@pytest.mark.parametrize("pre, expected", [(46.8, 92_729), (47.0, 98_299), (47.6, 115_011)])
def test_059_seed_sensitivity_row_r32(pre, expected):
    res = run(dict(NEXTN, max_running_requests=32), "0.5.9", pre=pre, weights=SEED_WEIGHTS)
    assert res["budget"]["totals"]["max_total_num_tokens"] == pytest.approx(expected, abs=2)


def test_059_rope_cache_makes_the_seed_figure_64_mib_optimistic():
    """The seed note took delta = 0; the source allocates the fp32 RoPE cos_sin_cache (262,144 x 64 x 4 B)
    when Qwen3_5ForConditionalGeneration is constructed, i.e. before sizing, so the engine counts it:
    2,048 fewer tokens (64 MiB / 32 KiB), plus the GemmaRMSNorm buffer copies, plus the ViT's RoPE cache
    (built with 8,192 rows of 36 fp32) that load_model's reserve_rope_cache_for_long_sequences grows to
    65,536 + 3 x 4 x 2 + 256 -> 65,920 rows (utils/common.py) before the pool is sized: 290 tokens."""
    seed = run(dict(NEXTN, max_running_requests=32), "0.5.9", weights=SEED_WEIGHTS)
    real = run(dict(NEXTN, max_running_requests=32), "0.5.9")
    drop = seed["budget"]["totals"]["max_total_num_tokens"] - real["budget"]["totals"]["max_total_num_tokens"]
    vit_rope = 65_920 * 36 * 4 / 32_768
    assert 2048 + vit_rope <= drop <= 2048 + vit_rope + 60
    assert real["verdict"] == "fits"


def test_059_fix_ranking_puts_max_running_requests_above_the_fraction():
    res = run(NEXTN, "0.5.9", fixes=True)
    fixes = res["fixes"]
    assert fixes, "a failing launch must come with fixes"
    first = fixes[0]
    assert list(first["changes"]) == ["max_running_requests"]
    assert 30 <= first["changes"]["max_running_requests"] <= 35
    assert first["verdict"] == "fits" and first["max_total_num_tokens"] >= 65536
    kinds = [next(iter(f["changes"])) for f in fixes]
    if "mem_fraction_static" in kinds:
        assert kinds.index("max_running_requests") < kinds.index("mem_fraction_static")
    # raising the fraction alone needs >= 0.903 at pre 47.3 (seed section 5); the engine agrees
    assert 0.90 <= res["budget"]["totals"]["min_viable_mem_fraction_static"] <= 0.91


def test_0523_incident_matches_oracle():
    # oracle-0.5.23.md section 4: 204,134 tokens / K 40 / 8 requests with real params + buffers. The 0.5.23
    # oracle builds the model without the rest of load_model, so its ViT RoPE cache keeps its 8,192 built rows;
    # the real load_model grows it to 65,920 (reserve_rope_cache_for_long_sequences, model_runner.py:1399)
    # before sizing: (65,920 - 8,192) x 36 x 4 B fewer for the KV pool, 32,768 B per token.
    res = run(NEXTN, "0.5.23")
    t = res["budget"]["totals"]
    assert res["error"] is None
    assert t["mamba_slots"] == 40 and t["max_running_requests"] == 8
    assert t["max_total_num_tokens"] == pytest.approx(204_134 - (65_920 - 8_192) * 36 * 4 / 32_768, rel=0.001)
    assert any(w["id"] == "max_running_requests_capped" for w in res["warnings"])
    assert res["resolved_args"]["mamba_strategy"] == "extra_buffer"


@pytest.mark.parametrize(
    "weights, expected",
    [
        ({"target_param_bytes": int(28.29 * GIB)}, (206_357, 40, 8)),
        ({"target_param_bytes": 27_359_370_352, "draft_param_bytes": 3_019_951_104}, (206_261, 40, 8)),
        (
            {"target_param_bytes": 27_359_370_352, "target_buffer_bytes": 69_626_112, "draft_param_bytes": 3_019_951_104, "draft_buffer_bytes": 52_224},
            (204_134, 40, 8),
        ),
    ],
)
def test_0523_oracle_table_exact_with_the_oracles_weights(weights, expected):
    res = run(NEXTN, "0.5.23", weights=weights)
    t = res["budget"]["totals"]
    assert (t["max_total_num_tokens"], t["mamba_slots"], t["max_running_requests"]) == expected


ORACLE_W = {"target_param_bytes": int(28.29 * GIB)}


@pytest.mark.parametrize(
    "changes, pre, expected",
    [
        ({}, 47.0, (209_746, 39, 7)),
        ({}, 47.6, (212_364, 41, 8)),
        ({"mamba_full_memory_ratio": 2.0}, 47.3, (135_887, 58, 11)),
        ({"mem_fraction_static": 0.88}, 47.3, (231_714, 45, 9)),
        ({"mamba_ssm_dtype": "bfloat16"}, 47.3, (206_483, 82, 16)),
        ({"max_running_requests": 16}, 47.3, (206_357, 40, 8)),
        ({"disable_radix_cache": True, "max_running_requests": 16}, 47.3, (187_565, 16, 16)),
        ({"disable_radix_cache": True, "max_running_requests": 24}, 47.3, (93_605, 24, 24)),
    ],
)
def test_0523_oracle_section5_rows(changes, pre, expected):
    res = run(dict(NEXTN, **changes), "0.5.23", pre=pre, weights=ORACLE_W)
    t = res["budget"]["totals"]
    assert (t["max_total_num_tokens"], t["mamba_slots"], t["max_running_requests"]) == expected


def test_0523_default_fraction_and_its_vlm_factor():
    args = {k: v for k, v in NEXTN.items() if k != "mem_fraction_static"}
    res = run(args, "0.5.23", weights=ORACLE_W)
    # reserved = 512 + 4096*1.5 + 2/8*1024 + 2*32 + 8*50 = 7376 MiB -> 0.850; x 0.95 x 0.9734 (ViT 24 x 1152^2)
    assert res["budget"]["totals"]["mem_fraction_static"] == pytest.approx(0.78605, abs=1e-5)
    t = res["budget"]["totals"]
    assert (t["mamba_slots"], t["max_running_requests"]) == (29, 5)
    assert t["max_total_num_tokens"] == pytest.approx(161_268, abs=40)


@pytest.mark.parametrize("mfs, kind", [(0.62, "Not enough GPU memory for hybrid"), (0.64, "is too small to serve")])
def test_0523_low_fraction_mamba_errors(mfs, kind):
    res = run(dict(NEXTN, mem_fraction_static=mfs), "0.5.23", weights=ORACLE_W)
    assert res["verdict"] == "fails" and res["error"]["type"] == "RuntimeError"
    assert kind in res["error"]["message"]
    assert res["root_cause"] == "mamba_pool_too_small"


def test_0523_disable_radix_cache_gives_the_misleading_value_error():
    res = run(dict(NEXTN, disable_radix_cache=True), "0.5.23", weights=ORACLE_W)
    assert res["error"]["type"] == "ValueError"
    assert res["error"]["message"].startswith(
        "Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.85. "
        "Raise --mem-fraction-static above 0.599 (minimum viable = 1 - available/pre = 0.598"
    )
    assert res["root_cause"] == "mamba_pool_too_small"


def test_059_default_fraction_with_spec_reserve_and_vlm_factor():
    args = {k: v for k, v in NEXTN.items() if k != "mem_fraction_static"}
    res = run(args, "0.5.9")
    # 0.5.9: reserved = 512 + 6144 + 64 + 256 + 2048 (EAGLE) = 9024 MiB -> 0.816, x 0.9248 -> 0.755 (seed section 2)
    assert res["budget"]["totals"]["mem_fraction_static"] == pytest.approx(0.816 * 0.95 * 0.97338, abs=1e-4)
    assert res["verdict"] == "fails"


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({"mamba_ssm_dtype": "bfloat16"}, (195_215, 48, 48)),
        ({"speculative_num_steps": 1, "speculative_num_draft_tokens": 2}, (144_239, 48, 48)),
        ({"mamba_scheduler_strategy": "extra_buffer"}, (17_393, 6, 1)),
        ({"mem_fraction_static": 0.91}, (11_731, 48, 48)),
        ({"mem_fraction_static": 0.92}, (27_230, 48, 48)),
    ],
)
def test_059_seed_other_single_changes(changes, expected):
    # seed-on-0.5.9.md section 5 "Other single changes" (delta = 0)
    res = run(dict(NEXTN, **changes), "0.5.9", weights=SEED_WEIGHTS)
    t = res["budget"]["totals"]
    assert (t["max_total_num_tokens"], t["mamba_slots"], t["max_running_requests"]) == expected


def test_059_dropping_speculation_keeps_radix_with_no_buffer():
    args = {k: v for k, v in NEXTN.items() if not k.startswith("speculative")}
    res = run(args, "0.5.9", weights=SEED_WEIGHTS)
    t = res["budget"]["totals"]
    assert (t["max_total_num_tokens"], t["mamba_slots"], t["max_running_requests"]) == (254_642, 97, 32)
    assert res["resolved_args"]["disable_radix_cache"] is False and res["resolved_args"]["mamba_strategy"] == "no_buffer"


def test_0523_explicit_no_buffer_needs_overlap_off():
    """The notes call no_buffer a valid strategy; 0.5.23's mamba_hook.validate_mamba_no_buffer rejects it while
    the overlap schedule is on (the default), so the launch stops before loading anything."""
    res = run(dict(NEXTN, mamba_radix_cache_strategy="no_buffer"), "0.5.23")
    message = "no_buffer do not support overlap schedule. Try to set disable_overlap_schedule=True."
    assert res["error"] == {"type": "AssertionError", "message": message}
    ok = run(dict(NEXTN, mamba_radix_cache_strategy="no_buffer", disable_overlap_schedule=True), "0.5.23")
    assert ok["error"] is None and ok["budget"]["totals"]["max_running_requests"] <= ok["budget"]["totals"]["mamba_slots"] // 3


def test_059_extra_buffer_is_refused_for_nemotron_h():
    cfg = json.loads((ROOT / "tests/fixtures/model-configs/nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16/config.json").read_text())
    gpus = [{"name": "NVIDIA H100", "memory_total_mib": 81559, "pre_model_load_gib": 79.0}]
    res = evaluate({"config": cfg}, gpus, {"mamba_scheduler_strategy": "extra_buffer"}, "0.5.9", with_fixes=False)
    assert res["error"]["type"] == "AssertionError"
    assert "extra_buffer is not supported for NemotronHForCausalLM" in res["error"]["message"]


def test_language_model_only_drops_the_vision_tower_on_0523_not_on_059():
    """A checkpoint that declares language_model_only runs text only on 0.5.23 (configs/model_config.py is_lm_only);
    the --language-model-only flag is refused for this class there (only ServerArgs.LANGUAGE_MODEL_ONLY_ARCHITECTURES
    may use it; the oracle agrees on Qwen3-VL and Gemma 4)."""
    flag = run({"tp_size": 2, "context_length": 65536, "language_model_only": True}, "0.5.23")
    assert flag["error"]["type"] == "ValueError"
    assert flag["error"]["message"].startswith("--language-model-only does not support ['Qwen3_5ForConditionalGeneration']. Supported: [")
    text_only = evaluate({"config": dict(CONFIG, language_model_only=True)}, gpus(47.3), {"tp_size": 2, "context_length": 65536}, "0.5.23", with_fixes=False)
    new = text_only
    full = run({"tp_size": 2, "context_length": 65536}, "0.5.23")
    # ViT params at TP 2 (oracle-0.5.23.md: 27,359,370,352 B minus the text model), and its RoPE cache, grown by
    # load_model to 65,536 + 256 -> 65,792 rows of 36 fp32 (utils/common.py reserve_rope_cache_for_long_sequences)
    vision_per_gpu = 231_347_384 * 2 + 65_792 * 36 * 4
    drop = (full["budget"]["per_gpu"][0]["weights_gib"] - new["budget"]["per_gpu"][0]["weights_gib"]) * GIB
    assert drop == pytest.approx(vision_per_gpu, abs=0.002 * GIB)
    # no VLM factor on the default fraction: 0.850 instead of 0.786
    assert new["budget"]["totals"]["mem_fraction_static"] == 0.85
    old = run({"tp_size": 2, "context_length": 65536}, "0.5.9")
    assert old["budget"]["per_gpu"][0]["weights_gib"] == pytest.approx(full["budget"]["per_gpu"][0]["weights_gib"], abs=0.02)


def test_0523_draft_path_budgets_the_draft_kv_in_the_cell():
    """sglang-memory.md section 5.4: --speculative-draft-model-path <same checkpoint> makes 0.5.23 budget the
    one-layer draft KV (cell x 17/16) instead of taking it from the slack."""
    res = run(dict(NEXTN, speculative_draft_model_path="/models/Qwen3.6-27B"), "0.5.23")
    assert res["budget"]["totals"]["cell_size_bytes"] == 32_768 + 32_768 // 16
    assert "draft_kv_pool" not in res["budget"]["totals"]["runtime_needs_gib"]
