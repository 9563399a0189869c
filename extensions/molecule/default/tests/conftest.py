# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hosts for the testinfra checks of the end-to-end scenario (playbooks/deploy.yml against the stand-ins).

tests/integration/demo_env.py stands in for the Proxmox side: fakepve for the PVE API, a fake node over SSH on
loopback for the Proxmox host, and a podman container with systemd as PID 1 for LXC 129 (the node's `pct`
maps 129 to it). The settings it wrote (ports, keys, the container's name, this run's generated secrets) are
read from its state directory, $LLMOPS_DEMO_STATE.
"""

import json
import os
import sys

import pytest
import testinfra

INTEGRATION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "integration")
sys.path[:0] = [INTEGRATION, os.path.join(INTEGRATION, "pct_standin")]
import fakepve_control  # noqa: E402  (the stand-ins' own client, beside fakepve_serve.py)
import testinfra_support  # noqa: E402  (the checks the scenarios' verifiers share)


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
        "ssh://root@127.0.0.1:%d" % demo["ssh_port"],
        ssh_identity_file=demo["private_key"],
        ssh_extra_args="-o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes" % demo["known_hosts"],
    )


@pytest.fixture(scope="module")
def fakepve_state(demo):
    """What fakepve (the PVE API stand-in) was asked and did: its request log and tasks, from its control socket."""
    return fakepve_control.read_state(os.path.join(demo["state"], "fakepve.sock"))


@pytest.fixture(scope="module")
def files_holding(demo):
    """files_holding(value, user=None): the guest's files that hold VALUE, searched as USER (default root)."""
    return lambda value, user=None: testinfra_support.files_holding(demo["container"], value, user)
