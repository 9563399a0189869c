# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import (
    SUPPORTED_VERSIONS,
    UnsupportedVersionError,
    nearest_release,
    resolve_release,
)


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_supported_versions_resolve_exactly(version):
    resolved = resolve_release(version)
    assert resolved.release.version == version
    assert resolved.confidence == "exact"


def test_leading_v_is_accepted():
    assert resolve_release("v0.5.9").release.version == "0.5.9"


def test_unknown_version_fails_with_the_supported_list_and_the_fix():
    with pytest.raises(UnsupportedVersionError) as err:
        resolve_release("0.5.24")
    message = str(err.value)
    assert "0.5.24" in message and "0.5.9" in message and "0.5.23" in message and "0.5.15.post1" in message
    assert "nearest" in message


def test_a_known_release_without_sizing_serves_flags_but_not_the_budget():
    assert resolve_release("0.5.12").release.sizing is None
    with pytest.raises(UnsupportedVersionError, match="0.5.12's startup memory sizing is not modelled yet"):
        resolve_release("0.5.12", sized=True)


def test_unknown_version_maps_to_nearest_release_only_when_allowed():
    resolved = resolve_release("0.5.24", allow_nearest=True)
    assert resolved.release.version == "0.5.23"
    assert resolved.confidence == "nearest"
    assert nearest_release("0.5.9.post1").version == "0.5.9"
    assert nearest_release("0.5.11", sized=True).version == "0.5.9"
    assert resolve_release("0.5.12", allow_nearest=True, sized=True).release.version == "0.5.14"


def test_garbage_version_names_the_input():
    with pytest.raises(UnsupportedVersionError, match="not a version string"):
        resolve_release("latest", allow_nearest=True)
