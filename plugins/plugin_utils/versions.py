# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SGLang releases this collection has a profile for, and how a requested version maps onto one."""

from __future__ import annotations

import re
from dataclasses import dataclass

SUPPORTED_VERSIONS = ("0.5.9", "0.5.23")

_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(.*)$")


class UnsupportedVersionError(ValueError):
    """A requested SGLang version has no profile and no nearest profile was allowed."""


@dataclass(frozen=True)
class ResolvedVersion:
    """The profile chosen for a requested SGLang version."""

    requested: str
    profile: str

    @property
    def exact(self) -> bool:
        return self.requested == self.profile

    @property
    def confidence(self) -> str:
        """``exact`` when the requested release has its own profile, ``nearest`` otherwise."""
        return "exact" if self.exact else "nearest"


def parse_version(version: str) -> tuple[int, int, int]:
    """Return (major, minor, patch) of an SGLang version string such as ``0.5.9`` or ``v0.5.10.post1``."""
    match = _VERSION_RE.match(str(version).strip())
    if not match:
        raise UnsupportedVersionError(
            f"sglang_version {version!r} is not a version string; expected MAJOR.MINOR.PATCH such as "
            f"{SUPPORTED_VERSIONS[-1]!r} (supported: {', '.join(SUPPORTED_VERSIONS)})"
        )
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def _distance(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    return abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2])


def nearest_supported(version: str) -> str:
    """The supported profile closest to ``version`` (same minor line first, then closest patch)."""
    wanted = parse_version(version)
    return min(SUPPORTED_VERSIONS, key=lambda v: (_distance(parse_version(v), wanted), parse_version(v)))


def resolve_version(requested: str, allow_nearest: bool = False) -> ResolvedVersion:
    """Map ``requested`` onto a profile, or fail with the supported list and the fix."""
    requested = str(requested).strip().lstrip("v")
    if requested in SUPPORTED_VERSIONS:
        return ResolvedVersion(requested, requested)
    nearest = nearest_supported(requested)
    if allow_nearest:
        return ResolvedVersion(requested, nearest)
    raise UnsupportedVersionError(
        f"sglang_version {requested!r} has no profile in llmops.sglang (supported: {', '.join(SUPPORTED_VERSIONS)}); "
        f"pin one of those, or allow the nearest profile ({nearest}) explicitly and accept a lower confidence"
    )
