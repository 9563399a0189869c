# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The example inventories parse, and the shared-node example budgets each container on its own GPU set."""
import json
import os
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.dirname(sys.executable)
ENV = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(REPO, ".build", "collections"),
           ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json", ANSIBLE_LOAD_CALLBACK_PLUGINS="1")

pytestmark = pytest.mark.skipif(not os.path.isdir(os.path.join(REPO, ".build", "collections")),
                                reason="run `make link` first")


@pytest.mark.parametrize("inventory", ["example", "shared-node"])
def test_inventory_parses_with_containers_reached_through_their_node(inventory):
    out = subprocess.run([os.path.join(BIN, "ansible-inventory"), "-i", f"inventories/{inventory}", "--list"],
                         cwd=REPO, env=ENV, capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    containers = data["sglang_containers"]["hosts"]
    assert containers
    for host in containers:
        hostvars = data["_meta"]["hostvars"][host]
        assert hostvars["ansible_connection"] == "community.proxmox.proxmox_pct_remote"
        assert hostvars["llmops_sglang_proxmox_node"] in data["proxmox_nodes"]["hosts"]


def test_shared_node_budgets_each_container_on_its_own_gpus():
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", "inventories/shared-node",
                           "playbooks/preflight.yml"], cwd=REPO, env=ENV, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]
    task = next(t for t in json.loads(proc.stdout)["plays"][0]["tasks"]
                if t["task"]["name"] == "Replay SGLang's startup memory accounting")
    selections = {host: [gpu["index"] for gpu in res["budget"]["per_gpu"]] for host, res in task["hosts"].items()}
    assert selections == {"sglang-qwen3-32b": [0, 1], "sglang-llama31-8b": [2], "sglang-qwen3-8b": [3]}
    assert all(res["verdict"] == "fits" for res in task["hosts"].values())
