# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""execution-environment.yml produces a build context with ansible-builder (v3 schema), offline.

Building the image itself needs a container engine and the base image from a registry, which this machine
cannot reach; `ansible-builder create` is what AWX/AAP users run first and what validates the definition.
"""

import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.dirname(sys.executable)


@pytest.mark.skipif(not os.path.exists(os.path.join(BIN, "ansible-builder")), reason="ansible-builder not installed")
def test_ansible_builder_create(tmp_path):
    shutil.copy(os.path.join(REPO, "execution-environment.yml"), tmp_path)
    shutil.copytree(os.path.join(REPO, "meta", "ee"), tmp_path / "meta" / "ee")
    subprocess.run(
        [os.path.join(BIN, "ansible-galaxy"), "collection", "build", "--output-path", str(tmp_path / ".build" / "dist"), REPO], check=True, capture_output=True
    )
    proc = subprocess.run(
        [os.path.join(BIN, "ansible-builder"), "create", "-f", "execution-environment.yml", "-c", "context"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    context = tmp_path / "context"
    containerfile = (context / "Containerfile").read_text()
    assert "ansible-doc -t module llmops.sglang.sglang_memory_budget" in containerfile
    assert (context / "_build" / "collections" / "llmops-sglang-0.1.0.tar.gz").exists()
    requirements = (context / "_build" / "requirements.txt").read_text()
    for pin in ("ansible==14.5.0", "proxmoxer==", "requests==", "paramiko=="):
        assert pin in requirements
