# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""sglang_log_tail + sglang_diagnose against a real systemd (PID 1 in a podman container).

The container stands for the Proxmox LXC guest; a tiny shell unit stands for SGLang, printing SGLang's own
messages. The whole chain runs for real: ansible's podman connection ships the module into the container,
systemctl/journalctl answer there, the action plugin classifies on this machine. Covers a fresh failure,
a silent death (argparse error only on stderr), SIGKILL, a missing executable, and a stale log.

Run: pytest tests/integration/test_log_tail_systemd.py (skips without podman or the debian-systemd image).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import pytest

IMAGE = "localhost/debian-systemd:bookworm"
NAME = "h4-logtail-%d" % os.getpid()
LOG = "/var/log/h4/sglang.log"
UNIT = "h4-fake-sglang.service"
ROOT = pathlib.Path(__file__).resolve().parents[2]
MARKER_PRE = "ExecStartPre=/bin/sh -c 'echo \"=== llmops.sglang launch $(date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ) invocation=$INVOCATION_ID ===\" >> " + LOG + "'"


def podman(*args, check=True, timeout=120):
    return subprocess.run(["podman", *args], capture_output=True, text=True, check=check, timeout=timeout)


def _have_image():
    if not shutil.which("podman"):
        return False
    try:
        return podman("image", "exists", IMAGE, check=False, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


pytestmark = pytest.mark.skipif(not _have_image(), reason="needs podman and %s (scripts/build-systemd-image.sh)" % IMAGE)


@pytest.fixture(scope="module")
def container():
    podman("rm", "-f", NAME, check=False)
    podman("run", "-d", "--name", NAME, "--systemd=always", IMAGE, "/sbin/init")
    try:
        for _second in range(60):
            state = podman("exec", NAME, "systemctl", "is-system-running", check=False).stdout.strip()
            if state in ("running", "degraded"):
                break
            time.sleep(1)
        else:
            pytest.fail("systemd in %s did not come up: %s" % (NAME, state))
        podman("exec", NAME, "mkdir", "-p", "/var/log/h4")
        yield NAME
    finally:
        podman("rm", "-f", NAME, check=False)


def sh(container, script):
    return podman("exec", container, "/bin/sh", "-c", script)


def install_unit(container, exec_start, marker=True, extra=""):
    unit = "[Service]\nType=simple\n%s\n%s\nExecStart=%s\n%s\n" % (MARKER_PRE if marker else "", "", exec_start, extra)
    sh(container, "cat > /etc/systemd/system/%s <<'UNIT'\n%sUNIT\nsystemctl daemon-reload; systemctl reset-failed %s || true" % (UNIT, unit, UNIT))


def start_and_settle(container, expect_active=False):
    sh(container, "systemctl start %s || true" % UNIT)
    for _poll in range(30):
        state = sh(container, "systemctl is-active %s || true" % UNIT).stdout.strip()
        if (state == "active") == expect_active and state != "activating":
            return state
        time.sleep(0.5)
    return state


def diagnose(container, **args):
    env = dict(
        os.environ,
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json",
        ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
        ANSIBLE_HOST_KEY_CHECKING="0",
        ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".build" / "collections"),
    )
    args = {k: v for k, v in dict({"unit": UNIT, "log_path": LOG, "fail": False}, **args).items() if v is not None}
    proc = subprocess.run(
        [
            os.path.join(os.path.dirname(sys.executable), "ansible"),
            "all",
            "-i",
            "%s," % container,
            "-c",
            "containers.podman.podman",
            "-e",
            "ansible_python_interpreter=/usr/bin/python3",
            "-m",
            "llmops.sglang.sglang_diagnose",
            "-a",
            json.dumps(args),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=False,
    )
    assert proc.returncode in (0, 2), proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(proc.stdout)["plays"][0]["tasks"][0]["hosts"][container]


def test_fresh_failure_reads_only_this_launch(container):
    sh(container, "printf 'RuntimeError: Decode out of memory. Try to lower your batch size.\\n' > %s" % LOG)
    install_unit(
        container,
        "/bin/sh -c 'echo \"RuntimeError: Not enough memory. Please try to increase "
        "--mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.85\" "
        "| tee -a %s; exit 1'" % LOG,
    )
    start_and_settle(container)
    result = diagnose(container)
    assert result["root_cause"] == "kv_pool_too_small", result["summary"]
    assert result["freshness"]["status"] == "fresh"
    assert result["freshness"]["marker"]["invocation"] == result["freshness"]["invocation_id"]
    assert result["numbers"]["mem_fraction_static"] == 0.85
    assert result["numbers"]["unit_exit_code"] == 1
    assert not any("Decode out of memory" in line for line in result["evidence"])
    assert result["freshness"]["journal_lines"] >= 1


def test_unit_without_a_log_file_reads_the_journal(container):
    install_unit(
        container,
        "/bin/sh -c 'echo \"RuntimeError: Not enough GPU memory for hybrid (mamba/linear-attention) "
        "state cache. Computed max_mamba_cache_size=0 (total_rest_memory=1.52 GB, "
        "mamba_cache_per_req=147.00 MB).\"; exit 1'",
        marker=False,
    )
    start_and_settle(container)
    result = diagnose(container, log_path=None)
    assert result["root_cause"] == "mamba_pool_too_small", result["summary"]
    assert result["numbers"]["max_mamba_cache_size"] == 0
    assert result["numbers"]["unit_exit_code"] == 1


def test_silent_death_argparse_error_only_in_the_journal(container):
    install_unit(container, "/bin/sh -c 'echo \"sglang serve: error: unrecognized arguments: --mamba-full-memory-ration 0.5\" >&2; exit 2'")
    start_and_settle(container)
    result = diagnose(container)
    assert result["root_cause"] == "silent_death", result["summary"]
    assert result["underlying_cause"] == "unrecognized_argument"
    assert result["freshness"]["log_lines"] == 0
    assert any("unrecognized arguments" in line for line in result["evidence"])
    assert not any("Not enough memory" in line for line in result["evidence"])  # the previous launch's error
    assert "--mamba-full-memory-ration" in result["fix"]


def test_silent_death_by_sigkill(container):
    install_unit(container, "/bin/sh -c 'kill -9 $$$$'")  # systemd reads $$ as $
    start_and_settle(container)
    result = diagnose(container)
    assert result["root_cause"] == "silent_death", result["summary"]
    assert result["numbers"]["unit_signal"] == "SIGKILL"
    assert "SIGKILL" in result["fix"]


def test_silent_death_missing_executable(container):
    install_unit(container, "/opt/sglang/venv/bin/python -m sglang.launch_server")
    start_and_settle(container)
    result = diagnose(container)
    assert result["root_cause"] == "silent_death", result["summary"]
    assert "203/EXEC" in result["fix"]


def test_crash_loop_waiting_to_restart(container):
    install_unit(
        container,
        "/bin/sh -c 'echo \"sglang serve: error: argument --tp-size: invalid int value: \\'two\\'\" >&2; exit 1'",
        extra="Restart=on-failure\nRestartSec=300",
    )
    sh(container, "systemctl start %s || true" % UNIT)
    for _poll in range(30):
        if sh(container, "systemctl show -p SubState --value %s" % UNIT).stdout.strip() == "auto-restart":
            break
        time.sleep(0.5)
    try:
        result = diagnose(container)
        assert result["root_cause"] == "silent_death", result["summary"]
        assert result["underlying_cause"] == "invalid_argument_value"
        assert "--tp-size" in result["fix"]
    finally:
        sh(container, "systemctl stop %s || true" % UNIT)


def test_stale_log_while_the_unit_runs(container):
    sh(container, "echo 'RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.' > %s; touch -d '1 hour ago' %s" % (LOG, LOG))
    install_unit(container, "/bin/sleep infinity", marker=False)
    start_and_settle(container, expect_active=True)
    try:
        result = diagnose(container)
        assert result["root_cause"] == "stale_log", result["summary"]
        assert result["freshness"]["status"] == "stale"
        assert not any("Not enough memory" in line for line in result["evidence"])
    finally:
        sh(container, "systemctl stop %s || true" % UNIT)


def test_check_mode_and_plain_tail_module(container):
    env = dict(
        os.environ,
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json",
        ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
        ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".build" / "collections"),
    )
    proc = subprocess.run(
        [
            os.path.join(os.path.dirname(sys.executable), "ansible"),
            "all",
            "-i",
            "%s," % container,
            "--check",
            "-c",
            "containers.podman.podman",
            "-e",
            "ansible_python_interpreter=/usr/bin/python3",
            "-m",
            "llmops.sglang.sglang_log_tail",
            "-a",
            json.dumps({"path": LOG, "unit": UNIT, "lines": 5}),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    host = json.loads(proc.stdout)["plays"][0]["tasks"][0]["hosts"][container]
    assert host["changed"] is False
    # The stale-log test stopped the unit cleanly, so systemd garbage-collected it: the invocation comes
    # from the journal.
    assert host["unit"]["name"] == UNIT and host["unit"]["invocation_id"]
    assert host["unit"]["invocation_from_journal"] is True
    assert host["unit"]["journal"]
    assert host["log"]["exists"] is True and host["log"]["inode"]
