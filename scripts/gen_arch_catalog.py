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
* ``config_model_types``: the ``model_type`` of every config class SGLang registers with transformers' AutoConfig
  (hybrid-state and multimodal configs that it parses itself instead of transformers): the keys of ``get_config``'s
  ``_CONFIG_REGISTRY`` and the ``AutoConfig.register`` / ``CONFIG_MAPPING`` registrations that importing
  ``sglang.srt.configs`` or the registry module runs. A config class ``configs/`` merely defines (InternLM2's,
  nested in InternVL's) is not one: its type loads only through the checkpoint's own code;
* ``quantization_methods``: the keys of ``layers/quantization`` ``QUANTIZATION_METHODS`` on a CUDA build, in order:
  ``ModelConfig._verify_quantization`` refuses any other ``quant_method`` with "Unknown quantization method";
* ``multimodal_graph_archs``: ``configs/model_config.py``'s ``multimodal_{piecewise,breakable}_cuda_graph_supported_
  model_archs``, the multimodal classes that keep prefill CUDA graphs (every other multimodal class loses them);
* ``transformers``: the version the wheel pins (``sglang-releases.json``), the ``model_type`` keys of that
  transformers' ``CONFIG_MAPPING_NAMES`` and its causal-LM classes (``models/auto``, read with ast from its wheel):
  a config whose ``auto_map`` names custom code and whose type neither SGLang nor transformers knows loads only
  with ``--trust-remote-code``; a class SGLang has no implementation of runs on its Transformers backend when
  transformers has it. ``configs_without_position_embedding_type``: the encoder config classes (BertConfig,
  XLMRobertaConfig) that no longer default ``position_embedding_type``, which SGLang's bert.py and roberta.py read;
  ``tie_word_embeddings_defaults``: that default of the composite config classes whose checkpoints leave it out
  (transformers 4's PretrainedConfig ties, GLM-4.5V's 5.x config class does not).

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
from dataclasses import dataclass
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
REGISTER_CALLS = ("AutoConfig.register", "CONFIG_MAPPING.register")


def _own_model_type(node: ast.ClassDef) -> str | None:
    """The ``model_type = "..."`` a class body assigns itself."""
    for stmt in node.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        value = getattr(stmt, "value", None)
        if any(isinstance(t, ast.Name) and t.id == "model_type" for t in targets) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value  # model_type = "x" or model_type: str = "x" (JetNemotronConfig)
    return None


@dataclass(frozen=True)
class ConfigClass:
    """A config class a module defines: where, its own ``model_type`` (None when inherited) and its bases."""

    where: str
    model_type: str | None
    bases: tuple[str, ...]


class ConfigClasses:
    """The config classes and class tuples (``DEEPSEEK_V41_CONFIG_CLASSES = (...)``) of configs/ and the registry
    module, to resolve a registry's class names to the ``model_type`` it keys them under."""

    def __init__(self) -> None:
        self.classes: dict[str, ConfigClass] = {}
        self.tuples: dict[str, list[str]] = {}

    def add_module(self, rel: str, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                own = _own_model_type(node)
                bases = tuple(ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases)
                self.classes.setdefault(node.name, ConfigClass(f"{rel}:{node.name}", own, bases))
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Tuple, ast.List)):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.tuples[target.id] = [e.id for e in node.value.elts if isinstance(e, ast.Name)]

    def model_type(self, name: str) -> str | None:
        """The class's ``model_type``, inherited through configs/ bases; None when it comes from transformers."""
        seen = set()
        pending = [name]
        while pending:
            current = pending.pop(0)
            cls = self.classes.get(current)
            if cls is None or current in seen:
                continue
            seen.add(current)
            if cls.model_type:
                return cls.model_type
            pending.extend(cls.bases)
        return None

    def names(self, node: ast.AST, registry: list[str]) -> list[str]:
        """The class names an iterable expression lists: a list/tuple literal, a module tuple, or the registry itself."""
        if isinstance(node, (ast.List, ast.Tuple)):
            return [e.id for e in node.elts if isinstance(e, ast.Name)]
        if isinstance(node, ast.Name):
            return list(registry) if node.id == "_CONFIG_REGISTRY" else self.tuples.get(node.id, [])
        return []


