# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""sglang_log_tail's target-side helpers against real files and real systemctl/journalctl output formats."""

from __future__ import annotations

import datetime
import importlib.machinery
import json
import os
import pathlib
import types

import pytest
from ansible_adhoc import HAVE_COLLECTIONS, NO_COLLECTIONS_REASON, run_adhoc

from ansible_collections.llmops.sglang.plugins.module_utils.log_tail import (
    UnsafeLogPathError,
    format_marker,
    parse_marker,
    read_tail,
)
from ansible_collections.llmops.sglang.plugins.module_utils.systemd_unit import (
    format_journal_line,
    last_invocation_id,
    monotonic_to_epoch,
    oom_lines_for,
    parse_journal_json,
    parse_show,
    summarize_unit,
)

MARK_OLD = format_marker("2026-11-20T09:14:01Z", "a" * 32)
MARK_NEW = format_marker("2026-11-20T10:26:30Z", "d" * 32)


def write(path, text):
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return str(path)


def test_marker_round_trip_and_unit_line():
    assert parse_marker(MARK_NEW) == {"time": "2026-11-20T10:26:30Z", "invocation": "d" * 32}
    assert parse_marker("=== llmops.sglang launch") is None
    assert parse_marker(None) is None


def test_the_service_units_marker_is_the_format_read_here():
    """The sglang_service role's ExecStartPre helper writes the marker this module looks for."""
    helper = pathlib.Path(__file__).resolve().parents[4] / "roles" / "sglang_service" / "files" / "llmops-sglang"
    if not helper.exists():
        pytest.skip("the sglang_service role's helper is not in this checkout")
    loader = importlib.machinery.SourceFileLoader("llmops_sglang_helper", str(helper))
    module = types.ModuleType(loader.name)
    loader.exec_module(module)
    now = datetime.datetime(2026, 11, 29, 21, 20, 32, tzinfo=datetime.timezone.utc)
    line = module.marker_line(now, "d" * 32)
    assert line == MARK_NEW.replace("2026-11-20T10:26:30Z", "2026-11-29T21:20:32Z")
    assert parse_marker(line) == {"time": "2026-11-29T21:20:32Z", "invocation": "d" * 32}


def test_only_lines_after_the_last_marker(tmp_path):
    path = write(tmp_path / "a.log", "old 1\nRuntimeError: old\n%s\nnew 1\n%s\nnewest 1\nnewest 2\n" % (MARK_OLD, MARK_NEW))
    result = read_tail(path, lines=100)
    assert result["lines"] == ["newest 1", "newest 2"]
    assert result["marker"]["invocation"] == "d" * 32
    assert result["marker"]["line"] == MARK_NEW
    assert result["marker_search_complete"] is True


def test_marker_with_nothing_after_it_gives_no_lines(tmp_path):
    path = write(tmp_path / "a.log", "RuntimeError: old\n%s\n" % MARK_NEW)
    result = read_tail(path)
    assert result["lines"] == []
    assert result["marker"]["invocation"] == "d" * 32


def test_since_marker_false_returns_the_plain_tail(tmp_path):
    path = write(tmp_path / "a.log", "".join("line %d\n" % i for i in range(50)) + MARK_NEW + "\n")
    result = read_tail(path, lines=3, since_marker=False)
    assert result["lines"] == ["line 48", "line 49", MARK_NEW]
    assert result["marker"] is None


def test_no_marker_anywhere(tmp_path):
    path = write(tmp_path / "a.log", "a\nb\n")
    result = read_tail(path)
    assert result["lines"] == ["a", "b"] and result["marker"] is None and result["marker_search_complete"]


def test_marker_before_the_byte_window_is_found_by_scanning_back(tmp_path):
    body = MARK_NEW + "\n" + "".join("launch line %06d\n" % i for i in range(100000))
    path = write(tmp_path / "a.log", "old\n" + body)
    result = read_tail(path, lines=5, max_bytes=4096)
    assert result["marker"]["invocation"] == "d" * 32
    assert result["launch_output_truncated"] is True
    assert result["lines"] == ["launch line %06d" % i for i in range(99995, 100000)]
    assert result["bytes_read"] == 4096


