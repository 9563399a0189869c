# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU memory holders: only this unit's own processes may be stopped, and only by unit."""

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.gpu_holders import (
    FAIL,
    PROCEED,
    STOP_UNIT,
    cgroup_paths,
    classify_gpu_holders,
    in_control_group,
)

UNIT = "sglang.service"
GROUP = "/system.slice/sglang.service"
GPUS = [
    {"index": 0, "name": "NVIDIA RTX A6000", "uuid": "GPU-aaaa"},
    {"index": 1, "name": "NVIDIA RTX A6000", "uuid": "GPU-bbbb"},
]
V2_OWN = "0::/system.slice/sglang.service\n"
V1_OWN = "12:pids:/system.slice/sglang.service\n1:name=systemd:/system.slice/sglang.service\n0::/\n"
V2_OTHER = "0::/user.slice/user-0.slice/session-3.scope\n"


def holder(pid, uuid="GPU-aaaa", name="python3", mib=40000):
    return {"pid": pid, "process_name": name, "used_memory_mib": mib, "gpu_uuid": uuid}


def test_cgroup_paths_reads_v1_and_v2_lines():
    assert cgroup_paths(V1_OWN) == ["/system.slice/sglang.service", "/system.slice/sglang.service", "/"]
    assert cgroup_paths("") == []


@pytest.mark.parametrize(
    "text,expected",
    [
        (V2_OWN, True),
        (V1_OWN, True),
        ("0::/system.slice/sglang.service/child\n", True),
        ("0::/system.slice/sglang.service-old\n", False),  # a prefix of the name is another unit
        (V2_OTHER, False),
        (None, False),
    ],
)
def test_in_control_group(text, expected):
    assert in_control_group(text, GROUP) is expected


def test_root_control_group_never_matches_everything():
    assert in_control_group(V2_OTHER, "/") is False
    assert in_control_group(V2_OTHER, "") is False


def test_no_holders_proceeds():
    result = classify_gpu_holders([], UNIT, GROUP, 0, {}, GPUS)
    assert result["action"] == PROCEED and not result["own"] and not result["foreign"]


def test_holders_in_the_units_cgroup_stop_the_unit():
    procs = [holder(4100), holder(4101, "GPU-bbbb")]
    result = classify_gpu_holders(procs, UNIT, GROUP, 4000, {4100: V2_OWN, 4101: V1_OWN}, GPUS)
    assert result["action"] == STOP_UNIT
    assert [h["pid"] for h in result["own"]] == [4100, 4101]
    assert "GPU 1 (NVIDIA RTX A6000, GPU-bbbb)" in result["message"]


def test_main_pid_is_own_even_without_cgroup_text():
    result = classify_gpu_holders([holder(4000)], UNIT, GROUP, 4000, {}, GPUS)
    assert result["action"] == STOP_UNIT


def test_a_python3_outside_the_unit_is_foreign_whatever_its_name():
    # Same process name as SGLang's own workers: the name must not matter.
    procs = [holder(4100), holder(777, name="python3", mib=20480)]
    result = classify_gpu_holders(procs, UNIT, GROUP, 4000, {4100: V2_OWN, 777: V2_OTHER}, GPUS)
    assert result["action"] == FAIL
    assert [h["pid"] for h in result["foreign"]] == [777]
    assert "PID 777 (python3) holds 20480 MiB on GPU 0 (NVIDIA RTX A6000, GPU-aaaa), not part of sglang.service" in result["message"]
    assert "never kills by name" in result["message"]


def test_invisible_pid_is_foreign_and_says_why():
    result = classify_gpu_holders([holder(99999)], UNIT, GROUP, 0, {}, GPUS)
    assert result["action"] == FAIL
    assert "not visible on the target" in result["foreign"][0]["reason"]


def test_holders_on_unselected_gpus_are_ignored():
    procs = [holder(777, "GPU-bbbb")]
    result = classify_gpu_holders(procs, UNIT, GROUP, 0, {777: V2_OTHER}, GPUS, selected_uuids=["GPU-aaaa"])
    assert result["action"] == PROCEED
    assert [h["pid"] for h in result["ignored"]] == [777]


def test_string_pids_from_json_are_accepted():
    result = classify_gpu_holders([holder("4100")], UNIT, GROUP, "0", {"4100": V2_OWN}, GPUS)
    assert result["action"] == STOP_UNIT


def test_unknown_gpu_and_missing_memory_are_described_not_crashed():
    proc = {"pid": 5, "process_name": None, "used_memory_mib": None, "gpu_uuid": "GPU-zzzz"}
    result = classify_gpu_holders([proc], UNIT, GROUP, 0, {5: V2_OTHER}, GPUS)
    assert "PID 5 (unknown process) holds an unreported amount of memory on GPU GPU-zzzz" in result["message"]


def test_memory_of_the_units_own_holders_counts_as_free_for_the_budget():
    from ansible_collections.llmops.sglang.plugins.plugin_utils.gpu_holders import gpus_after_stopping

    gpus = [
        dict(GPUS[0], memory_total_mib=49140, memory_used_mib=45000, memory_free_mib=4140),
        dict(GPUS[1], memory_total_mib=49140, memory_used_mib=10, memory_free_mib=49130),
    ]
    own = [holder(4100, "GPU-aaaa", mib=40000), holder(4101, "GPU-aaaa", mib=4000)]
    adjusted = gpus_after_stopping(gpus, own)
    assert adjusted[0]["memory_free_mib"] == 48140 and adjusted[0]["memory_used_mib"] == 1000
    assert adjusted[1] == gpus[1]
    assert gpus[0]["memory_free_mib"] == 4140  # input untouched
