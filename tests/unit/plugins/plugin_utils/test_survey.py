# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
import glob
import json
import os

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.llmops.sglang.plugins.filter.sglang_survey import sglang_survey_model
from ansible_collections.llmops.sglang.plugins.plugin_utils.survey import Model, SurveyError, apply_survey, declared_models, gpu_selection, select_model

INCIDENT = {
    "tp_size": 2,
    "mem_fraction_static": 0.85,
    "context_length": 65536,
    "speculative_algorithm": "NEXTN",
    "speculative_num_steps": 3,
    "speculative_eagle_topk": 1,
    "speculative_num_draft_tokens": 4,
}
SURVEY = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "awx", "job_template.json")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(SURVEY)))
INVENTORY_MODEL = Model(id="Qwen/Qwen3.6-27B", path="/srv/models/Qwen3.6-27B", config="/ctl/Qwen3.6-27B/config.json", revision="0123abc")
DECLARED = {
    "Qwen/Qwen3-32B-FP8": {
        "path": "/srv/models/Qwen3-32B-FP8",
        "config": "/ctl/Qwen3-32B-FP8/config.json",
        "revision": "main",
        "served_model_name": "qwen3-32b",
    },
    "Qwen/Qwen3-8B": {"path": "/srv/models/Qwen3-8B", "config": "/ctl/Qwen3-8B/config.json"},
}


def _spec():
    with open(SURVEY) as handle:
        return json.load(handle)["job_templates"][0]["related"]["survey_spec"]["spec"]


def test_defaults_of_the_survey_change_nothing():
    with open(SURVEY) as handle:
        spec = json.load(handle)["job_templates"][0]["related"]["survey_spec"]["spec"]
    answers = {q["variable"].replace("llmops_sglang_survey_", ""): q["default"] for q in spec}
    assert apply_survey(INCIDENT, answers) == INCIDENT
    assert gpu_selection(answers["gpu_indices"], ["0", "1"]) == ["0", "1"]
    assert select_model(answers["model"], declared_models(DECLARED), INVENTORY_MODEL) == INVENTORY_MODEL


def test_survey_variables_are_the_ones_deploy_reads():
    """Every survey variable is read by deploy.yml (through vars/deployment.yml); a renamed one would be ignored."""
    with open(SURVEY) as handle:
        spec = json.load(handle)["job_templates"][0]["related"]["survey_spec"]["spec"]
    playbooks = os.path.join(os.path.dirname(SURVEY), "..", "playbooks")
    with open(os.path.join(playbooks, "deploy.yml")) as deploy_file, open(os.path.join(playbooks, "vars", "deployment.yml")) as vars_file:
        deploy = deploy_file.read() + vars_file.read()
    assert "vars/deployment.yml" in deploy
    for question in spec:
        assert question["variable"] in deploy, question["variable"]


def test_answers_override_and_speculation_can_be_switched_off():
    merged = apply_survey(INCIDENT, {"max_running_requests": 32, "context_length": 0, "speculative_algorithm": "none", "mem_fraction_static": 0.8})
    assert merged["max_running_requests"] == 32 and merged["context_length"] == 65536
    assert merged["mem_fraction_static"] == 0.8
    assert not any(key.startswith("speculative_") for key in merged)
    assert INCIDENT["speculative_algorithm"] == "NEXTN"


def test_another_algorithm_keeps_the_step_settings():
    merged = apply_survey(INCIDENT, {"speculative_algorithm": "EAGLE"})
    assert merged["speculative_algorithm"] == "EAGLE" and merged["speculative_num_steps"] == 3


@pytest.mark.parametrize(
    "answers, match",
    [
        ({"speculative_algorithm": "MEDUSA"}, "not one of"),
        ({"context_length": "lots"}, "not a int"),
        ({"max_running_requests": -1}, "negative"),
    ],
)
def test_bad_answers_name_the_question(answers, match):
    with pytest.raises(SurveyError, match=match):
        apply_survey(INCIDENT, answers)


def test_gpu_selection():
    assert gpu_selection(" 1, 0 ", None) == ["1", "0"]
    assert gpu_selection("", ["0"]) == ["0"]
    with pytest.raises(SurveyError, match="twice"):
        gpu_selection("0,0", None)


