# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that apply the AWX survey's answers to the deployment settings."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.llmops.sglang.plugins.filter.sglang_argv import INT, LIST, MAPPING, NONE, TEXT, require_input
from ansible_collections.llmops.sglang.plugins.plugin_utils.survey import SurveyError, apply_survey, gpu_selection


def sglang_apply_survey(server_args, answers):
    """Return server_args with the survey answers applied."""
    require_input("sglang_apply_survey", "the input", server_args, MAPPING + NONE, "the server args as a dict",
                  "pass the inventory's server args, e.g. {model_path: /srv/models/m, tp_size: 2}")
    require_input("sglang_apply_survey", "answers", answers, MAPPING, "the survey answers as a dict",
                  "pass the job's survey answers, e.g. {context_length: 32768}; {} when there are none")
    try:
        return apply_survey(server_args, answers)
    except SurveyError as exc:
        raise AnsibleFilterError(str(exc)) from None


def sglang_survey_gpus(answer, default=None):
    """Return the GPU selection from the survey's comma-separated answer, or default."""
    require_input("sglang_survey_gpus", "the input", answer, TEXT + LIST + INT + NONE,
                  "the survey's GPUs answer", "pass comma-separated GPU indices or UUIDs, e.g. '2,3'",
                  elements=TEXT + INT)
    require_input("sglang_survey_gpus", "default", default, LIST + NONE, "a list of GPU indices or UUIDs",
                  "pass the inventory's GPU list, e.g. [2, 3], or [] for all", elements=TEXT + INT)
    try:
        return gpu_selection(answer, default)
    except SurveyError as exc:
        raise AnsibleFilterError(str(exc)) from None


class FilterModule:
    """AWX survey filters."""

    def filters(self):
        return {"sglang_apply_survey": sglang_apply_survey, "sglang_survey_gpus": sglang_survey_gpus}
