# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hosts for the testinfra checks of the sglang_service scenario.

The container (systemd as PID 1, standing in for the LXC guest) is reached with testinfra's podman backend;
the scenario's variables (its test secrets and server arguments) come from its group_vars/all.yml.
"""

import os
import sys

import pytest
import testinfra
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "integration"))
import testinfra_support  # noqa: E402  (the checks the scenarios' verifiers share)

CONTAINER = "sglang-service-bookworm"


@pytest.fixture(scope="module")
def guest():
    """The container, through `podman exec`."""
    return testinfra.get_host("podman://" + CONTAINER)


@pytest.fixture(scope="module")
def scenario_vars():
    """The scenario's group_vars, as converge saw them (before side_effect.yml rotates the keys)."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "group_vars", "all.yml")) as handle:
        return yaml.safe_load(handle)


@pytest.fixture(scope="module")
def files_holding():
    """files_holding(value, user=None): the guest's files that hold VALUE, searched as USER (default root)."""
    return lambda value, user=None: testinfra_support.files_holding(CONTAINER, value, user)
