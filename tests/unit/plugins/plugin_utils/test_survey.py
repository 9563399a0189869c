# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
import json
import os

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.survey import SurveyError, apply_survey, gpu_selection

INCIDENT = {"tp_size": 2, "mem_fraction_static": 0.85, "context_length": 65536, "speculative_algorithm": "NEXTN",
            "speculative_num_steps": 3, "speculative_eagle_topk": 1, "speculative_num_draft_tokens": 4}
SURVEY = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "awx", "job_template.json")


def test_defaults_of_the_survey_change_nothing():
    with open(SURVEY) as handle:
        spec = json.load(handle)["job_templates"][0]["related"]["survey_spec"]["spec"]
    answers = {q["variable"].replace("llmops_sglang_survey_", ""): q["default"] for q in spec}
    assert apply_survey(INCIDENT, answers) == INCIDENT
    assert gpu_selection(answers["gpu_indices"], ["0", "1"]) == ["0", "1"]


def test_survey_variables_are_the_ones_deploy_reads():
    """Every survey variable is read by deploy.yml (through vars/deployment.yml); a renamed one would be ignored."""
    with open(SURVEY) as handle:
        spec = json.load(handle)["job_templates"][0]["related"]["survey_spec"]["spec"]
    playbooks = os.path.join(os.path.dirname(SURVEY), "..", "playbooks")
    with open(os.path.join(playbooks, "deploy.yml")) as deploy_file, \
            open(os.path.join(playbooks, "vars", "deployment.yml")) as vars_file:
        deploy = deploy_file.read() + vars_file.read()
    assert "vars/deployment.yml" in deploy
    for question in spec:
        assert question["variable"] in deploy, question["variable"]


def test_answers_override_and_speculation_can_be_switched_off():
    merged = apply_survey(INCIDENT, {"max_running_requests": 32, "context_length": 0,
                                     "speculative_algorithm": "none", "mem_fraction_static": 0.8})
    assert merged["max_running_requests"] == 32 and merged["context_length"] == 65536
    assert merged["mem_fraction_static"] == 0.8
    assert not any(key.startswith("speculative_") for key in merged)
    assert INCIDENT["speculative_algorithm"] == "NEXTN"


def test_another_algorithm_keeps_the_step_settings():
    merged = apply_survey(INCIDENT, {"speculative_algorithm": "EAGLE"})
    assert merged["speculative_algorithm"] == "EAGLE" and merged["speculative_num_steps"] == 3


@pytest.mark.parametrize("answers, match", [
    ({"speculative_algorithm": "MEDUSA"}, "not one of"),
    ({"context_length": "lots"}, "not a int"),
    ({"max_running_requests": -1}, "negative"),
])
def test_bad_answers_name_the_question(answers, match):
    with pytest.raises(SurveyError, match=match):
        apply_survey(INCIDENT, answers)


def test_gpu_selection():
    assert gpu_selection(" 1, 0 ", None) == ["1", "0"]
    assert gpu_selection("", ["0"]) == ["0"]
    with pytest.raises(SurveyError, match="twice"):
        gpu_selection("0,0", None)
