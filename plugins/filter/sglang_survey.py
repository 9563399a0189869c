# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that apply the AWX survey's answers to the deployment settings."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.llmops.sglang.plugins.filter.sglang_argv import INT, LIST, MAPPING, NONE, TEXT, require_input
from ansible_collections.llmops.sglang.plugins.plugin_utils.survey import Model, SurveyError, apply_survey, declared_models, gpu_selection, select_model


def sglang_apply_survey(server_args, answers):
    """Return server_args with the survey answers applied."""
    require_input(
        "sglang_apply_survey",
        "the input",
        server_args,
        MAPPING + NONE,
        "the server args as a dict",
        "pass the inventory's server args, e.g. {model_path: /srv/models/m, tp_size: 2}",
    )
    require_input(
        "sglang_apply_survey",
        "answers",
        answers,
        MAPPING,
        "the survey answers as a dict",
        "pass the job's survey answers, e.g. {context_length: 32768}; {} when there are none",
    )
    try:
        return apply_survey(server_args, answers)
    except SurveyError as exc:
        raise AnsibleFilterError(str(exc)) from None


def sglang_survey_gpus(answer, default=None):
    """Return the GPU selection from the survey's comma-separated answer, or default."""
    require_input(
        "sglang_survey_gpus",
        "the input",
        answer,
        TEXT + LIST + INT + NONE,
        "the survey's GPUs answer",
        "pass comma-separated GPU indices or UUIDs, e.g. '2,3'",
        elements=TEXT + INT,
    )
    require_input(
        "sglang_survey_gpus",
        "default",
        default,
        LIST + NONE,
        "a list of GPU indices or UUIDs",
        "pass the inventory's GPU list, e.g. [2, 3], or [] for all",
        elements=TEXT + INT,
    )
    try:
        return gpu_selection(answer, default)
    except SurveyError as exc:
        raise AnsibleFilterError(str(exc)) from None


def sglang_survey_model(answer, models, model_id, model_path, model_config=None, revision=""):
    """Return the model the survey's Model answer selects (id, path, config, revision, served_model_name,
    server_args); a blank answer (empty text or None) selects the inventory's model_id, model_path and model_config."""
    name = "sglang_survey_model"
    require_input(
        name,
        "the input",
        answer,
        TEXT + NONE,
        "the survey's Model answer as text",
        "answer a Hugging Face id that the inventory declares, e.g. 'Qwen/Qwen3-8B', or leave it empty",
    )
    require_input(
        name,
        "models",
        models,
        MAPPING + NONE,
        "the inventory's llmops_sglang_models as a dict",
        "declare {'ORG/NAME': {path: /srv/models/NAME, config: /path/to/config.json}}, or pass {}",
    )
    require_input(
        name,
        "model_id",
        model_id,
        TEXT,
        "the inventory's llmops_sglang_model_id as text",
        "set llmops_sglang_model_id to the Hugging Face id, e.g. Qwen/Qwen3-8B",
    )
    require_input(
        name,
        "model_path",
        model_path,
        TEXT,
        "the inventory's llmops_sglang_model_path as text",
        "set llmops_sglang_model_path to the model's directory in the container, e.g. /srv/models/Qwen3-8B",
    )
    require_input(
        name,
        "model_config",
        model_config,
        TEXT + NONE,
        "the inventory's llmops_sglang_model_config as text",
        "set it to a controller copy of the model's config.json, or leave it undefined",
    )
    require_input(
        name, "revision", revision, TEXT + INT + NONE, "the inventory's sglang_install_model_revision", "quote the branch, tag or commit sha, e.g. 'main'"
    )
    inventory = Model(id=model_id, path=model_path, config=model_config or None, revision="" if revision is None else str(revision))
    try:
        return select_model(answer, declared_models(models), inventory).as_dict()
    except SurveyError as exc:
        raise AnsibleFilterError(str(exc)) from None


class FilterModule:
    """AWX survey filters."""

    def filters(self):
        return {"sglang_apply_survey": sglang_apply_survey, "sglang_survey_gpus": sglang_survey_gpus, "sglang_survey_model": sglang_survey_model}
