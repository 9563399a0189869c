# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The install roles' tables agree with the collection's profiles and with their own argument specs."""
import pathlib

import pytest
import yaml

from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import SUPPORTED_VERSIONS

ROLES = pathlib.Path(__file__).resolve().parents[3] / "roles"


def load(path):
    return yaml.safe_load((ROLES / path).read_text())


def test_every_profile_has_install_pins_and_a_cuda_version():
    profiles = load("sglang_install/vars/main.yml")["__sglang_install_profiles"]
    cuda = load("nvidia_userspace/vars/main.yml")["__nvidia_userspace_cuda_by_sglang"]
    assert sorted(profiles) == sorted(SUPPORTED_VERSIONS)
    assert sorted(cuda) == sorted(SUPPORTED_VERSIONS)
    for version, pins in profiles.items():
        assert pins["cuda"] == cuda[version]
        assert set(pins) == {"torch", "flashinfer", "cuda", "python_min"}


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
