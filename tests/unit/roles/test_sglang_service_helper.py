# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The unit's helper (roles/sglang_service/files/llmops-sglang): marker, log copy, exit status, verify filter."""

import datetime
import importlib.machinery
import importlib.util
import pathlib
import subprocess
import sys

from ansible_collections.llmops.sglang.plugins.module_utils.log_tail import parse_marker, read_tail

HELPER = pathlib.Path(__file__).resolve().parents[3] / "roles" / "sglang_service" / "files" / "llmops-sglang"


def load_helper():
    loader = importlib.machinery.SourceFileLoader("llmops_sglang_helper", str(HELPER))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def run(*args, env=None):
    return subprocess.run([sys.executable, str(HELPER)] + list(args), capture_output=True, text=True, env=env, check=False)


def test_marker_line_is_the_diagnosers_format():
    line = load_helper().marker_line(datetime.datetime(2026, 11, 29, 21, 20, 32, tzinfo=datetime.timezone.utc), "5f0c0f6c2b9e4a6f")
    assert parse_marker(line) == {"time": "2026-11-29T21:20:32Z", "invocation": "5f0c0f6c2b9e4a6f"}


def test_marker_rotates_the_previous_launch_and_starts_fresh(tmp_path):
    log = tmp_path / "sglang.log"
    log.write_text("RuntimeError: Not enough memory (previous launch)\n")
    result = run("marker", str(log), env={"INVOCATION_ID": "abc123", "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "sglang.log.1").read_text().startswith("RuntimeError")
    lines = log.read_text().splitlines()
    assert len(lines) == 1 and parse_marker(lines[0])["invocation"] == "abc123"
    tail = read_tail(str(log), since_marker=True)
    assert tail["lines"] == []  # nothing of the old launch survives after the marker


def test_exec_keeps_the_exit_status_and_copies_both_streams(tmp_path):
    log = tmp_path / "sglang.log"
    result = run("exec", str(log), "--", "/bin/sh", "-c", "echo out-line; echo err-line >&2; exit 3")
    assert result.returncode == 3
    assert "out-line" in result.stdout and "err-line" in result.stdout  # stdout = the journal under systemd
    text = log.read_text()
    assert "out-line" in text and "err-line" in text


def test_exec_of_a_missing_program_says_so_in_the_log(tmp_path):
    log = tmp_path / "sglang.log"
    result = run("exec", str(log), "--", str(tmp_path / "no-such-python"), "-m", "sglang.launch_server")
    assert result.returncode == 127
    assert "cannot execute" in log.read_text()


def test_usage_error_exits_2():
    assert run("bogus").returncode == 2


def test_unit_warnings_only_concern_the_unit_under_test():
    output = "/tmp/x/sglang.service:14: Unknown key name 'Restartt' in section 'Service', ignoring.\n/lib/systemd/system/other.service:3: something unrelated\n"
    assert load_helper().unit_warnings(output, "/tmp/x/sglang.service", "sglang.service") == [output.splitlines()[0]]


def test_wait_health_gives_up_at_once_when_the_main_process_is_gone():
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    env = {"MAINPID": str(dead.pid), "PATH": "/usr/bin:/bin"}
    result = run("wait-health", "http://127.0.0.1:9", env=env)
    assert result.returncode == 1
    assert "exited before" in result.stderr


def test_process_alive():
    helper = load_helper()
    import os

    assert helper.process_alive(os.getpid())
    assert not helper.process_alive(2**22 + 1)


def test_exec_dies_by_the_same_signal_as_the_program(tmp_path):
    log = tmp_path / "sglang.log"
    result = run("exec", str(log), "--", "/bin/sh", "-c", "echo before-kill; kill -KILL $$")
    assert result.returncode == -9  # systemd records signal=KILL, as for the OOM killer
    assert "before-kill" in log.read_text()


def test_exec_does_not_wait_forever_for_a_leftover_holding_the_pipe(tmp_path):
    log = tmp_path / "sglang.log"
    result = run("exec", str(log), "--", "/bin/sh", "-c", "sleep 120 & echo last-line; exit 4")
    assert result.returncode == 4
    assert "last-line" in log.read_text()


def test_redactor_catches_a_secret_split_across_reads():
    redactor = load_helper().Redactor([b"sk-SECRET-123"])
    out = b"".join(redactor.feed(c) for c in (b"api_key='sk-SEC", b"RET-1", b"23' tp_size=2\nsk-S", b"ENT\n"))
    out += redactor.flush()
    assert out == b"api_key='<redacted>' tp_size=2\nsk-SENT\n"


def test_redactor_holds_back_only_a_possible_start_of_a_secret():
    redactor = load_helper().Redactor([b"abcdef"])
    assert redactor.feed(b"xyz ab") == b"xyz "  # "ab" could begin the secret
    assert redactor.feed(b"X") == b"abX"  # it did not
    assert redactor.flush() == b""


def test_secrets_file_gives_the_value_and_its_repr_form(tmp_path):
    path = tmp_path / "sglang-secrets.yaml"
    path.write_text('{"api-key": "k\'ey\\\\1", "unused": 3}')
    # repr() doubles the backslash (and picks double quotes, so the ' stays as it is)
    assert set(load_helper().read_secrets(str(path))) == {b"k'ey\\1", b"k'ey\\\\1"}


def test_exec_redacts_the_api_key_in_the_log_and_the_journal_copy(tmp_path):
    # The child writes the key the way SGLang 0.5.9's engine.py logs server_args (repr inside the dataclass
    # repr), in two writes with a pause between, so the helper sees it split across reads.
    secrets = tmp_path / "sglang-secrets.yaml"
    secrets.write_text('{"api-key": "sk-llmops-test-0123456789"}')
    log = tmp_path / "sglang.log"
    child = (
        "import sys, time; sys.stdout.write(\"server_args=ServerArgs(api_key='sk-llmops-te\"); sys.stdout.flush(); "
        "time.sleep(0.3); print(\"st-0123456789', port=30000)\"); print('tail sk-llmops-test-0123456789')"
    )
    result = run("exec", str(log), "--redact", str(secrets), "--", sys.executable, "-c", child)
    assert result.returncode == 0, result.stderr
    for copy in (result.stdout, log.read_text()):
        assert "sk-llmops" not in copy
        assert "server_args=ServerArgs(api_key='<redacted>', port=30000)" in copy
        assert "tail <redacted>" in copy


def test_exec_refuses_to_start_when_the_secrets_cannot_be_read(tmp_path):
    log = tmp_path / "sglang.log"
    result = run("exec", str(log), "--redact", str(tmp_path / "missing.yaml"), "--", "/bin/echo", "never")
    assert result.returncode == 2
    assert "cannot read the secrets to redact from" in result.stderr and "never" not in result.stdout
