# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""deploy.yml's plays, evaluated on the example inventories with their own hosts, vars_files and role vars.

- Issue 15 item 3: `--tags service` starts the service on the directory a full run downloads into. The probe runs
  sglang_install's real path resolution (tasks/validate.yml: set_fact and assert only, nothing on the target) and
  evaluates the service play's model_path without the install play's facts, as `--tags service` does.
- Issue 15 item 16: a real deployment requires its GPUs; only the GPU-less demo stand-ins turn that off. The
  demo's SGLang API key is its own secret, not the PVE root password.
"""

import json
import os
import subprocess
import sys

import pytest
import yaml
from ansible_adhoc import COLLECTIONS, HAVE_COLLECTIONS, NO_COLLECTIONS_REASON

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.dirname(sys.executable)
ENV = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(COLLECTIONS), ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json", ANSIBLE_LOAD_CALLBACK_PLUGINS="1")

sys.path.insert(0, os.path.join(REPO, "tests", "integration"))
from demo_env import demo_settings  # noqa: E402  pylint: disable=wrong-import-position

pytestmark = pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)


def _play(plays, name):
    return next(play for play in plays if play["name"] == name)


def _deploy_plays():
    with open(os.path.join(REPO, "playbooks", "deploy.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _run(inventory, probe, tmp_path):
    """Run the probe plays on the inventory (locally: nothing reaches a host) and return the JSON callback's plays."""
    playbook = tmp_path / "probe.yml"
    playbook.write_text(yaml.safe_dump(probe), encoding="utf-8")
    # The demo inventory reads the settings `make demo` writes for its loopback stand-ins (nothing is started here).
    (tmp_path / "settings.json").write_text(json.dumps(demo_settings(str(tmp_path))), encoding="utf-8")
    proc = subprocess.run(
        [os.path.join(BIN, "ansible-playbook"), "-i", os.path.join(REPO, "inventories", inventory), str(playbook), "-e", "ansible_connection=local"],
        cwd=REPO,
        env=dict(ENV, LLMOPS_DEMO_STATE=str(tmp_path)),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    return json.loads(proc.stdout)["plays"]


@pytest.mark.parametrize("inventory", ["example", "shared-node"])
def test_service_only_run_uses_the_install_model_directory(inventory, tmp_path):
    # The service names the model's directory; the install record resolves it to the revision installed there.
    plays = _deploy_plays()
    install = _play(plays, "Install SGLang and the model")
    service = _play(plays, "Run the SGLang service")
    vars_files = [os.path.join(REPO, "playbooks", path) for path in install["vars_files"]]
    probe = [
        {
            "name": "install path",
            "hosts": install["hosts"],
            "gather_facts": False,
            "vars_files": vars_files,
            "tasks": [
                {"ansible.builtin.include_role": {"name": "llmops.sglang.sglang_install", "tasks_from": "validate.yml"}, "vars": install["roles"][0]["vars"]},
                {"ansible.builtin.set_fact": {"probe_install_path": "{{ __sglang_install_model_root }}"}},
            ],
        },
        {
            "name": "service path",
            "hosts": service["hosts"],
            "gather_facts": False,
            "vars_files": vars_files,
            "vars": service["roles"][0]["vars"],
            "tasks": [{"ansible.builtin.debug": {"msg": "{{ {'install': probe_install_path, 'service': sglang_service_server_args.model_path} }}"}}],
        },
    ]
    debug = _run(inventory, probe, tmp_path)[1]["tasks"][0]["hosts"]
    assert debug
    for host, result in debug.items():
        paths = result["msg"]
        assert paths["install"].strip() == paths["service"], (host, paths)


@pytest.mark.parametrize("inventory, required", [("example", True), ("shared-node", True), ("demo", False)])
def test_a_real_deployment_requires_its_gpus(inventory, required, tmp_path):
    userspace = _play(_deploy_plays(), "Install the NVIDIA userspace that matches the node's driver")
    probe = [
        {
            "name": "userspace vars",
            "hosts": userspace["hosts"],
            "gather_facts": False,
            "vars_files": [os.path.join(REPO, "playbooks", path) for path in userspace["vars_files"]],
            "vars": userspace["roles"][0]["vars"],
            "tasks": [{"ansible.builtin.debug": {"msg": "{{ nvidia_userspace_require_gpu | bool }}"}}],
        }
    ]
    debug = _run(inventory, probe, tmp_path)[0]["tasks"][0]["hosts"]
    assert debug
    assert {host: result["msg"] for host, result in debug.items()} == {host: required for host in debug}


def test_the_demo_api_key_is_not_the_pve_password(tmp_path):
    probe = [
        {
            "name": "demo secrets",
            "hosts": "sglang_containers",
            "gather_facts": False,
            "tasks": [{"ansible.builtin.debug": {"msg": "{{ sglang_service_api_key | length >= 24 and sglang_service_api_key != proxmox_lxc_api_password }}"}}],
        }
    ]
    debug = _run("demo", probe, tmp_path)[0]["tasks"][0]["hosts"]
    assert debug and all(result["msg"] is True for result in debug.values())
