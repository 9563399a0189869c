# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every filter of the collection refuses wrong-typed input with AnsibleFilterError (issue 15, item 10).

The message names the filter, the argument, what it got and the fix; no raw TypeError, AttributeError or
ValueError reaches the play. The filter list is read from plugins/filter, so a new filter without cases fails.
"""

import importlib
import pathlib

import pytest
from ansible.errors import AnsibleFilterError

FILTER_DIR = pathlib.Path(__file__).resolve().parents[4] / "plugins" / "filter"


def _all_filters():
    filters = {}
    for path in sorted(FILTER_DIR.glob("*.py")):
        module = importlib.import_module("ansible_collections.llmops.sglang.plugins.filter." + path.stem)
        filters.update(module.FilterModule().filters())
    return filters


FILTERS = _all_filters()
MODEL = {"model_path": "/srv/models/m"}
PROCS = [{"pid": 10, "gpu_uuid": "GPU-1", "used_memory_mib": 100}]
GPUS = [{"index": 0, "uuid": "GPU-1", "name": "A6000", "memory_free_mib": 100, "memory_used_mib": 0}]

MEMBERS = [{"host": "a0", "rank": 0, "address": "10.0.0.10", "node": "pve1"}, {"host": "a1", "rank": 1, "address": "10.0.0.11", "node": "pve2"}]
DIAGNOSES = [
    {"root_cause": "nccl_failure", "evidence": ["DistStoreError: Timed out after 21 seconds waiting for clients. 1/2 clients joined."]},
    {"root_cause": "none"},
]
PD_FLEET = [
    {"host": "p0", "url": "http://10.0.0.10:30000", "mode": "prefill", "worker_type": "prefill", "bootstrap_port": 8998, "transfer_backend": "mooncake"},
    {"host": "d0", "url": "http://10.0.0.11:30000", "mode": "decode", "worker_type": "decode", "bootstrap_port": 0, "transfer_backend": "mooncake"},
]

# filter -> (good positional args, good keyword args), then wrong-typed replacements: (argument, value, fragment).
GOOD = {
    "sglang_replica_member": ((MEMBERS, "a1", "replica_a", {"tp_size": 2}), {"dist_port": 20000, "dist_timeout": 60, "interface": "eth0"}),
    "sglang_replica_diagnosis": ((MEMBERS, DIAGNOSES), {"errors": ["", ""]}),
    "sglang_gateway_worker": (({"disaggregation_mode": "prefill"}, "p0", "http://10.0.0.10:30000", "0.5.9"), {}),
    "sglang_gateway_fleet": ((PD_FLEET, True), {}),
    "sglang_argv": ((MODEL, "0.5.9"), {}),
    "sglang_server_args": ((MODEL, "0.5.9"), {}),
    "sglang_gpu_holders": (
        (PROCS, "sglang.service"),
        {"control_group": "/system.slice/sglang.service", "main_pid": 10, "pid_cgroups": {}, "gpus": GPUS, "selected_uuids": ["GPU-1"]},
    ),
    "sglang_gpus_after_stopping": ((GPUS, PROCS), {}),
    "sglang_service_args": ((MODEL, "0.5.9"), {"extra_args": {}, "enable_metrics": True}),
    "sglang_service_launch": ((MODEL, "0.5.9"), {}),
    "sglang_service_secrets": (({"admin_api_key": "a"}, "0.5.9"), {"api_key": "k"}),
    "sglang_autotune_fix": (([], 8, 0.9), {"side_effects": ["none"]}),
    "sglang_apply_survey": ((MODEL, {"context_length": 4096}), {}),
    "sglang_survey_gpus": (("2,3",), {"default": [0]}),
    "sglang_survey_model": (("", {}, "Qwen/Qwen3-8B", "/srv/models/Qwen3-8B"), {"model_config": None, "revision": "main"}),
    "sglang_release": (("0.5.9",), {}),
}
WRONG = {
    "sglang_argv": [
        (0, "x", "the input"),
        (0, [1], "the input"),
        (1, None, "version"),
        (1, 0.5, "version"),
        ("allow_nearest", "yes", "allow_nearest"),
        ("check_required", 1, "check_required"),
    ],
    "sglang_server_args": [(0, "x", "the input"), (1, ["0.5.9"], "version"), ("allow_nearest", None, "allow_nearest")],
    "sglang_gpu_holders": [
        (0, "x", "the input"),
        (0, None, "the input"),
        (0, [1], "the input"),
        (1, None, "unit"),
        ("control_group", 5, "control_group"),
        ("main_pid", "x", "main_pid"),
        ("main_pid", None, "main_pid"),
        ("main_pid", True, "main_pid"),
        ("pid_cgroups", "x", "pid_cgroups"),
        ("pid_cgroups", [1], "pid_cgroups"),
        ("gpus", "x", "gpus"),
        ("gpus", [0], "gpus"),
        ("selected_uuids", "GPU-1", "selected_uuids"),
        ("selected_uuids", [1], "selected_uuids"),
    ],
    "sglang_gpus_after_stopping": [(0, "x", "the input"), (0, None, "the input"), (1, "x", "own"), (1, [5], "own")],
    "sglang_service_args": [
        (0, None, "the input"),
        (0, "x", "the input"),
        (1, None, "version"),
        ("extra_args", "x", "extra_args"),
        ("enable_metrics", "yes", "enable_metrics"),
    ],
    "sglang_service_launch": [(0, None, "the input"), (0, ["x"], "the input"), (1, 9, "version")],
    "sglang_service_secrets": [(0, "x", "the input"), (1, None, "version"), ("api_key", 12345, "api_key")],
    "sglang_autotune_fix": [
        (0, "x", "the input"),
        (0, [1], "the input"),
        (1, "x", "min_max_running_requests"),
        (1, None, "min_max_running_requests"),
        (2, "x", "max_mem_fraction_static"),
        ("side_effects", "none", "side_effects"),
        ("side_effects", [1], "side_effects"),
    ],
    "sglang_apply_survey": [(0, "x", "the input"), (1, None, "answers"), (1, "x", "answers"), (1, [1], "answers")],
    "sglang_survey_gpus": [(0, {"a": 1}, "the input"), (0, [None], "the input"), ("default", "0", "default")],
    "sglang_survey_model": [
        (0, 7, "the input"),
        (0, ["Qwen/Qwen3-8B"], "the input"),
        (1, "x", "models"),
        (1, [1], "models"),
        (2, None, "model_id"),
        (3, 5, "model_path"),
        ("model_config", ["c"], "model_config"),
        ("revision", {"a": 1}, "revision"),
    ],
    "sglang_release": [(0, None, "the input"), (0, ["0.5.9"], "the input")],
    "sglang_replica_member": [
        (0, "a0", "the input"),
        (0, ["a0"], "the input"),
        (1, None, "host"),
        (2, None, "replica"),
        (3, "tp_size=2", "server_args"),
        ("dist_port", 1.5, "dist_port"),
        ("dist_timeout", None, "dist_timeout"),
        ("interface", 5, "interface"),
    ],
    "sglang_gateway_worker": [(0, "prefill", "the input"), (1, None, "host"), (2, 8, "url"), (3, 0.5, "version")],
    "sglang_gateway_fleet": [(0, "p0", "the input"), (0, ["p0"], "the input"), (1, "yes", "pd_disaggregation")],
    "sglang_replica_diagnosis": [(0, "x", "the input"), (0, [1], "the input"), (1, "x", "diagnoses"), (1, [1], "diagnoses"), ("errors", [5, 6], "errors")],
}
CASES = [(name, argument, value, fragment) for name, cases in WRONG.items() for argument, value, fragment in cases]


def _call(name, argument=None, value=None):
    args, kwargs = GOOD[name]
    args, kwargs = list(args), dict(kwargs)
    if isinstance(argument, int):
        args[argument] = value
    elif argument is not None:
        kwargs[argument] = value
    return FILTERS[name](*args, **kwargs)


def test_every_filter_has_cases():
    assert set(FILTERS) == set(GOOD) == set(WRONG)


@pytest.mark.parametrize("name", sorted(GOOD))
def test_the_good_inputs_pass(name):
    _call(name)


@pytest.mark.parametrize("name,argument,value,fragment", CASES, ids=["%s-%s-%r" % c[:3] for c in CASES])
def test_a_wrong_typed_input_is_an_ansible_filter_error_naming_input_problem_and_fix(name, argument, value, fragment):
    with pytest.raises(AnsibleFilterError) as raised:
        _call(name, argument, value)
    message = str(raised.value)
    assert message.startswith("%s: %s must be " % (name, fragment)), message
    assert ", got " in message and "; " in message.split(", got ", 1)[1], message


def test_a_secret_of_the_wrong_type_is_not_echoed():
    with pytest.raises(AnsibleFilterError) as raised:
        FILTERS["sglang_service_secrets"]({"admin_api_key": "a"}, "0.5.9", api_key=987654321)
    assert "987654321" not in str(raised.value) and "value hidden" in str(raised.value)


def test_a_malformed_fix_is_an_ansible_filter_error():
    fix = {"changes": {"max_running_requests": "many"}, "verdict": "fits", "side_effect": "none"}
    with pytest.raises(AnsibleFilterError, match="sglang_autotune_fix: a fix in the input has a malformed change"):
        FILTERS["sglang_autotune_fix"]([fix], 8, 0.9)
