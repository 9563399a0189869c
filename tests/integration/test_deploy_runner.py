# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""deploy.yml end to end, run the way AWX runs a job template: ansible_runner.run with a private data dir.

Against the stand-ins of demo_env.py: fakepve (the PVE API, schema-validated, permissions on, verified TLS),
a fake node over loopback SSH with a `pct` stand-in, and a podman container with systemd as PID 1 standing in
for LXC 129. No GPU: the service is configured but not started (sglang_service_enabled false), as in `make demo`.
The first run must change things. Under ``make test-full`` (LLMOPS_E2E_FULL=1) a second run must change nothing;
``make test`` leaves that to the molecule scenarios' idempotence steps, to stay within CI's time budget.
"""

import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

import demo_env

sys.path.insert(0, os.path.join(demo_env.REPO, "scripts"))
import secret_scan  # noqa: E402 (scripts/ is not a package)

ansible_runner = pytest.importorskip("ansible_runner")
FULL = os.environ.get("LLMOPS_E2E_FULL") == "1"

FIXED_ARGS = {
    "served_model_name": "qwen3.6-27b",
    "tp_size": 2,
    "mem_fraction_static": 0.85,
    "context_length": 65536,
    "enable_torch_compile": True,
    "speculative_algorithm": "NEXTN",
    "speculative_num_steps": 3,
    "speculative_eagle_topk": 1,
    "speculative_num_draft_tokens": 4,
    "host": "127.0.0.1",
    "port": 30000,
    # The preflight's concurrency fix for the incident on 0.5.9 (see test_sglang_memory_budget.py).
    "max_running_requests": 32,
}
# Secrets the demo does not need, given to the job anyway so that the scan below can look for them: a hub token
# and a proxy with credentials (the install is offline, and NO_PROXY covers every host).
CANARIES = {"hf_token": "hf_e2eCanaryToken4Rb8Wz", "proxy_password": "e2e-proxy-pass-9Vx3"}
CANARY_VARS = {
    "sglang_install_hf_token": CANARIES["hf_token"],
    "sglang_install_environment": {"HTTPS_PROXY": "http://proxyuser:%s@127.0.0.1:9" % CANARIES["proxy_password"], "NO_PROXY": "*"},
}


def _missing_prerequisites():
    if os.geteuid() != 0:
        return "needs root (fake node's mount namespace, podman)"
    for tool in ("podman", "sshd", "openssl", "ssh-keygen"):
        if not shutil.which(tool) and not os.path.exists(f"/usr/sbin/{tool}"):
            return f"{tool} is not installed (make bootstrap)"
    if subprocess.run(["podman", "image", "exists", demo_env.IMAGE], check=False).returncode != 0:
        return f"{demo_env.IMAGE} is missing (make image)"
    return None


pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(_missing_prerequisites() is not None, reason=str(_missing_prerequisites())),
]


@pytest.fixture(name="standins")
def standins_fixture(demo_standins):
    return demo_standins


def run_job(standins, tmp_path, ident, verbosity=0):
    private = tmp_path / "awx-job"
    (private / "env").mkdir(parents=True, exist_ok=True)
    result = ansible_runner.run(
        private_data_dir=str(private),
        project_dir=demo_env.REPO,
        playbook="playbooks/deploy.yml",
        inventory=os.path.join(demo_env.REPO, "inventories", "demo"),
        extravars=dict(CANARY_VARS, llmops_sglang_server_args=FIXED_ARGS, sglang_service_enabled=False),
        envvars={
            "ANSIBLE_COLLECTIONS_PATH": os.path.join(demo_env.REPO, ".build", "collections"),
            "LLMOPS_DEMO_STATE": standins["state"],
            "ANSIBLE_INJECT_FACT_VARS": "false",
            # The venv's ansible-playbook, as an execution environment would have it on PATH.
            "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
        },
        ident=ident,
        verbosity=verbosity,
        quiet=True,
    )
    return result, private


def test_deploy_changes_then_is_idempotent(standins, tmp_path):
    first, private = run_job(standins, tmp_path, "first", verbosity=4)
    assert first.status == "successful", first.stdout.read()[-4000:]
    assert first.stats["changed"].get("sglang-qwen36", 0) > 0
    assert not first.stats["failures"]

    events = list(first.events)
    plays = [e["event_data"]["play"] for e in events if e["event"] == "playbook_on_play_start"]
    assert plays == [
        "Preflight the SGLang memory budget",
        "Create the LXC container with GPU passthrough",
        "Install the NVIDIA userspace that matches the node's driver",
        "Install SGLang and the model",
        "Run the SGLang service",
        "Report what was deployed and what was verified",
    ]
    budget = next(
        e["event_data"]["res"] for e in events if e["event"] == "runner_on_ok" and e["event_data"]["task"] == "Replay SGLang's startup memory accounting"
    )
    assert budget["verdict"] in ("fits", "degraded") and budget["budget"]["totals"]["max_running_requests"] == 32
    report = next(e["event_data"]["res"]["msg"] for e in events if e["event"] == "runner_on_ok" and e["event_data"]["task"].startswith("Report the deployment"))
    # The userspace matches the node's module; what needs a GPU says so instead of claiming success.
    assert "'nvidia_smi': 'skipped-without-gpu'" in report["nvidia_userspace"]
    assert "'device_nodes': 'skipped-without-gpu'" in report["nvidia_userspace"]
    assert report["sglang"].startswith("0.5.9")
    # AWX reads these artifacts.
    artifacts = private / "artifacts" / "first"
    assert (artifacts / "rc").read_text().strip() == "0"
    assert glob.glob(str(artifacts / "job_events" / "*.json"))

    # Issue 15: at -vvvv, no secret in the job's stdout, its events (what AWX stores and shows) or the unit file.
    unit = tmp_path / "sglang.service"
    unit.write_bytes(
        subprocess.run(["podman", "exec", standins["container"], "cat", "/etc/systemd/system/sglang.service"], check=True, capture_output=True).stdout
    )
    secrets = dict(CANARIES, pve_root_password=standins["root_password"], api_key=standins["api_key"])
    assert all(len(value) >= 8 for value in secrets.values())
    assert secret_scan.scan([str(private / "artifacts"), str(unit)], secrets) == []
    assert "ESTABLISH" in (artifacts / "stdout").read_text()  # the job really ran at -vvv or more

    # What the fake PVE recorded: container 129 exists with the GPUs' devN entries, and it runs.
    state = json.loads(
        subprocess.run(
            ["curl", "-s", "--unix-socket", os.path.join(standins["state"], "fakepve.sock"), "http://fakepve/state"], check=True, capture_output=True, text=True
        ).stdout
    )
    container = next(ct for ct in state["cts"] if int(ct["vmid"]) == 129)
    assert container["status"] == "running"
    devices = [str(v) for k, v in container["config"].items() if k.startswith("dev")]
    assert any("/dev/nvidia0" in d for d in devices) and any("/dev/nvidia1" in d for d in devices)
    assert any("/dev/nvidia-uvm" in d for d in devices)

    if not FULL:
        return
    second = run_job(standins, tmp_path, "second")[0]
    assert second.status == "successful", second.stdout.read()[-4000:]
    assert second.stats["changed"].get("sglang-qwen36", 0) == 0, [
        (e["event_data"]["task"], e["event_data"].get("res", {}).get("msg", ""))
        for e in second.events
        if e["event"] == "runner_on_ok" and e["event_data"].get("res", {}).get("changed")
    ]