def _registry_classes(tree: ast.Module, table: ConfigClasses) -> tuple[list[str], set[str]]:
    """``get_config``'s ``_CONFIG_REGISTRY``: the class names keyed by their ``model_type`` (a class list, a
    ``{cls.model_type: cls for cls in [...]}`` comprehension, ``.update`` of one) and the string keys assigned
    directly (``_CONFIG_REGISTRY["kimi_k2"] = ...``, ``.update({"x": ...})``)."""
    classes: list[str] = []
    keys: set[str] = set()

    def add(value: ast.AST) -> None:
        if isinstance(value, (ast.List, ast.Tuple)):
            classes.extend(table.names(value, classes))
        elif isinstance(value, ast.DictComp):
            for generator in value.generators:
                classes.extend(c for c in table.names(generator.iter, classes) if c not in classes)
        elif isinstance(value, ast.Dict):
            keys.update(k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id == "_CONFIG_REGISTRY":
                    add(node.value)
                elif (
                    isinstance(target, ast.Subscript)
                    and ast.unparse(target.value) == "_CONFIG_REGISTRY"
                    and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)
                ):
                    keys.add(target.slice.value)
        elif isinstance(node, ast.Call) and ast.unparse(node.func) == "_CONFIG_REGISTRY.update":
            for arg in node.args:
                add(arg)
    return classes, keys


@dataclass(frozen=True)
class Registration:
    """One AutoConfig registration: the class, and whether it replaces a type transformers ships (``exist_ok=True``
    or a direct ``_extra_content`` entry; a plain ``register`` of such a type raises and SGLang drops it, as
    Cosmos3's ``cosmos3_omni`` does under transformers 5.19)."""

    cls: str
    overrides: bool


def _registered_types(tree: ast.Module, table: ConfigClasses) -> dict[str, Registration]:
    """The model types that importing a module registers with AutoConfig (``AutoConfig.register(key, cls)``,
    ``CONFIG_MAPPING.register`` or ``CONFIG_MAPPING._extra_content[key] = cls``), in its module-level statements
    (loops over literal classes or ``{key: cls}`` included) and in the module-level functions it calls at import;
    the key mapped to its registration."""
    called = {
        node.value.func.id for node in tree.body if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
    }
    found: dict[str, Registration] = {}
    for top in tree.body:
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) and top.name not in called:
            continue
        if isinstance(top, ast.ClassDef):
            continue
        for bindings, body in _loop_bindings(top, table):
            for node in ast.walk(body):
                pair, overrides = None, True
                if isinstance(node, ast.Call) and ast.unparse(node.func) in REGISTER_CALLS and len(node.args) >= 2:
                    pair = (node.args[0], node.args[1])
                    overrides = any(k.arg == "exist_ok" and isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords)
                elif isinstance(node, ast.Assign):  # CONFIG_MAPPING._extra_content["lfm2"] = Lfm2Config
                    slots = [t for t in node.targets if isinstance(t, ast.Subscript) and ast.unparse(t.value) == "CONFIG_MAPPING._extra_content"]
                    pair = (slots[0].slice, node.value) if slots else None
                key = _registered_key(pair[0], bindings, table) if pair else None
                if key:  # a fallback _extra_content entry (cohere2_moe's except branch) takes over what register could not
                    earlier = found.get(key)
                    found[key] = Registration(
                        earlier.cls if earlier else _class_name(pair[1], bindings) or "", overrides or bool(earlier and earlier.overrides)
                    )
    return found