@pytest.mark.parametrize("blank", ["", None, "  "], ids=["empty", "null", "spaces"])
def test_blank_answers_of_every_question_keep_the_inventory(blank):
    """AWX sends a blank optional answer as '' (AWX >= 17), as null (AWX 24) or not at all: each keeps the inventory."""
    answers = {q["variable"].replace("llmops_sglang_survey_", ""): blank for q in _spec()}
    assert apply_survey(INCIDENT, answers) == INCIDENT
    assert apply_survey(INCIDENT, {}) == INCIDENT
    assert gpu_selection(answers["gpu_indices"], ["2", "3"]) == ["2", "3"]
    assert select_model(answers["model"], declared_models(DECLARED), INVENTORY_MODEL) == INVENTORY_MODEL


def test_a_model_answer_switches_id_path_config_revision_and_served_name():
    model = select_model("Qwen/Qwen3-32B-FP8", declared_models(DECLARED), INVENTORY_MODEL)
    assert model == Model(
        id="Qwen/Qwen3-32B-FP8", path="/srv/models/Qwen3-32B-FP8", config="/ctl/Qwen3-32B-FP8/config.json", revision="main", served_model_name="qwen3-32b"
    )
    assert model.as_dict()["server_args"] == {"model_path": "/srv/models/Qwen3-32B-FP8", "served_model_name": "qwen3-32b"}


def test_an_entry_without_revision_or_served_name_takes_the_inventory_revision_and_its_id():
    model = select_model(" Qwen/Qwen3-8B ", declared_models(DECLARED), INVENTORY_MODEL)
    assert (model.path, model.config, model.revision, model.served_model_name) == (
        "/srv/models/Qwen3-8B",
        "/ctl/Qwen3-8B/config.json",
        "0123abc",
        "Qwen/Qwen3-8B",
    )


def test_the_inventory_model_is_a_choice_and_keeps_its_server_args():
    model = select_model("Qwen/Qwen3.6-27B", declared_models(DECLARED), INVENTORY_MODEL)
    assert model == INVENTORY_MODEL
    assert model.as_dict()["server_args"] == {"model_path": "/srv/models/Qwen3.6-27B"}
    declared = dict(DECLARED, **{"Qwen/Qwen3.6-27B": {"path": "/data/q36", "config": "/ctl/q36.json"}})
    assert select_model("Qwen/Qwen3.6-27B", declared_models(declared), INVENTORY_MODEL).path == "/data/q36"


def test_an_undeclared_model_fails_naming_the_answer_the_choices_and_the_fix():
    with pytest.raises(SurveyError) as raised:
        select_model("meta-llama/Llama-3.1-8B-Instruct", declared_models(DECLARED), INVENTORY_MODEL)
    message = str(raised.value)
    assert message.startswith(
        "survey answer Model='meta-llama/Llama-3.1-8B-Instruct' is not a model this inventory "
        "declares (choices: Qwen/Qwen3-32B-FP8, Qwen/Qwen3-8B, Qwen/Qwen3.6-27B;"
    ), message
    assert "declare it under llmops_sglang_models" in message and "config.json" in message
    assert "'meta-llama/Llama-3.1-8B-Instruct': {path: " in message
    with pytest.raises(SurveyError, match="not a model this inventory declares"):
        select_model("Qwen/Qwen3-32B-FP8", {}, INVENTORY_MODEL)


@pytest.mark.parametrize(
    "models, match",
    [
        ({"Qwen3-8B": {"path": "/m", "config": "/c"}}, r"\['Qwen3-8B'\]: the key must be a Hugging Face id ORG/NAME"),
        ({"Qwen/Qwen3-8B": "/srv/models/Qwen3-8B"}, r"must be a dict with path and config, got str"),
        ({"Qwen/Qwen3-8B": {"path": "/m"}}, r"\['Qwen/Qwen3-8B'\] has no config; set config \(a copy of the model's config.json"),
        ({"Qwen/Qwen3-8B": {"config": "/c"}}, r"has no path; set path"),
        ({"Qwen/Qwen3-8B": {"path": "models/q", "config": "/c"}}, r"path 'models/q' is not absolute"),
        ({"Qwen/Qwen3-8B": {"path": "/m", "config": "/c", "confg": "/x"}}, r"has unknown keys confg; the keys are path, config"),
        ({"Qwen/Qwen3-8B": {"path": "/m", "config": "/c", "revision": 5}}, r"revision must be text, got int"),
        (["Qwen/Qwen3-8B"], r"llmops_sglang_models must be a dict keyed by Hugging Face id, got list"),
    ],
)
def test_malformed_declarations_name_the_entry_and_the_fix(models, match):
    with pytest.raises(SurveyError, match=match):
        declared_models(models)


