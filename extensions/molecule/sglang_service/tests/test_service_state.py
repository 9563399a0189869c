# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The state that roles/sglang_service leaves in the guest, checked from outside with testinfra.

Runs as molecule's verifier right after converge and idempotence, before side_effect.yml exercises the role's
behaviour (restarts, refusals, rollbacks). The unit runs the SGLang test double, not SGLang: what is checked
here is what the role wrote and what systemd made of it, which does not depend on the server behind it.
"""

import json
import re
import shlex

import pytest

UNIT = "sglang.service"
UNIT_PATH = "/etc/systemd/system/sglang.service"
CONFIG_DIR = "/etc/llmops-sglang"
SECRET_FILES = (CONFIG_DIR + "/sglang.env", CONFIG_DIR + "/sglang-secrets.yaml")
ARGS_PATH = CONFIG_DIR + "/sglang-args.json"
LOG_PATH = "/var/log/sglang/sglang.log"
CREDENTIAL = "/run/credentials/sglang.service/sglang-secrets.yaml"
LOGROTATE_PATH = "/etc/logrotate.d/sglang"


def secret_values(scenario_vars):
    """The secret values converge wrote: the API key, the HF token and each secret flag."""
    return [scenario_vars["sglang_service_api_key"], scenario_vars["sglang_service_hf_token"], *scenario_vars["sglang_service_secret_args"].values()]


def unit_property(guest, name):
    return guest.check_output("systemctl show --value -p %s %s", name, UNIT)


def server_process_argv(guest):
    """argv of SGLang's own process: the child of the unit's main process (the log helper)."""
    main_pid = unit_property(guest, "MainPID")
    child = guest.check_output("ps --ppid %s -o pid=", main_pid).split()
    assert len(child) == 1, "unit main process %s has children %s, want exactly SGLang's" % (main_pid, child)
    return guest.check_output("tr '\\0' '\\n' < /proc/%s/cmdline", child[0]).splitlines()


def check_secret_files(guest):
    """The secrets live in root's 0600 files inside a 0700 directory."""
    directory = guest.file(CONFIG_DIR)
    assert directory.is_directory and (directory.user, directory.group, directory.mode) == ("root", "root", 0o700)
    for path in SECRET_FILES:
        secret = guest.file(path)
        assert secret.is_file, path
        assert (secret.user, secret.group, secret.mode) == ("root", "root", 0o600), "%s is %s:%s %o, want root:root 600" % (
            path,
            secret.user,
            secret.group,
            secret.mode,
        )


def test_unit_file_is_roots_and_verifies(guest):
    unit = guest.file(UNIT_PATH)
    assert (unit.user, unit.group, unit.mode) == ("root", "root", 0o644)
    # The role's own check (systemd-analyze verify, warnings count) passes on the live unit.
    guest.check_output("/usr/bin/python3 /usr/local/libexec/llmops-sglang/llmops-sglang verify-unit %s sglang", UNIT_PATH)
    # No drop-in overrides what the role rendered.
    assert unit_property(guest, "DropInPaths") == ""
    assert unit_property(guest, "FragmentPath") == UNIT_PATH


def test_service_is_active_and_enabled(guest):
    service = guest.service("sglang")
    assert service.is_running
    assert service.is_enabled
    assert unit_property(guest, "SubState") == "running"


def test_unit_restart_policy_and_sandbox(guest):
    want = {
        "Restart": "on-failure",
        "StartLimitBurst": "3",
        "TimeoutStartUSec": "7min 40s",  # 300 s + 10 s/GiB x 16 GiB
        "NoNewPrivileges": "yes",
        "RestrictSUIDSGID": "yes",
        "RestrictRealtime": "yes",
        "LockPersonality": "yes",
        "SystemCallArchitectures": "native",
        "User": "sglang",
    }
    assert {name: unit_property(guest, name) for name in want} == want
    assert "2" in unit_property(guest, "RestartPreventExitStatus").split()


