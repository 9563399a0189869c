# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hosts for the testinfra checks of the scale_out scenario.

The containers (systemd as PID 1, standing in for the LXC guests: two members of replica_a, the one member of
replica_b, the gateway) are reached with testinfra's podman backend; fakepve, which holds their records on pve1
and pve2, through its control socket. The scenario's variables come from its inventory (inventory/).
"""

import os
import sys

import pytest
import testinfra
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
INTEGRATION = os.path.join(HERE, "..", "..", "..", "..", "tests", "integration")
sys.path[:0] = [INTEGRATION, os.path.join(INTEGRATION, "pct_standin")]
import fakepve_control  # noqa: E402  (the stand-ins' own client, beside fakepve_serve.py)
import testinfra_support  # noqa: E402  (the checks the scenarios' verifiers share)


def _inventory(*parts):
    with open(os.path.join(HERE, "..", "inventory", *parts)) as handle:
        return yaml.safe_load(handle)


@pytest.fixture(scope="module")
def host():
    """host(name): one container, through `podman exec`."""
    return lambda name: testinfra.get_host("podman://" + name)


@pytest.fixture(scope="module")
def members():
    """The members' host_vars by container name."""
    return {name: _inventory("host_vars", name + ".yml") for name in ("scale-a0", "scale-a1", "scale-b0")}


@pytest.fixture(scope="module")
def member_vars():
    return _inventory("group_vars", "sglang_containers.yml")


@pytest.fixture(scope="module")
def gateway_vars():
    return {**_inventory("group_vars", "all.yml"), **_inventory("group_vars", "sglang_gateway.yml")}


@pytest.fixture(scope="module")
def fakepve_state():
    """What fakepve recorded: its containers (vmid, node, config), tasks and requests."""
    state = os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "scale-out")
    return fakepve_control.read_state(os.path.join(state, "control.sock"))


@pytest.fixture(scope="module")
def files_holding():
    """files_holding(container, value, user=None): the container's files that hold VALUE, searched as USER."""
    return testinfra_support.files_holding
