# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The README's quickstart, run as written, against the stand-ins of demo_env.py.

The blocks between ``<!-- BEGIN quickstart -->`` and ``<!-- END quickstart -->`` are run in order, in one bash
with ``set -euo pipefail``, from the checkout, with HOME set to a fresh directory and no collection path set:
``bash`` blocks line by line, ``yaml <path>`` blocks written to their path. What stands for what:

- ``bash pve-node`` blocks (``pveum`` on the node): fakepve is started with the token and the privileges that
  they name, parsed from the README, so the deploy runs with exactly those privileges and no others.
- A value on a line marked ``# yours`` is the site's own: the node's address becomes the stand-in node's
  (127.0.0.1) and the token secret the one fakepve holds. A bash line marked ``# yours`` (copying the node's CA)
  copies the stand-in's CA. The download of config.json from the hub copies the same real file from
  tests/fixtures/model-configs (its source is noted there).
- The stand-ins' own wiring (their ports, SSH key and pinned host key, no GPU, the offline wheelhouse and the
  model directory placed in the container, Debian's packaged driver) is one extra file,
  ``inventory/group_vars/all/standins.yml``, that a real site does not have; the README's files lose to it
  nowhere, since group_vars/all has the lowest precedence of the inventory.

Everything runs the collection installed from the built tarball, never the checkout. ``make test`` runs the
quickstart up to and including the preflight; the deploy line runs under ``make test-full`` (LLMOPS_E2E_FULL=1),
after the AWX-way deploy of test_deploy_runner.py on the same stand-ins when both run (CT 129 then exists), from
scratch when alone: a deploy through the container connection takes 4 to 5 minutes, more than CI's time budget
leaves.
"""

import json
import os
import re
import shlex
import subprocess
import sys

import pytest
import yaml

import demo_env

FULL = os.environ.get("LLMOPS_E2E_FULL") == "1"
DEPLOY = "ansible-playbook -i inventory llmops.sglang.deploy"

README = os.path.join(demo_env.REPO, "README.md")
TOKEN_USER = "llmops@pve"
BLOCK = re.compile(r"^```(\w+)[ \t]*([^\n]*)\n(.*?)^```", re.S | re.M)


def quickstart_blocks():
    """The quickstart's fenced blocks, as (language, info, body)."""
    with open(README, encoding="utf-8") as handle:
        text = handle.read()
    section = text.split("<!-- BEGIN quickstart -->", 1)[1].split("<!-- END quickstart -->", 1)[0]
    return BLOCK.findall(section)


def pveum_access(blocks, secret):
    """fakepve's tokens and ACL from the README's pveum commands: the token gets the role's privileges."""
    commands = [shlex.split(line) for lang, info, body in blocks if info == "pve-node" for line in body.splitlines()]
    roles = {argv[3]: argv[argv.index("-privs") + 1].split(",") for argv in commands if argv[1:3] == ["role", "add"]}
    tokens, grants = {}, []
    for argv in commands:
        if argv[1:4] == ["user", "token", "add"]:
            tokens["%s!%s" % (argv[4], argv[5])] = secret
        if argv[1:3] == ["acl", "modify"] and "--tokens" in argv:
            role = argv[argv.index("--roles") + 1]
            grants.append([argv[argv.index("--tokens") + 1], argv[3], roles[role]])
    return {"tokens": tokens, "grants": grants}


def site_values(secret):
    """Stand-in values for the keys of the README's `# yours` YAML lines that differ on the stand-ins."""
    return {"ansible_host": "127.0.0.1", "vault_proxmox_token_secret": secret}


def yaml_with_site_values(body, values):
    lines = []
    for line in body.splitlines():
        match = re.match(r"^(\s*)([\w.-]+):\s*(\S[^#]*?)?\s*(#.*# yours|# yours)\s*$", line)
        if match and match.group(2) in values:
            line = "%s%s: %s" % (match.group(1), match.group(2), json.dumps(values[match.group(2)]))
        lines.append(line)
    return "\n".join(lines) + "\n"


