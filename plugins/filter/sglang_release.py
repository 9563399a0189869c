# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The filter that reads one SGLang release from the collection's registry (docs: sglang_release.yml)."""

from __future__ import annotations

from dataclasses import asdict

from ansible.errors import AnsibleFilterError

from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import (
    SIZED_VERSIONS,
    SUPPORTED_VERSIONS,
    UnsupportedVersionError,
    resolve_release,
)


def sglang_release(version, allow_nearest=False):
    """The registry entry of ``version``: its install pins, and whether its startup sizing is modelled."""
    if not isinstance(version, (str, int, float)) or isinstance(version, bool):
        raise AnsibleFilterError(
            "sglang_release: the input must be an SGLang version string such as %r, got %s; pass the release "
            "the role installs (for example sglang_install_version)" % (SUPPORTED_VERSIONS[-1], type(version).__name__)
        )
    try:
        resolved = resolve_release(str(version), allow_nearest=bool(allow_nearest))
    except UnsupportedVersionError as exc:
        raise AnsibleFilterError("sglang_release: %s" % exc) from None
    release = resolved.release
    pins = asdict(release.pins)
    pins["python_tags"] = list(pins["python_tags"])
    return dict(
        pins,
        version=release.version,
        requested=resolved.requested,
        confidence=resolved.confidence,
        python_min=release.pins.python_min,
        cuda_major=release.pins.cuda_major,
        sizing_modelled=release.sizing is not None,
        verified_by=release.verified_by,
        supported=list(SUPPORTED_VERSIONS),
        sized=list(SIZED_VERSIONS),
    )


class FilterModule:
    def filters(self):
        return {"sglang_release": sglang_release}
