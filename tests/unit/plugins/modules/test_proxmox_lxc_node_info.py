# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pure logic of proxmox_lxc_node_info: storage status, container lookup, pending keys, memory warning."""

import pytest

from ansible_collections.llmops.sglang.plugins.modules.proxmox_lxc_node_info import (
    find_container,
    memory_warning,
    pending_keys,
    storage_status,
)

# GET /nodes/{node}/storage as PVE answers it.
LISTING = [
    {
        "storage": "local",
        "type": "dir",
        "content": "iso,vztmpl,backup",
        "enabled": 1,
        "active": 1,
        "avail": 50 * 1024**3,
        "total": 100 * 1024**3,
        "used": 50 * 1024**3,
        "shared": 0,
    },
    {"storage": "local-lvm", "type": "lvmthin", "content": "rootdir,images", "enabled": 1, "active": 0, "avail": 0, "total": 0, "used": 0, "shared": 0},
]


def test_storage_status_of_known_and_unknown_storages():
    status = storage_status(LISTING, ["local", "local-lvm", "ceph"])
    assert status["local"] == {
        "exists": True,
        "enabled": True,
        "active": True,
        "content": ["iso", "vztmpl", "backup"],
        "avail": 50 * 1024**3,
        "total": 100 * 1024**3,
        "type": "dir",
    }
    assert status["local-lvm"]["active"] is False and status["local-lvm"]["content"] == ["rootdir", "images"]
    assert status["ceph"]["exists"] is False


RESOURCES = [
    {"id": "lxc/100", "vmid": 100, "type": "lxc", "node": "pve1", "name": "sglang-1", "status": "running"},
    {"id": "qemu/101", "vmid": 101, "type": "qemu", "node": "pve1", "name": "win", "status": "stopped"},
    {"id": "lxc/102", "vmid": 102, "type": "lxc", "node": "pve2", "name": "twin", "status": "stopped"},
    {"id": "lxc/103", "vmid": 103, "type": "lxc", "node": "pve2", "name": "twin", "status": "stopped"},
    {"id": "storage/pve1/local", "type": "storage", "node": "pve1", "storage": "local"},
]


def test_find_by_vmid_and_by_hostname():
    assert find_container(RESOURCES, 100, None)["name"] == "sglang-1"
    assert find_container(RESOURCES, 0, "sglang-1")["vmid"] == 100
    assert find_container(RESOURCES, 0, "missing") is None
    assert find_container(RESOURCES, 999, "sglang-1") is None


def test_an_id_of_a_vm_is_refused():
    with pytest.raises(ValueError, match="QEMU VM"):
        find_container(RESOURCES, 101, None)


def test_an_ambiguous_hostname_is_refused_with_the_ids():
    with pytest.raises(ValueError, match=r"several guests are named 'twin' \(IDs 102, 103\)"):
        find_container(RESOURCES, 0, "twin")


def test_pending_keys():
    pending = [
        {"key": "cores", "value": 2},
        {"key": "features", "value": "nesting=1", "pending": "keyctl=1,nesting=1"},
        {"key": "dev5", "value": "/dev/nvidia5", "delete": 1},
        {"key": "swap", "value": 512, "delete": 0},
    ]
    assert pending_keys(pending) == ["dev5", "features"]


def test_memory_warning():
    assert memory_warning(0, 10**9) is None
    assert memory_warning(65536, 0) is None
    assert memory_warning(16384, 16 * 1024**3) is None
    text = memory_warning(4096, 16106127361)
    assert "4096 MiB" in text and "15361 MiB" in text
