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


def test_a_known_release_without_sizing_serves_flags_but_not_the_budget(monkeypatch):
    """A release added by `make release` starts as ("V", None, None): its flags and pins work, the budget refuses it."""
    from dataclasses import replace

    from ansible_collections.llmops.sglang.plugins.plugin_utils import releases

    draft = replace(releases.RELEASES["0.5.23"], version="0.5.24", sizing=None, verified_by=None)
    monkeypatch.setitem(releases.RELEASES, "0.5.24", draft)
    assert resolve_release("0.5.24").release is draft
    with pytest.raises(UnsupportedVersionError, match="0.5.24's startup memory sizing is not modelled yet"):
        resolve_release("0.5.24", sized=True)
    assert resolve_release("0.5.24", sized=True, allow_nearest=True).release.version == "0.5.23"


def test_unknown_version_maps_to_nearest_release_only_when_allowed():
    resolved = resolve_release("0.5.24", allow_nearest=True)
    assert resolved.release.version == "0.5.23"
    assert resolved.confidence == "nearest"
    assert nearest_release("0.5.9.post1").version == "0.5.9"
    assert nearest_release("0.5.11.post2", sized=True).version == "0.5.11"
    assert nearest_release("0.4.10").version == "0.5.9"


def test_garbage_version_names_the_input():
    with pytest.raises(UnsupportedVersionError, match="not a version string"):
        resolve_release("latest", allow_nearest=True)
