# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What roles/proxmox_lxc leaves on the Proxmox node, checked from outside with testinfra over SSH.

Runs as molecule's verifier after converge and idempotence, before side_effect.yml changes settings and
injects faults. The containers' configs are read as `pct config` prints them on the node (the stand-in reads
them back from fakepve, which holds what the role's API calls and `pct set` wrote).
"""

import json
import os

import pytest
from testinfra_support import passthrough_devices, pct_config

DEVICE_OPTIONS = ",gid=44,mode=0666"
CONTAINERS = {100: "sglang-gpu", 120: "sglang-tok"}
UDEV_RULE = "/etc/udev/rules.d/70-llmops-nvidia-uvm.rules"
MODULES_LOAD = "/etc/modules-load.d/llmops-nvidia-uvm.conf"
# What the fake node itself keeps in /etc (its declared GPUs, the pct stand-in's settings).
STAND_IN_FILES = {"fakenode/node.json", "pct-standin.json"}
# The extra GPU that the last test puts into CT 120 by hand, and takes out again.
EXTRA_GPU_SET = ["set", "120", "-dev4", "/dev/nvidia1" + DEVICE_OPTIONS]
EXTRA_GPU_UNSET = ["set", "120", "-delete", "dev4"]


def declared_node(node):
    """The node's GPUs, driver and capability nodes, as the node itself declares them."""
    return json.loads(node.file("/etc/fakenode/node.json").content_string)


def check_devices(node, vmid, gpu_minors, caps):
    """The container's devN entries are exactly the GPUs asked for (by device minor), the control nodes and caps."""
    want = sorted(
        ["/dev/nvidia%d" % minor for minor in gpu_minors]
        + ["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"]
        + ["/dev/nvidia-caps/nvidia-cap%d" % cap for cap in caps]
    )
    have = passthrough_devices(pct_config(node, vmid))
    assert have == [path + DEVICE_OPTIONS for path in want], "CT %s devN %s, want %s" % (vmid, have, want)


def test_containers_have_the_settings_asked_for(node):
    for vmid, hostname in CONTAINERS.items():
        config = pct_config(node, vmid)
        assert config["hostname"] == hostname
        assert (config["memory"], config["swap"], config["unprivileged"]) == ("4096", "512", "1")
        assert config["features"] == "nesting=1"
        assert config["tags"] == "sglang"  # the managed tag: state absent refuses a container without it
        assert (config["startup"], config["onboot"], config["cmode"]) == ("order=10", "1", "tty")
        assert config["rootfs"] == "local-lvm:vm-%d-disk-0,size=16G" % vmid
    assert pct_config(node, 100)["cores"] == "2"
    assert pct_config(node, 120)["cores"] == "1"


def test_containers_run(node):
    for vmid in CONTAINERS:
        assert node.check_output("pct status %s", str(vmid)) == "status: running"


def test_every_gpu_and_the_caps_pass_through_to_ct_100(node):
    declared = declared_node(node)
    check_devices(node, 100, [gpu["minor"] for gpu in declared["gpus"]], declared["caps"])


def test_ct_120_gets_only_the_gpu_chosen_by_uuid(node):
    # GPU index 1 chosen by UUID has device minor 0: /dev/nvidia0, not /dev/nvidia1.
    chosen = [gpu for gpu in declared_node(node)["gpus"] if gpu["uuid"] == "GPU-9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b"]
    check_devices(node, 120, [gpu["minor"] for gpu in chosen], [])


def test_uvm_udev_rule_and_module_loading(node):
    rule = node.file(UDEV_RULE)
    assert (rule.user, rule.group, rule.mode) == ("root", "root", 0o644)
    for gpu in declared_node(node)["gpus"]:
        assert 'KERNEL=="nvidia", RUN+="/usr/bin/nvidia-modprobe -c%d"' % gpu["minor"] in rule.content_string
    assert 'KERNEL=="nvidia_uvm", RUN+="/usr/bin/nvidia-modprobe -c0 -u"' in rule.content_string
    modules = node.file(MODULES_LOAD)
    assert modules.mode == 0o644
    assert modules.content_string.splitlines()[1:] == ["nvidia", "nvidia-uvm"]
    # /dev/nvidia-uvm was created once, so that the containers could start.
    assert node.file("/dev/nvidia-uvm").exists


def test_nothing_else_in_etc_was_touched(node, state_dir):
    # /etc on the node is an overlay: its upper dir holds every file written, changed or deleted there.
    upper = os.path.join(state_dir, "node", "etc-upper")
    touched = set(node.check_output("cd %s && find . \\( -type f -o -type c -o -type l \\) -printf '%%P\\n'", upper).splitlines())
    assert touched - STAND_IN_FILES == {"udev/rules.d/70-llmops-nvidia-uvm.rules", "modules-load.d/llmops-nvidia-uvm.conf"}


def test_nothing_else_in_the_cluster_was_touched(fakepve_state):
    state = fakepve_state
    requests = state["requests"]
    creates = [r for r in requests if r[0] == "POST" and r[1] == "/api2/json/nodes/pve1/lxc"]
    assert len(creates) == 2
    assert [r for r in requests if r[0] == "DELETE"] == []
    assert len([t for t in state["tasks"] if t["type"] == "vzstart"]) == 2
    # The Ubuntu template of CT 120 was downloaded once (converge), not again (idempotence).
    assert len([t for t in state["tasks"] if t["type"] == "download"]) == 1


def test_the_token_took_pct_over_ssh_for_devn_and_pct_exec_reached_both(node, state_dir):
    # The pct stand-in logs every call it was asked for (one JSON object per line).
    log = node.file(os.path.join(state_dir, "node", "log", "pct.log")).content_string
    calls = [json.loads(line)["argv"] for line in log.splitlines()]
    # (A rerun of this verifier finds the last test's own pct calls in the log too: they are not the role's.)
    sets = [argv for argv in calls if argv[0] == "set" and argv not in (EXTRA_GPU_SET, EXTRA_GPU_UNSET)]
    # One pct set for CT 120 (API token: devN is root@pam-only over the API) in converge, none in idempotence,
    # none for CT 100 (root@pam: the API path).
    assert len(sets) == 1 and sets[0][:2] == ["set", "120"], calls
    assert len([arg for arg in sets[0] if arg.startswith("-dev")]) == 4
    assert {argv[1] for argv in calls if argv[0] == "exec"} == {"100", "120"}


def test_an_extra_gpu_in_the_config_turns_its_check_red(node):
    """The devN check is not vacuous: a second GPU put into CT 120 by hand fails it."""
    node.check_output("pct " + " ".join(EXTRA_GPU_SET))
    try:
        with pytest.raises(AssertionError, match="CT 120 devN"):
            test_ct_120_gets_only_the_gpu_chosen_by_uuid(node)
    finally:
        node.check_output("pct " + " ".join(EXTRA_GPU_UNSET))
    test_ct_120_gets_only_the_gpu_chosen_by_uuid(node)
