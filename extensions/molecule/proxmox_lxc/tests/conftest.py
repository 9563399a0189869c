# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hosts for the testinfra checks of the proxmox_lxc scenario.

No Proxmox host exists here. The fake node (tests/integration/pct_standin/fakenode.py: the machine's sshd in a
private mount namespace, with a `pct` stand-in backed by fakepve and the NVIDIA GPUs of vars/fake_node.yml)
is reached with testinfra's ssh backend, as the scenario's inventory reaches it: root on loopback port 18022,
the scenario's key, the host key pinned in the scenario's own known_hosts.
"""

import os
import sys

import pytest
import testinfra

INTEGRATION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "integration")
sys.path[:0] = [INTEGRATION, os.path.join(INTEGRATION, "pct_standin")]
import fakepve_control  # noqa: E402  (the stand-ins' own client, beside fakepve_serve.py)


@pytest.fixture(scope="module")
def state_dir():
    """The scenario's stand-in state: keys, fakepve's control socket, the node's overlay upper dirs."""
    return os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "plxc")


@pytest.fixture(scope="module")
def node(state_dir):
    """The fake PVE node, over real SSH."""
    return testinfra.get_host(
        "ssh://root@127.0.0.1:18022",
        ssh_identity_file=os.path.join(state_dir, "id_ed25519"),
        ssh_extra_args="-o UserKnownHostsFile={0} -o StrictHostKeyChecking=yes".format(os.path.join(state_dir, "known_hosts")),
    )


@pytest.fixture(scope="module")
def fakepve_state(state_dir):
    """What fakepve (the PVE API stand-in) was asked and did: its request log and tasks, from its control socket."""
    return fakepve_control.read_state(os.path.join(state_dir, "control.sock"))
