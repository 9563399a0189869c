# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""`make demo`: the collection's main job on a machine with neither Proxmox nor a GPU.

1. The incident's preflight (inventories/example: 2x RTX A6000, TP 2, Qwen3.6-27B, SGLang 0.5.9, NEXTN 3/1/4):
   it fails in seconds with the root cause and computed fixes, before anything is downloaded or started.
2. The preflight's top fix applied: the same engine now predicts a start.
3. The fixed configuration deployed with playbooks/deploy.yml through every stage that needs no GPU, against
   the stand-ins of tests/integration/demo_env.py (fakepve, a fake node over loopback SSH with a `pct`
   stand-in, a podman container with systemd as PID 1 for LXC 129).
4. A plain statement of what was skipped for lack of a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))

import demo_env  # noqa: E402  pylint: disable=wrong-import-position

VENV_BIN = os.path.dirname(sys.executable)
LOG_DIR = os.path.join(REPO, ".build", "demo-logs")


def ansible_env(json_output=False):
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=os.path.join(REPO, ".build", "collections"),
        ANSIBLE_INJECT_FACT_VARS="false",
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_DEPRECATION_WARNINGS="false",
        PATH=VENV_BIN + os.pathsep + os.environ["PATH"],
    )
    if json_output:
        env.update(ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json", ANSIBLE_LOAD_CALLBACK_PLUGINS="1")
    return env


def heading(text):
    print(f"\n== {text}", flush=True)


def preflight(server_args=None, version=None):
    """Run playbooks/preflight.yml on the example inventory; return (budget result, seconds)."""
    argv = [os.path.join(VENV_BIN, "ansible-playbook"), "-i", "inventories/example", "playbooks/preflight.yml"]
    extra = {}
    if server_args is not None:
        extra["llmops_sglang_server_args"] = server_args
    if version:
        extra["llmops_sglang_version"] = version
    if extra:
        argv += ["-e", json.dumps(extra)]
    start = time.monotonic()
    proc = subprocess.run(argv, cwd=REPO, env=ansible_env(json_output=True), capture_output=True, text=True, check=False)
    elapsed = time.monotonic() - start
    report = json.loads(proc.stdout)
    for play in report["plays"]:
        for task in play["tasks"]:
            if task["task"]["name"] == "Replay SGLang's startup memory accounting":
                return next(iter(task["hosts"].values())), elapsed
    raise SystemExit(f"the preflight did not run: {proc.stderr.strip() or proc.stdout[-2000:]}")


def show_budget(result, elapsed):
    totals = result["budget"]["totals"]
    print(f"verdict {result['verdict']} / root cause {result['root_cause']} (in {elapsed:.1f} s, nothing loaded)")
    print(f"  {result['msg']}")
    if result["verdict"] != "fails":
        print(
            f"  max_total_num_tokens {totals['max_total_num_tokens']:,}, max_running_requests "
            f"{totals['max_running_requests']}, context {totals['context_len']:,}"
        )
    for line in result.get("warnings", []):
        print(f"  warning: {line}")


def deploy(server_args, log_path):
    """Run playbooks/deploy.yml on the demo inventory, streaming one line per play; return (rc, output)."""
    argv = [
        os.path.join(VENV_BIN, "ansible-playbook"),
        "-i",
        "inventories/demo",
        "playbooks/deploy.yml",
        "-e",
        json.dumps(
            {
                "llmops_sglang_server_args": server_args,
                # No GPU: configure the unit, do not start SGLang (see the statement below).
                "sglang_service_enabled": False,
            }
        ),
    ]
    lines = []
    with open(log_path, "w") as log:
        proc = subprocess.Popen(argv, cwd=REPO, env=ansible_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            log.write(line)
            lines.append(line)
            if line.startswith("PLAY [") or line.startswith("fatal:") or line.startswith("[ERROR]"):
                print("  " + line.rstrip().rstrip("*").rstrip(), flush=True)
        proc.wait()
    return proc.returncode, "".join(lines)


def deployment_report(output):
    """The `Report the deployment` task's message, as printed by the default callback."""
    match = re.search(r"TASK \[Report the deployment[^\n]*\n(?:ok|changed): \[[^]]+\] => (\{.*?^\})", output, re.M | re.S)
    return json.loads(match.group(1))["msg"] if match else {}


def recap(output):
    match = re.search(r"^(sglang-qwen36\s*:.*)$", output, re.M)
    return match.group(1) if match else "no recap"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="leave the stand-ins running afterwards")
    args = parser.parse_args()
    os.makedirs(LOG_DIR, exist_ok=True)

    heading("1. Preflight of the incident: SGLang 0.5.9, 2x RTX A6000, TP 2, Qwen3.6-27B, --mem-fraction-static 0.85, 65K context, NEXTN 3/1/4")
    incident, elapsed = preflight()
    show_budget(incident, elapsed)
    if incident["verdict"] != "fails":
        raise SystemExit("demo: the incident's preflight was expected to fail")
    print("  fixes, least capacity lost first (each re-computed by the same engine):")
    for line in incident["fixes_cli"]:
        print(f"    {line}")
    newer, elapsed = preflight(version="0.5.23")
    print(
        f"  the same flags under SGLang 0.5.23: {newer['verdict']} ({newer['root_cause']}), "
        f"max_running_requests {newer['budget']['totals']['max_running_requests']}"
    )

    fix = incident["fixes"][0]["changes"]
    with open(os.path.join(REPO, "inventories", "demo", "group_vars", "sglang_containers.yml")) as handle:
        import yaml  # pylint: disable=import-outside-toplevel

        fixed_args = dict(yaml.safe_load(handle)["llmops_sglang_server_args"])
    fixed_args.update(fix)
    fixed_args = {k: v for k, v in fixed_args.items() if v is not None}
    heading(f"2. The top fix applied ({', '.join(f'{k}={v}' for k, v in fix.items())})")
    fixed, elapsed = preflight(server_args=fixed_args)
    show_budget(fixed, elapsed)
    if fixed["verdict"] == "fails":
        raise SystemExit("demo: the fixed configuration was expected to start")

    heading("3. Deploy the fixed configuration: fakepve + fake node (loopback SSH, pct stand-in) + podman container 129 with systemd")
    demo_env.stage_wheels()
    settings = demo_env.up(demo_env.DEFAULT_STATE)
    try:
        demo_env.place_model(settings)
        start = time.monotonic()
        rc, output = deploy(dict(fixed_args, model_path=demo_env.MODEL_DIR), os.path.join(LOG_DIR, "deploy.log"))
        print(f"  {recap(output)}   ({time.monotonic() - start:.0f} s; full log: .build/demo-logs/deploy.log)")
        if rc != 0:
            raise SystemExit(f"demo: deploy.yml failed (rc={rc}); see .build/demo-logs/deploy.log")
        for key, value in deployment_report(output).items():
            print(f"  {key}: {' '.join(str(value).split())}")
        unit = subprocess.run(
            ["podman", "exec", settings["container"], "systemctl", "cat", "sglang.service"], capture_output=True, text=True, check=False
        ).stdout
        execstart = []
        exec_start = unit.find("ExecStart=")
        for line in unit[exec_start:].splitlines():
            execstart.append(line.rstrip("\\").strip())
            if not line.endswith("\\"):
                break
        print("  the unit's command line, from flags validated against SGLang 0.5.9's own flag list:")
        print("    " + " ".join(execstart))
    finally:
        if not args.keep:
            demo_env.down(demo_env.DEFAULT_STATE)

    heading("4. Skipped for lack of a GPU (nothing below is claimed to have passed)")
    for line in (
        "NVIDIA userspace: installed for real (Debian's packages pinned to the node's module, 535.261.03); "
        "nvidia-smi and device-node verification inside the container: skipped, no GPU",
        "GPU memory holders check before the start: skipped, no GPU (the declared A6000s were budgeted instead)",
        "SGLang start, readiness (/health, /get_model_info, generate), diagnosis and rollback: not run; SGLang "
        "needs a GPU and CUDA torch (the real 0.5.9 wheel was installed without its dependencies)",
        "Model: the real config.json with a 1 KB placeholder shard instead of 55 GB of weights",
    ):
        print(f"  - {line}")
    print("\ndemo: done")


if __name__ == "__main__":
    main()
