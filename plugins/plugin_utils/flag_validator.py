# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Check SGLang server arguments against a release's real ``launch_server`` flags and build the argv.

Server arguments are a dict such as ``{"model_path": "/models/x", "tp_size": 2, "enable_torch_compile": true}``.
Keys may be ServerArgs fields (``tp_size``), argparse dests (``tensor_parallel_size``) or option strings
with or without dashes (``--tp-size``, ``tp-size``). A ``null`` value leaves the flag out.

Every problem found is collected and raised together as one :class:`FlagValidationError`.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_catalog import (
    Flag,
    FlagCatalog,
    as_option,
    load_catalog,
    other_catalogs,
)
from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import UnsupportedVersionError


class FlagValidationError(ValueError):
    """One or more server arguments would not get past SGLang's argument parser."""

    def __init__(self, errors: list, version: str):
        self.errors = list(errors)
        self.version = version
        if len(self.errors) == 1:
            message = self.errors[0]
        else:
            message = f"{len(self.errors)} problems with the SGLang {version} server args: " + " | ".join(f"({i}) {e}" for i, e in enumerate(self.errors, 1))
        super().__init__(message)


@dataclass
class ValidatedArgs:
    """The outcome of a successful check."""

    version: str
    values: dict = field(default_factory=dict)  # ServerArgs field -> typed value
    argv: list = field(default_factory=list)
    warnings: list = field(default_factory=list)


class _BadValue(Exception):
    """A value the flag's argparse ``type`` would reject; the message says what it expects."""


# ---------------------------------------------------------------------------------------------------
# argparse ``type=`` callables of SGLang, reimplemented from the wheels' source
# ---------------------------------------------------------------------------------------------------


def _as_text(value, expected: str) -> str:
    """What a YAML scalar becomes on the command line. Booleans, lists and dicts are never text."""
    if isinstance(value, bool) or value is None or isinstance(value, (list, tuple, Mapping)):
        raise _BadValue(f"expects {expected}")
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return str(value)


