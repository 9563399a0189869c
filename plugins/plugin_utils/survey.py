# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fold the flat answers of the AWX survey (awx/job_template.json) into the structured server arguments."""

from __future__ import annotations

SPECULATIVE_DESTS = (
    "speculative_algorithm",
    "speculative_num_steps",
    "speculative_eagle_topk",
    "speculative_num_draft_tokens",
    "speculative_draft_model_path",
)
SPECULATIVE_CHOICES = ("keep", "none", "NEXTN", "EAGLE", "EAGLE3")


class SurveyError(ValueError):
    """A survey answer that cannot be applied; the message names the question and the fix."""


def _number(answers: dict, key: str, kind):
    value = answers.get(key)
    if value in (None, ""):
        return None
    try:
        value = kind(value)
    except (TypeError, ValueError):
        raise SurveyError(f"survey answer {key}={answers[key]!r} is not a {kind.__name__}") from None
    if value < 0:
        raise SurveyError(f"survey answer {key}={value} is negative; use 0 to keep the inventory's value")
    return value or None


def apply_survey(server_args: dict, answers: dict) -> dict:
    """Return ``server_args`` with the survey's non-empty answers applied.

    ``answers`` holds ``context_length``, ``mem_fraction_static``, ``max_running_requests`` (0 keeps the
    inventory's value) and ``speculative_algorithm`` (``keep``, ``none`` to switch speculation off, or an
    algorithm, which keeps the inventory's step settings).
    """
    merged = dict(server_args or {})
    for key, kind in (("context_length", int), ("mem_fraction_static", float), ("max_running_requests", int)):
        value = _number(answers, key, kind)
        if value is not None:
            merged[key] = value
    algorithm = answers.get("speculative_algorithm") or "keep"
    if algorithm not in SPECULATIVE_CHOICES:
        raise SurveyError(
            f"survey answer speculative_algorithm={algorithm!r} is not one of {', '.join(SPECULATIVE_CHOICES)}"
        )
    if algorithm == "none":
        for dest in SPECULATIVE_DESTS:
            merged.pop(dest, None)
    elif algorithm != "keep":
        merged["speculative_algorithm"] = algorithm
    return merged


def gpu_selection(answer, default):
    """Parse the survey's comma-separated GPU indices/UUIDs; an empty answer keeps ``default``."""
    if answer in (None, "") or (isinstance(answer, str) and not answer.strip()):
        return default
    items = answer if isinstance(answer, list) else str(answer).split(",")
    selection = [str(item).strip() for item in items if str(item).strip()]
    if len(set(selection)) != len(selection):
        raise SurveyError(f"survey answer GPUs={answer!r} names a GPU twice")
    return selection
