# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for llmops.sglang.sglang_diagnose: read the tail on the target, classify on the controller."""

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.diagnose import diagnose

ARGUMENT_SPEC = {
    "log_path": {"type": "path"},
    "unit": {"type": "str"},
    "since_marker": {"type": "bool", "default": True},
    "lines": {"type": "int", "default": 300},
    "bytes": {"type": "int", "default": 1048576},
    "budget": {"type": "dict"},
    "fail": {"type": "bool", "default": True},
}
TAIL_MODULE = "llmops.sglang.sglang_log_tail"


class ActionModule(ActionBase):
    """Diagnose the current SGLang launch from its log tail and systemd journal."""

    TRANSFERS_FILES = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        _validated, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC, required_one_of=[["log_path", "unit"]])
        if args["lines"] <= 0 or args["bytes"] <= 0:
            raise AnsibleActionFail("lines=%s and bytes=%s must both be positive (for example lines: 300, bytes: 1048576)" % (args["lines"], args["bytes"]))
        module_args = {"lines": args["lines"], "bytes": args["bytes"], "since_marker": args["since_marker"]}
        if args["log_path"]:
            module_args["path"] = args["log_path"]
        if args["unit"]:
            module_args["unit"] = args["unit"]
        tail = self._execute_module(module_name=TAIL_MODULE, module_args=module_args, task_vars=task_vars)
        if tail.get("failed"):
            raise AnsibleActionFail("reading the log tail failed: %s" % tail.get("msg", "no message"))
        log = tail.get("log") or {}
        unit = tail.get("unit") or {}
        if args["log_path"] and not log.get("exists") and not args["unit"]:
            raise AnsibleActionFail(
                "log_path %s does not exist on the target; give the path the server writes to, or unit= to read its journal" % args["log_path"]
            )
        if unit.get("error") and not log.get("exists"):
            raise AnsibleActionFail("%s; give the unit the service runs as, or log_path" % unit["error"])

        diagnosis = diagnose(tail, since_marker=args["since_marker"], budget=args["budget"])
        result.update(diagnosis)
        result["changed"] = False
        result["log"] = {k: log.get(k) for k in ("path", "exists", "size", "mtime", "inode", "rotated")} if log else None
        if unit.get("error"):
            result["notes"].append(unit["error"])
        if args["fail"] and diagnosis["root_cause"] != "none":
            result["failed"] = True
            result["msg"] = diagnosis["summary"]
        return result
