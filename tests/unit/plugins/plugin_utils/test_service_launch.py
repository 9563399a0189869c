# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sglang_service role's launch decisions (plugins/plugin_utils/service_launch.py), on SGLang's field names."""

import pytest
from budget_fixtures import CONFIGS

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import find_fixes, load_model_dir
from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_validator import FlagValidationError
from ansible_collections.llmops.sglang.plugins.plugin_utils.service_launch import (
    ServiceLaunchError,
    launch_plan,
    merge_service_args,
    pick_autotune_fix,
    probe_url,
)

MODEL = {"model_path": "/srv/models/Qwen3-8B"}


@pytest.mark.parametrize("spelling", ["api_key", "--api-key", "api-key", "admin_api_key", "--config"])
def test_a_secret_or_the_config_file_is_refused_whatever_its_spelling(spelling):
    with pytest.raises(ServiceLaunchError, match="may not be set in sglang_service_server_args"):
        merge_service_args(dict(MODEL, **{spelling: "s3cret"}), {}, "0.5.9")
    with pytest.raises(ServiceLaunchError, match="may not be set"):
        merge_service_args(MODEL, {spelling: "s3cret"}, "0.5.9")


def test_one_flag_in_both_dicts_is_refused_whatever_its_spelling():
    with pytest.raises(ServiceLaunchError, match="sglang_service_extra_args repeats tp_size"):
        merge_service_args(dict(MODEL, tp_size=2), {"--tensor-parallel-size": 4}, "0.5.9")


def test_merge_normalizes_names_and_turns_metrics_on():
    merged = merge_service_args(dict(MODEL, **{"--tensor-parallel-size": 2}), {"--host": "0.0.0.0"}, "0.5.23")
    assert merged == {"enable_metrics": True, "model_path": "/srv/models/Qwen3-8B", "tp_size": 2, "host": "0.0.0.0"}
    assert "enable_metrics" not in merge_service_args(MODEL, {}, "0.5.9", enable_metrics=False)
    assert merge_service_args(dict(MODEL, enable_metrics=False), {}, "0.5.9")["enable_metrics"] is False


def test_model_path_is_required_and_unknown_flags_are_the_validators_errors():
    with pytest.raises(ServiceLaunchError, match="needs model_path"):
        merge_service_args({"tp_size": 1}, {}, "0.5.9")
    with pytest.raises(FlagValidationError, match="mem_fraction_statc"):
        merge_service_args(dict(MODEL, mem_fraction_statc=0.8), {}, "0.5.9")
    with pytest.raises(ServiceLaunchError, match="must be a dict"):
        merge_service_args(MODEL, ["--tp-size", "2"], "0.5.9")


def test_bind_address_from_any_spelling_decides_loopback_and_the_probe():
    plan = launch_plan(merge_service_args(dict(MODEL, **{"--host": "0.0.0.0", "--port": 31000}), {}, "0.5.9"), "0.5.9")
    assert (plan["host"], plan["port"], plan["loopback"], plan["url"]) == ("0.0.0.0", 31000, False, "http://127.0.0.1:31000")
    default = launch_plan(merge_service_args(MODEL, {}, "0.5.9"), "0.5.9")
    assert (default["host"], default["port"], default["loopback"]) == ("127.0.0.1", 30000, True)
    assert default["argv"] == ["--enable-metrics", "--model-path", "/srv/models/Qwen3-8B"]


def test_launch_plan_refuses_a_secret_added_later():
    # autotune merges engine fixes into the args and plans again; the same rule holds there
    with pytest.raises(ServiceLaunchError, match="api_key may not be set"):
        launch_plan(dict(MODEL, api_key="s3cret"), "0.5.9")


@pytest.mark.parametrize(
    "host, url",
    [
        ("0.0.0.0", "http://127.0.0.1:30000"),
        ("localhost", "http://127.0.0.1:30000"),
        ("::", "http://[::1]:30000"),
        ("fd00::7", "http://[fd00::7]:30000"),
        ("10.0.0.5", "http://10.0.0.5:30000"),
    ],
)
def test_probe_url(host, url):
    assert probe_url(host, 30000) == url


FIXES = [  # ranked as the engine ranks them (see test_incident_fixes_carry_their_side_effect for real ones)
    {"changes": {"tp_size": 4}, "verdict": "fits", "side_effect": "none"},
    {"changes": {"max_running_requests": 4}, "verdict": "fits", "side_effect": "none"},
    {"changes": {"mem_fraction_static": 0.95}, "verdict": "fits", "side_effect": "none"},
    {"changes": {"kv_cache_dtype": "fp8_e4m3"}, "verdict": "fits", "side_effect": "quality"},
    {"changes": {"max_running_requests": 16}, "verdict": "degraded", "side_effect": "none"},
    {"changes": {"speculative_algorithm": None}, "verdict": "fits", "side_effect": "speed"},
]


def test_autotune_takes_the_first_fix_within_every_bound():
    # tp_size needs other GPUs, 4 requests is under the floor, 0.95 over the ceiling, fp8 KV lowers precision
    assert pick_autotune_fix(FIXES, 8, 0.92)["changes"] == {"max_running_requests": 16}
    assert pick_autotune_fix(FIXES, 8, 0.92, ("none", "quality"))["changes"] == {"kv_cache_dtype": "fp8_e4m3"}
    assert pick_autotune_fix(FIXES[:4] + FIXES[5:], 8, 0.92, ("none", "speed"))["changes"] == {"speculative_algorithm": None}
    assert pick_autotune_fix(FIXES[:4], 8, 0.92) is None
    assert pick_autotune_fix([{"changes": {}, "verdict": "fits", "side_effect": "none"}, "junk"], 8, 0.92) is None


def test_incident_fixes_carry_their_side_effect():
    gpus = [{"index": i, "name": "NVIDIA RTX A6000", "memory_total_mib": 49140} for i in range(2)]
    args = {
        "tp_size": 2,
        "mem_fraction_static": 0.85,
        "context_length": 65536,
        "speculative_algorithm": "NEXTN",
        "speculative_num_steps": 3,
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
    }
    fixes = find_fixes(load_model_dir(str(CONFIGS / "Qwen__Qwen3.6-27B")), gpus, args, "0.5.9")
    effects = {tuple(sorted(f["changes"])): f["side_effect"] for f in fixes}
    assert effects[("max_running_requests",)] == "none"
    assert effects[("mamba_ssm_dtype",)] == "quality"
    assert "speed" in effects.values()
    assert pick_autotune_fix(fixes, 8, 0.92)["changes"].keys() == {"max_running_requests"}
