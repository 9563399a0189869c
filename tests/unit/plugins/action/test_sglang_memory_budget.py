# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sglang_memory_budget action plugin run ad hoc through ansible, as an operator would.

The model is the incident's real Qwen3.6-27B config.json; the GPUs are the incident's 2x RTX A6000, declared.
"""

import json
import os

import pytest
from ansible_adhoc import HAVE_COLLECTIONS, NO_COLLECTIONS_REASON, run_adhoc

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
QWEN36 = os.path.join(REPO, "tests", "fixtures", "model-configs", "Qwen__Qwen3.6-27B")
A6000 = {"name": "NVIDIA RTX A6000", "memory_total_mib": 49140}
INCIDENT_ARGS = {
    "tp_size": 2,
    "mem_fraction_static": 0.85,
    "context_length": 65536,
    "enable_torch_compile": True,
    "speculative_algorithm": "NEXTN",
    "speculative_num_steps": 3,
    "speculative_eagle_topk": 1,
    "speculative_num_draft_tokens": 4,
}

pytestmark = pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)


def budget(**args):
    args.setdefault("model", QWEN36)
    args.setdefault("gpus", [A6000, A6000])
    args.setdefault("server_args", INCIDENT_ARGS)
    args.setdefault("sglang_version", "0.5.9")
    run = run_adhoc("llmops.sglang.sglang_memory_budget", args)
    assert "Traceback" not in run.output
    return run.result


def test_incident_on_0_5_9_fails_with_the_root_cause_and_a_concurrency_fix():
    result = budget()
    assert result["failed"] is True
    assert result["verdict"] == "fails" and result["root_cause"] == "mamba_pool_too_small"
    assert result["error"]["message"].startswith("Not enough memory. Please try to increase --mem-fraction-static")
    assert "--max-running-requests" in result["msg"]
    top = result["fixes"][0]
    assert "max_running_requests" in top["changes"] and top["verdict"] == "fits"


def test_incident_on_0_5_23_starts_capped_and_only_warns():
    # The baseline SGLang measured in oracle-0.5.23.md (47.3 GiB free after CUDA context and NCCL).
    measured = dict(A6000, pre_model_load_gib=47.3)
    result = budget(sglang_version="0.5.23", fail_on="error", gpus=[measured, measured])
    assert not result.get("failed")
    assert result["verdict"] == "degraded"
    assert result["budget"]["totals"]["max_running_requests"] == 8
    assert result["budget"]["totals"]["max_total_num_tokens"] == pytest.approx(204134, rel=0.01)
    assert any("capped to 8" in w for w in result["warnings"])
    assert budget(sglang_version="0.5.23", fail_on="warning", gpus=[measured, measured])["failed"] is True


def test_inline_config_and_registered_gpu_facts():
    with open(os.path.join(QWEN36, "config.json")) as handle:
        config = json.load(handle)
    facts = {"available": True, "gpus": [dict(A6000, index=i, memory_free_mib=48638) for i in range(2)]}
    result = budget(model=config, gpus=facts, sglang_version="0.5.23", fail_on="never")
    assert result["verdict"] in ("fits", "degraded")
    assert result["budget"]["per_gpu"][0]["free_gib"] == pytest.approx(48638 / 1024, abs=0.01)


@pytest.mark.parametrize(
    "args, words",
    [
        ({"server_args": dict(INCIDENT_ARGS, mem_fraction_static=1.5)}, ["mem_fraction_static"]),
        ({"gpus": [A6000]}, ["tp_size", "GPU"]),
        ({"gpus": [{"name": "NVIDIA RTX A6000"}] * 2}, ["memory_total_mib"]),
        ({"server_args": dict(INCIDENT_ARGS, mem_fraction_statik=0.8)}, ["mem_fraction_statik", "mem_fraction_static"]),
        ({"sglang_version": "0.4.0"}, ["0.4.0", "0.5.9"]),
        ({"model": "/nonexistent/model"}, ["/nonexistent/model"]),
    ],
)
def test_bad_input_fails_with_a_message_naming_it(args, words):
    result = budget(**args)
    assert result["failed"] is True
    for word in words:
        assert word in result["msg"], result["msg"]


def test_malformed_config_json(tmp_path):
    (tmp_path / "config.json").write_text("{not json")
    result = budget(model=str(tmp_path))
    assert result["failed"] is True and "config.json is not valid JSON" in result["msg"]


def test_compare_releases_shows_the_incident_under_every_release():
    result = budget(compare_releases=True, fail_on="never")
    from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import SUPPORTED_VERSIONS

    rows = {row["version"]: row for row in result["releases"]}
    assert list(rows) == list(SUPPORTED_VERSIONS)
    assert rows["0.5.9"]["verdict"] == "fails" and rows["0.5.9"]["root_cause"] == "mamba_pool_too_small"
    assert rows["0.5.9"]["verified_by"] == "oracle"
    assert rows["0.5.23"]["verdict"] in ("fits", "degraded") and rows["0.5.23"]["max_total_num_tokens"] > 0
    # the task's own verdict stays the pinned release's
    assert result["verdict"] == "fails" and result["profile"] == "0.5.9"
    assert result["first_release_that_starts"] in SUPPORTED_VERSIONS
    assert all(row["verdict"] == "not_modelled" for row in rows.values() if row["verified_by"] is None)