def test_marker_scan_is_bounded(tmp_path):
    path = write(tmp_path / "a.log", MARK_NEW + "\n" + "x" * 3_000_000 + "\nlast\n")
    result = read_tail(path, lines=5, max_bytes=1024, marker_scan_bytes=1 << 20)
    assert result["marker"] is None
    assert result["marker_search_complete"] is False
    assert result["marker_scanned_bytes"] <= (1 << 20) + 1024
    assert result["lines"] == ["last"]


def test_partial_first_line_is_dropped(tmp_path):
    path = write(tmp_path / "a.log", "a" * 100 + "\nsecond\nthird\n")
    result = read_tail(path, lines=10, max_bytes=20, since_marker=False)
    assert result["lines"] == ["second", "third"]


def test_window_exactly_on_a_line_start_keeps_the_line(tmp_path):
    path = write(tmp_path / "a.log", "first\nsecond\n")
    result = read_tail(path, lines=10, max_bytes=7, since_marker=False)
    assert result["lines"] == ["second"] and result["first_line_partial"] is False


def test_huge_sparse_file_is_read_from_the_end(tmp_path):
    path = str(tmp_path / "huge.log")
    with open(path, "wb") as handle:
        handle.truncate(3 * (1 << 30))  # a 3 GiB sparse file: no disk used
        handle.seek(0, os.SEEK_END)
        handle.write(("\n" + MARK_NEW + "\nRuntimeError: Not enough memory.\n").encode())
    result = read_tail(path, lines=10, max_bytes=65536)
    assert result["size"] > 3 * (1 << 30)
    assert result["bytes_read"] == 4096  # the first chunk held the marker: nothing more was read
    assert result["lines"] == ["RuntimeError: Not enough memory."]
    plain = read_tail(path, lines=50, max_bytes=65536, since_marker=False)
    assert plain["bytes_read"] == 65536  # too few newlines: the window grew to the byte limit, no further
    assert plain["lines"][-2:] == [MARK_NEW, "RuntimeError: Not enough memory."]


def test_long_line_is_cut_and_counted(tmp_path):
    path = write(tmp_path / "a.log", "x" * 1_000_000 + "\nend\n")
    result = read_tail(path, lines=10, max_bytes=2_000_000, max_line_length=1000, since_marker=False)
    assert result["long_lines_cut"] == 1
    assert result["lines"][0].startswith("x" * 1000 + " [... 999000 more characters cut]")
    assert result["lines"][1] == "end"


def test_crlf_and_binary_garbage(tmp_path):
    path = write(tmp_path / "a.log", b"ok\r\n\xff\xfe\x00bad\r\nlast\r\n")
    result = read_tail(path, since_marker=False)
    assert result["lines"] == ["ok", "\ufffd\ufffd\x00bad", "last"]


def test_missing_and_empty_files(tmp_path):
    assert read_tail(str(tmp_path / "none.log"))["exists"] is False
    result = read_tail(write(tmp_path / "empty.log", ""))
    assert result["exists"] is True and result["size"] == 0 and result["lines"] == []


def test_rotation_is_reported_by_inode(tmp_path):
    path = write(tmp_path / "a.log", "before\n")
    first = read_tail(path)
    os.rename(path, path + ".1")
    write(tmp_path / "a.log", "after\n")
    second = read_tail(path, expect_inode=first["inode"])
    assert second["rotated"] is True
    assert second["lines"] == ["after"]
    assert read_tail(path, expect_inode=second["inode"])["rotated"] is False


def test_truncated_file_reads_what_is_there(tmp_path):
    path = write(tmp_path / "a.log", "x\n" * 1000)
    with open(path, "r+b") as handle:  # copytruncate-style rotation
        handle.truncate(0)
        handle.write(b"fresh\n")
    result = read_tail(path)
    assert result["lines"] == ["fresh"] and result["size"] == 6


