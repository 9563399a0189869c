# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for llmops.sglang.sglang_startup_report: read this launch's lines, report and store them."""

from __future__ import annotations

import datetime

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.llmops.sglang.plugins.plugin_utils import preflight
from ansible_collections.llmops.sglang.plugins.plugin_utils.calibration.after_start import after_start
from ansible_collections.llmops.sglang.plugins.plugin_utils.calibration.store import CalibrationStore, CalibrationStoreError, launch_key

ARGUMENT_SPEC = {
    "log_path": {"type": "path", "required": True},
    "since_marker": {"type": "bool", "default": True},
    "lines": {"type": "int", "default": 5000},
    "bytes": {"type": "int", "default": 4194304},
    "budget": {"type": "dict"},
    "calibration_store": {"type": "path"},
    "sglang_version": {"type": "str"},
    "gpus": {"type": "raw"},
    "gpu_indices": {"type": "list", "elements": "str"},
    "server_args": {"type": "dict", "default": {}},
    "model_id": {"type": "str"},
    "model_revision": {"type": "str", "default": ""},
}
TAIL_MODULE = "llmops.sglang.sglang_log_tail"


class ActionModule(ActionBase):
    """Report a started SGLang's own memory numbers beside the preflight's, and keep them."""

    TRANSFERS_FILES = False
    _supports_check_mode = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC, required_by={"calibration_store": ["sglang_version", "gpus", "model_id"]})[1]
        tail = self._execute_module(
            module_name=TAIL_MODULE,
            task_vars=task_vars,
            module_args={"path": args["log_path"], "lines": args["lines"], "bytes": args["bytes"], "since_marker": args["since_marker"]},
        )
        if tail.get("failed"):
            raise AnsibleActionFail("reading %s failed: %s" % (args["log_path"], tail.get("msg", "no message")))
        log = tail.get("log") or {}
        if not log.get("exists"):
            raise AnsibleActionFail("log_path %s does not exist on the target; give the path the server writes to" % args["log_path"])
        try:
            store = key = None
            gpus = []
            if args["calibration_store"]:
                gpus = preflight.normalize_gpus(args["gpus"], args["gpu_indices"])
                store = CalibrationStore(args["calibration_store"])
                key = launch_key(
                    sglang_version=args["sglang_version"],
                    gpus=gpus,
                    server_args=args["server_args"],
                    model_id=args["model_id"],
                    model_revision=args["model_revision"],
                )
            outcome = after_start(
                log.get("lines") or [],
                budget=args["budget"],
                store=store,
                key=key,
                server_args=args["server_args"],
                host=str(task_vars.get("inventory_hostname", "")),
                time=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                gpus=gpus,
            )
        except (ValueError, CalibrationStoreError) as exc:
            raise AnsibleActionFail(str(exc)) from None
        result.update(outcome.to_dict())
        result["changed"] = outcome.recorded_in is not None
        result["warnings"] = [d.message for d in outcome.drift]
        result["msg"] = "; ".join(outcome.recap) or "no startup numbers in %s since the launch marker" % args["log_path"]
        return result
