# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hosts for the testinfra checks of the sglang_service scenario.

The container (systemd as PID 1, standing in for the LXC guest) is reached with testinfra's podman backend;
the scenario's variables (its test secrets and server arguments) come from its group_vars/all.yml.
"""

import os
import subprocess

import pytest
import testinfra
import yaml

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
    return lambda value, user=None: search_guest(CONTAINER, value, user)


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
