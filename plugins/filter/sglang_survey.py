# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that apply the AWX survey's answers to the deployment settings."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.llmops.sglang.plugins.plugin_utils.survey import SurveyError, apply_survey, gpu_selection


def sglang_apply_survey(server_args, answers):
    """Return server_args with the survey answers applied."""
    try:
        return apply_survey(server_args, answers)
    except SurveyError as exc:
        raise AnsibleFilterError(str(exc)) from None


def sglang_survey_gpus(answer, default=None):
    """Return the GPU selection from the survey's comma-separated answer, or default."""
    try:
        return gpu_selection(answer, default)
    except SurveyError as exc:
        raise AnsibleFilterError(str(exc)) from None


class FilterModule:
    """AWX survey filters."""

    def filters(self):
        return {"sglang_apply_survey": sglang_apply_survey, "sglang_survey_gpus": sglang_survey_gpus}