# Real output formats (systemd 252, Debian bookworm).
SHOW_FAILED = """Id=sglang.service
LoadState=loaded
ActiveState=failed
SubState=failed
Result=exit-code
ExecMainCode=1
ExecMainStatus=2
ExecMainPID=4242
MainPID=0
InvocationID=0f3c5a0d1c2e4b5f8a9b0c1d2e3f4a5b
NRestarts=3
InactiveExitTimestamp=Sun 2026-11-29 21:20:32 UTC
InactiveExitTimestampMonotonic=5000000
ExecMainStartTimestamp=Sun 2026-11-29 21:20:32 UTC
ExecMainStartTimestampMonotonic=5100000
ExecMainExitTimestampMonotonic=6000000
ActiveEnterTimestampMonotonic=0
"""


def test_parse_show_and_summarize_exit():
    unit = summarize_unit(parse_show(SHOW_FAILED), now_epoch=1000.0, now_monotonic=10.0)
    assert unit["name"] == "sglang.service"
    assert unit["result"] == "exit-code"
    assert unit["exec_main_code"] == "exited"
    assert unit["exit_code"] == 2 and unit["signal"] is None
    assert unit["n_restarts"] == 3
    assert unit["start_time"] == 995.0
    assert unit["exec_main_exit_time"] == 996.0
    assert unit["active_enter_time"] is None
    assert unit["invocation_id"] == "0f3c5a0d1c2e4b5f8a9b0c1d2e3f4a5b"


def test_summarize_killed_and_start_limit():
    props = parse_show(
        SHOW_FAILED.replace("ExecMainCode=1", "ExecMainCode=2")
        .replace("ExecMainStatus=2", "ExecMainStatus=9")
        .replace("Result=exit-code", "Result=start-limit-hit")
    )
    unit = summarize_unit(props)
    assert unit["signal"] == "SIGKILL" and unit["exit_code"] is None and unit["start_limit_hit"] is True


def test_monotonic_zero_is_never():
    assert monotonic_to_epoch("0") is None and monotonic_to_epoch("") is None and monotonic_to_epoch(None) is None


def test_journal_json_with_byte_array_message():
    records = [
        {
            "__REALTIME_TIMESTAMP": "1795987200000000",
            "_PID": "4242",
            "SYSLOG_IDENTIFIER": "python3",
            "MESSAGE": "sglang serve: error: unrecognized arguments: --foo",
        },
        {
            "__REALTIME_TIMESTAMP": "1795987201000000",
            "_PID": "1",
            "SYSLOG_IDENTIFIER": "systemd",
            "MESSAGE": "sglang.service: Main process exited, code=exited, status=2/INVALIDARGUMENT",
        },
        {"__REALTIME_TIMESTAMP": "1795987202000000", "_PID": "4242", "MESSAGE": [104, 105, 255]},
    ]
    text = "\n".join(json.dumps(r) for r in records) + "\nnot json\n[]\n"
    entries = parse_journal_json(text)
    assert len(entries) == 3
    assert entries[2][3] == "hi\ufffd"
    line = format_journal_line(entries[0])
    assert line == "2026-11-29T21:20:00Z python3[4242]: sglang serve: error: unrecognized arguments: --foo"


def test_oom_lines_only_for_our_pids_or_cgroup():
    kernel = [
        "Out of memory: Killed process 4242 (python3) total-vm:99999kB, anon-rss:88888kB",
        "Out of memory: Killed process 777 (other) total-vm:1kB",
        "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
        "oom_memcg=/system.slice/sglang.service,task_memcg=/system.slice/sglang.service,task=python3,pid=4243,uid=0",
        "usb 1-1: new device",
    ]
    assert oom_lines_for(kernel, [4242], "sglang.service") == [kernel[0], kernel[2]]
    assert oom_lines_for(kernel, [4243], None) == [kernel[2]]


