# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stand-ins that let deploy.yml run end to end on a machine without Proxmox or a GPU.

What stands for what (nothing here is presented as the real thing):

- **Proxmox VE API**: fakepve (tests/integration/pct_standin/fakepve_serve.py), which validates every request
  against the real PVE API schema, with permission checks on, over TLS on 127.0.0.1. The role verifies its
  certificate (``proxmox_lxc_ca_path``): TLS verification stays on.
- **The Proxmox node**: the machine's own sshd on 127.0.0.1 in a private mount namespace
  (pct_standin/fakenode.py) where ``nvidia-smi``, ``/proc/driver/nvidia`` and ``/dev/nvidia*`` describe the
  incident's 2x RTX A6000 (declared, not real) and ``pct`` is a stand-in that acts on fakepve as root@pam.
- **LXC container 129**: a podman container with systemd as PID 1 (image localhost/debian-systemd:bookworm);
  ``pct exec 129 -- ...`` on the fake node runs ``podman exec`` in it. Ansible reaches it through the
  production connection path, community.proxmox.proxmox_pct_remote: SSH to the node, then ``pct exec``.

Usage: python demo_env.py up|down [--state DIR]   (root; podman and the image must exist: `make bootstrap`)
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
STANDIN = os.path.join(HERE, "pct_standin")
DEFAULT_STATE = os.path.join(REPO, ".build", "demo")
API_PORT = 18106
SSH_PORT = 18122
VMID = 129
CONTAINER = "llmops-demo-ct129"
HOSTNAME = "sglang-qwen36"
IMAGE = "localhost/debian-systemd:bookworm"
TEMPLATE = "local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst"
WHEELHOUSE = os.path.join(REPO, ".cache", "demo-wheelhouse")
MODEL_DIR = "/srv/models/Qwen3.6-27B"
QWEN36_CONFIG = os.path.join(REPO, "tests", "fixtures", "model-configs", "Qwen__Qwen3.6-27B", "config.json")

# The incident's node: 2x RTX A6000 (49140 MiB each, SM 8.6). Declared, since no GPU exists here.
NODE = {
    # Debian bookworm's packaged driver, so that the userspace stage installs the exact match for real.
    "driver_version": "535.261.03",
    "uvm_major": 508,
    "caps_major": 511,
    "caps": [],
    "uvm_present": False,
    "gpus": [
        {
            "index": 0,
            "minor": 0,
            "uuid": "GPU-83f78936-a6e1-3cb8-b6ab-41dd1af7bbd9",
            "name": "NVIDIA RTX A6000",
            "pci_bus_id": "00000000:41:00.0",
            "memory_total_mib": 49140,
            "memory_used_mib": 0,
            "compute_cap": "8.6",
        },
        {
            "index": 1,
            "minor": 1,
            "uuid": "GPU-0c67f372-5dab-cffc-3384-39877429a610",
            "name": "NVIDIA RTX A6000",
            "pci_bus_id": "00000000:CA:00.0",
            "memory_total_mib": 49140,
            "memory_used_mib": 0,
            "compute_cap": "8.6",
        },
    ],
}


def _run(*argv, check=True, **kwargs):
    return subprocess.run(list(argv), check=check, text=True, capture_output=True, **kwargs)


def _wait_port(port, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout:.0f} s")


def _spawn(state, name, argv, env=None):
    log = open(os.path.join(state, f"{name}.log"), "w")  # pylint: disable=consider-using-with
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=state, env=env, start_new_session=True)
    with open(os.path.join(state, f"{name}.pid"), "w") as handle:
        handle.write(str(proc.pid))


def _write_json(path, data):
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
        json.dump(data, handle, indent=2)


def demo_settings(state):
    """The settings the demo inventory reads. The PVE root password and the SGLang API key are separate secrets."""
    return {
        "state": state,
        "repo": REPO,
        "wheelhouse": WHEELHOUSE,
        "api_port": API_PORT,
        "ssh_port": SSH_PORT,
        "vmid": VMID,
        "container": CONTAINER,
        "hostname": HOSTNAME,
        "template": TEMPLATE,
        "ca_path": os.path.join(state, "fakepve.crt"),
        "private_key": os.path.join(state, "id_ed25519"),
        "known_hosts": os.path.join(state, "known_hosts"),
        "root_password": secrets.token_urlsafe(18),
        "api_key": secrets.token_urlsafe(24),
        "node": NODE,
    }


