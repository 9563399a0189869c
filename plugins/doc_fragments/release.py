# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The SGLang release options of the filters that check flags against, or build a unit for, one release."""

from __future__ import annotations


class ModuleDocFragment(object):
    """Release options of the flag and service filters."""

    # Filters that check server args against a release's flag catalog (sglang_argv, sglang_server_args).
    DOCUMENTATION = r"""
options:
  version:
    description: The SGLang release to check against, for example C(0.5.9) or C(0.5.23).
    type: str
    required: true
  allow_nearest:
    description: Use the nearest supported profile when O(version) has none, instead of failing.
    type: bool
    default: false
  check_required:
    description: Fail when a flag SGLang requires (C(model_path)) is missing.
    type: bool
    default: true
"""

    # Filters that build the sglang_service unit for the release installed on the target.
    INSTALLED = r"""
options:
  version:
    description: The installed SGLang release, for example C(0.5.9).
    type: str
    required: true
"""