def test_last_invocation_from_the_journal():
    text = "\n".join(
        json.dumps(r)
        for r in (
            {"_SYSTEMD_INVOCATION_ID": "a" * 32, "MESSAGE": "old run"},
            {"INVOCATION_ID": "b" * 32, "MESSAGE": "sglang.service: Deactivated successfully."},
            {"MESSAGE": "no id"},
            {"INVOCATION_ID": "not-hex", "MESSAGE": "ignored"},
        )
    )
    assert last_invocation_id(text) == "b" * 32
    assert last_invocation_id("") is None


def run_module(args):
    """Run the module through the real ansible CLI on localhost (the target side exactly as in a play)."""
    run = run_adhoc("llmops.sglang.sglang_log_tail", args)
    return run.rc, run.result


def test_module_entry_point(tmp_path):
    path = write(tmp_path / "a.log", "old\n%s\nnew\n" % MARK_NEW)
    rc, result = run_module({"path": path, "lines": 10})
    assert rc == 0 and result["changed"] is False
    assert result["log"]["lines"] == ["new"] and result["unit"] is None and result["now"] > 0
    rc, result = run_module({"path": str(tmp_path), "lines": 10})
    assert rc == 2 and result["msg"].startswith("refusing to read log %s: it is not a regular file" % tmp_path)
    rc, result = run_module({"path": path, "bytes": 0})
    assert rc == 2 and result["msg"] == "bytes=0 is not valid: use a positive number"


# ---------------------------------------------------------------- symlinks in the service-owned log directory
FAKE_TOKEN = "HF_TOKEN=hf_fakeRootOnlyToken1234"


@pytest.fixture()
def root_only_secret(tmp_path):
    secret = tmp_path / "root-only" / "token.env"
    secret.parent.mkdir(mode=0o700)
    secret.write_text(FAKE_TOKEN + "\n")
    secret.chmod(0o600)
    return secret


def test_a_log_that_is_a_symlink_is_refused_and_its_target_never_read(tmp_path, root_only_secret):
    logs = tmp_path / "log" / "sglang"
    logs.mkdir(parents=True)
    link = logs / "sglang.log"
    link.symlink_to(root_only_secret)
    with pytest.raises(UnsafeLogPathError, match="refusing to read log %s: it is a symlink" % link):
        read_tail(str(link), since_marker=False)


@pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)
def test_diagnose_puts_no_byte_of_a_symlinked_root_only_file_in_evidence(tmp_path, root_only_secret):
    """The real module through ``ansible localhost -m``, as root: the symlink is refused by name."""
    link = tmp_path / "sglang.log"
    link.symlink_to(root_only_secret)
    for module, args in (
        ("llmops.sglang.sglang_diagnose", {"log_path": str(link), "since_marker": False}),
        ("llmops.sglang.sglang_log_tail", {"path": str(link), "since_marker": False}),
    ):
        rc, host, output = run_adhoc(module, args)
        assert rc == 2, output
        assert "hf_fakeRootOnlyToken1234" not in output
        assert "refusing to read log %s: it is a symlink" % link in host["msg"]


@pytest.mark.skipif(os.geteuid() != 0, reason="chowning a symlink to another user needs root")
def test_a_parent_directory_symlink_not_owned_by_root_is_refused(tmp_path, root_only_secret):
    (root_only_secret.parent / "sglang.log").write_text(FAKE_TOKEN + "\n")
    link = tmp_path / "logdir"
    link.symlink_to(root_only_secret.parent)
    os.lchown(link, 65534, 65534)
    with pytest.raises(UnsafeLogPathError, match="its directory component %s is a symlink owned by uid 65534" % link):
        read_tail(str(link / "sglang.log"), since_marker=False)
    os.lchown(link, 0, 0)
    assert read_tail(str(link / "sglang.log"), since_marker=False)["lines"] == [FAKE_TOKEN]


def test_a_fifo_or_a_directory_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "sglang.log"
    os.mkfifo(fifo)
    with pytest.raises(UnsafeLogPathError, match="refusing to read log %s: it is not a regular file" % fifo):
        read_tail(str(fifo))
    with pytest.raises(UnsafeLogPathError, match="it is not a regular file"):
        read_tail(str(tmp_path))
    assert read_tail(str(tmp_path / "absent.log"))["exists"] is False