def _to_int(value) -> int:
    if isinstance(value, bool):
        raise _BadValue("expects an integer (argparse type int), not a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        raise _BadValue("expects an integer (argparse type int); write a whole number without a decimal point")
    text = _as_text(value, "an integer (argparse type int)")
    try:
        return int(text)
    except ValueError:
        raise _BadValue("expects an integer (argparse type int); write a whole number") from None


def _to_float(value) -> float:
    if isinstance(value, bool):
        raise _BadValue("expects a number (argparse type float), not a boolean")
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(_as_text(value, "a number (argparse type float)"))
    except ValueError:
        raise _BadValue("expects a number (argparse type float)") from None


def _to_str(value) -> str:
    return _as_text(value, "a string")


_HUMAN_INT_RE = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")
_SI = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def _to_human_readable_int(value) -> int:
    """``sglang.srt.utils.common.human_readable_int`` (0.5.23): ``64Ki`` -> 65536, ``25.6k`` -> 25600."""
    if isinstance(value, bool):
        raise _BadValue("expects an integer or a suffixed size such as 64Ki or 32k, not a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        raise _BadValue("expects an integer or a suffixed size such as 64Ki or 32k; write a whole number")
    text = _as_text(value, "an integer or a suffixed size such as 64Ki or 32k").strip()
    match = _HUMAN_INT_RE.fullmatch(text)
    if match:
        number, suffix = match.groups()
        if suffix in _IEC:
            if "." in number:
                raise _BadValue(
                    f"does not allow decimals with the IEC suffix {suffix}; use an integer such as "
                    f"{int(Decimal(number))}{suffix}, or the SI form {number}{suffix[0]}"
                )
            return int(number) * _IEC[suffix]
        return int(Decimal(number) * _SI[suffix])
    try:
        return int(text)
    except ValueError:
        raise _BadValue("expects an integer, an SI size (1k, 1M) or an IEC size (1Ki, 1Mi); suffixes are case-sensitive") from None


def _to_json(value):
    """``json.loads`` / ``json_list_type``: a dict or list is taken as is, a string must be JSON."""
    if isinstance(value, (Mapping, list, tuple)):
        return _plain_json(value)
    if isinstance(value, bool) or value is None:
        raise _BadValue("expects JSON (a mapping, a list or a JSON string)")
    try:
        return json.loads(_as_text(value, "JSON"))
    except ValueError as exc:
        raise _BadValue(f"expects JSON; {value!r} does not parse ({exc})") from None


def _plain_json(value):
    if isinstance(value, Mapping):
        return {str(k): _plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_json(v) for v in value]
    return value


def _to_nullable_str(value):
    """``nullable_str``: an empty string or ``None`` becomes None."""
    text = _as_text(value, "a string")
    return None if not text or text == "None" else text


def _to_cuda_graph_backend(value) -> str:
    """``parse_cuda_graph_backend_arg`` (0.5.23) rejects the retired backend before the choices check."""
    text = _as_text(value, "a string")
    if text == "tc_piecewise":
        raise _BadValue("no longer accepts tc_piecewise (removed); select breakable, full, or disabled")
    return text


def _to_cuda_graph_config(value) -> dict:
    """``parse_cuda_graph_config_arg`` (0.5.23): a JSON object of phase -> settings objects."""
    parsed = _to_json(value)
    if not isinstance(parsed, dict) or not all(isinstance(v, dict) for v in parsed.values()):
        raise _BadValue("expects a JSON object of phase -> settings objects, e.g. {\"decode\": {\"max_bs\": 64}}")
    return parsed


CONVERTERS = {
    None: _to_str,
    "str": _to_str,
    "int": _to_int,
    "float": _to_float,
    "human_readable_int": _to_human_readable_int,
    "json": _to_json,
    "json_list_type": _to_json,
    "nullable_str": _to_nullable_str,
    "parse_cuda_graph_backend_arg": _to_cuda_graph_backend,
    "parse_cuda_graph_config_arg": _to_cuda_graph_config,
}
# Values SGLang's type function parses from JSON text: serialized back to JSON on the command line.
JSON_TYPES = ("json", "json_list_type", "parse_cuda_graph_config_arg")


def _bool_switch(value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise _BadValue("is an on/off switch (argparse store_true) and takes no value; set it to true to pass the flag or false to leave it out")


# ---------------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------------


def _closest(catalog: FlagCatalog, key: str) -> list:
    """Closest known names, spelled the way the user spelled the key (field names or option strings)."""
    if str(key).startswith("-"):
        pool, probe = catalog.option_strings(), str(key)
    else:
        pool, probe = sorted(set(catalog.by_field) | set(catalog.by_dest)), str(key).replace("-", "_")
    return difflib.get_close_matches(probe, pool, n=3, cutoff=0.6)


def _unknown_key_error(catalog: FlagCatalog, key: str) -> str:
    option = as_option(key)
    where = f"SGLang {catalog.version}"
    abbreviated = catalog.abbreviation_of(option) if catalog.allow_abbrev else []
    for other in other_catalogs(catalog.version):
        flag = other.lookup(key)
        if flag is not None:
            spelled = f"`{key}`" if str(key).startswith("-") else f"`{key}` ({_preferred_option(flag, key)})"
            message = f"{spelled} exists in SGLang {other.version} but not in {catalog.version} (the pinned version)"
            if abbreviated:
                message += f"; in {catalog.version} argparse would read it as an abbreviation of {', '.join(abbreviated)}"
            similar = _closest(catalog, key)
            hint = f"; the closest {catalog.version} names are {', '.join(similar)}" if similar else ""
            return f"{message}{hint}; remove it, or pin sglang_version {other.version}"
    if abbreviated:
        kind = "an ambiguous abbreviation" if len(abbreviated) > 1 else "only an abbreviation"
        return f"`{key}` is not a complete {where} flag but {kind} of {' or '.join(abbreviated)} (argparse prefix matching); write the full name"
    similar = _closest(catalog, key)
    hint = f"; did you mean {' or '.join(similar)}?" if similar else f"; see `sglang serve --help` of {catalog.version}"
    return f"`{key}` is not an {where} flag{hint}"


def _check_choices(flag: Flag, typed, label: str, errors: list) -> bool:
    if flag.choices is None:
        return True
    items = typed if isinstance(typed, list) else [typed]
    bad = [v for v in items if v not in flag.choices]
    if bad:
        shown = ", ".join(str(c) for c in flag.choices)
        errors.append(f"{label} got {bad[0]!r}, which is not one of its choices: {shown}; use one of those")
        return False
    return True


def _convert(flag: Flag, value, label: str, catalog: FlagCatalog, errors: list):
    """The value argparse would store for ``flag``; appends to ``errors`` and returns None when invalid."""
    converter = CONVERTERS.get(flag.type, _to_str)
    try:
        if flag.takes_list:
            items = list(value) if isinstance(value, (list, tuple)) else [value]
            if flag.nargs == "+" and not items:
                raise _BadValue("needs at least one value (nargs '+')")
            if flag.action_class and flag.action_class.endswith("LoRAPathAction"):
                # LoRAPathAction json.loads items that look like JSON objects; keep mappings as mappings.
                typed = [_plain_json(i) if isinstance(i, Mapping) else _to_str(i) for i in items]
                return typed
            typed = [converter(i) for i in items]
        else:
            if isinstance(value, (Mapping, list, tuple)) and _takes_json_text(flag):
                # A string flag SGLang json.loads later (--json-model-override-args): the mapping is sent as JSON.
                return json.dumps(_plain_json(value), separators=(",", ":"))
            if isinstance(value, (list, tuple)) and flag.type not in JSON_TYPES:
                raise _BadValue("takes a single value, not a list")
            typed = converter(value)
    except _BadValue as exc:
        shown = value if not isinstance(value, str) else repr(value)
        errors.append(f"{label} {exc}; got {shown} ({type(value).__name__}) [SGLang {catalog.version}]" + _accepted_elsewhere(flag, value, catalog))
        return None
    if not _check_choices(flag, typed, label, errors):
        return None
    return typed


def _takes_json_text(flag: Flag) -> bool:
    """A plain string flag whose value SGLang documents as JSON (by name or help text)."""
    return flag.type in (None, "str") and ("json" in flag.field or "json" in flag.help.lower())


def _accepted_elsewhere(flag: Flag, value, catalog: FlagCatalog) -> str:
    """A note when another supported release parses this flag with a type that accepts the value
    (``--context-length 64Ki`` is fine for 0.5.23's human_readable_int, not for 0.5.9's int)."""
    for other in other_catalogs(catalog.version):
        twin = other.by_field.get(flag.field)
        if twin is None or twin.type == flag.type or twin.takes_list != flag.takes_list:
            continue
        try:
            CONVERTERS.get(twin.type, _to_str)(value)
        except _BadValue:
            continue
        return f"; SGLang {other.version} would accept it (type {twin.type}), {catalog.version} needs {flag.type}"
    return ""


def _render(flag: Flag, typed) -> list:
    """The command-line words for one value of ``flag``."""

    def word(v):
        if flag.type in JSON_TYPES or isinstance(v, (dict, list)):
            return json.dumps(v, separators=(",", ":"), sort_keys=False)
        if isinstance(v, float):
            return repr(v)
        return str(v)

    if flag.takes_list:
        return [word(v) for v in typed]
    return [word(typed)]


def check_server_args(args, version: str, allow_nearest: bool = False, check_required: bool = True) -> ValidatedArgs:
    """Validate ``args`` for SGLang ``version``; return typed values, argv and deprecation warnings."""
    try:
        catalog = load_catalog(version, allow_nearest=allow_nearest)
    except UnsupportedVersionError as exc:
        raise FlagValidationError([str(exc)], str(version)) from None
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise FlagValidationError(
            [f"server args must be a mapping of flag names to values (e.g. {{tp_size: 2}}), got {type(args).__name__}"],
            catalog.version,
        )
    result = ValidatedArgs(version=catalog.version)
    errors: list = []
    seen: dict = {}
    for key, value in args.items():
        key_text = str(key).strip()
        flag = catalog.lookup(key_text)
        if flag is None:
            errors.append(_unknown_key_error(catalog, key_text))
            continue
        option = key_text if key_text.startswith("-") else _preferred_option(flag, key_text)
        label = f"`{key_text}`" if key_text == option else f"`{key_text}` ({option})"
        if flag.field in seen:
            errors.append(f"{label} sets {flag.field} again (already set as `{seen[flag.field]}`); keep one of them")
            continue
        seen[flag.field] = key_text
        if value is None:
            continue
        deprecated = flag.deprecated or {}
        if deprecated.get("error_message"):
            errors.append(f"{label} is retired in SGLang {catalog.version}: {deprecated['error_message']}")
            continue
        if flag.boolean:
            _switch(flag, option, value, label, catalog, result, errors)
            continue
        if flag.nargs == "?" and isinstance(value, bool):
            # nargs='?' (--model-checksum): true passes the bare flag, which stores the flag's const.
            if value:
                result.values[flag.field] = flag.const
                result.argv.append(option)
            continue
        before = len(errors)
        typed = _convert(flag, value, label, catalog, errors)
        if len(errors) > before:
            continue
        if typed is None:  # nullable_str turns "" / "None" into None: same as leaving the flag out
            result.values[flag.field] = None
            continue
        words = _render(flag, typed)
        if flag.takes_list:
            if any(w.startswith("-") for w in words):
                errors.append(f"{label} has a value starting with '-', which argparse would read as a flag; remove the leading dash")
                continue
            result.argv.append(option)
            result.argv.extend(words)
        elif words[0].startswith("-"):
            result.argv.append(f"{option}={words[0]}")
        else:
            result.argv.extend([option, words[0]])
        if flag.action_class and flag.action_class.endswith("DeprecatedStoreConstAction"):
            result.values[flag.field] = deprecated.get("const_value")
            result.warnings.append(_deprecation_warning(label, catalog, deprecated))
        else:
            result.values[flag.field] = typed
            if deprecated:
                result.warnings.append(_deprecation_warning(label, catalog, deprecated))
    if check_required:
        for flag in catalog.flags:
            if flag.required and flag.field not in result.values:
                errors.append(f"`{flag.field}` ({flag.name}) is required by SGLang {catalog.version}'s launch_server; add it to the server args")
    if errors:
        raise FlagValidationError(errors, catalog.version)
    return result


def _switch(flag: Flag, option: str, value, label: str, catalog: FlagCatalog, result: ValidatedArgs, errors: list):
    """A flag that takes no value (argparse nargs=0)."""
    deprecated = flag.deprecated or {}
    try:
        on = _bool_switch(value)
    except _BadValue as exc:
        if deprecated:
            errors.append(f"{label} is deprecated in SGLang {catalog.version} and takes no value ({flag.help}); got {value!r}; remove it")
        else:
            errors.append(f"{label} {exc}; got {value!r} [SGLang {catalog.version}]")
        return
    if flag.action == "boolean_optional":
        # Tri-state (default None = let SGLang decide): false is said out loud with the --no- spelling.
        positive = next(o for o in flag.option_strings if not o.startswith("--no-"))
        wanted = (not on) if option.startswith("--no-") else on
        result.values[flag.field] = wanted
        result.argv.append(positive if wanted else f"--no-{positive[2:]}")
        return
    if not on:
        result.values[flag.field] = flag.default
        return
    result.argv.append(option)
    if flag.action_class and flag.action_class.endswith(".DeprecatedAction"):
        result.values[flag.field] = flag.default  # SGLang only warns; the value goes nowhere
        result.warnings.append(_deprecation_warning(label, catalog, deprecated) + "; SGLang ignores it, remove it")
        return
    result.values[flag.field] = flag.const if flag.const is not None else True
    if deprecated:
        result.warnings.append(_deprecation_warning(label, catalog, deprecated))


def _preferred_option(flag: Flag, key: str) -> str:
    """The option string to emit: the spelling the key names, else the one matching the field, else the
    flag's primary name."""
    for candidate in (as_option(key), as_option(flag.field), as_option(flag.dest)):
        if candidate in flag.option_strings:
            return candidate
    return flag.name


def _deprecation_warning(label: str, catalog: FlagCatalog, deprecated: dict) -> str:
    replacement = f"; use {deprecated['new_flag']} instead" if deprecated.get("new_flag") else ""
    return f"{label} is deprecated in SGLang {catalog.version} ({deprecated.get('behaviour', 'deprecated')}){replacement}"


def validate_server_args(args, version: str, allow_nearest: bool = False, check_required: bool = True) -> dict:
    """Typed server args keyed by ServerArgs field (``tp_size``, ``context_length``), as SGLang's parser
    would store them. Raises :class:`FlagValidationError` listing every problem."""
    return check_server_args(args, version, allow_nearest, check_required).values


def sglang_argv(args, version: str, allow_nearest: bool = False, check_required: bool = True) -> list:
    """The ``sglang.launch_server`` argv for ``args`` (``["--tp-size", "2", "--enable-torch-compile", ...]``).
    Raises :class:`FlagValidationError` listing every problem."""
    return check_server_args(args, version, allow_nearest, check_required).argv
