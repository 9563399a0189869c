# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nvidia_userspace's verification checks the GPU nodes passed through, not /dev/nvidia0 (issue 15, item 13).

The stat task of roles/nvidia_userspace/tasks/verify.yml is read from the file and its loop templated with
ansible's own templar, as the play would: the shared-node inventory's containers get GPUs 2 and 3, whose
device nodes are /dev/nvidia2 and /dev/nvidia3 (proxmox_lxc passes /dev/nvidia<minor>).
"""

import pathlib

import pytest
import yaml
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

VERIFY = pathlib.Path(__file__).resolve().parents[3] / "roles" / "nvidia_userspace" / "tasks" / "verify.yml"
CONTROL = ["/dev/nvidiactl", "/dev/nvidia-uvm"]


def checked_nodes(**variables):
    """The device paths the 'Check the GPU device nodes' task stats, for these variables."""
    tasks = yaml.safe_load(VERIFY.read_text())
    (task,) = [t for t in tasks if t["name"] == "Check the GPU device nodes"]
    task_vars = {name: trust_as_template(value) for name, value in task.get("vars", {}).items()}
    templar = Templar(loader=DataLoader(), variables=dict(variables, **task_vars))
    return templar.template(trust_as_template(task["loop"]))


@pytest.mark.parametrize(
    "minors, expected",
    [
        ([2, 3], ["/dev/nvidia2", "/dev/nvidia3"]),
        (["3"], ["/dev/nvidia3"]),
        ([1, 0, 1], ["/dev/nvidia0", "/dev/nvidia1"]),
    ],
)
def test_the_checked_nodes_are_the_passed_gpus(minors, expected):
    found = {"files": [{"path": "/dev/nvidia0"}]}
    assert checked_nodes(nvidia_userspace_gpu_minors=minors, __nvidia_userspace_gpu_nodes=found) == CONTROL + expected


def test_without_minors_the_nodes_the_container_has_are_checked():
    found = {"files": [{"path": "/dev/nvidia3"}, {"path": "/dev/nvidia2"}]}
    nodes = checked_nodes(nvidia_userspace_gpu_minors=[], __nvidia_userspace_gpu_nodes=found)
    assert nodes == CONTROL + ["/dev/nvidia2", "/dev/nvidia3"]
    assert "/dev/nvidia0" not in nodes


def test_the_role_documents_and_defaults_the_variable():
    role = VERIFY.parents[1]
    assert yaml.safe_load((role / "defaults" / "main.yml").read_text())["nvidia_userspace_gpu_minors"] == []
    spec = yaml.safe_load((role / "meta" / "argument_specs.yml").read_text())["argument_specs"]["main"]["options"]
    assert spec["nvidia_userspace_gpu_minors"]["type"] == "list" and spec["nvidia_userspace_gpu_minors"]["elements"] == "int"
