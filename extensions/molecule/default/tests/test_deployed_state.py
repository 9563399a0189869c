# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What playbooks/deploy.yml leaves on the node, in container 129 and in the PVE API, checked with testinfra.

No GPU exists here, so the service is installed and configured but not started: the checks are about what
was created, installed, pinned and written, and with which modes, not about a running server.
"""

import json

from testinfra_support import passthrough_devices, pct_config

DEVICE_OPTIONS = ",gid=44,mode=0666"
CONFIG_DIR = "/etc/llmops-sglang"
SECRET_FILES = (CONFIG_DIR + "/sglang.env", CONFIG_DIR + "/sglang-secrets.yaml")
NVIDIA_PACKAGES = ("libcuda1", "libnvidia-ml1", "libnvidia-ptxjitcompiler1", "nvidia-smi")


def test_ct_129_created_once_started_and_nothing_destroyed(fakepve_state):
    requests = fakepve_state["requests"]
    creates = [r for r in requests if r[0] == "POST" and r[1] == "/api2/json/nodes/pve1/lxc"]
    assert len(creates) == 1
    assert [r for r in requests if r[0] == "DELETE"] == []
    assert len([t for t in fakepve_state["tasks"] if t["type"] == "vzstart"]) == 1


def test_ct_129_config_on_the_node(node, demo):
    config = pct_config(node, 129)
    assert config["hostname"] == demo["hostname"]
    assert config["features"] == "nesting=1" and config["unprivileged"] == "1"
    devices = passthrough_devices(config)
    want = ["/dev/nvidia%d" % gpu["minor"] for gpu in demo["node"]["gpus"]] + ["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"]
    assert devices == sorted(path + DEVICE_OPTIONS for path in want)
    assert node.check_output("pct status 129") == "status: running"


def test_uvm_udev_rule_on_the_node(node):
    rule = node.file("/etc/udev/rules.d/70-llmops-nvidia-uvm.rules")
    assert (rule.user, rule.mode) == ("root", 0o644)
    assert 'KERNEL=="nvidia_uvm", RUN+="/usr/bin/nvidia-modprobe -c0 -u"' in rule.content_string


def test_userspace_pinned_to_the_nodes_module_and_held(guest, demo):
    held = set(guest.check_output("apt-mark showhold").split())
    for name in NVIDIA_PACKAGES:
        assert guest.package(name).version.startswith(demo["node"]["driver_version"] + "-"), name
        assert name in held, name


def test_pinned_sglang_in_its_venv(guest):
    record = json.loads(guest.file("/opt/sglang/installed.json").content_string)
    assert record["version"] == "0.5.9"
    shown = guest.check_output("%s -m pip show sglang", record["python"])
    assert "\nVersion: 0.5.9\n" in shown


def test_unit_verifies_and_is_not_started_without_a_gpu(guest):
    unit = guest.file("/etc/systemd/system/sglang.service")
    assert (unit.user, unit.mode) == ("root", 0o644)
    assert guest.run("systemd-analyze verify /etc/systemd/system/sglang.service").rc == 0
    service = guest.service("sglang")
    assert not service.is_enabled and not service.is_running


def test_secrets_root_0600_in_a_0700_directory(guest):
    directory = guest.file(CONFIG_DIR)
    assert (directory.user, directory.mode) == ("root", 0o700)
    for path in SECRET_FILES:
        secret = guest.file(path)
        assert (secret.user, secret.group, secret.mode) == ("root", "root", 0o600), path


def test_secrets_nowhere_others_can_read(guest, demo, files_holding):
    # An unprivileged account finds neither secret; root finds the API key only in the role's 0600 files and
    # the PVE password nowhere in the container.
    for value in (demo["api_key"], demo["root_password"]):
        assert files_holding(value, user="nobody") == []
    assert files_holding(demo["root_password"]) == []
    holders = files_holding(demo["api_key"])
    assert CONFIG_DIR + "/sglang-secrets.yaml" in holders
    for path in holders:
        holder = guest.file(path)
        assert path.startswith(CONFIG_DIR + "/") and (holder.user, holder.mode) == ("root", 0o600), path
