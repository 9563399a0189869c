# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The example inventories parse, and the shared-node example budgets each container on its own GPU set.

Issue 15 item 14: the AWX survey's Model answer selects one of the inventory's llmops_sglang_models, and the
preflight budgets that model's config.json; an undeclared answer stops the preflight in its first task, and
blank answers as AWX sends them ('' or null) keep the inventory's values.
"""

import json
import os
import subprocess
import sys

import pytest
import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.dirname(sys.executable)
ENV = dict(
    os.environ,
    ANSIBLE_COLLECTIONS_PATH=os.path.join(REPO, ".build", "collections"),
    ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json",
    ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
)

pytestmark = pytest.mark.skipif(not os.path.isdir(os.path.join(REPO, ".build", "collections")), reason="run `make link` first")


@pytest.mark.parametrize("inventory", ["example", "shared-node"])
def test_inventory_parses_with_containers_reached_through_their_node(inventory):
    out = subprocess.run(
        [os.path.join(BIN, "ansible-inventory"), "-i", f"inventories/{inventory}", "--list"], cwd=REPO, env=ENV, capture_output=True, text=True, check=True
    ).stdout
    data = json.loads(out)
    containers = data["sglang_containers"]["hosts"]
    assert containers
    for host in containers:
        hostvars = data["_meta"]["hostvars"][host]
        assert hostvars["ansible_connection"] == "community.proxmox.proxmox_pct_remote"
        assert hostvars["llmops_sglang_proxmox_node"] in data["proxmox_nodes"]["hosts"]


def test_shared_node_budgets_each_container_on_its_own_gpus():
    proc = subprocess.run(
        [os.path.join(BIN, "ansible-playbook"), "-i", "inventories/shared-node", "playbooks/preflight.yml"],
        cwd=REPO,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    task = next(t for t in json.loads(proc.stdout)["plays"][0]["tasks"] if t["task"]["name"] == "Replay SGLang's startup memory accounting")
    selections = {host: [gpu["index"] for gpu in res["budget"]["per_gpu"]] for host, res in task["hosts"].items()}
    assert selections == {"sglang-qwen3-32b": [0, 1], "sglang-llama31-8b": [2], "sglang-qwen3-8b": [3]}
    assert all(res["verdict"] == "fits" for res in task["hosts"].values())


BUDGET_TASK = "Replay SGLang's startup memory accounting"
SELECT_TASK = "Select the model (the survey's Model answer among the inventory's llmops_sglang_models)"


def _preflight(inventory, extra_vars=None):
    argv = [os.path.join(BIN, "ansible-playbook"), "-i", f"inventories/{inventory}", "playbooks/preflight.yml"]
    if extra_vars is not None:
        argv += ["-e", json.dumps(extra_vars)]
    proc = subprocess.run(argv, cwd=REPO, env=ENV, capture_output=True, text=True, check=False)
    tasks = {t["task"]["name"]: t["hosts"]["sglang-qwen36"] for t in json.loads(proc.stdout)["plays"][0]["tasks"]}
    return proc.returncode, tasks


def test_the_survey_model_answer_is_the_model_the_preflight_budgets():
    """Without an answer the example budgets the incident's Qwen3.6-27B; with the Model answer Qwen/Qwen3-32B-FP8 it
    budgets that entry's config.json (a dense Qwen3, which fits once the survey also drops speculation)."""
    rc, tasks = _preflight("example")
    assert rc != 0 and tasks[BUDGET_TASK]["root_cause"] == "mamba_pool_too_small"
    assert "Qwen3_5ForConditionalGeneration" in tasks[BUDGET_TASK]["message"]
    rc, tasks = _preflight(
        "example",
        {
            "llmops_sglang_survey_model": "Qwen/Qwen3-32B-FP8",
            "llmops_sglang_survey_speculative_algorithm": "none",
            "llmops_sglang_survey_context_length": 32768,
        },
    )
    assert rc == 0, tasks
    assert tasks[SELECT_TASK]["msg"].startswith("Qwen/Qwen3-32B-FP8 in /srv/models/Qwen3-32B-FP8, budgeted from ")
    assert tasks[SELECT_TASK]["msg"].endswith("Qwen__Qwen3-32B-FP8/config.json")
    assert tasks[BUDGET_TASK]["verdict"] == "fits"
    assert "Qwen3ForCausalLM" in tasks[BUDGET_TASK]["message"]