def bash_line_for_standins(line, settings):
    """The README's line, or what stands in for it where it reaches beyond the controller."""
    if "https://huggingface.co/" in line:
        target = shlex.split(line)[shlex.split(line).index("-o") + 1]
        return "cp %s %s" % (shlex.quote(demo_env.QWEN36_CONFIG), target)
    if line.rstrip().endswith("# yours") and line.startswith("scp "):
        return "cp %s %s" % (shlex.quote(settings["ca_path"]), shlex.split(line, comments=True)[-1])
    return line


def standins_vars(settings):
    """What only the stand-ins need (the demo inventory's wiring, inventories/demo)."""
    node = {
        "ansible_port": settings["ssh_port"],
        "ansible_ssh_private_key_file": settings["private_key"],
        "ansible_ssh_common_args": "-o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes" % settings["known_hosts"],
    }
    return dict(
        node,
        ansible_python_interpreter="/usr/bin/python3",
        # paramiko (proxmox_pct_remote) reads only ~/.ssh/known_hosts; the node's key is pinned above for SSH.
        ansible_host_key_checking=False,
        proxmox_lxc_api_port=settings["api_port"],
        proxmox_lxc_cores=4,
        proxmox_lxc_memory=6144,
        proxmox_lxc_rootfs_size=120,
        proxmox_lxc_model_size_bytes=55562855904,
        llmops_sglang_require_gpu=False,
        sglang_service_enabled=False,
        sglang_install_model_source="path",
        sglang_install_model_path=demo_env.MODEL_DIR,
        sglang_install_dependencies=False,
        sglang_install_wheelhouse_src=settings["wheelhouse"],
        sglang_install_wheelhouse="/opt/sglang/wheelhouse",
        sglang_install_offline=True,
        nvidia_userspace_method="apt",
        nvidia_userspace_apt_sources=[
            {
                "name": "debian-nonfree",
                "types": ["deb"],
                "uris": ["http://deb.debian.org/debian"],
                "suites": ["bookworm", "bookworm-updates"],
                "components": ["contrib", "non-free"],
                "signed_by": "/usr/share/keyrings/debian-archive-keyring.gpg",
            }
        ],
    )


def quickstart_script(blocks, settings, secret, home, deploy):
    """One bash script: the README's blocks in order, each line echoed before it runs; the deploy line only if deploy."""
    values = site_values(secret)
    out = ["set -euo pipefail", "cd %s" % shlex.quote(demo_env.REPO)]
    wired = False
    for lang, info, body in blocks:
        if lang == "yaml":
            path = info.strip().replace("~", home, 1)
            out.append("mkdir -p %s" % shlex.quote(os.path.dirname(path)))
            out.append("cat > %s <<'QUICKSTART_EOF'\n%sQUICKSTART_EOF" % (shlex.quote(path), yaml_with_site_values(body, values)))
            if path.endswith("inventory/hosts.yml") and not wired:
                wiring = os.path.join(os.path.dirname(path), "group_vars", "all", "standins.yml")
                out.append("mkdir -p %s" % shlex.quote(os.path.dirname(wiring)))
                out.append("cat > %s <<'QUICKSTART_EOF'\n%s\nQUICKSTART_EOF" % (shlex.quote(wiring), yaml.safe_dump(standins_vars(settings), sort_keys=True)))
                wired = True
        elif lang == "bash" and info != "pve-node":
            for line in body.splitlines():
                if line == DEPLOY and not deploy:
                    break
                line = bash_line_for_standins(line, settings)
                out.append("echo %s" % shlex.quote("+ " + line))
                out.append(line)
    assert wired, "the quickstart has no inventory/hosts.yml block"
    return "\n".join(out) + "\n"


def _missing_prerequisites():
    if os.geteuid() != 0:
        return "needs root (fake node's mount namespace, podman)"
    if subprocess.run(["podman", "image", "exists", demo_env.IMAGE], check=False, capture_output=True).returncode != 0:
        return f"{demo_env.IMAGE} is missing (make image)"
    return None


