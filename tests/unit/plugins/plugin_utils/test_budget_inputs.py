# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bad input gets a BudgetInputError naming the field and the fix; GPU facts and versions are read as documented."""

import json
import pathlib

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import (
    CONTEXT_OVERHEAD_GIB,
    NCCL_OVERHEAD_GIB,
    BudgetInputError,
    evaluate,
    find_fixes,
    load_model_dir,
)
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.weights import checkpoint_total_bytes, read_safetensors_header

CONFIGS = pathlib.Path(__file__).resolve().parents[4] / "tests/fixtures/model-configs"
LLAMA = json.loads((CONFIGS / "meta-llama__Llama-3.1-8B-Instruct/config.json").read_text())
QWEN36 = json.loads((CONFIGS / "Qwen__Qwen3.6-27B/config.json").read_text())
A6000 = {"name": "NVIDIA RTX A6000", "memory_total_mib": 49140}


def err(model, gpus, args, version="0.5.23"):
    with pytest.raises(BudgetInputError) as exc:
        evaluate(model, gpus, args, version)
    return exc.value


def test_malformed_config_names_the_field():
    e = err({"config": "not json"}, [A6000], {})
    assert e.field == "model.config" and "config.json" in str(e)


def test_missing_config_key_names_it():
    cfg = dict(LLAMA)
    del cfg["hidden_size"]
    e = err({"config": cfg}, [A6000], {})
    assert e.field == "model.config.hidden_size"


def test_unknown_architecture_lists_the_supported_families():
    e = err({"config": dict(LLAMA, architectures=["FooForCausalLM"])}, [A6000], {})
    assert e.field == "model.config.architectures"
    assert "FooForCausalLM" in str(e) and "LlamaForCausalLM" in str(e) and "Qwen3_5ForConditionalGeneration" in str(e)


def test_tp_not_dividing_heads():
    e = err({"config": LLAMA}, [A6000] * 3, {"tp_size": 3})
    assert e.field == "server_args.tp_size" and "32" in str(e)


def test_fewer_gpus_than_tp():
    e = err({"config": LLAMA}, [A6000], {"tp_size": 2})
    assert e.field == "gpus" and "tp_size is 2" in str(e)


@pytest.mark.parametrize("mfs", [0, 1.0, 1.2, -0.1])
def test_fraction_outside_open_interval(mfs):
    e = err({"config": LLAMA}, [A6000], {"mem_fraction_static": mfs})
    assert e.field == "server_args.mem_fraction_static"


def test_gpu_without_memory():
    e = err({"config": LLAMA}, [{"name": "NVIDIA RTX A6000"}], {})
    assert e.field == "gpus[0].memory_total_mib"


def test_empty_gpu_list():
    assert err({"config": LLAMA}, [], {}).field == "gpus"


def test_unknown_version_and_nearest_profile():
    e = err({"config": LLAMA}, [A6000], {}, version="0.4.0")
    assert e.field == "sglang_version"
    res = evaluate({"config": LLAMA}, [A6000], {}, "0.5.24", allow_nearest_profile=True)
    assert res["profile"] == "0.5.23" and res["confidence"] == "nearest"
    assert any(w["id"] == "nearest_profile" for w in res["warnings"])
    # a release between two known ones resolves to the nearest, with the same warning
    res = evaluate({"config": LLAMA}, [A6000], {}, "0.5.11.post1", allow_nearest_profile=True)
    assert res["profile"] == "0.5.11" and res["confidence"] == "nearest"


def test_non_integer_flag():
    e = err({"config": LLAMA}, [A6000], {"max_running_requests": "many"})
    assert e.field.startswith("server_args") and "max_running_requests" in str(e)


def test_missing_model_dir(tmp_path):
    with pytest.raises(BudgetInputError) as exc:
        load_model_dir(str(tmp_path))
    assert exc.value.field == "model"


def test_free_memory_assumption_is_documented():
    res = evaluate({"config": LLAMA}, [dict(A6000, index=0), dict(A6000, index=1)], {"tp_size": 2}, "0.5.23")
    g = res["budget"]["per_gpu"][0]
    assert g["free_gib"] == pytest.approx(49140 / 1024, abs=1e-3)
    assert g["pre_model_load_gib"] == pytest.approx(49140 / 1024 - CONTEXT_OVERHEAD_GIB - NCCL_OVERHEAD_GIB, abs=1e-3)
    assert any(w["id"] == "assumption" and "free memory not given" in w["message"] for w in res["warnings"])


