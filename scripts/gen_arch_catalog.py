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
  (hybrid-state and multimodal configs that it parses itself instead of transformers);
* ``transformers``: the version the wheel pins (``sglang-releases.json``), the ``model_type`` keys of that
  transformers' ``CONFIG_MAPPING_NAMES`` and its causal-LM classes (``models/auto``, read with ast from its wheel):
  a config whose ``auto_map`` names custom code and whose type neither SGLang nor transformers knows loads only
  with ``--trust-remote-code``; a class SGLang has no implementation of runs on its Transformers backend when
  transformers has it.

The budget engine predicts an architecture it has not verified only when the release registers it and none of
these lists names it (``budget/architectures.py``); everything else is either modelled or refused by name.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_flag_catalog import DATA, REPO, WHEELS, download_wheel  # noqa: E402  (same wheel, same cache)

ARCH_NAME = re.compile(r"^[A-Z][A-Za-z0-9_]*(For[A-Z][A-Za-z]+|Model|LMHeadModel|MTP|NextN)$")
SIZING_FILES = re.compile(
    r"^sglang/srt/(configs/(model_config|linear_attn_model_registry|hybrid_arch|mamba_utils)\.py"
    r"|server_args\.py|arg_groups/model_overrides/[a-z0-9_]+\.py"
    r"|model_executor/model_runner[a-z_]*\.py)$"
)


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


# where get_config's _CONFIG_REGISTRY lives (0.5.9 utils/hf_transformers_utils.py; later utils/hf_transformers/):
# besides the configs/ classes it registers aliases under their own model_type (kimi_k2, deepseek_v32, ...)
CONFIG_REGISTRY_FILES = ("utils/hf_transformers_utils.py", "utils/hf_transformers/common.py")


def _registry_keys(tree: ast.Module) -> set[str]:
    """``_CONFIG_REGISTRY["x"] = ...``, ``_CONFIG_REGISTRY.update({"x": ...})`` and the ``model_type`` of every class
    the module defines (nested alias classes included)."""
    keys: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Subscript)
                    and ast.unparse(target.value) == "_CONFIG_REGISTRY"
                    and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)
                ):
                    keys.add(target.slice.value)
        elif isinstance(node, ast.Call) and ast.unparse(node.func) == "_CONFIG_REGISTRY.update":
            for arg in node.args:
                if isinstance(arg, ast.Dict):
                    keys |= {k.value for k in arg.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        elif isinstance(node, ast.ClassDef):
            keys |= {m for m, _cls in _config_model_types(ast.Module(body=[node], type_ignores=[]))}
    return keys


def _config_model_types(tree: ast.Module) -> list[tuple[str, str]]:
    out = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if (
                    isinstance(stmt, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "model_type" for t in stmt.targets)
                    and isinstance(stmt.value, ast.Constant)
                    and isinstance(stmt.value.value, str)
                ):
                    out.append((stmt.value.value, node.name))
    return out


def transformers_tables(version: str) -> dict:
    """What transformers ``version`` ships, from its wheel (downloaded once): the model types it has a config class
    for (``CONFIG_MAPPING_NAMES``) and its causal-LM classes (``MODEL_FOR_CAUSAL_LM_MAPPING_NAMES`` values)."""
    wheel = WHEELS / f"transformers-{version}-py3-none-any.whl"
    if not wheel.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", f"transformers=={version}", "-d", str(WHEELS)], check=True
        )
    types: set[str] = set()
    classes: set[str] = set()
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        # 5.8 moved the config table to auto_mappings.py; configuration_auto.py then .update()s it
        for member in (
            "transformers/models/auto/auto_mappings.py",
            "transformers/models/auto/configuration_auto.py",
            "transformers/models/auto/modeling_auto.py",
        ):
            if member in names:
                tree = ast.parse(archive.read(member).decode("utf-8"))
                types |= set(_mapping(tree, "CONFIG_MAPPING_NAMES"))
                classes |= {v for v in _mapping(tree, "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES").values() if isinstance(v, str)}
    if not types or not classes:
        raise SystemExit(f"transformers {version}: no CONFIG_MAPPING_NAMES / MODEL_FOR_CAUSAL_LM_MAPPING_NAMES")
    return {"version": version, "model_types": sorted(types), "causal_lm_classes": sorted(classes)}


def _mapping(tree: ast.Module, name: str) -> dict:
    """``NAME = OrderedDict([(k, v), ...])`` and ``NAME.update({k: v})`` at module level, constants only."""
    found: dict = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets) and isinstance(node.value, ast.Call):
            for arg in node.value.args:
                if isinstance(arg, (ast.List, ast.Tuple)):
                    for pair in arg.elts:
                        if isinstance(pair, ast.Tuple) and len(pair.elts) == 2 and all(isinstance(e, ast.Constant) for e in pair.elts):
                            found[pair.elts[0].value] = pair.elts[1].value
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and ast.unparse(node.value.func) == f"{name}.update":
            for arg in node.value.args:
                if isinstance(arg, ast.Dict):
                    found.update({k.value: v.value for k, v in zip(arg.keys, arg.values) if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)})
    return found


def _pinned_transformers(version: str) -> str:
    pins = json.loads((DATA / "sglang-releases.json").read_text())
    return next(r["transformers"] for r in pins["releases"] if r["version"] == version)


def build_catalog(version: str) -> dict:
    wheel = download_wheel(version)
    entry: dict[str, str] = {}
    special: dict[str, set[str]] = {}
    model_types: dict[str, str] = {}
    with zipfile.ZipFile(wheel) as archive:
        for member in sorted(archive.namelist()):
            if not member.endswith(".py") or not member.startswith("sglang/srt/"):
                continue
            rel = member.removeprefix("sglang/srt/")
            if not (rel.startswith("models/") or rel.startswith("configs/") or SIZING_FILES.match(member) or rel in CONFIG_REGISTRY_FILES):
                continue
            tree = ast.parse(archive.read(member).decode("utf-8-sig"), filename=member)
            if rel.startswith("models/") and rel.count("/") == 1:
                for name in _entry_classes(rel, tree):
                    entry.setdefault(name, rel)
            if rel.startswith("configs/") and rel != "configs/model_config.py":
                for model_type, cls in _config_model_types(tree):
                    model_types.setdefault(model_type, f"{rel}:{cls}")
            if rel in CONFIG_REGISTRY_FILES:
                for model_type in _registry_keys(tree):
                    model_types.setdefault(model_type, f"{rel}:_CONFIG_REGISTRY")
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
        "transformers": transformers_tables(_pinned_transformers(version)),
    }


def main(argv: list[str]) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("versions", nargs="+", metavar="VERSION")
    args = cli.parse_args(argv)
    for version in args.versions:
        catalog = build_catalog(version)
        out = DATA / f"sglang-archs-{version}.json"
        out.write_text(json.dumps(catalog, indent=1) + "\n", encoding="utf-8")
        print(
            f"{out.relative_to(REPO)}: {catalog['entry_class_count']} entry classes, "
            f"{len(catalog['special_cased'])} special-cased names, {len(catalog['config_model_types'])} config types"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
