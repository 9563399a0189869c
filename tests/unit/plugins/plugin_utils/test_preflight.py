# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
import json
import os

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils import preflight
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import BudgetInputError, load_model_dir

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "model-configs")


def test_model_dir_and_config_path_both_load_the_real_config():
    directory = os.path.join(FIXTURES, "nvidia__Llama-3.1-70B-Instruct-FP8")
    from_dir = load_model_dir(directory)
    from_file = load_model_dir(os.path.join(directory, "config.json"))
    assert from_dir["config"] == from_file["config"]
    assert from_dir["hf_quant_config"]["quantization"]["quant_algo"] == "FP8"


def test_missing_config_names_the_path_and_the_fix(tmp_path):
    with pytest.raises(BudgetInputError, match=r"holds no config\.json.*inline dict"):
        load_model_dir(str(tmp_path))


def test_malformed_config_names_the_file(tmp_path):
    (tmp_path / "config.json").write_text('{"architectures": ["LlamaForCausalLM"],')
    with pytest.raises(BudgetInputError, match=r"config\.json is not valid JSON.*re-download"):
        load_model_dir(str(tmp_path))


def test_a_json_list_is_not_a_config(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps([1, 2]))
    with pytest.raises(BudgetInputError, match="JSON object"):
        load_model_dir(str(tmp_path))


def test_inline_model_forms():
    assert preflight.model_from_inline({"architectures": ["X"]}) == {"config": {"architectures": ["X"]}}
    with pytest.raises(preflight.PreflightInputError, match="unknown keys"):
        preflight.model_from_inline({"config": {}, "weights": 1})


NVIDIA_GPU_INFO = {
    "available": True,
    "gpus": [
        {"index": 0, "name": "NVIDIA RTX A6000", "uuid": "GPU-a", "memory_total_mib": 49140, "memory_free_mib": 22229},
        {"index": 1, "name": "NVIDIA RTX A6000", "uuid": "GPU-b", "memory_total_mib": 49140, "memory_free_mib": 48638},
    ],
}


def test_registered_gpu_facts_and_selection_by_index_or_uuid():
    assert len(preflight.normalize_gpus(NVIDIA_GPU_INFO)) == 2
    assert [g["uuid"] for g in preflight.normalize_gpus(NVIDIA_GPU_INFO, ["1"])] == ["GPU-b"]
    assert [g["index"] for g in preflight.normalize_gpus(NVIDIA_GPU_INFO, ["GPU-b", "GPU-a"])] == [1, 0]


def test_declared_gpus_get_positional_indices():
    gpus = preflight.normalize_gpus([{"name": "H100", "memory_total_mib": 81559}] * 2)
    assert [g["index"] for g in gpus] == [0, 1]


@pytest.mark.parametrize(
    "gpus, match",
    [
        ({"available": False, "gpus": [], "msg": "nvidia-smi not found"}, "found no GPU.*declare"),
        ({"foo": 1}, "nvidia_gpu_info result"),
        ([], "non-empty list"),
        (["A6000"], r"gpus\[0\]"),
    ],
)
def test_bad_gpu_inputs_are_named(gpus, match):
    with pytest.raises(preflight.PreflightInputError, match=match):
        preflight.normalize_gpus(gpus)


def test_selecting_a_gpu_that_does_not_exist():
    with pytest.raises(preflight.PreflightInputError, match="gpu_indices: 3 not among"):
        preflight.normalize_gpus(NVIDIA_GPU_INFO, ["3"])


@pytest.mark.parametrize(
    "verdict, fail_on, fails",
    [
        ("fails", "error", True),
        ("degraded", "error", False),
        ("degraded", "warning", True),
        ("fits", "warning", False),
        ("fails", "never", False),
    ],
)
def test_fail_on_matrix(verdict, fail_on, fails):
    assert preflight.should_fail(verdict, fail_on) is fails


BUDGET = {
    "verdict": "fails",
    "root_cause": "mamba_pool_too_small",
    "message": "fails: RuntimeError: Not enough memory",
    "warnings": [
        {"id": "assumption", "message": "free memory not given"},
        {"id": "max_running_requests_capped", "message": "capped to 8"},
    ],
    "budget": {"totals": {"mem_fraction_static": 0.85, "min_viable_mem_fraction_static": 0.904}},
    "fixes": [
        {"changes": {"max_running_requests": 32}, "verdict": "fits", "max_total_num_tokens": 106655, "max_running_requests": 32, "summary": "cap concurrency"},
        {"changes": {"speculative_algorithm": None}, "verdict": "fits", "summary": "no speculation"},
    ],
}


def test_task_result_separates_assumptions_from_displayed_warnings():
    result = preflight.task_result(BUDGET, "error")
    assert result["warnings"] == ["capped to 8"]
    assert result["assumptions"] == ["free memory not given"]
    assert result["sglang_warnings"] == BUDGET["warnings"]
    assert result["failed"] is True and result["changed"] is False


def test_failure_message_is_one_line_with_root_cause_wrong_fix_and_best_fix():
    msg = preflight.task_result(BUDGET, "error")["msg"]
    assert "\n" not in msg
    assert msg.startswith("mamba_pool_too_small: ")
    assert ">= 0.904" in msg
    assert "Fix: --max-running-requests 32 -> fits, 106,655 KV tokens, 32 running requests" in msg
    assert "1 more in `fixes`" in msg


def test_flag_changes_render_removals_and_booleans():
    assert preflight.flag_changes({"speculative_algorithm": None, "enable_torch_compile": True}) == "drop --speculative-algorithm --enable-torch-compile"
