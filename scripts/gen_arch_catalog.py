# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Generate the model-architecture catalog of an SGLang release from its real wheel.

``python scripts/gen_arch_catalog.py VERSION...`` reads the wheel that ``scripts/gen_flag_catalog.py`` downloads
(``.cache/wheels``) with :mod:`ast` only, and writes ``plugins/plugin_utils/data/sglang-archs-<V>.json``:

* ``entry_classes``: every class a ``sglang/srt/models/*.py`` module exports as ``EntryClass`` (the names
  SGLang's ``ModelRegistry`` resolves ``config.json`` ``architectures`` to), with its module;
* ``special_cased``: every architecture name that the files SGLang sizes a launch with compare against, with the
  file and function: ``configs/model_config.py`` (head dim, MLA, hybrid SWA, multimodal, embedding lists), its
  hybrid-state registries (``configs/linear_attn_model_registry.py``, ``hybrid_arch.py``, ``mamba_utils.py``),
  ``server_args.py`` and, from 0.5.20, ``arg_groups/model_overrides/*.py`` (per-model backend and memory
  adjustments), and ``model_executor/model_runner*.py``;
* ``config_model_types``: the ``model_type`` of every config class SGLang ships in ``sglang/srt/configs/``
  (hybrid-state and multimodal configs that it parses itself instead of transformers).

The budget engine predicts an architecture it has not verified only when the release registers it and none of
these lists names it (``budget/architectures.py``); everything else is either modelled or refused by name.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_flag_catalog import DATA, REPO, download_wheel  # noqa: E402  (same wheel, same cache)

ARCH_NAME = re.compile(r"^[A-Z][A-Za-z0-9_]*(For[A-Z][A-Za-z]+|Model|LMHeadModel|MTP|NextN)$")
SIZING_FILES = re.compile(r"^sglang/srt/(configs/(model_config|linear_attn_model_registry|hybrid_arch|mamba_utils)\.py"
                          r"|server_args\.py|arg_groups/model_overrides/[a-z0-9_]+\.py"
                          r"|model_executor/model_runner[a-z_]*\.py)$")


def _entry_classes(path: str, tree: ast.Module) -> list[str]:
    names = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets):
            items = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            names += [item.id for item in items if isinstance(item, ast.Name)]
    return names


def _mentions(tree: ast.Module) -> dict[str, set[str]]:
    """Architecture-name string constants in a module, by the top-level function or class that holds them."""
    found: dict[str, set[str]] = {}
    for top in tree.body:
        scope = top.name if isinstance(top, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) else "<module>"
        for node in ast.walk(top):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and ARCH_NAME.match(node.value):
                found.setdefault(node.value, set()).add(scope)
    return found


def _config_model_types(tree: ast.Module) -> list[tuple[str, str]]:
    out = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "model_type"
                                                        for t in stmt.targets) \
                        and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                    out.append((stmt.value.value, node.name))
    return out


def build_catalog(version: str) -> dict:
    wheel = download_wheel(version)
    entry: dict[str, str] = {}
    special: dict[str, set[str]] = {}
    model_types: dict[str, str] = {}
    with zipfile.ZipFile(wheel) as archive:
        for member in sorted(archive.namelist()):
            if not member.endswith(".py") or not member.startswith("sglang/srt/"):
                continue
            rel = member[len("sglang/srt/"):]
            if not (rel.startswith("models/") or rel.startswith("configs/") or SIZING_FILES.match(member)):
                continue
            tree = ast.parse(archive.read(member).decode("utf-8-sig"), filename=member)
            if rel.startswith("models/") and rel.count("/") == 1:
                for name in _entry_classes(rel, tree):
                    entry.setdefault(name, rel)
            if rel.startswith("configs/") and rel != "configs/model_config.py":
                for model_type, cls in _config_model_types(tree):
                    model_types.setdefault(model_type, f"{rel}:{cls}")
            if SIZING_FILES.match(member):
                for name, scopes in _mentions(tree).items():
                    special.setdefault(name, set()).update(f"{rel}:{s}" for s in scopes)
    return {
        "sglang_version": version,
        "wheel_filename": wheel.name,
        "wheel_sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
        "generated_by": "scripts/gen_arch_catalog.py (ast over the wheel's source; nothing imported)",
        "entry_class_count": len(entry),
        "entry_classes": dict(sorted(entry.items())),
        "special_cased": {name: sorted(where) for name, where in sorted(special.items())},
        "config_model_types": dict(sorted(model_types.items())),
    }


def main(argv: list[str]) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("versions", nargs="+", metavar="VERSION")
    args = cli.parse_args(argv)
    for version in args.versions:
        catalog = build_catalog(version)
        out = DATA / f"sglang-archs-{version}.json"
        out.write_text(json.dumps(catalog, indent=1) + "\n", encoding="utf-8")
        print(f"{out.relative_to(REPO)}: {catalog['entry_class_count']} entry classes, "
              f"{len(catalog['special_cased'])} special-cased names, {len(catalog['config_model_types'])} config types")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
