# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Lines journald stored without an invocation id are this launch's when they are not older than its start.

journald reads a writer's cgroup (and so _SYSTEMD_INVOCATION_ID) from /proc; a launch that exits in its first
milliseconds often leaves its stderr stored under _SYSTEMD_UNIT only. tests/integration/test_log_tail_systemd.py
caught that on a real systemd (the argparse error of a crash loop went missing about every other run).
"""

import json

from ansible_collections.llmops.sglang.plugins.module_utils.systemd_unit import parse_journal_json, untagged_entries

START = 1796168500.0


def _line(seconds, message, invocation=None):
    record = {"__REALTIME_TIMESTAMP": str(int(seconds * 1e6)), "MESSAGE": message, "_SYSTEMD_UNIT": "sglang.service"}
    if invocation:
        record["_SYSTEMD_INVOCATION_ID"] = invocation
    return json.dumps(record)


def test_untagged_lines_of_this_launch_are_kept_and_older_or_tagged_ones_are_not():
    text = "\n".join(
        [
            _line(START - 30, "error: argument --tp-size: the previous launch"),
            _line(START + 0.01, "error: argument --tp-size: invalid int value: 'two'"),
            _line(START + 0.02, "tagged, already read by invocation id", invocation="a" * 32),
            "not json",
        ]
    )
    kept = parse_journal_json(untagged_entries(text, START))
    assert [message for _stamp, _pid, _ident, message in kept] == ["error: argument --tp-size: invalid int value: 'two'"]


def test_the_start_time_conversion_error_is_allowed_for():
    # The unit's start time is a monotonic stamp converted to wall-clock time; the launch's first line may carry
    # a stamp a few milliseconds before it.
    kept = parse_journal_json(untagged_entries(_line(START - 0.2, "first line"), START))
    assert len(kept) == 1


def test_without_a_start_time_nothing_is_taken():
    assert untagged_entries(_line(START, "x"), None) == ""
