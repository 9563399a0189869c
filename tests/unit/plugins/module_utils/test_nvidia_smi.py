# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsing of nvidia-smi CSV queries.

The CSV lines follow nvidia-smi's documented ``--format=csv,noheader,nounits`` output for the queried
fields. The GPU values are the incident's (2x RTX A6000, 49140 MiB each, see incident.md); the UUIDs are
real A6000 UUIDs printed in public threads (mrirecon/bart#323, NVIDIA/k8s-device-plugin#324).
"""

import pytest

from ansible_collections.llmops.sglang.plugins.module_utils.nvidia_smi import (
    GPU_QUERY_FIELDS_LEGACY,
    NvidiaSmiParseError,
    attach_processes,
    parse_gpus,
    parse_processes,
)

INCIDENT_GPUS = (
    "0, NVIDIA RTX A6000, GPU-83f78936-a6e1-3cb8-b6ab-41dd1af7bbd9, 49140, 26911, 22229, 570.133.20, 8.6\n"
    "1, NVIDIA RTX A6000, GPU-0c67f372-5dab-cffc-3384-39877429a610, 49140, 1, 48638, 570.133.20, 8.6\n"
)
INCIDENT_PROCESSES = "41237, python3, 26904, GPU-83f78936-a6e1-3cb8-b6ab-41dd1af7bbd9\n"


def test_gpus_are_parsed_to_integers_in_mib():
    gpus = parse_gpus(INCIDENT_GPUS)
    assert [g["index"] for g in gpus] == [0, 1]
    assert gpus[0] == {
        "index": 0,
        "name": "NVIDIA RTX A6000",
        "uuid": "GPU-83f78936-a6e1-3cb8-b6ab-41dd1af7bbd9",
        "memory_total_mib": 49140,
        "memory_used_mib": 26911,
        "memory_free_mib": 22229,
        "driver_version": "570.133.20",
        "compute_capability": "8.6",
    }


def test_leftover_process_is_attached_to_its_gpu_only():
    gpus = attach_processes(parse_gpus(INCIDENT_GPUS), parse_processes(INCIDENT_PROCESSES))
    assert gpus[0]["processes"] == [{"pid": 41237, "process_name": "python3", "used_memory_mib": 26904, "gpu_uuid": "GPU-83f78936-a6e1-3cb8-b6ab-41dd1af7bbd9"}]
    assert gpus[1]["processes"] == []


def test_legacy_driver_without_compute_cap_and_not_supported_values():
    text = "0, Tesla T4, GPU-1, 15360, [N/A], [N/A], 470.57.02\n"
    gpu = parse_gpus(text, GPU_QUERY_FIELDS_LEGACY)[0]
    assert gpu["compute_capability"] is None
    assert gpu["memory_used_mib"] is None and gpu["memory_free_mib"] is None


def test_free_memory_is_derived_when_only_used_is_reported():
    gpu = parse_gpus("0, NVIDIA A100-SXM4-80GB, GPU-2, 81920, 1024, [N/A], 550.54.15, 8.0\n")[0]
    assert gpu["memory_free_mib"] == 80896


def test_commas_in_process_names_are_kept():
    procs = parse_processes("7, /usr/bin/python3 -m sglang.launch_server --a 1,2, 300, GPU-1\n")
    assert procs[0]["process_name"] == "/usr/bin/python3 -m sglang.launch_server --a 1,2"
    assert procs[0]["used_memory_mib"] == 300


def test_no_running_processes_message_is_an_empty_list():
    assert parse_processes("No running processes found\n") == []


@pytest.mark.parametrize("text", ["0, NVIDIA RTX A6000, GPU-1, lots, 1, 2, 570, 8.6\n", "garbage\n"])
def test_unexpected_output_is_a_clear_error(text):
    with pytest.raises(NvidiaSmiParseError, match="nvidia-smi"):
        parse_gpus(text)
