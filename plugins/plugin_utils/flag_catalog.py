# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``launch_server`` flag catalog of each supported SGLang release.

The catalogs are generated from the real wheels by ``scripts/gen_flag_catalog.py`` and committed under
``plugins/plugin_utils/data/sglang-flags-<version>.json``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import lru_cache

from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import SUPPORTED_VERSIONS, resolve_release

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


@dataclass(frozen=True)
class Flag:
    """One argparse action of ``launch_server``, as the catalog records it."""

    option_strings: tuple
    dest: str
    field: str
    action: str
    action_class: str | None
    boolean: bool
    type: str | None
    default: object
    choices: tuple | None
    nargs: object
    const: object
    required: bool
    deprecated: dict | None
    help: str
    declared_at: str
    notes: tuple = ()

    @property
    def name(self) -> str:
        """The flag's primary spelling (``--tp-size``)."""
        return self.option_strings[0]

    @property
    def takes_list(self) -> bool:
        return self.nargs in ("+", "*") or isinstance(self.nargs, int) and self.nargs > 1

    @classmethod
    def from_json(cls, entry: dict) -> Flag:
        choices = entry.get("choices")
        return cls(
            option_strings=tuple(entry["option_strings"]),
            dest=entry["dest"],
            field=entry.get("field", entry["dest"]),
            action=entry["action"],
            action_class=entry.get("action_class"),
            boolean=bool(entry["boolean"]),
            type=entry.get("type"),
            default=entry.get("default"),
            choices=tuple(choices) if choices is not None else None,
            nargs=entry.get("nargs"),
            const=entry.get("const"),
            required=bool(entry.get("required")),
            deprecated=entry.get("deprecated"),
            help=entry.get("help") or "",
            declared_at=entry.get("declared_at", ""),
            notes=tuple(entry.get("notes") or ()),
        )


@dataclass(frozen=True)
class FlagCatalog:
    """All flags of one SGLang release, with the lookups argparse itself performs."""

    version: str
    wheel_filename: str
    wheel_sha256: str
    allow_abbrev: bool
    flags: tuple
    by_option: dict = field(repr=False)
    by_field: dict = field(repr=False)
    by_dest: dict = field(repr=False)

    @classmethod
    def from_json(cls, data: dict) -> FlagCatalog:
        flags = tuple(Flag.from_json(entry) for entry in data["flags"])
        by_option, by_field, by_dest = {}, {}, {}
        for flag in flags:
            for option in flag.option_strings:
                by_option[option] = flag
            # Where a deprecated spelling shares a dest with its replacement, the replacement wins.
            if flag.field not in by_field or by_field[flag.field].deprecated:
                by_field[flag.field] = flag
            if flag.dest not in by_dest or by_dest[flag.dest].deprecated:
                by_dest[flag.dest] = flag
        return cls(
            version=data["sglang_version"],
            wheel_filename=data["wheel_filename"],
            wheel_sha256=data["wheel_sha256"],
            allow_abbrev=bool(data.get("parser", {}).get("allow_abbrev", True)),
            flags=flags,
            by_option=by_option,
            by_field=by_field,
            by_dest=by_dest,
        )

    def option_strings(self) -> list:
        return sorted(self.by_option)

    def names(self) -> list:
        """Every spelling a user may write: fields, dests and option strings."""
        return sorted(set(self.by_field) | set(self.by_dest) | set(self.by_option))

    def lookup(self, key: str) -> Flag | None:
        """The flag ``key`` names exactly: an option string (``--tp-size``), its bare form
        (``tp-size``), a ServerArgs field (``tp_size``) or an argparse dest (``tensor_parallel_size``)."""
        key = str(key).strip()
        if key.startswith("-"):
            return self.by_option.get(key)
        if key in self.by_field:
            return self.by_field[key]
        if key in self.by_dest:
            return self.by_dest[key]
        return self.by_option.get(as_option(key))

    def abbreviation_of(self, option: str) -> list:
        """Long options that argparse would accept ``option`` as an abbreviation of (prefix matching)."""
        if not option.startswith("--") or option in self.by_option:
            return []
        return sorted(o for o in self.by_option if o.startswith("--") and o.startswith(option))


def as_option(key: str) -> str:
    """``mem_fraction_static`` / ``mem-fraction-static`` / ``--mem-fraction-static`` -> ``--mem-fraction-static``."""
    key = str(key).strip()
    if key.startswith("-"):
        return key
    return "--" + key.replace("_", "-")


@lru_cache(maxsize=None)
def _load(profile: str) -> FlagCatalog:
    path = os.path.join(DATA_DIR, f"sglang-flags-{profile}.json")
    with open(path, encoding="utf-8") as handle:
        return FlagCatalog.from_json(json.load(handle))


def load_catalog(version: str, allow_nearest: bool = False) -> FlagCatalog:
    """The flag catalog of the release ``version`` resolves to (see ``releases.resolve_release``)."""
    return _load(resolve_release(version, allow_nearest=allow_nearest).release.version)


def other_catalogs(profile: str) -> list:
    """The catalogs of the supported versions other than ``profile``, newest first."""
    return [_load(v) for v in reversed(SUPPORTED_VERSIONS) if v != profile]