def test_an_undeclared_model_stops_the_preflight_before_the_node_is_asked():
    rc, tasks = _preflight("example", {"llmops_sglang_survey_model": "Qwen/Qwen3-8B"})
    assert rc != 0
    assert list(tasks) == [SELECT_TASK]
    message = tasks[SELECT_TASK]["msg"]
    assert ("survey answer Model='Qwen/Qwen3-8B' is not a model this inventory declares (choices: Qwen/Qwen3-32B-FP8, Qwen/Qwen3.6-27B;") in message, message
    assert "declare it under llmops_sglang_models" in message, message


@pytest.mark.parametrize("blank", ["", None], ids=["empty", "null"])
def test_blank_survey_answers_as_awx_sends_them_keep_the_inventory(blank):
    """AWX >= 17 sends a blank optional answer as '', AWX 24 as null: every question then keeps the inventory's."""
    with open(os.path.join(REPO, "awx", "job_template.json")) as handle:
        spec = json.load(handle)["job_templates"][0]["related"]["survey_spec"]["spec"]
    rc, plain = _preflight("example")
    answers = {question["variable"]: blank for question in spec}
    assert "llmops_sglang_survey_model" in answers
    blank_rc, tasks = _preflight("example", answers)
    assert blank_rc == rc
    assert tasks[SELECT_TASK]["msg"] == plain[SELECT_TASK]["msg"]
    assert tasks[SELECT_TASK]["msg"].startswith("Qwen/Qwen3.6-27B in /srv/models/Qwen3.6-27B, budgeted from ")
    for key in ("verdict", "root_cause", "message", "resolved_args"):
        assert tasks[BUDGET_TASK][key] == plain[BUDGET_TASK][key], key


def test_install_and_service_get_the_selected_model(tmp_path):
    """deploy.yml's install play and vars/deployment.yml's server args take the selected entry, revision included;
    without an answer, the inventory's model and revision (read without looping through the install play's vars)."""
    with open(os.path.join(REPO, "playbooks", "deploy.yml")) as handle:
        install = next(play for play in yaml.safe_load(handle) if play["name"] == "Install SGLang and the model")
    probe = [
        {
            "name": "probe",
            "hosts": "sglang_containers",
            "gather_facts": False,
            "vars_files": [os.path.join(REPO, "playbooks", path) for path in install["vars_files"]],
            "vars": install["roles"][0]["vars"],
            "tasks": [
                {
                    "ansible.builtin.debug": {
                        "msg": "{{ [sglang_install_model_repo, sglang_install_model_path,"
                        " sglang_install_model_revision,"
                        " llmops_sglang_effective_server_args.model_path,"
                        " llmops_sglang_effective_server_args.served_model_name] }}"
                    }
                }
            ],
        }
    ]
    playbook = tmp_path / "probe.yml"
    playbook.write_text(yaml.safe_dump(probe), encoding="utf-8")
    configs = os.path.join(REPO, "tests", "fixtures", "model-configs")
    models = {
        "Qwen/Qwen3-32B-FP8": {
            "path": "/srv/models/Qwen3-32B-FP8",
            "revision": "0123abc",
            "config": os.path.join(configs, "Qwen__Qwen3-32B-FP8", "config.json"),
            "served_model_name": "qwen3-32b",
        },
        "Qwen/Qwen3-8B": {"path": "/srv/models/Qwen3-8B", "config": os.path.join(configs, "Qwen__Qwen3-8B", "config.json")},
    }
    seen = {}
    for answer in (None, "Qwen/Qwen3-32B-FP8", "Qwen/Qwen3-8B"):
        argv = [
            os.path.join(BIN, "ansible-playbook"),
            "-i",
            "inventories/example",
            str(playbook),
            "-e",
            json.dumps({"ansible_connection": "local", "llmops_sglang_survey_model": answer, "llmops_sglang_models": models}),
        ]
        proc = subprocess.run(argv, cwd=REPO, env=ENV, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stdout[-3000:]
        seen[answer] = json.loads(proc.stdout)["plays"][0]["tasks"][0]["hosts"]["sglang-qwen36"]["msg"]
    # The example inventory's own model, its sglang_install_model_revision (main) and its served name.
    assert seen[None] == ["Qwen/Qwen3.6-27B", "/srv/models/Qwen3.6-27B", "main", "/srv/models/Qwen3.6-27B", "qwen3.6-27b"]
    assert seen["Qwen/Qwen3-32B-FP8"] == ["Qwen/Qwen3-32B-FP8", "/srv/models/Qwen3-32B-FP8", "0123abc", "/srv/models/Qwen3-32B-FP8", "qwen3-32b"]
    # No revision: the inventory's; no served name: the id.
    assert seen["Qwen/Qwen3-8B"] == ["Qwen/Qwen3-8B", "/srv/models/Qwen3-8B", "main", "/srv/models/Qwen3-8B", "Qwen/Qwen3-8B"]
