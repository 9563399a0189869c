# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hosts for the testinfra checks of the end-to-end scenario (playbooks/deploy.yml against the stand-ins).

tests/integration/demo_env.py stands in for the Proxmox side: fakepve for the PVE API, a fake node over SSH on
loopback for the Proxmox host, and a podman container with systemd as PID 1 for LXC 129 (the node's `pct`
maps 129 to it). The settings it wrote (ports, keys, the container's name, this run's generated secrets) are
read from its state directory, $LLMOPS_DEMO_STATE.
"""

import json
import os
import subprocess
import sys

import pytest
import testinfra

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                                "tests", "integration", "pct_standin"))
import fakepve_control  # noqa: E402  (the stand-ins' own client, beside fakepve_serve.py)


@pytest.fixture(scope="module")
def demo():
    """demo_env.py's settings.json."""
    with open(os.path.join(os.environ["LLMOPS_DEMO_STATE"], "settings.json")) as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def guest(demo):
    """Container 129, through `podman exec` (the same container `pct exec 129` reaches on the node)."""
    return testinfra.get_host("podman://" + demo["container"])


@pytest.fixture(scope="module")
def node(demo):
    """The fake PVE node, over real SSH, as the demo inventory reaches it."""
    return testinfra.get_host(
        "ssh://root@127.0.0.1:%d" % demo["ssh_port"], ssh_identity_file=demo["private_key"],
        ssh_extra_args="-o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes" % demo["known_hosts"])


@pytest.fixture(scope="module")
def fakepve_state(demo):
    """What fakepve (the PVE API stand-in) was asked and did: its request log and tasks, from its control socket."""
    return fakepve_control.read_state(os.path.join(demo["state"], "fakepve.sock"))


@pytest.fixture(scope="module")
def files_holding(demo):
    """files_holding(value, user=None): the guest's files that hold VALUE, searched as USER (default root)."""
    return lambda value, user=None: search_guest(demo["container"], value, user)


def search_guest(container, value, user):
    """Files in the container that hold VALUE, searched as USER (root if None) over the whole filesystem.

    The value goes to grep on stdin (`podman exec -i`), never in an argv: journald records each logging
    process's command line, so a secret in grep's argv would land in the journal that the checks search.
    """
    prefix = ["runuser", "-u", user, "--"] if user else []
    search = subprocess.run(
        ["podman", "exec", "-i", container, *prefix, "grep", "-rlsF", "--exclude-dir=proc", "--exclude-dir=sys",
         "--exclude-dir=dev", "-f", "-", "/"],
        input=value + "\n", capture_output=True, text=True, check=False, timeout=300)
    # grep exits 1 without a hit and 2 after files it may not read, quietly (-s); hits go to stdout either way.
    # Anything on stderr is grep failing as a whole (its pattern unreadable, say): then nothing was searched.
    if search.returncode not in (0, 1, 2) or search.stderr:
        raise RuntimeError("grep in %s failed (%d): %s" % (container, search.returncode, search.stderr))
    return search.stdout.split()
