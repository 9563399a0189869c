# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hosts and inputs for the testinfra checks of the sglang_install scenario.

The container (systemd as PID 1, standing in for the LXC guest) is reached with testinfra's podman backend.
The host driver version is the one prepare read from Debian non-free and wrote to the scenario's state (no
kernel module exists here: it stands for the Proxmox host's).
"""

import json
import os

import pytest
import testinfra

CONTAINER = "sglang-install-bookworm"


@pytest.fixture(scope="module")
def guest():
    """The container, through `podman exec`."""
    return testinfra.get_host("podman://" + CONTAINER)


@pytest.fixture(scope="module")
def host_driver():
    """The host kernel module's version that the userspace must match exactly."""
    with open(os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "host_driver_version")) as handle:
        return handle.read().strip()


@pytest.fixture(scope="module")
def install_record(guest):
    """/opt/sglang/installed.json: what sglang_install hands to sglang_service."""
    return json.loads(guest.file("/opt/sglang/installed.json").content_string)
