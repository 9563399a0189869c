# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""meta/runtime.yml's action groups: each member is a module of this collection that documents its membership,
and the members share the options the group's comment names (module_defaults gives every member all of them).
"""

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
RUNTIME = yaml.safe_load((REPO / "meta" / "runtime.yml").read_text())
MODULES = sorted(p.stem for p in (REPO / "plugins" / "modules").glob("*.py") if p.stem != "__init__")
# The options each group is meant to set, as its comment in meta/runtime.yml lists them.
SHARED = {
    "sglang": {"sglang_version", "server_args", "gpus", "gpu_indices", "model_id", "model_revision", "calibration_store"},
    "proxmox": {"api_host", "api_port", "api_user", "api_password", "api_otp", "api_token_id", "api_token_secret", "ca_path", "api_timeout", "validate_certs"},
}


@pytest.fixture(scope="module")
def docs():
    proc = subprocess.run(
        ["ansible-doc", "-t", "module", "--json"] + ["llmops.sglang." + m for m in MODULES],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, ANSIBLE_NOCOLOR="1"),
    )
    return {name.rsplit(".", 1)[1]: entry["doc"] for name, entry in json.loads(proc.stdout).items()}


def members(group):
    return [entry for entry in RUNTIME["action_groups"][group] if isinstance(entry, str)]


def test_the_groups_are_those_whose_shared_options_are_listed():
    assert sorted(RUNTIME["action_groups"]) == sorted(SHARED)


@pytest.mark.parametrize("group", sorted(SHARED))
def test_members_document_their_group_and_take_its_options(docs, group):
    assert members(group), group
    for module in members(group):
        assert module in docs, "%s in group %s is not a module of this collection" % (module, group)
        membership = docs[module].get("attributes", {}).get("action_group", {}).get("membership", [])
        assert membership == ["llmops.sglang." + group], (module, membership)
        missing = SHARED[group] - set(docs[module]["options"])
        assert not missing, "%s does not take %s, which group/llmops.sglang.%s sets" % (module, missing, group)


def test_a_documented_membership_is_a_real_one(docs):
    for module, doc in docs.items():
        for group in doc.get("attributes", {}).get("action_group", {}).get("membership", []):
            assert module in members(group.rsplit(".", 1)[1]), (module, group)


def test_the_proxmox_group_extends_community_proxmox():
    metadata = [entry["metadata"] for entry in RUNTIME["action_groups"]["proxmox"] if isinstance(entry, dict)]
    assert metadata == [{"extend_group": ["community.proxmox.proxmox"]}]