def test_the_filter_returns_the_selection_and_raises_the_message():
    model = sglang_survey_model("Qwen/Qwen3-32B-FP8", DECLARED, "Qwen/Qwen3.6-27B", "/srv/models/Qwen3.6-27B", None, "0123abc")
    assert (model["id"], model["path"], model["config"], model["served_model_name"]) == (
        "Qwen/Qwen3-32B-FP8",
        "/srv/models/Qwen3-32B-FP8",
        "/ctl/Qwen3-32B-FP8/config.json",
        "qwen3-32b",
    )
    blank = sglang_survey_model(None, None, "Qwen/Qwen3.6-27B", "/srv/models/Qwen3.6-27B", "", "main")
    assert (blank["id"], blank["path"], blank["config"], blank["revision"]) == ("Qwen/Qwen3.6-27B", "/srv/models/Qwen3.6-27B", None, "main")
    assert blank["server_args"] == {"model_path": "/srv/models/Qwen3.6-27B"}
    with pytest.raises(AnsibleFilterError, match="survey answer Model='x/y' is not a model this inventory declares"):
        sglang_survey_model("x/y", DECLARED, "Qwen/Qwen3.6-27B", "/srv/models/Qwen3.6-27B")


def _variables(node):
    """Every variable name an inventory file sets: top-level keys of group_vars/host_vars, and the vars of hosts.yml."""
    if not isinstance(node, dict):
        return set()
    names = set()
    for key, value in node.items():
        if key in ("vars", "hosts") and isinstance(value, dict):
            names |= set(value) if key == "vars" else {name for host in value.values() for name in (host or {})}
        elif key == "children" and isinstance(value, dict):
            for child in value.values():
                names |= _variables(child)
        elif key == "all":
            names |= _variables(value)
    return names


def _inventory_variables():
    names = {}
    for path in glob.glob(os.path.join(REPO, "inventories", "*", "**", "*.yml"), recursive=True):
        with open(path) as handle:
            data = yaml.safe_load(handle) or {}
        in_vars_dir = os.sep + "group_vars" + os.sep in path or os.sep + "host_vars" + os.sep in path
        for name in set(data) if in_vars_dir else _variables(data):
            names.setdefault(name, []).append(os.path.relpath(path, REPO))
    return names


def test_no_survey_variable_is_a_variable_the_inventory_or_a_role_sets():
    """A survey answer is an extra var, which outranks the inventory: a survey variable the inventory also sets
    would replace the inventory's value, with '' when AWX sends a blank answer. Survey variables stay their own."""
    inventory = _inventory_variables()
    assert {"llmops_sglang_model_id", "llmops_sglang_model_path", "llmops_sglang_models"} <= set(inventory)
    role_variables = set()
    for path in glob.glob(os.path.join(REPO, "roles", "*", "defaults", "main.yml")):
        with open(path) as handle:
            role_variables |= set(yaml.safe_load(handle) or {})
    with open(os.path.join(REPO, "playbooks", "vars", "deployment.yml")) as handle:
        derived = set(yaml.safe_load(handle))
    for question in _spec():
        variable = question["variable"]
        assert variable.startswith("llmops_sglang_survey_"), variable
        assert variable not in inventory, (variable, inventory.get(variable))
        assert variable not in role_variables and variable not in derived, variable
    assert "llmops_sglang_survey_model" in {question["variable"] for question in _spec()}


def test_every_optional_survey_question_defaults_to_the_inventory():
    """The defaults are blank, 0 or keep: each keeps the inventory's value (see the test above for '' and null)."""
    for question in _spec():
        assert question["default"] in ("", 0, "keep"), question
        assert question["required"] is False or question["default"] == "keep", question
