# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pure logic of proxmox_lxc_devices: GPU selection, devN planning, pct set, raw lxc.* lines."""

import pytest

from ansible_collections.llmops.sglang.plugins.modules.proxmox_lxc_devices import (
    SelectionError,
    device_paths,
    format_dev_value,
    merge_raw_config,
    normalise_gpus,
    parse_dev_value,
    pct_set_argv,
    plan_devices,
    raw_lines,
    select_gpus,
)

# Two GPUs whose device minors are swapped against their nvidia-smi indices.
GPUS = normalise_gpus(
    [
        {"index": 0, "uuid": "GPU-5f3a1c2e-8b7d-4e6f-9a0b-1c2d3e4f5a6b", "minor": 1, "name": "NVIDIA H100 80GB HBM3"},
        {"index": 1, "uuid": "GPU-9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b", "minor": 0, "name": "NVIDIA H100 80GB HBM3"},
    ]
)
CONTROL = ["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"]


def wanted(paths, gid=44, mode="0666"):
    return [format_dev_value(p, gid, mode) for p in paths]


def apply(config, to_set, to_delete):
    out = dict(config)
    for key in to_delete:
        out.pop(key)
    out.update(to_set)
    return out


# --------------------------------------------------------------------------- selection


@pytest.mark.parametrize(
    "selectors, indices",
    [
        (["all"], [0, 1]),
        (["ALL"], [0, 1]),
        (["1"], [1]),
        (["1", "0", "1"], [0, 1]),
        (["GPU-9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"], [1]),
        (["9E8D7C6B-5A4F-4E3D-8C2B-1A0F9E8D7C6B"], [1]),
        (["0", "GPU-5f3a1c2e-8b7d-4e6f-9a0b-1c2d3e4f5a6b"], [0]),
        ([], [0, 1]),
    ],
)
def test_select_gpus_by_all_index_or_uuid(selectors, indices):
    assert [g["index"] for g in select_gpus(GPUS, selectors)] == indices


def test_unknown_selector_names_it_and_lists_the_node_gpus():
    with pytest.raises(SelectionError) as err:
        select_gpus(GPUS, ["2"])
    message = str(err.value)
    assert "'2'" in message and "index 0 GPU-5f3a1c2e" in message and "index 1 GPU-9e8d7c6b" in message


def test_a_node_without_gpus_is_an_error():
    with pytest.raises(SelectionError, match="no NVIDIA GPU"):
        select_gpus([], ["all"])


def test_normalise_defaults_the_minor_to_the_index_and_rejects_bad_entries():
    assert normalise_gpus([{"index": "3", "uuid": "GPU-x"}])[0]["minor"] == 3
    with pytest.raises(SelectionError, match="needs an integer 'index'"):
        normalise_gpus([{"uuid": "GPU-x"}])
    with pytest.raises(SelectionError, match="needs an integer 'index'"):
        normalise_gpus([{"index": 0, "uuid": "GPU-x", "minor": "zero"}])


def test_device_paths_use_the_minor_not_the_index():
    # GPU index 1 is /dev/nvidia0 on this node.
    assert device_paths(select_gpus(GPUS, ["1"]), CONTROL, []) == ["/dev/nvidia0"] + CONTROL


def test_device_paths_order_gpus_by_minor_then_control_then_sorted_extras_without_repeats():
    paths = device_paths(GPUS, CONTROL, ["/dev/nvidia-caps/nvidia-cap2", "/dev/nvidia-caps/nvidia-cap1", "/dev/nvidiactl"])
    assert paths == ["/dev/nvidia0", "/dev/nvidia1"] + CONTROL + ["/dev/nvidia-caps/nvidia-cap1", "/dev/nvidia-caps/nvidia-cap2"]


@pytest.mark.parametrize("path", ["/tmp/nvidia0", "/dev/../etc/shadow", "nvidia0"])
def test_device_paths_refuse_anything_but_dev_nodes(path):
    with pytest.raises(ValueError, match="must be a node under /dev/"):
        device_paths([], [path], [])


# --------------------------------------------------------------------------- devN values