def _loop_bindings(top: ast.stmt, table: ConfigClasses) -> list[tuple[dict[str, str], ast.AST]]:
    """``top`` with its loop variable bound to each element: ``for cls in (A, B)`` binds ``cls`` to each class name,
    ``for key, cls in {"k": A}.items()`` binds both; any other statement is itself, unbound."""
    if isinstance(top, ast.For):
        if isinstance(top.target, ast.Name) and isinstance(top.iter, (ast.Tuple, ast.List, ast.Name)):
            return [({top.target.id: name}, top) for name in table.names(top.iter, [])]
        iterated = top.iter
        if (
            isinstance(top.target, ast.Tuple)
            and len(top.target.elts) == 2
            and all(isinstance(e, ast.Name) for e in top.target.elts)
            and isinstance(iterated, ast.Call)
            and isinstance(iterated.func, ast.Attribute)
            and iterated.func.attr == "items"
            and isinstance(iterated.func.value, ast.Dict)
        ):
            key_name, cls_name = (e.id for e in top.target.elts)
            pairs = zip(iterated.func.value.keys, iterated.func.value.values)
            return [
                ({key_name: k.value, cls_name: v.id}, top)
                for k, v in pairs
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and isinstance(v, ast.Name)
            ]
    return [({}, top)]


def _class_name(node: ast.AST, bindings: dict[str, str]) -> str | None:
    """A register call's class argument: a bound loop variable or the class's own name."""
    return bindings.get(node.id, node.id) if isinstance(node, ast.Name) else None


