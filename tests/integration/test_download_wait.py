# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""sglang_install's download wait outlasts 300 progress periods without nesting (issue 15, item 2).

The real role tasks (validate, model_hub, download_wait) run through ansible-playbook on localhost against
the loopback hub stand-in of the molecule scenario (extensions/molecule/sglang_install/files/mock_hub.py),
with a 0.02 s progress interval. The hub holds the file bodies until the test has counted 310 progress lines
on the playbook's output, so the download lasts more than 300 periods whatever the machine's speed; the old
self-including wait hit RecursionError near 250 levels.

Run: pytest tests/integration/test_download_wait.py (about two minutes).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import textwrap
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ANSIBLE_PLAYBOOK = pathlib.Path(sys.executable).with_name("ansible-playbook")
MOCK_HUB = ROOT / "extensions/molecule/sglang_install/files/mock_hub.py"
WRITE_MODEL = ROOT / "extensions/molecule/sglang_install/files/write_model.py"
HF_STANDIN = ROOT / "tests/integration/hf_standin/hf.py"
COMMIT = "5f1e0a9c2b7d4e6f8a0b1c2d3e4f5a6b7c8d9e0f"
PERIODS_BEFORE_RELEASE = 310

pytestmark = pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason="needs ansible-playbook next to %s" % sys.executable)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture()
def hub(tmp_path):
    """The hub stand-in on a loopback port, serving one repo whose file bodies wait for a release file."""
    repo_dir = tmp_path / "hub" / "held"
    repo_dir.mkdir(parents=True)
    subprocess.run([sys.executable, str(WRITE_MODEL), str(repo_dir)], check=True)
    release = tmp_path / "release"
    port = _free_port()
    config = tmp_path / "mock_hub.json"
    config.write_text(
        json.dumps({"host": "127.0.0.1", "port": port, "repos": {"wait/held": {"dir": str(repo_dir), "commit": COMMIT, "hold_file": str(release)}}})
    )
    server = subprocess.Popen([sys.executable, str(MOCK_HUB), str(config)], stderr=subprocess.DEVNULL)
    try:
        for _attempt in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield {"endpoint": "http://127.0.0.1:%d" % port, "release": release, "repo_dir": repo_dir}
    finally:
        server.terminate()
        server.wait(timeout=10)


def _playbook_command(tmp_path, hub, interval, timeout, **more):
    """The ansible-playbook command that runs the role's validate and model_hub tasks, and its environment."""
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").symlink_to(sys.executable)
    (venv / "hf").write_text('#!/bin/sh\nexec "%s" "%s" "$@"\n' % (sys.executable, HF_STANDIN))
    (venv / "hf").chmod(0o755)
    dest = tmp_path / "model"
    playbook = tmp_path / "wait.yml"
    playbook.write_text(
        textwrap.dedent("""\
        - name: Download through the role's wait
          hosts: localhost
          connection: local
          gather_facts: false
          tasks:
            - name: Plan, download and verify
              ansible.builtin.include_role:
                name: llmops.sglang.sglang_install
                tasks_from: "{{ item }}"
              loop: [validate, model_hub]
            - name: Report the periods waited
              ansible.builtin.debug:
                msg: "periods={{ __sglang_install_download_periods }} finished={{ __sglang_install_download.finished }}"
        """)
    )
    extra = {
        "ansible_python_interpreter": sys.executable,
        "sglang_install_venv": str(venv.parent),
        "sglang_install_prefix": str(tmp_path),
        "sglang_install_model_repo": "wait/held",
        "sglang_install_model_revision": "main",
        "sglang_install_hf_endpoint": hub["endpoint"],
        "sglang_install_model_path": str(dest),
        "sglang_install_model_reserve_bytes": 0,
        "sglang_install_model_progress_interval": interval,
        "sglang_install_model_download_timeout": timeout,
    }
    extra.update(more)
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(ROOT / ".build/collections"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
    )
    return [str(ANSIBLE_PLAYBOOK), str(playbook), "-e", json.dumps(extra)], env


def test_download_longer_than_300_periods_completes_without_recursion(tmp_path, hub):
    command, env = _playbook_command(tmp_path, hub, interval=0.02, timeout=600)
    dest = tmp_path / "model"
    progress = re.compile(r"\(item=model download wait/held@%s: .* on disk \([0-9.]+ %%\)\)" % COMMIT[:12])
    run = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, periods_seen = [], 0
    deadline = time.monotonic() + 900
    for line in run.stdout:
        lines.append(line)
        if progress.search(line):
            periods_seen += 1
            if periods_seen == PERIODS_BEFORE_RELEASE:
                hub["release"].touch()
        assert time.monotonic() < deadline, "the playbook ran past 900 s"
    output = "".join(lines)
    assert run.wait(timeout=60) == 0, output[-4000:]
    assert "RecursionError" not in output
    assert periods_seen > PERIODS_BEFORE_RELEASE, output[-4000:]
    assert re.search(r"periods=(\d+) finished=True", output), output[-2000:]
    assert int(re.search(r"periods=(\d+)", output).group(1)) == periods_seen
    for name in ("config.json", "model.safetensors"):
        assert (dest / COMMIT / name).read_bytes() == (hub["repo_dir"] / name).read_bytes()  # one directory per commit


def test_a_download_past_its_timeout_fails_naming_the_timeout(tmp_path, hub):
    """The hub never releases the bodies: the job's own async timeout ends it, and the wait says so."""
    command, env = _playbook_command(tmp_path, hub, interval=0.5, timeout=3)
    run = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    output = run.stdout + run.stderr
    assert run.returncode == 2, output[-4000:]
    assert re.search(
        r"hf download of wait/held@main did not finish within\s+sglang_install_model_download_timeout "
        r"\(3 s,\s+\d+ progress periods of 0.5 s\); raise the timeout",
        output,
    ), output[-4000:]


def test_proxy_credentials_reach_hf_through_a_root_only_file_and_never_the_vvv_output(tmp_path, hub):
    """Issue 15 item 6: sglang_install_environment (proxy credentials) used to be passed as the task's
    environment, which -vvv prints as "EXEC HTTP_PROXY=...". The stand-in hf reports what it received."""
    dump = tmp_path / "hf-env.json"
    proxy = "http://proxyuser:proxy-pass-Q7z@127.0.0.1:9"
    command, env = _playbook_command(
        tmp_path, hub, interval=0.5, timeout=120, sglang_install_environment={"HTTP_PROXY": proxy, "NO_PROXY": "127.0.0.1", "HF_STANDIN_ENV_DUMP": str(dump)}
    )
    hub["release"].touch()
    run = subprocess.run(command + ["-vvv"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-4000:]
    assert json.loads(dump.read_text())["HTTP_PROXY"] == proxy
    assert "proxy-pass-Q7z" not in output
    assert "/run/llmops-sglang/install.env" in output  # the commands source the file: only its path is shown
    assert not os.path.exists("/run/llmops-sglang/install.env")
