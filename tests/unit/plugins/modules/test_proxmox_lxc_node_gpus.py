# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pure logic of proxmox_lxc_node_gpus: driver version, device minors by UUID."""

import pytest

from ansible_collections.llmops.sglang.plugins.module_utils.nvidia_smi import parse_gpus
from ansible_collections.llmops.sglang.plugins.modules.proxmox_lxc_node_gpus import (
    driver_version,
    parse_information,
    with_minors,
)


@pytest.mark.parametrize(
    "texts, version",
    [
        # /sys/module/nvidia/version
        (["550.54.14\n"], "550.54.14"),
        # /proc/driver/nvidia/version of the proprietary and of the open kernel module
        (
            [
                "",
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
                "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n",
            ],
            "550.54.14",
        ),
        (["", "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  590.48.01  Release Build  (dvs-builder@U22)\n"], "590.48.01"),
        (["", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.256.02  Thu May  2 14:37:44 UTC 2024\n"], "470.256.02"),
        (["", ""], ""),
    ],
)
def test_driver_version(texts, version):
    assert driver_version(texts) == version


INFORMATION = [
    "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 134\nGPU UUID: \t GPU-5f3a1c2e-8b7d-4e6f-9a0b-1c2d3e4f5a6b\n"
    "Video BIOS: \t 96.00.99.00.01\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\n"
    "Bus Location: \t 0000:18:00.0\nDevice Minor: \t 1\nGPU Excluded:\t No\n",
    "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t GPU-9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b\nBus Location: \t 0000:3b:00.0\nDevice Minor: \t 0\n",
]
SMI = (
    "0, NVIDIA H100 80GB HBM3, GPU-5f3a1c2e-8b7d-4e6f-9a0b-1c2d3e4f5a6b, 81559, 0, 81559, 550.54.14, 9.0\n"
    "1, NVIDIA H100 80GB HBM3, GPU-9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b, 81559, 0, 81559, 550.54.14, 9.0\n"
)


def test_minors_come_from_the_information_files_by_uuid():
    minors = parse_information(INFORMATION)
    assert minors == {"5f3a1c2e-8b7d-4e6f-9a0b-1c2d3e4f5a6b": 1, "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b": 0}
    gpus = with_minors(parse_gpus(SMI), minors)
    assert [(g["index"], g["minor"]) for g in gpus] == [(0, 1), (1, 0)]
    assert gpus[0]["driver_version"] == "550.54.14" and gpus[0]["memory_total_mib"] == 81559


def test_without_information_the_minor_is_the_index():
    assert [g["minor"] for g in with_minors(parse_gpus(SMI), {})] == [0, 1]


def test_information_without_a_device_minor_is_ignored():
    assert parse_information(["GPU UUID: \t GPU-aa\nDevice Minor: \t ?\n", "Model: x\n"]) == {}
