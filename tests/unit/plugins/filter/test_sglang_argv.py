# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""llmops.sglang.sglang_argv / sglang_server_args: directly, and through a real ansible run."""

import json

import pytest
from ansible.errors import AnsibleFilterError
from ansible_adhoc import run_adhoc

from ansible_collections.llmops.sglang.plugins.filter.sglang_argv import FilterModule

INCIDENT = {
    "model_path": "/models/Qwen3.6-27B",
    "tp_size": 2,
    "mem_fraction_static": 0.85,
    "context_length": 65536,
    "enable_torch_compile": True,
    "speculative_algorithm": "NEXTN",
    "speculative_num_steps": 3,
    "speculative_eagle_topk": 1,
    "speculative_num_draft_tokens": 4,
    "mamba_full_memory_ratio": 0.5,
}
FILTERS = FilterModule().filters()


def test_filter_module_exposes_both_filters():
    assert set(FILTERS) == {"sglang_argv", "sglang_server_args"}


def test_sglang_argv_filter_returns_the_argv():
    argv = FILTERS["sglang_argv"](INCIDENT, "0.5.9")
    assert argv[:4] == ["--model-path", "/models/Qwen3.6-27B", "--tp-size", "2"]
    assert "--enable-torch-compile" in argv


def test_sglang_server_args_filter_returns_typed_values():
    values = FILTERS["sglang_server_args"]({**INCIDENT, "context_length": "64Ki"}, "0.5.23")
    assert values["context_length"] == 65536


def test_filter_errors_are_ansible_filter_errors_with_the_validator_message():
    with pytest.raises(AnsibleFilterError, match="did you mean mem_fraction_static"):
        FILTERS["sglang_argv"]({**INCIDENT, "mem_fraction_statik": 0.85}, "0.5.9")


def _ansible_debug(expression):
    return run_adhoc("ansible.builtin.debug", {"msg": expression})


def test_filter_through_ansible_builds_the_incident_argv():
    run = _ansible_debug("{{ %s | llmops.sglang.sglang_argv('0.5.9') }}" % json.dumps(INCIDENT))
    assert run.rc == 0, run.output
    assert run.result["msg"] == [
        "--model-path",
        "/models/Qwen3.6-27B",
        "--tp-size",
        "2",
        "--mem-fraction-static",
        "0.85",
        "--context-length",
        "65536",
        "--enable-torch-compile",
        "--speculative-algorithm",
        "NEXTN",
        "--speculative-num-steps",
        "3",
        "--speculative-eagle-topk",
        "1",
        "--speculative-num-draft-tokens",
        "4",
        "--mamba-full-memory-ratio",
        "0.5",
    ]


def test_filter_through_ansible_fails_the_task_with_the_message():
    run = _ansible_debug("{{ {'model_path': '/m', 'cuda_graph_max_bs_decode': 8} | llmops.sglang.sglang_argv('0.5.9') }}")
    assert run.rc != 0
    result = run.result
    assert result["failed"] is True
    assert "exists in SGLang 0.5.23 but not in 0.5.9 (the pinned version)" in result["msg"]
