# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The install roles take their release facts from the registry, and their defaults agree with their argument specs."""

import pathlib

import pytest
import yaml

from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import SUPPORTED_VERSIONS

ROLES = pathlib.Path(__file__).resolve().parents[3] / "roles"


def load(path):
    return yaml.safe_load((ROLES / path).read_text())


def test_no_role_keeps_its_own_table_of_releases():
    """The pins and CUDA versions per release come from the registry (llmops.sglang.sglang_release), not from
    role vars that would drift from it."""
    for path in sorted(ROLES.glob("*/vars/*.yml")) + sorted(ROLES.glob("*/defaults/*.yml")):
        data = yaml.safe_load(path.read_text()) or {}
        for name, value in data.items():
            if isinstance(value, dict):
                assert not set(map(str, value)) & set(SUPPORTED_VERSIONS), f"{path.relative_to(ROLES)}: {name}"


def test_default_version_is_a_profile():
    assert load("sglang_install/defaults/main.yml")["sglang_install_version"] in SUPPORTED_VERSIONS
    assert load("nvidia_userspace/defaults/main.yml")["nvidia_userspace_sglang_version"] in SUPPORTED_VERSIONS


@pytest.mark.parametrize("role", ["sglang_install", "nvidia_userspace"])
def test_argument_spec_keys_match_defaults(role):
    defaults = load(role + "/defaults/main.yml")
    options = load(role + "/meta/argument_specs.yml")["argument_specs"]["main"]["options"]
    assert sorted(defaults) == sorted(options)
    for name, spec in options.items():
        if "default" in spec:
            assert spec["default"] == defaults[name], name
        assert "{{" not in spec["description"], name
