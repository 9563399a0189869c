# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sglang_diagnose action plugin with a stubbed _execute_module, and ad hoc via the real ansible CLI."""

from __future__ import annotations

import json
import pathlib
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail
from ansible.playbook.task import Task
from ansible_adhoc import HAVE_COLLECTIONS, NO_COLLECTIONS_REASON, run_adhoc

from ansible_collections.llmops.sglang.plugins.action.sglang_diagnose import ActionModule
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import CATALOG_VERSION

FIXTURES = pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "logs"
INCIDENT_LINES = (FIXTURES / "incident" / "attempt1-0.5.9-not-enough-memory.log").read_text().splitlines()
INVOCATION = "d" * 32


def make_action(args, tail):
    task = Task()
    task.args = args
    task.async_val = 0
    connection = MagicMock()
    connection._shell.tmpdir = None
    play_context = MagicMock()
    play_context.check_mode = False
    action = ActionModule(task, connection, play_context, loader=None, templar=None, shared_loader_obj=None)
    action._execute_module = MagicMock(return_value=tail)
    return action


def tail_result(lines, marker=True, unit=None, mtime=2001.0):
    log = {
        "path": "/var/log/sglang/sglang.log",
        "exists": True,
        "size": 100,
        "mtime": mtime,
        "inode": 7,
        "rotated": False,
        "lines": lines,
        "marker": {"time": "2026-11-29T21:20:32Z", "invocation": INVOCATION, "line": "=== marker ===", "offset": 0} if marker else None,
    }
    return {"log": log, "unit": unit, "now": 2010.0}


def test_module_called_with_the_right_arguments_and_full_result():
    unit = {
        "name": "sglang.service",
        "active_state": "failed",
        "result": "exit-code",
        "invocation_id": INVOCATION,
        "exit_code": 1,
        "start_time": 2000.0,
        "journal": [],
    }
    action = make_action({"log_path": "/var/log/sglang/sglang.log", "unit": "sglang.service", "lines": 50}, tail_result(INCIDENT_LINES, unit=unit))
    result = action.run(task_vars={})
    action._execute_module.assert_called_once_with(
        module_name="llmops.sglang.sglang_log_tail",
        module_args={"lines": 50, "bytes": 1048576, "since_marker": True, "path": "/var/log/sglang/sglang.log", "unit": "sglang.service"},
        task_vars={},
    )
    assert result["failed"] is True
    assert result["msg"] == result["summary"]
    assert result["root_cause"] == "kv_pool_too_small"
    assert result["phase"] == "memory_pool"
    assert result["confidence"] == "medium"
    assert result["changed"] is False
    assert result["catalog_version"] == CATALOG_VERSION
    assert result["numbers"]["mem_fraction_static"] == 0.85
    assert result["numbers"]["unit_exit_code"] == 1
    assert result["freshness"]["status"] == "fresh"
    assert result["freshness"]["invocation_id"] == INVOCATION
    assert result["log"] == {"path": "/var/log/sglang/sglang.log", "exists": True, "size": 100, "mtime": 2001.0, "inode": 7, "rotated": False}
    assert set(result) >= {
        "root_cause",
        "underlying_cause",
        "phase",
        "confidence",
        "evidence",
        "summary",
        "fix",
        "verify",
        "numbers",
        "explanation",
        "notes",
        "ranking",
        "budget_used",
    }


def test_budget_changes_cause_and_fix():
    budget = json.loads((FIXTURES / "incident" / "attempt1-budget.json").read_text())
    action = make_action({"log_path": "/x.log", "since_marker": False, "budget": budget, "fail": False}, tail_result(INCIDENT_LINES, marker=False))
    result = action.run(task_vars={})
    assert "failed" not in result
    assert result["root_cause"] == "mamba_pool_too_small"
    assert result["fix"].startswith("--max-running-requests 32 -> fits")
    assert result["fix"].endswith("(cap concurrency at 32 requests)")
    assert result["budget_used"] is True


def test_healthy_start_does_not_fail():
    action = make_action({"log_path": "/x.log"}, tail_result(["The server is fired up and ready to roll!"]))
    result = action.run(task_vars={})
    assert result["root_cause"] == "none" and "failed" not in result


def test_missing_log_without_unit_is_a_clear_error():
    tail = {"log": {"path": "/nope.log", "exists": False, "lines": []}, "unit": None}
    with pytest.raises(AnsibleActionFail, match="log_path /nope.log does not exist on the target"):
        make_action({"log_path": "/nope.log"}, tail).run(task_vars={})


def test_module_failure_and_bad_numbers_are_clear_errors():
    with pytest.raises(AnsibleActionFail, match="reading the log tail failed: boom"):
        make_action({"log_path": "/x.log"}, {"failed": True, "msg": "boom"}).run(task_vars={})
    with pytest.raises(AnsibleActionFail, match="must both be positive"):
        make_action({"log_path": "/x.log", "lines": 0}, {}).run(task_vars={})


def test_neither_log_nor_unit_is_rejected():
    with pytest.raises(AnsibleActionFail, match="one of the following is required: log_path, unit"):
        make_action({}, {}).run(task_vars={})


@pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)
def test_ad_hoc_with_the_real_cli(tmp_path):
    log = tmp_path / "sglang-serve.log"
    log.write_text("\n".join(INCIDENT_LINES) + "\n")
    rc, host, output = run_adhoc("llmops.sglang.sglang_diagnose", {"log_path": str(log), "since_marker": False, "fail": False})
    assert rc == 0, output
    assert host["root_cause"] == "kv_pool_too_small"
    assert host["log"]["size"] == log.stat().st_size
    assert host["summary"].startswith("kv_pool_too_small: ")

    log.write_text("")
    rc, host, output = run_adhoc("llmops.sglang.sglang_diagnose", {"log_path": str(log), "since_marker": False})
    assert rc == 2, output
    # 0 bytes, no marker, no unit: nothing shows a launch, so no death is claimed
    assert host["failed"] is True and host["root_cause"] == "no_evidence"
    assert host["msg"].startswith("no_evidence: nothing shows that a launch happened")
