# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sglang_release filter reads the registry: the roles take their pins from it, so it must agree with the
wheels' own METADATA as recorded in data/sglang-releases.json, and refuse what the registry does not hold."""

import json
import pathlib

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.llmops.sglang.plugins.filter.sglang_release import sglang_release
from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import PINS_FILE, SUPPORTED_VERSIONS

PINS = {entry["version"]: entry for entry in json.loads(pathlib.Path(PINS_FILE).read_text())["releases"]}


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_every_release_has_the_pins_of_its_wheel(version):
    got = sglang_release(version)
    wheel = PINS[version]
    for key in ("torch", "torch_cuda", "flashinfer", "requires_python"):
        assert got[key] == wheel[key], key
    assert got["python_min"] == wheel["requires_python"].lstrip(">=")
    assert got["confidence"] == "exact" and got["version"] == version


def test_known_pins_read_from_the_wheels_by_hand():
    # sglang 0.5.9 METADATA: torch==2.9.1, flashinfer_python==0.6.3, Requires-Python >=3.10 (torch 2.9.1 = CUDA 12.8)
    old = sglang_release("0.5.9")
    assert (old["torch"], old["torch_cuda"], old["flashinfer"], old["python_min"]) == ("2.9.1", "12.8", "0.6.3", "3.10")
    # sglang 0.5.23: torch==2.14.1 (cuda-toolkit 13.0.3), flashinfer_python[cu13]==0.7.2, Requires-Python >=3.11
    new = sglang_release("0.5.23")
    assert (new["torch"], new["cuda_major"], new["flashinfer"], new["flashinfer_extra"], new["python_min"]) == ("2.14.1", "13", "0.7.2", "cu13", "3.11")
    assert new["kernel_distribution"] == "sglang-kernel" and old["kernel_distribution"] == "sgl-kernel"


def test_unknown_release_is_refused_with_the_supported_list_unless_nearest_is_allowed():
    with pytest.raises(AnsibleFilterError, match=r"'0\.5\.24' is not a release llmops\.sglang knows"):
        sglang_release("0.5.24")
    nearest = sglang_release("0.5.24", allow_nearest=True)
    assert nearest["version"] == "0.5.23" and nearest["confidence"] == "nearest"


@pytest.mark.parametrize("bad", [None, ["0.5.9"], {"v": 1}, True])
def test_wrong_input_types_name_the_filter_and_the_fix(bad):
    with pytest.raises(AnsibleFilterError, match="sglang_release: the input must be an SGLang version string"):
        sglang_release(bad)