def _registered_key(node: ast.AST, bindings: dict[str, str], table: ConfigClasses) -> str | None:
    """A register call's key: a constant, a loop variable bound to one, or ``Cls.model_type``; None when the key is
    not static (``for name, cls in _CONFIG_REGISTRY.items()`` re-registers keys already counted)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        bound = bindings.get(node.id)
        return bound if bound not in table.classes else None
    if isinstance(node, ast.Attribute) and node.attr == "model_type":
        name = _class_name(node.value, bindings)
        return table.model_type(name) if name else None
    return None


def _configs_imports(tree: ast.Module) -> set[str]:
    """The configs/ modules ``sglang/srt/configs/__init__.py`` imports (so ``from sglang.srt.configs import ...``
    in get_config's module runs their registrations)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            module = node.module if node.level == 0 else f"sglang.srt.configs.{node.module}"
            if module.startswith("sglang.srt.configs."):
                found.add("configs/" + module.removeprefix("sglang.srt.configs.").replace(".", "/") + ".py")
    return found


def config_model_types(trees: dict[str, ast.Module], transformers_types: set[str]) -> dict[str, str]:
    """``config_model_types`` of a release, from its configs/ and registry modules (``rel`` -> tree): every type
    ``get_config``'s module registers, mapped to where its class is defined; ``transformers_types``, those of the
    pinned transformers, which a registration without ``exist_ok`` cannot take over."""
    table = ConfigClasses()
    for rel, tree in trees.items():
        table.add_module(rel, tree)
    registry_files = [rel for rel in CONFIG_REGISTRY_FILES if rel in trees]
    if not registry_files:
        raise SystemExit(f"no _CONFIG_REGISTRY module ({', '.join(CONFIG_REGISTRY_FILES)})")
    init = trees.get("configs/__init__.py")
    imported = _configs_imports(init) if init else set()
    found: dict[str, str] = {}
    for rel in registry_files:
        classes, keys = _registry_classes(trees[rel], table)
        for name in classes:
            model_type = table.model_type(name)
            if model_type is None:
                print(f"{rel}: _CONFIG_REGISTRY class {name} has no model_type in configs/ (transformers' own)", file=sys.stderr)
                continue
            found.setdefault(model_type, table.classes[name].where)
        for key in keys:
            found.setdefault(key, f"{rel}:_CONFIG_REGISTRY")
    for rel in registry_files + sorted(imported & set(trees)):
        for key, registration in _registered_types(trees[rel], table).items():
            if key in transformers_types and not registration.overrides:
                continue
            cls = registration.cls
            found.setdefault(key, table.classes[cls].where if cls in table.classes else f"{rel}:AutoConfig.register")
    return dict(sorted(found.items()))


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
        tie_defaults = {
            model_type: _tie_default(archive, names, member, cls) for model_type, (member, cls) in COMPOSITE_CONFIG_CLASSES.items() if member in names
        }
        no_position_default = {
            model_type: cls
            for model_type, (member, cls) in ENCODER_CONFIG_CLASSES.items()
            if member in names and not _defines_attribute(ast.parse(archive.read(member).decode("utf-8")), cls, "position_embedding_type")
        }
    if not types or not classes:
        raise SystemExit(f"transformers {version}: no CONFIG_MAPPING_NAMES / MODEL_FOR_CAUSAL_LM_MAPPING_NAMES")
    return {
        "version": version,
        "model_types": sorted(types),
        "causal_lm_classes": sorted(classes),
        "configs_without_position_embedding_type": dict(sorted(no_position_default.items())),
        "tie_word_embeddings_defaults": dict(sorted(tie_defaults.items())),
    }


# Composite (text_config) configs whose checkpoints leave tie_word_embeddings out, so the pinned config class's
# default decides whether SGLang's class ties its lm_head to the embedding
COMPOSITE_CONFIG_CLASSES = {
    "glm4v_moe": ("transformers/models/glm4v_moe/configuration_glm4v_moe.py", "Glm4vMoeConfig"),
}
BASE_CONFIG = ("transformers/configuration_utils.py", ("PretrainedConfig", "PreTrainedConfig"))


def _tie_default(archive: zipfile.ZipFile, names: set, member: str, cls: str) -> bool:
    """The ``tie_word_embeddings`` default of ``cls``: its own (a class field or an ``__init__`` default), else
    transformers' base config class's."""
    own = _literal_default(ast.parse(archive.read(member).decode("utf-8")), (cls,), "tie_word_embeddings")
    if own is not None:
        return own
    base = _literal_default(ast.parse(archive.read(BASE_CONFIG[0]).decode("utf-8")), BASE_CONFIG[1], "tie_word_embeddings")
    if base is None:
        raise SystemExit(f"{BASE_CONFIG[0]}: no tie_word_embeddings default")
    return base


def _literal_default(tree: ast.Module, classes: tuple, attribute: str):
    """The constant default ``attribute`` gets in one of ``classes``: ``attribute: T = value`` in the class body or
    ``def __init__(..., attribute=value)``; None when the class gives it none."""
    for node in tree.body:
        if not (isinstance(node, ast.ClassDef) and node.name in classes):
            continue
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.target.id == attribute and item.value is not None:
                return ast.literal_eval(item.value)
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                args = item.args.args + item.args.kwonlyargs
                defaults = [None] * (len(item.args.args) - len(item.args.defaults)) + list(item.args.defaults) + list(item.args.kw_defaults)
                for arg, default in zip(args, defaults):
                    if arg.arg == attribute and default is not None:
                        return ast.literal_eval(default)
    return None


# The config classes SGLang's encoders (models/bert.py, roberta.py) read ``position_embedding_type`` from
ENCODER_CONFIG_CLASSES = {
    "bert": ("transformers/models/bert/configuration_bert.py", "BertConfig"),
    "xlm-roberta": ("transformers/models/xlm_roberta/configuration_xlm_roberta.py", "XLMRobertaConfig"),
}


def _defines_attribute(tree: ast.Module, cls: str, attribute: str) -> bool:
    """Whether class ``cls`` gives ``attribute`` a default: an ``__init__`` parameter, a class-level field or a
    ``self.<attribute> =`` assignment."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for sub in ast.walk(node):
                if isinstance(sub, ast.arg) and sub.arg == attribute:
                    return True
                if isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Name) and sub.target.id == attribute:
                    return True
                if isinstance(sub, ast.Attribute) and sub.attr == attribute and isinstance(sub.ctx, ast.Store):
                    return True
    return False


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


QUANTIZATION_REGISTRY = "sglang/srt/layers/quantization/__init__.py"
# The platform probes a CUDA build answers True; every other ``is_*()`` probe, and any module-level flag derived from
# one (``_is_mxfp_supported``, ``_is_gfx95_supported``), is False there.
_CUDA_TRUE_PROBES = frozenset({"is_cuda", "is_cuda_alike"})


def _on_cuda(test: ast.AST) -> bool:
    """Whether a module-level ``if`` test holds on an NVIDIA GPU (``is_cuda() or (... and is_hip())``)."""
    if isinstance(test, ast.BoolOp):
        values = [_on_cuda(v) for v in test.values]
        return any(values) if isinstance(test.op, ast.Or) else all(values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return not _on_cuda(test.operand)
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
        return test.func.id in _CUDA_TRUE_PROBES
    return False


def cuda_quantization_methods(tree: ast.Module) -> list[str]:
    """The keys of ``QUANTIZATION_METHODS`` on CUDA, in SGLang's order (its "Unknown quantization method ... Must be
    one of [...]" lists them so): the ``BASE_QUANTIZATION_METHODS`` literal plus the ``.update({...})`` blocks whose
    module-level ``if`` holds on CUDA."""
    keys: list[str] = []

    def add(node: ast.AST) -> None:
        if isinstance(node, ast.Dict):
            keys.extend(k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value not in keys)

    for stmt in tree.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Name) and t.id == "BASE_QUANTIZATION_METHODS" for t in targets):
                add(stmt.value)
        elif isinstance(stmt, ast.If) and _on_cuda(stmt.test):
            for inner in stmt.body:
                call = inner.value if isinstance(inner, ast.Expr) else None
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "update"
                    and isinstance(call.func.value, ast.Name)
                    and call.func.value.id == "BASE_QUANTIZATION_METHODS"
                    and call.args
                ):
                    add(call.args[0])
    return keys


MULTIMODAL_GRAPH_LISTS = {
    "piecewise": "multimodal_piecewise_cuda_graph_supported_model_archs",
    "breakable": "multimodal_breakable_cuda_graph_supported_model_archs",
}


def multimodal_graph_archs(tree: ast.Module) -> dict[str, list[str]]:
    """``configs/model_config.py``'s allowlists of multimodal classes that keep prefill CUDA graphs of each kind (the
    others lose them); a release without a list has none."""
    out: dict[str, list[str]] = {kind: [] for kind in MULTIMODAL_GRAPH_LISTS}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.List):
            for kind, name in MULTIMODAL_GRAPH_LISTS.items():
                if any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
                    out[kind] = sorted({e.value for e in stmt.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)})
    return out


def language_model_only_archs(tree: ast.Module) -> list[str] | None:
    """``ServerArgs.LANGUAGE_MODEL_ONLY_ARCHITECTURES`` (server_args.py): the classes ``--language-model-only`` accepts
    (arg_groups/model_hook.py handle_language_model_only refuses the others), in the source's order; None where the
    release keeps no such list."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Tuple, ast.List)):
            if any(isinstance(t, ast.Name) and t.id == "LANGUAGE_MODEL_ONLY_ARCHITECTURES" for t in node.targets):
                return [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return None


def _pinned_transformers(version: str) -> str:
    pins = json.loads((DATA / "sglang-releases.json").read_text())
    return next(r["transformers"] for r in pins["releases"] if r["version"] == version)


def build_catalog(version: str) -> dict:
    wheel = download_wheel(version)
    entry: dict[str, str] = {}
    special: dict[str, set[str]] = {}
    config_trees: dict[str, ast.Module] = {}
    lm_only_archs = None
    with zipfile.ZipFile(wheel) as archive:
        quantization_methods = cuda_quantization_methods(ast.parse(archive.read(QUANTIZATION_REGISTRY).decode("utf-8-sig")))
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
            if rel.startswith("configs/") or rel in CONFIG_REGISTRY_FILES:
                config_trees[rel] = tree
            if rel == "server_args.py":
                lm_only_archs = language_model_only_archs(tree)
            if SIZING_FILES.match(member):
                for name, scopes in _mentions(tree).items():
                    special.setdefault(name, set()).update(f"{rel}:{s}" for s in scopes)
    transformers = transformers_tables(_pinned_transformers(version))
    return {
        "sglang_version": version,
        "wheel_filename": wheel.name,
        "wheel_sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
        "generated_by": "scripts/gen_arch_catalog.py (ast over the wheel's source; nothing imported)",
        "entry_class_count": len(entry),
        "entry_classes": dict(sorted(entry.items())),
        "special_cased": {name: sorted(where) for name, where in sorted(special.items())},
        "config_model_types": config_model_types(config_trees, set(transformers["model_types"])),
        "quantization_methods": quantization_methods,
        "multimodal_graph_archs": multimodal_graph_archs(config_trees["configs/model_config.py"]),
        "language_model_only_archs": lm_only_archs,
        "transformers": transformers,
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
