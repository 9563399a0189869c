# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fold the flat answers of the AWX survey (awx/job_template.json) into the structured server arguments,
and select the model the survey names among those the inventory declares (``llmops_sglang_models``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

SPECULATIVE_DESTS = (
    "speculative_algorithm",
    "speculative_num_steps",
    "speculative_eagle_topk",
    "speculative_num_draft_tokens",
    "speculative_draft_model_path",
)
SPECULATIVE_CHOICES = ("keep", "none", "NEXTN", "EAGLE", "EAGLE3")
MODEL_ID = re.compile(r"^[\w.-]+/[\w.-]+$")
MODEL_FIELDS = ("path", "config", "revision", "served_model_name")
MODEL_FIX = (
    "declare it under llmops_sglang_models in the inventory with its path in the container and a controller copy "
    "of its config.json, e.g. llmops_sglang_models: {'%s': {path: /srv/models/NAME, config: /path/to/config.json}}"
)


class SurveyError(ValueError):
    """A survey answer or model declaration that cannot be applied; the message names the input and the fix."""


def is_blank(answer) -> bool:
    """An optional survey answer left blank: missing (None, as newer AWX sends it) or empty/whitespace text."""
    return answer is None or (isinstance(answer, str) and not answer.strip())


def _number(answers: dict, key: str, kind):
    value = answers.get(key)
    if is_blank(value):
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
    algorithm = answers.get("speculative_algorithm")
    algorithm = "keep" if is_blank(algorithm) else algorithm
    if algorithm not in SPECULATIVE_CHOICES:
        raise SurveyError(f"survey answer speculative_algorithm={algorithm!r} is not one of {', '.join(SPECULATIVE_CHOICES)}")
    if algorithm == "none":
        for dest in SPECULATIVE_DESTS:
            merged.pop(dest, None)
    elif algorithm != "keep":
        merged["speculative_algorithm"] = algorithm
    return merged


def gpu_selection(answer, default):
    """Parse the survey's comma-separated GPU indices/UUIDs; an empty answer keeps ``default``."""
    if is_blank(answer):
        return default
    items = answer if isinstance(answer, list) else str(answer).split(",")
    selection = [str(item).strip() for item in items if str(item).strip()]
    if len(set(selection)) != len(selection):
        raise SurveyError(f"survey answer GPUs={answer!r} names a GPU twice")
    return selection


@dataclass(frozen=True)
class Model:
    """One model a deployment can serve: what the install downloads, the preflight budgets and the service starts.

    ``config`` is a controller copy of its config.json (None: the preflight reads ``path`` on the target);
    ``served_model_name`` None keeps the inventory's server args as they are.
    """

    id: str
    path: str
    config: str | None = None
    revision: str = ""
    served_model_name: str | None = None

    def as_dict(self) -> dict:
        server_args = {"model_path": self.path}
        if self.served_model_name is not None:
            server_args["served_model_name"] = self.served_model_name
        return {
            "id": self.id,
            "path": self.path,
            "config": self.config,
            "revision": self.revision,
            "served_model_name": self.served_model_name,
            "server_args": server_args,
        }


_FIELD_HELP = {
    "path": "the model's directory inside the container, e.g. /srv/models/NAME",
    "config": "a copy of the model's config.json on the controller, so that the preflight runs before any download",
    "revision": "a branch, tag or commit sha of the repository",
    "served_model_name": "the name clients send in requests",
}


def _text(entry: dict, where: str, key: str, required: bool) -> str | None:
    value = entry.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise SurveyError(f"{where} has no {key}; set {key} ({_FIELD_HELP[key]})")
        return None
    if not isinstance(value, str):
        raise SurveyError(f"{where}: {key} must be text, got {type(value).__name__} ({value!r}); quote it")
    return value.strip()


def declared_models(models) -> dict[str, Model]:
    """Validate the inventory's ``llmops_sglang_models`` ({hugging face id: {path, config, revision,
    served_model_name}}) into Models; an entry without ``served_model_name`` is served under its id."""
    if models in (None, ""):
        return {}
    if not isinstance(models, dict):
        raise SurveyError(
            f"llmops_sglang_models must be a dict keyed by Hugging Face id, got {type(models).__name__}; "
            "write it as {'ORG/NAME': {path: /srv/models/NAME, config: /path/to/config.json}}"
        )
    result = {}
    for model_id, entry in models.items():
        where = f"llmops_sglang_models[{model_id!r}]"
        if not isinstance(model_id, str) or not MODEL_ID.match(model_id):
            raise SurveyError(f"{where}: the key must be a Hugging Face id ORG/NAME; rename the entry, e.g. 'Qwen/Qwen3-8B'")
        if not isinstance(entry, dict):
            raise SurveyError(f"{where} must be a dict with path and config, got {type(entry).__name__}; " + MODEL_FIX % model_id)
        unknown = sorted(str(key) for key in entry if key not in MODEL_FIELDS)
        if unknown:
            raise SurveyError(f"{where} has unknown keys {', '.join(unknown)}; the keys are {', '.join(MODEL_FIELDS)}")
        path = _text(entry, where, "path", required=True)
        if not path.startswith("/"):
            raise SurveyError(f"{where}: path {path!r} is not absolute; give the model's directory inside the container, e.g. /srv/models/NAME")
        result[model_id] = Model(
            id=model_id,
            path=path,
            config=_text(entry, where, "config", required=True),
            revision=_text(entry, where, "revision", required=False) or "",
            served_model_name=_text(entry, where, "served_model_name", required=False) or model_id,
        )
    return result


def select_model(answer, models: dict[str, Model], inventory: Model) -> Model:
    """The model the survey's answer names: ``inventory`` (the inventory's llmops_sglang_model_id, _path and
    _config) for a blank answer; otherwise the declared entry with that id (an entry wins over the inventory's
    own model of the same id, which is a choice too). An entry without a revision takes ``inventory.revision``."""
    if is_blank(answer):
        return inventory
    if not isinstance(answer, str):
        raise SurveyError(
            f"survey answer Model={answer!r} is not text; answer a Hugging Face id such as {inventory.id!r}, or leave it empty for the inventory's model"
        )
    answer = answer.strip()
    if answer in models:
        model = models[answer]
        return model if model.revision else replace(model, revision=inventory.revision)
    if answer == inventory.id:
        return inventory
    choices = ", ".join(sorted(set(models) | {inventory.id}))
    raise SurveyError(
        f"survey answer Model={answer!r} is not a model this inventory declares (choices: {choices}; "
        f"an empty answer keeps {inventory.id}). To deploy {answer}, " + MODEL_FIX % answer
    )