def test_secret_files_are_root_0600_in_a_0700_directory(guest):
    check_secret_files(guest)


def test_no_secret_in_a_file_that_others_can_read(scenario_vars, files_holding):
    # An unprivileged account searches the whole filesystem: any hit is a secret that others can read.
    for value in secret_values(scenario_vars):
        assert files_holding(value, user="nobody") == []


def test_no_secret_in_any_process_argv(guest, scenario_vars):
    # The command lines come back to the controller and are searched here, so no searching process in the
    # guest carries the secret in its own argv.
    argvs = guest.check_output("for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < \"$f\"; echo; done 2>/dev/null")
    for value in secret_values(scenario_vars):
        assert value not in argvs


def test_server_argv_is_the_validated_argv(guest):
    recorded = json.loads(guest.file(ARGS_PATH).content_string)
    assert server_process_argv(guest) == ["/usr/bin/python3", "-m", "sglang.launch_server", *recorded["argv"], "--config", CREDENTIAL]
    # ExecStart (the unit's own record) runs the same words behind the log helper.
    exec_start = unit_property(guest, "ExecStart")
    words = re.search(r"argv\[\]=(.*?) ;", exec_start).group(1)
    first = -len(recorded["argv"]) - 2
    assert shlex.split(words)[first:-2] == recorded["argv"]


def test_port_bound_only_on_the_configured_address(guest, scenario_vars):
    args = scenario_vars["molecule_server_args"]
    listening = [s for s in guest.socket.get_listening_sockets() if s.endswith(":%d" % args["port"])]
    assert listening == ["tcp://%s:%d" % (args["host"], args["port"])]


def test_log_starts_with_this_launchs_marker(guest):
    log = guest.file(LOG_PATH)
    assert log.is_file and log.user == "sglang"
    first = log.content_string.splitlines()[0]
    assert first == "=== llmops.sglang launch %s invocation=%s ===" % (
        re.match(r"=== llmops\.sglang launch (\S+) ", first).group(1),
        unit_property(guest, "InvocationID"),
    )


def test_journal_and_log_hold_the_secrets_only_redacted(guest, scenario_vars):
    for source in (guest.file(LOG_PATH).content_string, guest.check_output("journalctl -u %s --no-pager -o cat", UNIT)):
        assert re.search(r"server_args=ServerArgs\(.*api_key='<redacted>'", source)
        assert "admin_api_key='<redacted>'" in source
        for value in secret_values(scenario_vars):
            assert value not in source


def test_service_directories_belong_to_the_service_account(guest):
    # The account itself is sglang_install's (its scenario checks it); prepare made a bare one here.
    for path in ("/var/log/sglang", "/var/lib/sglang"):
        directory = guest.file(path)
        assert (directory.user, directory.mode) == ("sglang", 0o750), path


def test_logrotate_rule(guest):
    rule = guest.file(LOGROTATE_PATH)
    assert (rule.user, rule.group, rule.mode) == ("root", "root", 0o644)
    text = rule.content_string
    assert re.search(r'^"/var/log/sglang/sglang\.log" \{$', text, re.MULTILINE)
    for directive in ("copytruncate", "su sglang sglang", "size 100M", "rotate 7", "dateext"):
        assert re.search(r"^\s+%s$" % re.escape(directive), text, re.MULTILINE), directive
    # logrotate itself accepts it.
    guest.check_output("logrotate --debug %s", LOGROTATE_PATH)


def test_broken_secrets_mode_turns_its_check_red(guest):
    """The mode check is not vacuous: a secrets file opened to the group and others fails it."""
    guest.check_output("chmod 0644 %s", SECRET_FILES[1])
    try:
        with pytest.raises(AssertionError, match="sglang-secrets.yaml is root:root 644"):
            check_secret_files(guest)
    finally:
        guest.check_output("chmod 0600 %s", SECRET_FILES[1])
    check_secret_files(guest)
