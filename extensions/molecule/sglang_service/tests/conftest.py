"""Hosts for the testinfra checks of the sglang_service scenario.

The container (systemd as PID 1, standing in for the LXC guest) is reached with testinfra's podman backend;
the scenario's variables (its test secrets and server arguments) come from molecule's inventory through
testinfra's ansible backend.
"""

import pytest
import testinfra

CONTAINER = "sglang-service-bookworm"


@pytest.fixture(scope="module")
def guest():
    """The container, through `podman exec`."""
    return testinfra.get_host("podman://" + CONTAINER)


@pytest.fixture(scope="module")
def scenario_vars(pytestconfig):
    """The scenario's inventory variables, as converge saw them (before the behaviour checks rotate the keys)."""
    inventory = testinfra.get_host("ansible://" + CONTAINER, ansible_inventory=pytestconfig.option.ansible_inventory)
    return inventory.ansible.get_variables()
