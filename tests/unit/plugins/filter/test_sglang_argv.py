# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""llmops.sglang.sglang_argv / sglang_server_args: directly, and through a real ansible run."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.llmops.sglang.plugins.filter.sglang_argv import FilterModule

REPO = Path(__file__).resolve().parents[4]
COLLECTIONS = REPO / ".build" / "collections"
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
    env = {
        **os.environ,
        "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_LOCALHOST_WARNING": "0",
        "ANSIBLE_INVENTORY_UNPARSED_WARNING": "0",
        "ANSIBLE_STDOUT_CALLBACK": "ansible.builtin.json",
        "ANSIBLE_LOAD_CALLBACK_PLUGINS": "1",
    }
    ansible = Path(sys.executable).with_name("ansible")
    return subprocess.run(
        [str(ansible), "localhost", "-m", "ansible.builtin.debug", "-a", f"msg={expression}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def _task_result(run):
    return json.loads(run.stdout)["plays"][0]["tasks"][0]["hosts"]["localhost"]


def test_filter_through_ansible_builds_the_incident_argv():
    run = _ansible_debug("{{ %s | llmops.sglang.sglang_argv('0.5.9') }}" % json.dumps(INCIDENT))
    assert run.returncode == 0, run.stdout + run.stderr
    assert _task_result(run)["msg"] == [
        "--model-path", "/models/Qwen3.6-27B", "--tp-size", "2", "--mem-fraction-static", "0.85",
        "--context-length", "65536", "--enable-torch-compile", "--speculative-algorithm", "NEXTN",
        "--speculative-num-steps", "3", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
        "--mamba-full-memory-ratio", "0.5",
    ]


def test_filter_through_ansible_fails_the_task_with_the_message():
    run = _ansible_debug("{{ {'model_path': '/m', 'cuda_graph_max_bs_decode': 8} | llmops.sglang.sglang_argv('0.5.9') }}")
    assert run.returncode != 0
    result = _task_result(run)
    assert result["failed"] is True
    assert "exists in SGLang 0.5.23 but not in 0.5.9 (the pinned version)" in result["msg"]
