# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Generate the SGLang ``launch_server`` flag catalog of a release from its real wheel.

``python scripts/gen_flag_catalog.py VERSION...`` (any list, e.g. 0.5.9 ... 0.5.23) downloads each wheel
with ``pip download --no-deps`` into ``.cache/wheels`` (outside git; the CPython 3.12 x86_64 wheel from
0.5.11 on, when SGLang started shipping one wheel per interpreter), records its sha256 and reads the
argparse registration with :mod:`ast` only: SGLang, torch and friends are never imported.

The registration styles understood:

* hand-written ``parser.add_argument(...)`` calls in ``ServerArgs.add_cli_args`` (0.5.9 to 0.5.13.post1;
  a few are left in later releases), following helper functions that receive the parser;
* ``add_cli_args_from_dataclass(parser, ServerArgs)`` (0.5.14 on), mapped to argparse exactly as
  ``sglang/srt/arg_groups/arg_utils.py`` does: the ``A[T, Arg(...)]`` fields of ``ServerArgs`` itself
  (0.5.14 to 0.5.19), then of the namespace classes in ``_INPUT_NAMESPACES``
  (``sglang/srt/arg_groups/fields/*.py``, 0.5.20 on).

Names the registration references (choice lists, class defaults, enum members, registry dicts, small
helper functions) are evaluated statically from the wheel's own source. What cannot be resolved that
way is recorded as ``null`` with a note, never guessed. The result is written to
``plugins/plugin_utils/data/sglang-flags-<V>.json``.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import hashlib
import json
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WHEELS = REPO / ".cache" / "wheels"
SOURCES = REPO / ".cache" / "flag-catalog-src"
DATA = REPO / "plugins" / "plugin_utils" / "data"


class Unresolved(Exception):
    """An expression whose value cannot be known without running SGLang."""


# ---------------------------------------------------------------------------------------------------
# Values the static evaluator hands around
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModuleRef:
    name: str


@dataclass(frozen=True)
class FunctionRef:
    module: str
    node: ast.FunctionDef

    @property
    def name(self) -> str:
        return self.node.name


@dataclass(frozen=True)
class ClassRef:
    module: str
    node: ast.ClassDef

    @property
    def name(self) -> str:
        return self.node.name


@dataclass(frozen=True)
class ExternalRef:
    """Something outside the ``sglang`` package (``json.loads``, ``argparse.BooleanOptionalAction``)."""

    dotted: str

    @property
    def name(self) -> str:
        return self.dotted.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class EnumMember:
    name: str
    value: object


class Opaque:
    """A value that exists but is not needed (a registry dict's detector classes)."""

    def __repr__(self) -> str:
        return "<opaque>"


OPAQUE = Opaque()

SAFE_BUILTINS = {
    name: getattr(builtins, name)
    for name in (
        "list",
        "tuple",
        "set",
        "frozenset",
        "sorted",
        "dict",
        "str",
        "int",
        "float",
        "bool",
        "len",
        "min",
        "max",
        "reversed",
        "range",
        "zip",
        "enumerate",
        "repr",
    )
}
# Standard-library constants a registration passes as values (0.5.12+: ``help=argparse.SUPPRESS``).
STDLIB_CONSTANTS = {"argparse.SUPPRESS": argparse.SUPPRESS}
SAFE_METHODS = {
    str: {"lower", "upper", "strip", "replace", "split", "join", "format", "startswith", "endswith", "title"},
    dict: {"keys", "values", "items", "get", "copy"},
    list: {"copy", "index", "count"},
    tuple: {"index", "count"},
}


# ---------------------------------------------------------------------------------------------------
# The wheel's source, read statically
# ---------------------------------------------------------------------------------------------------


class Module:
    """One source module: its AST and the top-level statements that bind each name, in order."""

    def __init__(self, name: str, path: Path):
        self.name = name
        self.path = path
        self.tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        self.bindings: dict[str, list[ast.stmt]] = {}
        self._collect(self.tree.body)

    def _bind(self, name: str, stmt: ast.stmt) -> None:
        self.bindings.setdefault(name, []).append(stmt)

    def _collect(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._bind(stmt.name, stmt)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        self._bind(target.id, stmt)
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
                self._bind(stmt.target.id, stmt)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for alias in stmt.names:
                    self._bind((alias.asname or alias.name).split(".")[0], stmt)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                func = stmt.value.func  # NAME.extend([...]) / NAME.append(x) at module level
                if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                    if func.attr in ("append", "extend", "add", "update", "insert"):
                        self._bind(func.value.id, stmt)
            elif isinstance(stmt, ast.If):
                # Only the unconditional-looking branch: TYPE_CHECKING blocks hold imports we can follow.
                # An in-place change under a condition (0.5.13-0.5.18: ``if envs.SGLANG_KV_CANARY_ENABLE_
                # TOKEN_ORACLE.get(): SAMPLING_BACKEND_CHOICES.add("token_oracle")``) is left out: a plain
                # host without such environment variables does not run it.
                self._collect([s for s in stmt.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call))])
            elif isinstance(stmt, ast.Try):
                self._collect(stmt.body)


class Source:
    """The unpacked wheel: module lookup and a small static evaluator over its AST."""

    def __init__(self, root: Path):
        self.root = root
        self._modules: dict[str, Module] = {}
        self._values: dict[tuple[str, str], object] = {}
        self.declared_defaults: dict[str, object] = {}

    # -- modules ---------------------------------------------------------------------------------
    def module(self, name: str) -> Module:
        if name not in self._modules:
            base = self.root / name.replace(".", "/")
            path = base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
            if not path.exists():
                raise Unresolved(f"module {name} is not in the wheel")
            self._modules[name] = Module(name, path)
        return self._modules[name]

    def has_module(self, name: str) -> bool:
        base = self.root / name.replace(".", "/")
        return base.with_suffix(".py").exists() or (base / "__init__.py").exists()

    @staticmethod
    def _absolute(module: Module, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = module.name.split(".")
        if module.path.name != "__init__.py":
            parts = parts[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        return ".".join(parts + ([node.module] if node.module else []))

    # -- names ---------------------------------------------------------------------------------
    def global_value(self, module_name: str, name: str):
        key = (module_name, name)
        if key not in self._values:
            self._values[key] = self._resolve_global(module_name, name)
        return self._values[key]

    def _resolve_global(self, module_name: str, name: str):
        module = self.module(module_name)
        statements = module.bindings.get(name)
        if not statements:
            if name in SAFE_BUILTINS:
                return SAFE_BUILTINS[name]
            if name in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[name]
            raise Unresolved(f"{module_name}.{name} is not defined at module level")
        value = None
        for stmt in statements:
            try:
                value = self._apply_binding(module, name, stmt, value)
            except Unresolved:
                # ``ServerArgs = msgspec.defstruct("ServerArgs", ..., namespace=vars(ServerArgs))`` rebuilds
                # a class from itself: its methods stay those of the class statement.
                if not isinstance(value, ClassRef):
                    raise
        return value

    def _apply_binding(self, module: Module, name: str, stmt: ast.stmt, current):
        if isinstance(stmt, ast.FunctionDef):
            return FunctionRef(module.name, stmt)
        if isinstance(stmt, ast.ClassDef):
            return ClassRef(module.name, stmt)
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if (alias.asname or alias.name.split(".")[0]) == name:
                    target = alias.name if alias.asname else alias.name.split(".")[0]
                    return ModuleRef(target) if target.startswith("sglang") else ExternalRef(target)
        if isinstance(stmt, ast.ImportFrom):
            source = self._absolute(module, stmt)
            for alias in stmt.names:
                if (alias.asname or alias.name) == name:
                    if not source.startswith("sglang"):
                        return ExternalRef(f"{source}.{alias.name}")
                    if self.has_module(f"{source}.{alias.name}"):
                        return ModuleRef(f"{source}.{alias.name}")
                    return self.global_value(source, alias.name)
        if isinstance(stmt, ast.Assign):
            return self.eval(stmt.value, module.name)
        if isinstance(stmt, ast.AnnAssign):
            if stmt.value is None:
                return current
            return self.eval(stmt.value, module.name)
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
            return current + self.eval(stmt.value, module.name)
        if isinstance(stmt, ast.Expr):
            call = stmt.value
            method = getattr(current, call.func.attr)
            method(*[self.eval(a, module.name) for a in call.args])
            return current
        raise Unresolved(f"cannot follow the binding of {module.name}.{name}: {ast.unparse(stmt)[:80]}")

    def class_attribute(self, cls: ClassRef, attr: str):
        enum_like = any(ast.unparse(b).rsplit(".", maxsplit=1)[-1] in ("Enum", "StrEnum", "IntEnum") for b in cls.node.bases)
        for stmt in cls.node.body:
            target, value = None, None
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                target, value = stmt.targets[0].id, stmt.value
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                target, value = stmt.target.id, stmt.value
            elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and stmt.name == attr:
                return FunctionRef(cls.module, stmt) if isinstance(stmt, ast.FunctionDef) else ClassRef(cls.module, stmt)
            if target == attr:
                if value is None:
                    raise Unresolved(f"{cls.name}.{attr} has no class-level value")
                resolved = self.eval(value, cls.module, class_scope=cls)
                return EnumMember(attr, resolved) if enum_like else field_default(resolved)
        for base in cls.node.bases:
            try:
                parent = self.eval(base, cls.module)
            except Unresolved:
                continue
            if isinstance(parent, ClassRef):
                return self.class_attribute(parent, attr)
        raise Unresolved(f"{cls.name}.{attr} is not declared in the class body")

    def enum_members(self, cls: ClassRef) -> list[EnumMember]:
        members = []
        for stmt in cls.node.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                if not stmt.targets[0].id.startswith("_"):
                    members.append(EnumMember(stmt.targets[0].id, self.eval(stmt.value, cls.module)))
        return members

    # -- expressions ---------------------------------------------------------------------------
    def eval(self, node: ast.AST, module: str, local: dict | None = None, class_scope: ClassRef | None = None):
        local = local or {}

        def ev(child):
            return self.eval(child, module, local, class_scope)

        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in local:
                return local[node.id]
            if class_scope is not None:
                try:
                    return self.class_attribute(class_scope, node.id)
                except Unresolved:
                    pass
            return self.global_value(module, node.id)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = []
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    items.extend(ev(elt.value))
                else:
                    items.append(ev(elt))
            return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
        if isinstance(node, ast.Dict):
            out = {}
            for key, value in zip(node.keys, node.values):
                if key is None:
                    out.update(ev(value))
                    continue
                try:
                    out[ev(key)] = ev(value)
                except Unresolved:
                    out[ev(key)] = OPAQUE  # keys are what a registry's choices are made of
            return out
        if isinstance(node, ast.Attribute):
            if node.attr == "__doc__":
                target = ev(node.value)
                if isinstance(target, (FunctionRef, ClassRef)):
                    return ast.get_docstring(target.node, clean=False)
                raise Unresolved(ast.unparse(node))
            target = ev(node.value)
            if isinstance(target, ModuleRef):
                if self.has_module(f"{target.name}.{node.attr}"):
                    return ModuleRef(f"{target.name}.{node.attr}")
                return self.global_value(target.name, node.attr)
            if isinstance(target, ClassRef):
                return self.class_attribute(target, node.attr)
            if isinstance(target, ExternalRef):
                dotted = f"{target.dotted}.{node.attr}"
                return STDLIB_CONSTANTS.get(dotted, ExternalRef(dotted))
            if isinstance(target, EnumMember) and node.attr in ("name", "value"):
                return getattr(target, node.attr)
            if node.attr in SAFE_METHODS.get(type(target), ()):
                return getattr(target, node.attr)
            raise Unresolved(ast.unparse(node))
        if isinstance(node, ast.Call):
            return self._call(node, module, local, class_scope)
        if isinstance(node, ast.Lambda) and not (node.args.args or node.args.posonlyargs or node.args.vararg or node.args.kwonlyargs or node.args.kwarg):
            return Thunk(lambda: self.eval(node.body, module, local, class_scope), ast.unparse(node))
        if isinstance(node, ast.BinOp):
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, ast.Mod) and isinstance(left, str):
                return left % right
            if isinstance(node.op, ast.BitOr) and isinstance(left, (set, dict)):
                return left | right
            raise Unresolved(ast.unparse(node))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                if isinstance(value, ast.Constant):
                    parts.append(value.value)
                    continue
                inner = ev(value.value)
                inner = {115: str, 114: repr, 97: ascii}.get(value.conversion, lambda x: x)(inner)
                spec = ev(value.format_spec) if value.format_spec is not None else ""
                parts.append(format(inner, spec))
            return "".join(parts)
        if isinstance(node, ast.Subscript):
            return ev(node.value)[ev(node.slice)]
        if isinstance(node, (ast.ListComp, ast.SetComp)) and len(node.generators) == 1:
            gen = node.generators[0]
            if not isinstance(gen.target, ast.Name):
                raise Unresolved(ast.unparse(node))
            out = []
            for item in self._iterate(ev(gen.iter)):
                scope = {**local, gen.target.id: item}
                if all(self.eval(cond, module, scope, class_scope) for cond in gen.ifs):
                    out.append(self.eval(node.elt, module, scope, class_scope))
            return out if isinstance(node, ast.ListComp) else set(out)
        raise Unresolved(ast.unparse(node))

    def _iterate(self, value):
        if isinstance(value, ClassRef):
            return self.enum_members(value)
        if isinstance(value, (list, tuple, set, frozenset, dict, str)):
            return list(value)
        raise Unresolved(f"cannot iterate {value!r}")

    def _call(self, node: ast.Call, module: str, local: dict, class_scope):
        def ev(child):
            return self.eval(child, module, local, class_scope)

        func = ev(node.func)
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                args.extend(ev(arg.value))
            else:
                args.append(ev(arg))
        kwargs = {kw.arg: ev(kw.value) for kw in node.keywords if kw.arg}
        if isinstance(func, ExternalRef) and func.dotted in ("dataclasses.field", "msgspec.field"):
            return FieldDefault(kwargs)
        if func in (list, tuple, set, frozenset, sorted) and args and isinstance(args[0], ClassRef):
            args[0] = self.enum_members(args[0])
        if func in SAFE_BUILTINS.values() or getattr(func, "__self__", None) is not None:
            if any(isinstance(a, (ModuleRef, FunctionRef, ClassRef, ExternalRef)) for a in args):
                raise Unresolved(ast.unparse(node))
            return func(*args, **kwargs)
        if isinstance(func, FunctionRef) and func.name == "_declared_default" and func.module == "sglang.srt.server_args":
            # 0.5.23: ``next(f.default for f in msgspec.structs.fields(ServerArgs) if f.name == name)``,
            # i.e. the declared default of a namespace field, which dataclass_flags collected.
            if args[0] not in self.declared_defaults:
                raise Unresolved(f"no declared field {args[0]!r}")
            return self.declared_defaults[args[0]]
        if isinstance(func, FunctionRef):
            return self.call_function(func, args, kwargs)
        raise Unresolved(ast.unparse(node))

    def call_function(self, func: FunctionRef, args: list, kwargs: dict):
        """Run a small helper statically: bind parameters, follow assignments and local imports, and
        return the first ``return`` reached. An ``if`` whose test is not static (``sys.modules.get``) is
        skipped, so the helper's unconditional fallback path is the one that counts."""
        params = func.node.args
        local: dict = {}
        positional = [a.arg for a in params.posonlyargs + params.args]
        first_default = len(positional) - len(params.defaults)
        defaults = dict(zip(positional[first_default:], params.defaults))
        for i, name in enumerate(positional):
            if i < len(args):
                local[name] = args[i]
            elif name in kwargs:
                local[name] = kwargs[name]
            elif name in defaults:
                local[name] = self.eval(defaults[name], func.module)
        return self._run_body(func.node.body, func.module, local)

    def _run_body(self, body: list[ast.stmt], module: str, local: dict):
        for stmt in body:
            if isinstance(stmt, ast.Return):
                return self.eval(stmt.value, module, local) if stmt.value is not None else None
            if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
                try:
                    value = self.eval(stmt.value, module, local)
                except Unresolved:
                    continue
                for target in stmt.targets:
                    local[target.id] = value
            elif isinstance(stmt, ast.ImportFrom):
                source = self._absolute(self.module(module), stmt)
                for alias in stmt.names:
                    if source.startswith("sglang"):
                        local[alias.asname or alias.name] = self.global_value(source, alias.name)
                    else:
                        local[alias.asname or alias.name] = ExternalRef(f"{source}.{alias.name}")
            elif isinstance(stmt, ast.If):
                try:
                    taken = self.eval(stmt.test, module, local)
                except Unresolved:
                    continue
                result = self._run_body(stmt.body if taken else stmt.orelse, module, local)
                if result is not _NO_RETURN:
                    return result
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue  # docstring
            else:
                raise Unresolved(f"helper statement not followed: {ast.unparse(stmt)[:80]}")
        return _NO_RETURN


_NO_RETURN = object()


@dataclass(frozen=True)
class Thunk:
    """A parameterless ``lambda`` of the source, evaluated statically when called
    (0.5.14+: ``dataclasses.field(default_factory=lambda: list(DEFAULT_UVICORN_ACCESS_LOG_EXCLUDE_PREFIXES))``)."""

    evaluate: object
    spelled: str


@dataclass(frozen=True)
class FieldDefault:
    """``dataclasses.field(...)`` / ``msgspec.field(...)`` as written in a class body."""

    kwargs: dict


def field_default(value):
    """The default a ``field(...)`` declaration stands for (``default_factory`` called)."""
    if not isinstance(value, FieldDefault):
        return value
    if "default" in value.kwargs:
        return value.kwargs["default"]
    factory = value.kwargs.get("default_factory")
    if factory in (list, dict, set, tuple):
        return factory()
    if isinstance(factory, Thunk):
        return factory.evaluate()
    raise Unresolved("a default_factory other than list/dict/set/tuple or a parameterless lambda")


MISSING = object()


# ---------------------------------------------------------------------------------------------------
# The catalog
# ---------------------------------------------------------------------------------------------------


@dataclass
class Flag:
    option_strings: list
    dest: str
    action: str = "store"
    action_class: str | None = None
    type: str | None = None
    type_source: str | None = None
    default: object = None
    choices: list | None = None
    nargs: object = None
    const: object = None
    required: bool = False
    help: str = ""
    deprecated: dict | None = None
    declared_at: str = ""
    notes: list = field(default_factory=list)

    @property
    def boolean(self) -> bool:
        return self.nargs == 0

    def as_json(self) -> dict:
        return {
            "option_strings": self.option_strings,
            "dest": self.dest,
            "action": self.action,
            "action_class": self.action_class,
            "boolean": self.boolean,
            "type": self.type,
            "type_source": self.type_source,
            "default": plain(self.default),
            "choices": plain(self.choices),
            "nargs": self.nargs,
            "const": plain(self.const),
            "required": self.required,
            "deprecated": self.deprecated,
            "help": self.help,
            "declared_at": self.declared_at,
            "notes": self.notes,
        }


def plain(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, EnumMember):
        return plain(value.value)
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    raise Unresolved(f"value {value!r} has no JSON form")


BUILTIN_TYPES = {"int", "float", "str", "bool"}


def type_name(src: Source, node: ast.AST, module: str) -> tuple[str, str]:
    """(catalog type name, source spelling) of an argparse ``type=`` / ``type_parser=``."""
    spelled = ast.unparse(node)
    if isinstance(node, ast.Lambda):
        return "lambda", spelled
    if spelled in BUILTIN_TYPES:
        return spelled, spelled
    try:
        ref = src.eval(node, module)
    except Unresolved:
        return spelled.rsplit(".", 1)[-1], spelled
    if ref in (int, float, str, bool):
        return ref.__name__, spelled
    if isinstance(ref, ExternalRef):
        if ref.dotted in ("json.loads", "orjson.loads"):
            return "json", ref.dotted
        return ref.name, ref.dotted
    if isinstance(ref, (FunctionRef, ClassRef)):
        return ref.name, f"{ref.module}.{ref.name}"
    return spelled.rsplit(".", 1)[-1], spelled


def location(src: Source, module: str, node: ast.AST) -> str:
    return f"{src.module(module).path.relative_to(src.root)}:{node.lineno}"


def action_defaults(src: Source, action_ref, module: str) -> tuple[str, str | None, dict]:
    """(action kind, class name, the keyword defaults its ``__init__`` declares) of an ``action=``."""
    if isinstance(action_ref, str):
        return action_ref, None, {}
    if isinstance(action_ref, ExternalRef):
        if action_ref.dotted == "argparse.BooleanOptionalAction":
            return "boolean_optional", "BooleanOptionalAction", {}
        raise Unresolved(f"action {action_ref.dotted}")
    if isinstance(action_ref, ClassRef):
        init = next((s for s in action_ref.node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
        declared = {}
        if init is not None:
            names = [a.arg for a in init.args.args]
            first_default = len(names) - len(init.args.defaults)
            for name, default in zip(names[first_default:], init.args.defaults):
                declared[name] = src.eval(default, action_ref.module)
            for arg, default in zip(init.args.kwonlyargs, init.args.kw_defaults):
                if default is not None:
                    declared[arg.arg] = src.eval(default, action_ref.module)
        return "custom", f"{action_ref.module}.{action_ref.name}", declared
    raise Unresolved(f"action {action_ref!r}")


ARGPARSE_ACTION_SHAPE = {
    # kind: (nargs, const, default) argparse gives an action of this kind when the call leaves them out
    "store": (None, None, None),
    "store_true": (0, True, False),
    "store_false": (0, False, True),
    "store_const": (0, None, None),
    "append": (None, None, None),
    "count": (0, None, None),
    "boolean_optional": (0, None, None),
}


def deprecated_info(flag: Flag, extra: dict) -> dict | None:
    info = {}
    if flag.action_class and "Deprecated" in flag.action_class:
        info["behaviour"] = {
            "DeprecatedAction": "error" if extra.get("error_message") else "warning, value ignored",
            "DeprecatedStoreTrueAction": "warning, stores true",
            "DeprecatedStoreConstAction": "warning, stores a constant on the new flag",
            "DeprecatedAliasStoreAction": "warning, value moved to the new flag",
        }.get(flag.action_class.rsplit(".", 1)[-1], "warning")
    for key in ("new_flag", "error_message", "const_value"):
        if extra.get(key) is not None:
            info[key] = plain(extra[key])
    help_text = flag.help.lower()
    if not info and (help_text.startswith("deprecated") or help_text.startswith("(deprecated") or " is deprecated" in help_text):
        info["behaviour"] = "documented as deprecated"
    return info or None


def add_argument_flag(src: Source, call: ast.Call, module: str, local: dict) -> Flag:
    """A hand-written ``parser.add_argument(...)``, with argparse's own defaults filled in."""
    options = [src.eval(a, module, local) for a in call.args]
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    flag = Flag(option_strings=list(options), dest="", declared_at=location(src, module, call))

    def value(name, fallback=MISSING):
        if name not in kw:
            return fallback
        try:
            return src.eval(kw[name], module, local)
        except Unresolved as exc:
            flag.notes.append(f"{name} not statically resolvable ({ast.unparse(kw[name])}): {exc}")
            return None

    kind, action_class, declared = ("store", None, {})
    if "action" in kw:
        kind, action_class, declared = action_defaults(src, src.eval(kw["action"], module, local), module)
    flag.action, flag.action_class = kind, action_class
    nargs0, const0, default0 = ARGPARSE_ACTION_SHAPE.get(kind, (None, None, None))
    flag.nargs = value("nargs", declared.get("nargs", nargs0))
    flag.const = value("const", declared.get("const", const0))
    flag.default = value("default", declared.get("default", default0))
    flag.choices = value("choices", None)
    flag.required = bool(value("required", False))
    flag.help = value("help", "") or ""
    if "type" in kw:
        flag.type, flag.type_source = type_name(src, kw["type"], module)
    if "dest" in kw:
        flag.dest = src.eval(kw["dest"], module, local)
    else:
        long = next((o for o in options if o.startswith("--")), options[0])
        flag.dest = long.lstrip("-").replace("-", "_")
    if kind == "boolean_optional":
        flag.option_strings += [f"--no-{o[2:]}" for o in options if o.startswith("--")]
    extra = {k: src.eval(v, module, local) for k, v in kw.items() if k in ("new_flag", "error_message", "const_value")}
    flag.deprecated = deprecated_info(flag, extra)
    if isinstance(flag.choices, dict):
        flag.choices = list(flag.choices)
    if isinstance(flag.choices, (set, frozenset)):
        flag.notes.append("choices are a set in the source; listed sorted")
    if flag.choices is None and "choices" in kw and not any(n.startswith("choices") for n in flag.notes):
        flag.notes.append(f"choices not statically resolvable: {ast.unparse(kw['choices'])}")
    return flag


def walk_registration(src: Source, func: FunctionRef, parser_name: str, flags: list, seen: set) -> None:
    """Every ``<parser>.add_argument`` in a registration function, in order, following local
    assignments and the helper functions it hands the parser to."""
    if (func.module, func.name, func.node.lineno) in seen:
        return
    seen.add((func.module, func.name, func.node.lineno))
    local: dict = {}
    for stmt in ast.walk(ast.Module(body=func.node.body, type_ignores=[])):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            try:
                local[stmt.targets[0].id] = src.eval(stmt.value, func.module, local)
            except Unresolved:
                pass
        if not isinstance(stmt, ast.Call):
            continue
        callee = ast.unparse(stmt.func)
        if callee == f"{parser_name}.add_argument":
            flags.append(add_argument_flag(src, stmt, func.module, local))
        elif callee.endswith("add_cli_args_from_dataclass"):
            dataclass_flags(src, stmt, func, flags)
        elif any(isinstance(a, ast.Name) and a.id == parser_name for a in stmt.args):
            try:
                helper = src.eval(stmt.func, func.module, local)
            except Unresolved:
                helper = None
            if isinstance(helper, FunctionRef):
                index = next(i for i, a in enumerate(stmt.args) if isinstance(a, ast.Name) and a.id == parser_name)
                walk_registration(src, helper, helper.node.args.args[index].arg, flags, seen)


# -- add_cli_args_from_dataclass (0.5.23) ------------------------------------------------------------


def dataclass_flags(src: Source, call: ast.Call, caller: FunctionRef, flags: list) -> None:
    """The fields ``add_cli_args_from_dataclass(parser, ServerArgs)`` registers. ServerArgs is assembled
    from the namespace classes in ``_INPUT_NAMESPACES`` plus its own annotated fields."""
    target = src.eval(call.args[1], caller.module)
    if not isinstance(target, ClassRef):
        raise Unresolved("add_cli_args_from_dataclass on something other than a class")
    module = src.module(target.module)
    classes = []
    if "_INPUT_NAMESPACES" in module.bindings:
        for elt in module.bindings["_INPUT_NAMESPACES"][-1].value.elts:
            classes.append(src.eval(elt, target.module))
    classes.append(target)
    for cls in classes:
        for stmt in cls.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                try:
                    src.declared_defaults[stmt.target.id] = field_default(src.eval(stmt.value, cls.module))
                except Unresolved:
                    pass
    for cls in classes:
        # A field annotated twice in one class body (0.5.15-0.5.16: ``dcp_size``) is one dataclass field:
        # the last declaration wins, at the place of the first.
        declared: dict[str, ast.AnnAssign] = {}
        for stmt in cls.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                declared[stmt.target.id] = stmt
        for stmt in declared.values():
            flag = field_flag(src, cls, stmt)
            if flag is not None:
                flags.append(flag)


def _dict_item(node: ast.Dict, key: str) -> ast.AST:
    return next(v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant) and k.value == key)


def _unwrap_optional(node: ast.AST) -> ast.AST:
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Optional", "typing.Optional"):
        return node.slice
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Union", "typing.Union"):
        members = [e for e in node.slice.elts if ast.unparse(e) != "None"]
        if len(members) == 1 and len(node.slice.elts) == 2:
            return members[0]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        if ast.unparse(node.right) == "None":
            return node.left
        if ast.unparse(node.left) == "None":
            return node.right
    return node


def _resolve_alias(src: Source, node: ast.AST, module: str) -> tuple[ast.AST, str]:
    """Follow a module-level type alias (``Backend = Literal[...]``) to its definition."""
    while isinstance(node, ast.Name) and node.id not in BUILTIN_TYPES:
        statements = src.module(module).bindings.get(node.id)
        if not statements or not isinstance(statements[-1], (ast.Assign, ast.AnnAssign)):
            break
        node = statements[-1].value
    return node, module


def field_flag(src: Source, cls: ClassRef, stmt: ast.AnnAssign) -> Flag | None:
    """One ``name: A[T, "help" | Arg(...)] = default`` field, mapped the way arg_utils.py maps it."""
    name = stmt.target.id
    ann = stmt.annotation
    if not (isinstance(ann, ast.Subscript) and ast.unparse(ann.value) in ("A", "Annotated", "typing.Annotated")):
        return None
    tp, *metas = ann.slice.elts
    meta = None
    for m in metas:
        if isinstance(m, ast.Call) and ast.unparse(m.func).rsplit(".", maxsplit=1)[-1] == "Arg":
            meta = {k.arg: k.value for k in m.keywords}
            break
        try:
            evaluated = src.eval(m, cls.module)
        except Unresolved:
            if isinstance(m, (ast.JoinedStr, ast.BinOp, ast.Constant)):
                meta = {"help": m}
                break
            continue
        if isinstance(evaluated, str):
            meta = {"help": m}
            break
    if meta is None:
        return None
    flag = Flag(option_strings=[], dest=name, declared_at=location(src, cls.module, stmt))

    def arg(key, fallback=None):
        if key not in meta:
            return fallback
        try:
            return src.eval(meta[key], cls.module)
        except Unresolved as exc:
            flag.notes.append(f"{key} not statically resolvable ({ast.unparse(meta[key])[:120]}): {exc}")
            return None

    if arg("no_cli", False):
        return None
    try:
        help_text = arg("help", "") or ""
    except Unresolved:
        help_text = ""
    flag.help = help_text if isinstance(help_text, str) else ""
    if not flag.help and "help" in meta:
        flag.help = ast.unparse(meta["help"])
    cli = arg("cli_name") or "--" + name.replace("_", "-")
    flag.option_strings = [cli] + list(arg("aliases") or [])
    if stmt.value is None:
        default = MISSING
    else:
        try:
            default = field_default(src.eval(stmt.value, cls.module))
        except Unresolved as exc:
            flag.notes.append(f"default not statically resolvable ({ast.unparse(stmt.value)}): {exc}")
            default = None
    flag.default = None if default is MISSING else default
    type_parser = meta.get("type_parser")
    if type_parser is not None:
        flag.type, flag.type_source = type_name(src, type_parser, cls.module)

    if "action" in meta:
        kind, action_class, declared = action_defaults(src, src.eval(meta["action"], cls.module), cls.module)
        flag.action, flag.action_class = kind, action_class
        extra = dict(arg("action_kwargs") or {})
        nargs0, const0, default0 = ARGPARSE_ACTION_SHAPE.get(kind, (None, None, None))
        flag.nargs = extra.get("nargs", declared.get("nargs", nargs0))
        flag.const = extra.get("const", declared.get("const", const0))
        if default is MISSING:
            flag.default = extra.get("default", declared.get("default", default0))
        flag.choices = extra.get("choices")
        if "type" in extra and isinstance(meta.get("action_kwargs"), ast.Dict):
            flag.type, flag.type_source = type_name(src, _dict_item(meta["action_kwargs"], "type"), cls.module)
        if kind == "boolean_optional":
            flag.option_strings += [f"--no-{o[2:]}" for o in flag.option_strings if o.startswith("--")]
        flag.deprecated = deprecated_info(flag, extra)
        return flag

    inner, alias_module = _resolve_alias(src, _unwrap_optional(tp), cls.module)
    inner = _unwrap_optional(inner)
    head = ast.unparse(inner.value if isinstance(inner, ast.Subscript) else inner).rsplit(".", maxsplit=1)[-1]
    choices = arg("choices")
    const = arg("const")
    if head == "Literal":
        elts = inner.slice.elts if isinstance(inner.slice, ast.Tuple) else [inner.slice]
        literals = [src.eval(e, alias_module) for e in elts]
        flag.choices = choices or literals
        if flag.type is None:
            first = type(literals[0]).__name__ if literals else "str"
            flag.type = first if first in ("int", "float", "str") else "str"
    elif head in ("List", "list") and type_parser is None:
        elem = inner.slice if isinstance(inner, ast.Subscript) else None
        elem_name = ast.unparse(elem) if elem is not None else "str"
        flag.type = elem_name if elem_name in ("int", "float", "str") else "str"
        flag.nargs = arg("nargs") or "+"
        flag.choices = choices or None
    elif head == "bool" and type_parser is None:
        flag.action, flag.nargs, flag.const = "store_true", 0, True
        if default is MISSING:
            flag.default = False
    else:
        if flag.type is None:
            flag.type = head if head in ("int", "float", "str") else "str"
            flag.type_source = flag.type
        flag.choices = choices or None
        flag.nargs = arg("nargs")
        required = arg("required")
        flag.required = bool(required is True or (required is None and default is MISSING))
    if const is not None and flag.action != "store_true":
        flag.const = const
    if flag.type_source is None and flag.type is not None:
        flag.type_source = flag.type
    flag.deprecated = deprecated_info(flag, {})
    return flag


# ---------------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------------


# The wheel read for each release: the one pip installs into the project venv (CPython 3.12 on x86_64
# Linux). From 0.5.11 on SGLang ships one wheel per CPython version and platform.
TARGET_PYTHON = "3.12"
TARGET_PLATFORM = "manylinux_2_34_x86_64"
TARGET_WHEEL_TAGS = ("py3-none-any", f"cp312-cp312-{TARGET_PLATFORM}")


def download_wheel(version: str) -> Path:
    """The release's wheel for :data:`TARGET_PYTHON` / :data:`TARGET_PLATFORM`, downloaded once."""
    WHEELS.mkdir(parents=True, exist_ok=True)

    def matching() -> list[Path]:
        return [WHEELS / f"sglang-{version}-{tag}.whl" for tag in TARGET_WHEEL_TAGS if (WHEELS / f"sglang-{version}-{tag}.whl").exists()]

    if not matching():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--only-binary=:all:",
                "--python-version",
                TARGET_PYTHON,
                "--platform",
                TARGET_PLATFORM,
                f"sglang=={version}",
                "-d",
                str(WHEELS),
            ],
            check=True,
        )
    found = matching()
    if not found:
        raise SystemExit(f"pip download left no sglang-{version} wheel tagged {' or '.join(TARGET_WHEEL_TAGS)} in {WHEELS}")
    return found[0]


def unpack(wheel: Path, version: str) -> Path:
    root = SOURCES / version
    marker = root / ".wheel"
    if not (marker.exists() and marker.read_text() == wheel.name):
        root.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                if member.startswith("sglang/") and member.endswith(".py"):
                    archive.extract(member, root)
        marker.write_text(wheel.name)
    return root


def namespace_renames(src: Source, server_args: ClassRef) -> dict[str, str]:
    """``args.tp_size = args.tensor_parallel_size`` lines in ``ServerArgs.from_cli_args`` (0.5.9): the
    ServerArgs field each argparse dest ends up in, where the two differ."""
    try:
        from_cli = src.class_attribute(server_args, "from_cli_args")
    except Unresolved:
        return {}
    renames = {}
    for stmt in from_cli.node.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute) and isinstance(stmt.value, ast.Attribute):
            renames[stmt.value.attr] = stmt.targets[0].attr
    return renames


def allow_abbrev(src: Source) -> bool:
    """Whether ``prepare_server_args`` builds its parser with argparse's prefix matching (the default)."""
    prepare = src.global_value("sglang.srt.server_args", "prepare_server_args")
    for node in ast.walk(prepare.node):
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("ArgumentParser"):
            for kw in node.keywords:
                if kw.arg == "allow_abbrev":
                    return bool(src.eval(kw.value, prepare.module))
            return True
    raise Unresolved("prepare_server_args builds no ArgumentParser")


def build_catalog(version: str) -> dict:
    wheel = download_wheel(version)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    src = Source(unpack(wheel, version))
    server_args = src.global_value("sglang.srt.server_args", "ServerArgs")
    add_cli_args = src.class_attribute(server_args, "add_cli_args")
    flags: list[Flag] = []
    walk_registration(src, add_cli_args, add_cli_args.node.args.args[0].arg, flags, set())
    renamed = namespace_renames(src, server_args)
    entries = []
    for flag in flags:
        entry = flag.as_json()
        entry["field"] = renamed.get(flag.dest, flag.dest)
        entries.append(entry)
    entries.sort(key=lambda f: f["option_strings"][0])
    return {
        "sglang_version": version,
        "wheel_filename": wheel.name,
        "wheel_sha256": digest,
        "generated_by": "scripts/gen_flag_catalog.py (ast over the wheel's source; nothing imported)",
        "parser": {"builder": "sglang.srt.server_args.prepare_server_args", "allow_abbrev": allow_abbrev(src)},
        "flag_count": len(entries),
        "option_string_count": sum(len(f["option_strings"]) for f in entries),
        "flags": entries,
    }


def main(argv: list[str]) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("versions", nargs="+", metavar="VERSION")
    args = cli.parse_args(argv)
    DATA.mkdir(parents=True, exist_ok=True)
    for version in args.versions:
        catalog = build_catalog(version)
        out = DATA / f"sglang-flags-{version}.json"
        out.write_text(json.dumps(catalog, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        unresolved = sum(1 for f in catalog["flags"] if f["notes"])
        print(
            f"{out.relative_to(REPO)}: {catalog['flag_count']} flags, {catalog['option_string_count']} option strings, "
            f"{unresolved} with notes, wheel sha256 {catalog['wheel_sha256'][:16]}..."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