def test_tp_imbalance_raises_the_versions_message():
    gpus = [dict(A6000, index=0, memory_free_mib=49000), dict(A6000, index=1, memory_free_mib=40000)]
    args = {"tp_size": 2, "mem_fraction_static": 0.8}
    new = evaluate({"config": LLAMA}, gpus, args, "0.5.23")
    old = evaluate({"config": LLAMA}, gpus, args, "0.5.9")
    assert new["root_cause"] == old["root_cause"] == "tp_memory_imbalance"
    assert new["error"]["message"].startswith("The memory capacity is unbalanced. Some GPUs may be occupied by other processes. pre_model_load_memory=")
    assert "min_per_gpu_memory=" in old["error"]["message"]
    quiet = evaluate({"config": LLAMA}, gpus, args, "0.5.23", env={"SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK": "0"})
    assert quiet["error"] is None and any(w["id"] == "tp_memory_imbalance" for w in quiet["warnings"])


def test_weights_larger_than_the_card():
    res = evaluate({"config": json.loads((CONFIGS / "Qwen__Qwen2.5-72B-Instruct/config.json").read_text())}, [A6000], {}, "0.5.23")
    assert res["verdict"] == "fails" and res["root_cause"] == "cuda_oom_weights"
    fixes = res["fixes"]
    assert fixes == [] or all(f["verdict"] != "fails" for f in fixes)


def test_safetensors_header_reader_reads_only_the_header(tmp_path):
    header = {
        "a": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]},
        "b": {"dtype": "F32", "shape": [4], "data_offsets": [12, 28]},
        "__metadata__": {"format": "pt"},
    }
    raw = json.dumps(header).encode()
    path = tmp_path / "model.safetensors"
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + b"\0" * 28)
    assert read_safetensors_header(str(path)) == header
    assert checkpoint_total_bytes(None, [header]) == (28, "safetensors_headers")
    assert checkpoint_total_bytes({"metadata": {"total_size": 99}}, [header]) == (99, "safetensors_index")


def test_checkpoint_total_is_apportioned_with_the_shape_split():
    shape = evaluate({"config": LLAMA}, [dict(A6000, index=i) for i in range(2)], {"tp_size": 2}, "0.5.23")
    idx = evaluate(
        {"config": LLAMA, "safetensors_index": {"metadata": {"total_size": 2 * 16_060_522_496}}},
        [dict(A6000, index=i) for i in range(2)],
        {"tp_size": 2},
        "0.5.23",
    )
    w_shape = shape["budget"]["per_gpu"][0]["weights_gib"]
    w_idx = idx["budget"]["per_gpu"][0]["weights_gib"]
    assert w_idx > 1.9 * w_shape - 0.2 and idx["budget"]["totals"]["weights_source"] == "safetensors_index"


def test_find_fixes_is_the_same_search_as_evaluate():
    args = {
        "tp_size": 2,
        "mem_fraction_static": 0.85,
        "context_length": 65536,
        "speculative_algorithm": "NEXTN",
        "speculative_num_steps": 3,
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
    }
    gpus = [dict(A6000, index=i, pre_model_load_gib=47.3) for i in range(2)]
    fixes = find_fixes({"config": QWEN36}, gpus, args, "0.5.9")
    assert fixes == evaluate({"config": QWEN36}, gpus, args, "0.5.9")["fixes"]


def test_result_is_json_safe():
    res = evaluate({"config": QWEN36}, [dict(A6000, index=i) for i in range(2)], {"tp_size": 2}, "0.5.23")
    assert json.loads(json.dumps(res)) == res


def test_flag_unknown_to_the_version_is_rejected_by_the_validator():
    e = err({"config": LLAMA}, [A6000], {"cuda_graph_max_bs": 16}, version="0.5.23")
    assert e.field == "server_args" and "cuda_graph_max_bs" in str(e)


def test_context_fix_offers_the_models_maximum():
    gpus = [dict(A6000, index=i, pre_model_load_gib=47.3) for i in range(2)]
    res = evaluate({"config": QWEN36}, gpus, {"tp_size": 2, "context_length": 300000}, "0.5.23")
    assert res["root_cause"] == "context_length_exceeds_model"
    ctx_fixes = [f for f in res["fixes"] if list(f["changes"]) == ["context_length"]]
    assert ctx_fixes and all(f["changes"]["context_length"] <= 262144 for f in ctx_fixes)
    assert all(f["verdict"] != "fails" for f in res["fixes"])