def test_format_and_parse_dev_value():
    assert format_dev_value("/dev/nvidia0", 44, "0666") == "/dev/nvidia0,gid=44,mode=0666"
    assert format_dev_value("/dev/nvidia0", 0, "0660", uid=1000) == "/dev/nvidia0,mode=0660,uid=1000"
    assert parse_dev_value("path=/dev/nvidia0,gid=44,mode=0666") == ("/dev/nvidia0", {"gid": "44", "mode": "0666"})


# --------------------------------------------------------------------------- planning


def test_empty_config_gets_every_device_in_order():
    want = wanted(["/dev/nvidia0", "/dev/nvidiactl"])
    to_set, to_delete, final = plan_devices({"hostname": "ct", "memory": 4096}, want)
    assert to_set == {"dev0": want[0], "dev1": want[1]}
    assert to_delete == [] and final == to_set


def test_a_config_that_matches_plans_nothing():
    want = wanted(["/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"])
    config = {"dev0": want[0], "dev1": want[1], "dev2": want[2], "digest": "abc"}
    assert plan_devices(config, want) == ({}, [], {"dev0": want[0], "dev1": want[1], "dev2": want[2]})


def test_entries_keep_their_numbers_and_only_changed_options_are_rewritten():
    want = wanted(["/dev/nvidia0", "/dev/nvidiactl"])
    config = {"dev3": "/dev/nvidiactl,gid=44,mode=0666", "dev5": "/dev/nvidia0,gid=44,mode=0660"}
    to_set, to_delete, final = plan_devices(config, want)
    assert to_set == {"dev5": want[0]}
    assert to_delete == []
    assert final == {"dev3": want[1], "dev5": want[0]}


def test_pve_defaults_count_as_equal():
    # PVE's defaults: mode 0660, gid 0, uid 0.
    assert plan_devices({"dev0": "/dev/nvidia0"}, [format_dev_value("/dev/nvidia0", 0, "0660")])[0] == {}


def test_other_devices_are_left_alone_and_their_numbers_skipped():
    config = {"dev0": "/dev/dri/renderD128,gid=104", "dev1": "/dev/ttyUSB0"}
    want = wanted(["/dev/nvidia0"])
    to_set, to_delete, final = plan_devices(config, want)
    assert to_set == {"dev2": want[0]} and to_delete == [] and final == {"dev2": want[0]}


def test_deselected_gpus_are_removed_and_their_numbers_not_reused_in_the_same_change():
    config = {"dev0": "/dev/nvidia0,gid=44,mode=0666", "dev1": "/dev/nvidia1,gid=44,mode=0666", "dev2": "/dev/nvidiactl,gid=44,mode=0666"}
    want = wanted(["/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm"])
    to_set, to_delete, final = plan_devices(config, want)
    assert to_delete == ["dev0"]
    assert to_set == {"dev3": want[2]}
    assert final == {"dev1": want[0], "dev2": want[1], "dev3": want[2]}


def test_duplicate_entries_for_one_node_are_reduced_to_one():
    config = {"dev0": "/dev/nvidia0,gid=44,mode=0666", "dev4": "/dev/nvidia0,gid=44,mode=0666"}
    to_set, to_delete, final = plan_devices(config, wanted(["/dev/nvidia0"]))
    assert to_set == {} and to_delete == ["dev4"] and list(final) == ["dev0"]


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"dev0": "/dev/dri/card0"},
        {"dev7": "/dev/nvidia1,gid=0,mode=0600", "dev2": "/dev/nvidia9", "dev3": "/dev/nvidia-uvm,gid=44,mode=0666"},
        {"dev0": "/dev/nvidia0", "dev1": "/dev/nvidia0", "dev2": "/dev/ttyS0"},
    ],
)
def test_applying_a_plan_leaves_nothing_to_do(config):
    want = wanted(device_paths(GPUS, CONTROL, ["/dev/nvidia-caps/nvidia-cap1"]))
    to_set, to_delete = plan_devices(config, want)[:2]
    after = apply(config, to_set, to_delete)
    assert plan_devices(after, want)[:2] == ({}, [])
    managed = sorted(v for k, v in after.items() if v.startswith("/dev/nvidia"))
    assert managed == sorted(want)
    assert all(after[k] == v for k, v in config.items() if not v.startswith("/dev/nvidia"))


