# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that check SGLang server args against a release's real flags (docs: sglang_argv.yml,
sglang_server_args.yml)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.utils.display import Display

from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_validator import (
    FlagValidationError,
    check_server_args,
)

display = Display()


def _checked(args, version, allow_nearest, check_required):
    try:
        result = check_server_args(args, version, allow_nearest=bool(allow_nearest), check_required=bool(check_required))
    except FlagValidationError as exc:
        raise AnsibleFilterError(str(exc)) from None
    for warning in result.warnings:
        display.warning(warning)
    return result


def sglang_argv(args, version, allow_nearest=False, check_required=True):
    """The ``sglang.launch_server`` argv list for ``args`` on SGLang ``version``."""
    return _checked(args, version, allow_nearest, check_required).argv


def sglang_server_args(args, version, allow_nearest=False, check_required=True):
    """``args`` typed and normalized the way SGLang's parser stores them, keyed by ServerArgs field."""
    return _checked(args, version, allow_nearest, check_required).values


class FilterModule:
    """SGLang launch_server flag filters."""

    def filters(self):
        return {
            "sglang_argv": sglang_argv,
            "sglang_server_args": sglang_server_args,
        }