def up(state, access=None):
    """Start fakepve, the fake node and the container; write the settings the demo inventory reads.

    access: API tokens of users other than root@pam and their ACL, for fakepve (fakepve_serve.py --access).
    """
    down(state)
    os.makedirs(state, mode=0o700, exist_ok=True)
    _run(
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=fakepve",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "-keyout",
        os.path.join(state, "fakepve.key"),
        "-out",
        os.path.join(state, "fakepve.crt"),
    )
    _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "llmops-demo", "-f", os.path.join(state, "id_ed25519"))
    settings = demo_settings(state)
    password = settings["root_password"]
    _write_json(os.path.join(state, "settings.json"), settings)
    # For the secrets scan of `make e2e` (scripts/secret_scan.py): this run's generated secrets.
    canaries = os.path.join(REPO, ".build", "secret-canaries")
    os.makedirs(canaries, mode=0o700, exist_ok=True)
    _write_json(os.path.join(canaries, "demo.json"), {"demo PVE root@pam password": password, "demo SGLang API key": settings["api_key"]})
    _write_json(os.path.join(state, "node.json"), NODE)
    _write_json(
        os.path.join(state, "pct.json"),
        {
            "log": os.path.join(state, "pct.log"),
            "scratch": os.path.join(state, "ct"),
            "api": {"url": f"https://127.0.0.1:{API_PORT}", "node": "pve1", "user": "root@pam", "password": password, "cafile": settings["ca_path"]},
            "podman": {str(VMID): CONTAINER},
        },
    )

    # The container that PVE would create from the template: booted first, so that `pct exec` has a target.
    _run("podman", "rm", "-f", CONTAINER, check=False)
    _run("podman", "run", "-d", "--name", CONTAINER, "--hostname", HOSTNAME, "--systemd=always", IMAGE, "/sbin/init")
    deadline = time.monotonic() + 60
    while True:
        status = _run("podman", "exec", CONTAINER, "systemctl", "is-system-running", check=False).stdout.strip()
        if status in ("running", "degraded"):
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"systemd in {CONTAINER} did not come up: {status}")
        time.sleep(0.5)

    env = dict(os.environ, ROOT_PASSWORD=password)
    fakepve = [
        sys.executable,
        os.path.join(STANDIN, "fakepve_serve.py"),
        "--port",
        str(API_PORT),
        "--cert",
        "fakepve.crt",
        "--key",
        "fakepve.key",
        "--control",
        "fakepve.sock",
        # --password=VALUE: a generated password may begin with "-"
        "--password=" + password,
        "--template",
        TEMPLATE,
    ]
    if access:
        _write_json(os.path.join(state, "access.json"), access)
        fakepve += ["--access", "access.json"]
    _spawn(state, "fakepve", fakepve, env=env)
    _spawn(
        state,
        "fakenode",
        [
            "/usr/bin/python3",
            os.path.join(STANDIN, "fakenode.py"),
            "start",
            "--state",
            os.path.join(state, "node"),
            "--port",
            str(SSH_PORT),
            "--authorized-key",
            "id_ed25519.pub",
            "--node-data",
            "node.json",
            "--pct-config",
            "pct.json",
        ],
    )
    _wait_port(API_PORT)
    _wait_port(SSH_PORT)
    with open(os.path.join(state, "node", "ssh", "ssh_host_ed25519_key.pub")) as handle:
        key = " ".join(handle.read().split()[:2])
    with open(settings["known_hosts"], "w") as handle:
        handle.write(f"[127.0.0.1]:{SSH_PORT} {key}\n")
    return settings


def stage_wheels():
    """Download the real SGLang 0.5.9 wheel (without its dependencies) and uv once, for an offline install.

    The containers reach PyPI only through a TLS-intercepting proxy here, so the demo inventory installs from
    this wheelhouse (sglang_install_wheelhouse_src).
    """
    os.makedirs(WHEELHOUSE, exist_ok=True)
    base = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--dest",
        WHEELHOUSE,
        "--only-binary=:all:",
        "--python-version=3.11",
        "--implementation=cp",
        "--platform=manylinux_2_36_x86_64",
        "--platform=manylinux_2_28_x86_64",
        "--platform=manylinux_2_17_x86_64",
        "--platform=manylinux2014_x86_64",
        "--platform=any",
    ]
    for args, prefix in ((["--no-deps", "sglang==0.5.9"], "sglang-0.5.9"), (["uv"], "uv-")):
        if not any(name.startswith(prefix) for name in os.listdir(WHEELHOUSE)):
            _run(*(base + args))


def place_model(settings):
    """Put the model directory in the container: the real config.json of Qwen3.6-27B and one small
    placeholder shard (a valid safetensors file) standing in for 55 GB of weights that cannot be downloaded here.
    """
    header = json.dumps(
        {
            "__metadata__": {"format": "pt", "llmops_demo": "placeholder shard, not Qwen3.6 weights"},
            "placeholder": {"dtype": "BF16", "shape": [4, 8], "data_offsets": [0, 64]},
        }
    ).encode()
    header += b" " * (-len(header) % 8)
    shard = os.path.join(settings["state"], "model.safetensors")
    with open(shard, "wb") as handle:
        handle.write(len(header).to_bytes(8, "little") + header + bytes(64))
    container = settings["container"]
    _run("podman", "exec", container, "mkdir", "-p", MODEL_DIR)
    _run("podman", "cp", QWEN36_CONFIG, f"{container}:{MODEL_DIR}/config.json")
    _run("podman", "cp", shard, f"{container}:{MODEL_DIR}/model.safetensors")


def down(state):
    """Stop what `up` started, by PID and by container name."""
    for name in ("fakenode", "fakepve"):
        pidfile = os.path.join(state, f"{name}.pid")
        if not os.path.exists(pidfile):
            continue
        with open(pidfile) as handle:
            pid = int(handle.read().strip() or 0)
        try:
            os.killpg(pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
        os.unlink(pidfile)
    _run("podman", "rm", "-f", "-t", "2", CONTAINER, check=False)
    if os.path.isdir(state):
        shutil.rmtree(state, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["up", "down"])
    parser.add_argument("--state", default=DEFAULT_STATE)
    parser.add_argument("--with-model", action="store_true", help="also stage the offline wheelhouse and put the model directory in the container")
    args = parser.parse_args()
    if args.action == "up":
        if args.with_model:
            stage_wheels()
        settings = up(args.state)
        if args.with_model:
            place_model(settings)
        print(json.dumps({k: v for k, v in settings.items() if k not in ("root_password", "api_key")}, indent=2))
    else:
        down(args.state)


if __name__ == "__main__":
    main()