def test_no_free_slot_is_an_error():
    config = dict(("dev{0}".format(n), "/dev/ttyS{0}".format(n)) for n in range(256))
    with pytest.raises(ValueError, match="no free devN slot"):
        plan_devices(config, wanted(["/dev/nvidia0"]))


def test_pct_set_argv():
    assert pct_set_argv(129, {}, []) == []
    assert pct_set_argv(129, {"dev10": "/dev/nvidia-uvm,gid=44,mode=0666", "dev2": "/dev/nvidia0,gid=44,mode=0666"}, ["dev5", "dev6"]) == [
        "pct",
        "set",
        "129",
        "-dev2",
        "/dev/nvidia0,gid=44,mode=0666",
        "-dev10",
        "/dev/nvidia-uvm,gid=44,mode=0666",
        "-delete",
        "dev5,dev6",
    ]


# --------------------------------------------------------------------------- raw lxc.* lines (PVE < 8.1)

MAJORS = {"/dev/nvidia-uvm": 508, "/dev/nvidia-uvm-tools": 508, "/dev/nvidia-caps/nvidia-cap1": 511}


def test_raw_lines_allow_exactly_the_selected_gpus_and_the_dynamic_majors():
    selected = select_gpus(GPUS, ["0"])  # minor 1
    paths = device_paths(selected, CONTROL, ["/dev/nvidia-caps/nvidia-cap1"])
    lines = raw_lines(paths, MAJORS, selected)
    assert lines == [
        "lxc.cgroup2.devices.allow: c 195:1 rwm",
        "lxc.cgroup2.devices.allow: c 195:255 rwm",
        "lxc.cgroup2.devices.allow: c 508:* rwm",
        "lxc.cgroup2.devices.allow: c 511:* rwm",
        "lxc.mount.entry: /dev/nvidia1 dev/nvidia1 none bind,optional,create=file",
        "lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind,optional,create=file",
        "lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file",
        "lxc.mount.entry: /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,optional,create=file",
        "lxc.mount.entry: /dev/nvidia-caps/nvidia-cap1 dev/nvidia-caps/nvidia-cap1 none bind,optional,create=file",
    ]


def test_raw_lines_need_the_major_of_every_dynamic_node():
    with pytest.raises(ValueError, match="major number of /dev/nvidia-uvm"):
        raw_lines(["/dev/nvidia-uvm"], {}, [])


CONF = """arch: amd64
cores: 8
hostname: sglang
lxc.cgroup2.devices.allow: c 195:* rwm
lxc.cgroup2.devices.allow: c 10:200 rwm
lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file
lxc.mount.entry: /dev/net/tun dev/net/tun none bind,create=file
memory: 65536

[before-upgrade]
arch: amd64
lxc.cgroup2.devices.allow: c 195:* rwm
snaptime: 1700000000
"""


def test_merge_replaces_only_the_nvidia_lines_of_the_main_section():
    lines = raw_lines(["/dev/nvidia1", "/dev/nvidia-uvm"], MAJORS, select_gpus(GPUS, ["0"]))
    merged = merge_raw_config(CONF, lines, {195, 508})
    main, snapshot = merged.split("\n\n[before-upgrade]\n")
    assert "lxc.cgroup2.devices.allow: c 10:200 rwm" in main
    assert "lxc.mount.entry: /dev/net/tun dev/net/tun none bind,create=file" in main
    assert "c 195:* rwm" not in main and "/dev/nvidia0" not in main
    tail = -len(lines)
    assert main.splitlines()[tail:] == lines
    assert snapshot == "arch: amd64\nlxc.cgroup2.devices.allow: c 195:* rwm\nsnaptime: 1700000000\n"


def test_merge_is_idempotent_and_ends_with_a_newline():
    lines = raw_lines(["/dev/nvidia0"], {}, select_gpus(GPUS, ["1"]))
    once = merge_raw_config("arch: amd64\nhostname: x", lines, {195})
    assert once.endswith("\n")
    assert merge_raw_config(once, lines, {195}) == once
