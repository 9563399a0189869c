# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that check SGLang server args against a release's real flags (docs: sglang_argv.yml,
sglang_server_args.yml)."""

from __future__ import annotations

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible.utils.display import Display

from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_validator import (
    FlagValidationError,
    check_server_args,
)

display = Display()

MAPPING = (Mapping,)
LIST = (list, tuple)
TEXT = (str,)
BOOL = (bool,)
INT = (int,)
NUMBER = (int, float)
NONE = (type(None),)


def _kind(value):
    for types, name in ((NONE, "null"), (BOOL, "a bool"), (TEXT, "a string"), (MAPPING, "a dict"), (LIST, "a list"), (INT, "an int"), ((float,), "a float")):
        if isinstance(value, types):
            return name
    return "a " + type(value).__name__


def _is(value, accepted):
    return isinstance(value, accepted) and not (isinstance(value, bool) and bool not in accepted)


def require_input(filter_name, argument, value, accepted, expected, fix, elements=None, secret=False):
    """Raise AnsibleFilterError naming the filter, the argument, what it got and the fix unless ``value``
    is one of ``accepted`` (a bool is no int here) and, for a list, each of its items one of ``elements``.
    With ``secret`` the message names the type only, never the value."""
    if not _is(value, accepted):
        got, shown = _kind(value), value
    elif elements and isinstance(value, LIST) and not all(_is(item, elements) for item in value):
        shown = next(item for item in value if not _is(item, elements))
        got = "an item that is %s" % _kind(shown)
    else:
        return
    text = "value hidden" if secret else repr(shown)
    raise AnsibleFilterError("%s: %s must be %s, got %s (%s); %s" % (filter_name, argument, expected, got, text[:80] + ("..." if len(text) > 80 else ""), fix))


def _require_flag_inputs(filter_name, args, version, allow_nearest, check_required):
    require_input(
        filter_name,
        "the input",
        args,
        MAPPING + NONE,
        "a dict keyed by flag name",
        "pass the server args as a dict, e.g. {model_path: /srv/models/m, tp_size: 2}",
    )
    require_input(filter_name, "version", version, TEXT, "the SGLang release as a string", "quote it, e.g. '0.5.9'")
    require_input(filter_name, "allow_nearest", allow_nearest, BOOL, "true or false", "pass a bool")
    require_input(filter_name, "check_required", check_required, BOOL, "true or false", "pass a bool")


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
    _require_flag_inputs("sglang_argv", args, version, allow_nearest, check_required)
    return _checked(args, version, allow_nearest, check_required).argv


def sglang_server_args(args, version, allow_nearest=False, check_required=True):
    """``args`` typed and normalized the way SGLang's parser stores them, keyed by ServerArgs field."""
    _require_flag_inputs("sglang_server_args", args, version, allow_nearest, check_required)
    return _checked(args, version, allow_nearest, check_required).values


class FilterModule:
    """SGLang launch_server flag filters."""

    def filters(self):
        return {
            "sglang_argv": sglang_argv,
            "sglang_server_args": sglang_server_args,
        }