def test_default_request_estimate_capped_by_mamba_is_only_a_warning():
    gpus = [dict(A6000, index=i, pre_model_load_gib=47.3) for i in range(2)]
    res = evaluate({"config": QWEN36}, gpus, {"tp_size": 2, "mem_fraction_static": 0.85, "context_length": 65536}, "0.5.23")
    assert res["verdict"] == "fits"
    assert any(w["id"] == "max_running_requests_capped" for w in res["warnings"])
    args = {"tp_size": 2, "mem_fraction_static": 0.85, "context_length": 65536, "max_running_requests": 64}
    asked = evaluate({"config": QWEN36}, gpus, args, "0.5.23")
    assert asked["verdict"] == "degraded" and asked["root_cause"] == "mamba_pool_too_small"


def test_fp8_weight_fix_offered_on_hopper_when_weights_do_not_fit():
    h100 = {"name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559, "compute_capability": "9.0"}
    qwen32 = json.loads((CONFIGS / "Qwen__Qwen3-32B/config.json").read_text())
    res = evaluate({"config": qwen32}, [dict(h100, index=0, pre_model_load_gib=60.0)], {"mem_fraction_static": 0.85}, "0.5.23")
    assert res["root_cause"] == "cuda_oom_weights"
    fix = next(f for f in res["fixes"] if f["changes"] == {"quantization": "fp8"})
    assert fix["verdict"] in ("fits", "degraded") and fix["max_total_num_tokens"] > 0


def test_dp_replicas_need_their_own_gpus_and_take_the_smallest_baseline():
    e = err({"config": LLAMA}, [A6000] * 2, {"tp_size": 2, "dp_size": 2})
    assert e.field == "gpus" and "needs 4" in str(e)
    gpus = [dict(A6000, index=i, pre_model_load_gib=47.0 if i == 3 else 47.3) for i in range(4)]
    res = evaluate({"config": LLAMA}, gpus, {"tp_size": 2, "dp_size": 2, "mem_fraction_static": 0.8}, "0.5.23")
    assert len(res["budget"]["per_gpu"]) == 4
    assert res["message"].count("pre 47.00 GiB") == 1


def test_tied_embeddings_have_no_separate_lm_head():
    tied = dict(LLAMA, tie_word_embeddings=True)
    a = evaluate({"config": LLAMA}, [A6000], {"mem_fraction_static": 0.8}, "0.5.23")
    b = evaluate({"config": tied}, [A6000], {"mem_fraction_static": 0.8}, "0.5.23")
    saved = (a["budget"]["per_gpu"][0]["weights_gib"] - b["budget"]["per_gpu"][0]["weights_gib"]) * (1 << 30)
    assert saved == pytest.approx(128256 * 4096 * 2, rel=0.001)


def test_two_sided_fraction_too_high_leaves_no_room_for_graphs():
    """mem_fraction_static is two-sided: 0.93 on a 24 GB card starts but leaves too little slack for CUDA graphs
    and prefill activations; the fix lowers the fraction (SGLang's startup hint only ever says 'increase')."""
    rtx4090 = {"name": "NVIDIA GeForce RTX 4090", "memory_total_mib": 24564, "index": 0}
    res = evaluate({"config": LLAMA}, [rtx4090], {"context_length": 32768, "mem_fraction_static": 0.93}, "0.5.9")
    assert res["verdict"] == "degraded" and res["root_cause"] == "cuda_oom_cuda_graph"
    assert res["error"] is None and res["budget"]["per_gpu"][0]["headroom_gib"] < 0
    lower = [f for f in res["fixes"] if list(f["changes"]) == ["mem_fraction_static"]]
    assert lower and lower[0]["changes"]["mem_fraction_static"] < 0.93 and lower[0]["verdict"] == "fits"
    assert lower[0]["max_total_num_tokens"] >= 32768


def test_checks_trace_stops_where_sglang_stops():
    gpus = [dict(A6000, index=i, pre_model_load_gib=47.3) for i in range(2)]
    args = {"tp_size": 2, "mem_fraction_static": 0.85, "context_length": 65536, "speculative_algorithm": "NEXTN", "mamba_radix_cache_strategy": "no_buffer"}
    res = evaluate({"config": QWEN36}, gpus, args, "0.5.23", with_fixes=False)
    assert [c["id"] for c in res["checks"]] == ["model_config", "context_length", "quantization", "server_args"]
    assert res["checks"][-1]["passed"] is False and res["root_cause"] == "incompatible_feature_combination"
    assert json.loads(json.dumps(res)) == res
    ok = evaluate({"config": QWEN36}, gpus, {"tp_size": 2}, "0.5.23", with_fixes=False)
    assert [c["id"] for c in ok["checks"]] == [
        "model_config",
        "context_length",
        "quantization",
        "server_args",
        "tp_memory_balance",
        "weight_load",
        "pool_sizing",
        "worker_asserts",
    ]
    assert all(c["passed"] for c in ok["checks"])


def test_model_path_supplies_the_checkpoint_total(tmp_path):
    header = {"w": {"dtype": "BF16", "shape": [1024], "data_offsets": [0, 2 * 16_060_522_496]}}
    raw = json.dumps(header).encode()
    (tmp_path / "model-00001-of-00001.safetensors").write_bytes(len(raw).to_bytes(8, "little") + raw)
    res = evaluate({"config": LLAMA, "path": str(tmp_path)}, [A6000], {"mem_fraction_static": 0.8}, "0.5.23", with_fixes=False)
    assert res["budget"]["totals"]["weights_source"] == "safetensors_headers"
    # twice the real size: the per-GPU weights double (buffers aside)
    assert res["budget"]["per_gpu"][0]["weights_gib"] == pytest.approx(2 * 14.958 + 0.0625, abs=0.01)


def test_cpu_offload_moves_weights_off_the_gpu():
    base = evaluate({"config": LLAMA}, [A6000], {"mem_fraction_static": 0.8}, "0.5.23", with_fixes=False)
    off = evaluate({"config": LLAMA}, [A6000], {"mem_fraction_static": 0.8, "cpu_offload_gb": 4}, "0.5.23", with_fixes=False)
    assert base["budget"]["per_gpu"][0]["weights_gib"] - off["budget"]["per_gpu"][0]["weights_gib"] == pytest.approx(4.0, abs=0.002)
    assert off["budget"]["totals"]["max_total_num_tokens"] - base["budget"]["totals"]["max_total_num_tokens"] == pytest.approx(4 * (1 << 30) // 131072, abs=2)


def test_rope_pre_expansion_env_must_be_an_integer():
    gpu = dict(A6000, pre_model_load_gib=47.3)
    with pytest.raises(BudgetInputError) as exc:
        evaluate({"config": LLAMA}, [gpu], {}, "0.5.23", env={"SGLANG_ROPE_CACHE_ALIGN": "lots"}, with_fixes=False)
    assert exc.value.field == "env.SGLANG_ROPE_CACHE_ALIGN"


def test_rope_cache_grows_to_the_load_model_reserve_only_past_its_built_length():
    """utils/common.py reserve_rope_cache_for_long_sequences: Llama-3.1-8B builds 131,072 rows of 128 fp32; a full
    context (131,072 + 256 -> 131,328 rows) grows it before sizing, a short one leaves it alone."""
    gpu = dict(A6000, pre_model_load_gib=47.3)

    def weights(ctx):
        res = evaluate({"config": LLAMA}, [gpu], {"context_length": ctx, "mem_fraction_static": 0.8}, "0.5.23", with_fixes=False)
        return res["budget"]["per_gpu"][0]["weights_gib"]

    assert weights(131_072) - weights(8192) == pytest.approx(256 * 128 * 4 / 2**30, abs=0.001)
    assert weights(8192) == weights(4096)


def test_059_rejects_a_modelopt_config_without_fp8_at_weight_load():
    """0.5.9 maps config.json quant_method "modelopt" to ModelOptFp8Config, whose from_config refuses NVFP4 /
    MIXED_PRECISION (layers/quantization/modelopt_quant.py); 0.5.23 has ModelOptMixedPrecisionConfig."""
    folder = CONFIGS / "nvidia__Qwen3.6-27B-NVFP4"
    model = {"config": json.loads((folder / "config.json").read_text()), "hf_quant_config": json.loads((folder / "hf_quant_config.json").read_text())}
    gpus = [{"name": "H100-80GB", "memory_total_mib": 81559, "pre_model_load_gib": 79.0}]
    old = evaluate(model, gpus, {"tp_size": 1}, "0.5.9", with_fixes=False)
    assert old["error"]["type"] == "ValueError" and "ModelOptFp8Config" in old["error"]["message"]
    assert old["checks"][-1] == {"id": "weight_load", "passed": False}
    assert evaluate(model, gpus, {"tp_size": 1}, "0.5.23", with_fixes=False)["error"] is None


@pytest.mark.parametrize(
    "name, sm",
    [
        ("NVIDIA A100-SXM4-80GB", 80),
        ("NVIDIA A10", 86),
        ("NVIDIA A10G", 86),
        ("NVIDIA L40S", 89),
        ("NVIDIA L4", 89),
        ("NVIDIA H200", 90),
        ("NVIDIA RTX A6000", 86),
    ],
)
def test_declared_gpu_without_compute_capability_gets_its_sm_from_the_name(name, sm):
    # The longest matching name wins: an A100 is not an A10.
    res = evaluate({"config": LLAMA}, [{"name": name, "memory_total_mib": 81920}], {"tp_size": 1}, "0.5.23", with_fixes=False)
    assert res["resolved_args"]["sm"] == sm


def test_truncated_safetensors_shard_is_named_with_the_fix(tmp_path):
    # The same checks as model_files_verify (module_utils/safetensors_header.py): a header running past the end
    # of the file is a truncated download.
    path = tmp_path / "model-00001-of-00002.safetensors"
    path.write_bytes((4096).to_bytes(8, "little") + b'{"a": ')
    with pytest.raises(
        BudgetInputError,
        match=r"is not a complete safetensors shard: header length 4096 runs past"
        r".*re-download the shard",
    ):
        read_safetensors_header(str(path))


@pytest.mark.parametrize(
    "changes, field",
    [
        # issue 15 item 9: each was a traceback, a hang or a nonsense verdict before the fields were checked
        ({"rope_scaling": "yarn"}, "model.config.rope_scaling"),
        ({"quantization_config": "fp8"}, "model.config.quantization_config"),
        ({"quantization_config": {"quant_method": "fp8", "weight_block_size": "x"}}, "model.config.quantization_config.weight_block_size"),
        ({"num_hidden_layers": 0}, "model.config.num_hidden_layers"),
        ({"max_position_embeddings": 0}, "model.config.max_position_embeddings"),
        ({"num_hidden_layers": 1e7}, "model.config.num_hidden_layers"),
        ({"hidden_size": 0}, "model.config.hidden_size"),
    ],
)
def test_hostile_config_fields_are_refused_by_name(changes, field):
    e = err({"config": dict(LLAMA, **changes)}, [A6000], {})
    assert e.field == field and str(e).startswith(field + ": must be")


@pytest.mark.parametrize("args, field", [({"chunked_prefill_size": 1e30}, "server_args"), ({"tp_size": 0}, "server_args.tp_size")])
def test_hostile_server_args_are_refused_by_name(args, field):
    assert err({"config": LLAMA}, [A6000], args).field == field


def test_free_memory_above_the_card_is_refused():
    e = err({"config": LLAMA}, [dict(A6000, memory_free_mib=A6000["memory_total_mib"] * 2)], {})
    assert e.field == "gpus[0].memory_free_mib" and "more than the card's memory_total_mib" in str(e)


@pytest.mark.parametrize(
    "given, says", [("/etc/passwd", "/etc/passwd is a file but not a config.json"), ("no-such-dir/x.json", "no-such-dir/x.json does not exist")]
)
def test_a_wrong_model_path_is_named_as_given(given, says):
    with pytest.raises(BudgetInputError, match=says):
        load_model_dir(given)


def test_quant_method_the_release_does_not_register_fails_as_sglang_does():
    # ModelConfig._verify_quantization refuses it after the context length, with the CUDA build's own list
    cfg = dict(LLAMA, quantization_config={"quant_method": "smooth_quant", "quant_dtype": "int8"})
    res = evaluate({"config": cfg}, [A6000], {"context_length": 8192}, "0.5.23", with_fixes=False)
    assert res["verdict"] == "fails" and res["root_cause"] == "unsupported_quantization"
    assert res["error"]["type"] == "ValueError"
    assert res["error"]["message"].startswith("Unknown quantization method: smooth_quant. Must be one of ['fp8', 'mxfp8',")
    assert [c["id"] for c in res["checks"]][-1] == "quantization" and not res["checks"][-1]["passed"]
    # 0.5.9 registers plain gptq on CUDA, 0.5.23 only gptq_marlin: the list is the release's
    old = evaluate({"config": cfg}, [A6000], {"context_length": 8192}, "0.5.9", with_fixes=False)
    assert "'gptq', 'gptq_marlin'" in old["error"]["message"] and "'gptq'," not in res["error"]["message"]


def test_registered_quant_method_the_engine_cannot_derive_needs_the_checkpoint_total():
    cfg = dict(LLAMA, quantization_config={"quant_method": "bitsandbytes", "load_in_4bit": True})
    e = err({"config": cfg}, [A6000], {"context_length": 8192})
    assert e.field == "model.config.quantization_config.quant_method" and "safetensors.index.json" in str(e)
    sized = evaluate(
        {"config": cfg, "safetensors_index": {"metadata": {"total_size": 5_700_000_000}}}, [A6000], {"context_length": 8192}, "0.5.23", with_fixes=False
    )
    assert sized["error"] is None and sized["budget"]["totals"]["weights_source"] == "safetensors_index"
