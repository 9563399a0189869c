# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 15 item 3: `deploy.yml --tags service` starts the service on the directory a full run downloads into.

The test builds a playbook from deploy.yml's own install and service plays (their hosts, vars_files and role vars),
runs sglang_install's real path resolution (tasks/validate.yml: set_fact and assert only, nothing on the target)
and evaluates the service play's model_path without the install play's facts, as `--tags service` does.
"""
import json
import os
import subprocess
import sys

import pytest
import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.dirname(sys.executable)
ENV = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(REPO, ".build", "collections"),
           ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json", ANSIBLE_LOAD_CALLBACK_PLUGINS="1")

pytestmark = pytest.mark.skipif(not os.path.isdir(os.path.join(REPO, ".build", "collections")),
                                reason="run `make link` first")


def _play(plays, name):
    return next(play for play in plays if play["name"] == name)


@pytest.mark.parametrize("inventory", ["example", "shared-node"])
def test_service_only_run_uses_the_install_model_directory(inventory, tmp_path):
    with open(os.path.join(REPO, "playbooks", "deploy.yml"), encoding="utf-8") as handle:
        plays = yaml.safe_load(handle)
    install = _play(plays, "Install SGLang and the model")
    service = _play(plays, "Run the SGLang service")
    vars_files = [os.path.join(REPO, "playbooks", path) for path in install["vars_files"]]
    probe = [
        {"name": "install path", "hosts": install["hosts"], "gather_facts": False, "vars_files": vars_files,
         "tasks": [{"ansible.builtin.include_role": {"name": "llmops.sglang.sglang_install",
                                                     "tasks_from": "validate.yml"},
                    "vars": install["roles"][0]["vars"]},
                   {"ansible.builtin.set_fact": {"probe_install_path": "{{ __sglang_install_model_path }}"}}]},
        {"name": "service path", "hosts": service["hosts"], "gather_facts": False, "vars_files": vars_files,
         "vars": service["roles"][0]["vars"],
         "tasks": [{"ansible.builtin.debug": {"msg": "{{ {'install': probe_install_path,"
                                                     " 'service': sglang_service_server_args.model_path} }}"}}]},
    ]
    playbook = tmp_path / "probe.yml"
    playbook.write_text(yaml.safe_dump(probe), encoding="utf-8")
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", os.path.join(REPO, "inventories", inventory),
                           str(playbook), "-e", "ansible_connection=local"],
                          cwd=REPO, env=ENV, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    debug = json.loads(proc.stdout)["plays"][1]["tasks"][0]["hosts"]
    assert debug
    for host, result in debug.items():
        paths = result["msg"]
        assert paths["install"].strip() == paths["service"], (host, paths)
