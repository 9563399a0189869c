# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The unit template's Description= and comment lines cannot be broken by the text they show (issue 15, item 11).

The role refuses control characters before it renders (test_service_launch_control_characters.py); this
renders roles/sglang_service/templates/sglang.service.j2 with ansible's own templar as if a value had got
past that check, and reads the result the way systemd does: one setting or comment per line.
"""

import pathlib

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

TEMPLATE = pathlib.Path(__file__).resolve().parents[3] / "roles" / "sglang_service" / "templates" / "sglang.service.j2"


def render(model_path, version="0.5.9", install=None, member=None):
    variables = {
        "__sglang_service_is_head": True,
        "__sglang_service_topology": {"rank": 0, "replica": "solo", "head": {"host": "solo"}},
        "ansible_managed": "Ansible managed",
        "sglang_service_sglang_version": version,
        "__sglang_service_args": {"model_path": model_path},
        "sglang_service_start_limit_burst": 3,
        "__sglang_service_timeout_start": 460,
        "sglang_service_restart_sec": 10,
        "sglang_service_user": "sglang",
        "sglang_service_group": "sglang",
        "sglang_service_state_dir": "/var/lib/sglang",
        "__sglang_service_env_path": "/etc/llmops-sglang/sglang.env",
        "__sglang_service_has_secrets": False,
        "__sglang_service_credential": "sglang-secrets.yaml",
        "__sglang_service_secrets_path": "/etc/s.yaml",
        "__sglang_service_python": "/usr/bin/python3",
        "__sglang_service_install": install or {},
        "__sglang_service_model_label": model_path.rsplit("/", 1)[-1],
        "__sglang_service_helper": "/usr/local/libexec/llmops-sglang",
        "__sglang_service_log_path": "/var/log/sglang/sglang.log",
        "__sglang_service_argv": ["--model-path", model_path],
        "sglang_service_timeout_start_base_sec": 300,
        "sglang_service_timeout_start_sec_per_gib": 10,
        "__sglang_service_model_gib": 16,
        "sglang_service_filesystem_sandboxing": True,
        "__sglang_service_url": "http://127.0.0.1:30000",
        "sglang_service_name": "sglang",
    }
    variables.update(member or {})
    templar = Templar(loader=DataLoader(), variables=variables)
    return templar.template(trust_as_template(TEMPLATE.read_text()), escape_backslashes=False)


def test_a_newline_in_the_model_path_stays_inside_the_comment_and_the_description():
    unit = render("/srv/models/x\n[Service]\nExecStartPre=/bin/evil %n\x1b[2J")
    lines = unit.splitlines()
    assert [line for line in lines if line.startswith("ExecStartPre=")] == [line for line in lines if line.startswith("ExecStartPre=") and "marker" in line]
    assert lines.count("[Service]") == 1
    assert "# SGLang 0.5.9 serving /srv/models/x\\n[Service]\\nExecStartPre=/bin/evil %n\\u001b[2J; every" in unit
    assert "Description=SGLang server for evil %%n\\u001b[2J (llmops.sglang)" in lines
    assert "\x1b" not in unit


def test_an_ordinary_model_path_renders_unchanged():
    unit = render("/srv/models/Qwen3-8B ü")
    assert "Description=SGLang server for Qwen3-8B ü (llmops.sglang)" in unit.splitlines()
    assert "# SGLang 0.5.9 serving /srv/models/Qwen3-8B ü; every flag below was" in unit


def test_the_server_runs_sandboxed_without_losing_the_gpus():
    """Issue 15 item 16: privilege gain, setuid, realtime and personality changes are off; no device is hidden."""
    lines = render("/srv/models/Qwen3-8B").splitlines()
    for setting in ("NoNewPrivileges=yes", "RestrictSUIDSGID=yes", "RestrictRealtime=yes", "LockPersonality=yes", "SystemCallArchitectures=native"):
        assert setting in lines
    assert not [line for line in lines if line.startswith(("PrivateDevices=", "DevicePolicy=", "DeviceAllow="))]


def test_the_install_fingerprint_is_a_line_of_the_unit_so_an_install_change_changes_the_unit():
    # Issue 15 item 1: an upgrade (another venv or model commit) must change the rendered unit, so that the
    # service role's plan sees a change and applies it through the gated restart.
    install = {
        "version": "0.5.9",
        "venv": "/opt/sglang/venvs/sglang-0.5.9-0a1b2c3d4e",
        "model_repo": "Qwen/Qwen3-8B",
        "model_commit": "0123456789abcdef0123456789abcdef01234567",
        "fingerprint": "f" * 64,
    }
    before = render("/opt/sglang/models/Qwen--Qwen3-8B/0123456789abcdef0123456789abcdef01234567", install=install)
    assert ("# model Qwen/Qwen3-8B@0123456789abcdef0123456789abcdef01234567; fingerprint %s." % ("f" * 64)) in before
    after = render("/opt/sglang/models/Qwen--Qwen3-8B/0123456789abcdef0123456789abcdef01234567", install=dict(install, fingerprint="e" * 64))
    assert before != after
    assert "fingerprint" not in render("/srv/models/Qwen3-8B")


def test_the_unit_sandboxes_the_filesystem():
    # Issue 15 item 16: no ProtectSystem or PrivateTmp before.
    lines = render("/srv/models/Qwen3-8B").splitlines()
    for setting in ("ProtectSystem=full", "ProtectHome=read-only", "PrivateTmp=yes", "NoNewPrivileges=yes"):
        assert setting in lines


def test_a_member_of_rank_1_waits_on_no_health_check_of_its_own():
    """Only rank 0 serves HTTP: rank 1's unit is active once started, and says whose readiness counts."""
    member = {
        "__sglang_service_is_head": False,
        "__sglang_service_topology": {"rank": 1, "replica": "replica_a", "head": {"host": "a0"}},
        "__sglang_service_args": {"model_path": "/srv/models/m", "dist_init_addr": "10.0.0.10:20000"},
    }
    head, rank_1 = render("/srv/models/m"), render("/srv/models/m", member=member)
    assert "ExecStartPost=" in head and "wait-health" in head
    assert "ExecStartPost=" not in rank_1
    assert "# Node rank 1 of replica replica_a: it joins rank 0 (a0) at 10.0.0.10:20000 and serves no HTTP" in rank_1
