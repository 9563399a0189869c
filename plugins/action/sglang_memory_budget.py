# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for llmops.sglang.sglang_memory_budget: gather inputs, run the budget engine, shape the result."""

from __future__ import annotations

import base64
import os

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.llmops.sglang.plugins.plugin_utils import preflight
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.compare import compare_releases
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import MODEL_FILES, evaluate, parse_model_file
from ansible_collections.llmops.sglang.plugins.plugin_utils.calibration.calibrate import calibrate_launch
from ansible_collections.llmops.sglang.plugins.plugin_utils.calibration.store import CalibrationStoreError
from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import UnsupportedVersionError

ARGUMENT_SPEC = {
    "model": {"type": "raw", "required": True},
    "model_location": {"type": "str", "default": "auto", "choices": ["auto", "controller", "target"]},
    "gpus": {"type": "raw", "required": True},
    "gpu_indices": {"type": "list", "elements": "str"},
    "server_args": {"type": "dict", "default": {}},
    "sglang_version": {"type": "str", "required": True},
    "allow_nearest_profile": {"type": "bool", "default": False},
    "env": {"type": "dict", "default": {}},
    "fail_on": {"type": "str", "default": "error", "choices": ["error", "warning", "never"]},
    "compare_releases": {"type": "bool", "default": False},
    "calibration_store": {"type": "path"},
    "model_id": {"type": "str"},
    "model_revision": {"type": "str", "default": ""},
}


class ActionModule(ActionBase):
    """Predict SGLang's startup memory accounting and fail before launch when it will not start."""

    TRANSFERS_FILES = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]
        try:
            model = self._load_model(args["model"], args["model_location"], task_vars)
            gpus = preflight.normalize_gpus(args["gpus"], args["gpu_indices"])
            calibration = None
            if args["calibration_store"]:
                model, gpus, calibration = calibrate_launch(
                    args["calibration_store"],
                    sglang_version=args["sglang_version"],
                    gpus=gpus,
                    server_args=args["server_args"],
                    model=model,
                    model_id=args["model_id"] or (args["model"] if isinstance(args["model"], str) else ""),
                    model_revision=args["model_revision"],
                )
            budget = evaluate(
                model,
                gpus,
                args["server_args"],
                args["sglang_version"],
                allow_nearest_profile=args["allow_nearest_profile"],
                env=args["env"],
            )
            comparison = compare_releases(model, gpus, args["server_args"], env=args["env"]) if args["compare_releases"] else None
            if calibration is not None:
                budget["calibration"] = calibration.to_dict()
                if calibration.match == "exact":
                    budget["confidence"] = "calibrated"
        except (ValueError, UnsupportedVersionError, CalibrationStoreError) as exc:
            # Every input error of the engine, the flag validator and the model loader is a ValueError
            # whose message names the input and the fix.
            raise AnsibleActionFail(str(exc)) from None
        result.update(preflight.task_result(budget, args["fail_on"]))
        if comparison is not None:
            result.update(comparison.to_dict())
        return result

    def _load_model(self, model, location, task_vars):
        if isinstance(model, dict):
            return preflight.model_from_inline(model)
        if not isinstance(model, str) or not model:
            raise preflight.PreflightInputError("model: give a model directory, a config.json path, or an inline config dict")
        if location == "controller" or (location == "auto" and os.path.exists(os.path.expanduser(model))):
            return model  # the engine reads the directory (or its config.json) itself
        return self._load_model_from_target(model, task_vars)

    def _load_model_from_target(self, path, task_vars):
        directory = os.path.dirname(path) if path.endswith(".json") else path
        model = {"path": directory}
        for key, name in MODEL_FILES.items():
            src = path if (key == "config" and path.endswith(".json")) else os.path.join(directory, name)
            slurped = self._execute_module(module_name="ansible.legacy.slurp", module_args={"src": src}, task_vars=task_vars)
            if slurped.get("failed"):
                if key == "config":
                    raise preflight.PreflightInputError(
                        f"model: cannot read {src} on {task_vars.get('inventory_hostname')}: "
                        f"{slurped.get('msg', 'unknown error')}; check the path, or install the model first"
                    )
                continue
            model[key] = parse_model_file(name, base64.b64decode(slurped["content"]), src)
        return model