def test_the_quickstart_parses_into_what_the_run_needs():
    """The README keeps the blocks this test runs: a token with a role, an inventory, preflight then deploy."""
    blocks = quickstart_blocks()
    access = pveum_access(blocks, "s")
    assert list(access["tokens"]) == ["%s!sglang" % TOKEN_USER]
    assert access["grants"][0][0] == "%s!sglang" % TOKEN_USER and "VM.Allocate" in access["grants"][0][2]
    commands = [line for lang, info, body in blocks if lang == "bash" and not info for line in body.splitlines()]
    playbooks = [line for line in commands if line.startswith("ansible-playbook")]
    assert playbooks == ["ansible-playbook -i inventory llmops.sglang.preflight", "ansible-playbook -i inventory llmops.sglang.deploy"]
    files = [info for lang, info, body in blocks if lang == "yaml"]
    assert "~/llmops/inventory/hosts.yml" in files
    for lang, info, body in blocks:
        if lang == "yaml":
            assert yaml.safe_load(yaml_with_site_values(body, site_values("s"))), info


@pytest.mark.e2e
@pytest.mark.skipif(_missing_prerequisites() is not None, reason=str(_missing_prerequisites()))
def test_the_readme_quickstart_runs_as_written_from_the_tarball(demo_standins, tmp_path):
    settings = demo_standins
    blocks = quickstart_blocks()
    home = str(tmp_path / "home")
    os.makedirs(home)
    script = quickstart_script(blocks, settings, settings["quickstart_token_secret"], home, deploy=FULL)
    env = {name: value for name, value in os.environ.items() if not name.startswith(("ANSIBLE_", "PY_COLORS")) and name not in ("HOME", "VIRTUAL_ENV")}
    env.update(HOME=home, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"], ANSIBLE_NOCOLOR="true", LLMOPS_DEMO_STATE=settings["state"])
    run = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, check=False, timeout=1800)
    log = run.stdout + run.stderr
    (tmp_path / "quickstart.log").write_text(log)
    assert run.returncode == 0, log[-6000:]
    assert settings["quickstart_token_secret"] not in log

    installed = os.path.join(home, "llmops", "collections", "ansible_collections", "llmops", "sglang")
    assert os.path.isfile(os.path.join(installed, "MANIFEST.json")) and not os.path.islink(installed)
    preflight, deploy = (log.split("+ " + DEPLOY, 1) + [""])[:2]
    assert "Replay SGLang's startup memory accounting" in preflight
    assert re.search(r"sglang-qwen36\s*: ok=\d+\s+changed=\d+\s+unreachable=0\s+failed=0", preflight), preflight[-3000:]
    listed = subprocess.run(
        ["ansible-galaxy", "collection", "list", "llmops.sglang", "--format", "json"],
        env=dict(env, ANSIBLE_COLLECTIONS_PATH=os.path.join(home, "llmops", "collections")),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert list(json.loads(listed)) == [os.path.dirname(os.path.dirname(installed))], listed
    assert "none: fits: SGLang 0.5.9, Qwen3_5ForConditionalGeneration, TP 2" in preflight, preflight[-3000:]
    with open(os.path.join(home, "llmops", "inventory", "group_vars", "sglang_containers", "vault.yml")) as handle:
        assert handle.read().startswith("$ANSIBLE_VAULT;")
    if not FULL:
        assert not deploy
        return
    # The node's tasks are delegated from the container's host, so the container's recap line covers them.
    assert re.search(r"sglang-qwen36\s*: ok=\d+\s+changed=\d+\s+unreachable=0\s+failed=0", deploy), deploy[-3000:]

    state = json.loads(
        subprocess.run(
            ["curl", "-s", "--unix-socket", os.path.join(settings["state"], "fakepve.sock"), "http://fakepve/state"], check=True, capture_output=True, text=True
        ).stdout
    )
    container = next(ct for ct in state["cts"] if int(ct["vmid"]) == demo_env.VMID)
    devices = [str(v) for k, v in container["config"].items() if k.startswith("dev")]
    assert any("/dev/nvidia0" in d for d in devices) and any("/dev/nvidia1" in d for d in devices)
