# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Generate the index of messages SGLang can fail or warn with, from every release's real wheel.

``python scripts/gen_message_templates.py [--first 0.4.0] [--last 0.5.23]`` asks ``pip index versions sglang``
for the releases between the bounds (post releases included), downloads each with ``pip download --no-deps``
into ``.cache/wheels`` (outside git; the CPython 3.12 x86_64 wheel from 0.5.11 on, the sdist where a release
has no wheel) and reads every module under ``sglang/srt/`` with :mod:`ast` (nothing is imported). The sites:

* ``raise X(msg)`` (kind ``raise:X``), ``assert cond, msg`` (``assert``);
* ``assert cond`` without a message (``assert:condition``): a log shows such a failure only as the traceback's
  source line, so the template is the condition's source text;
* ``<logger>.error/exception/critical/fatal/warning/warn(msg, *args)`` (``logger.error``, ``logger.exception``,
  ``logger.critical``, ``logger.warning``) on ``logging``, ``logger`` or any name bound from ``getLogger``.

Messages are rendered into templates: literal text with ``{}`` for each run-time value (literal braces are
doubled, as in ``str.format``). f-strings, ``%`` formatting (and a logger's lazy ``%`` arguments), ``.format``,
concatenation, conditional expressions (one template per branch) and local or module-level string variables are
followed. A message without static text is
kept as kind ``dynamic:<kind>`` with its source expression as text. The index is written to
``plugins/plugin_utils/data/sglang-messages.json``: the releases (wheel name and sha256), the modules, and the
deduplicated templates with the index ranges of the releases that have them. Then the diagnoser's pattern table
(``sglang-message-patterns.json``) is rebuilt from it with the rules of ``diagnosis/message_map.py``
(``--patterns-only`` does just that, after a rule change).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WHEELS = REPO / ".cache" / "wheels"
SITE_CACHE = REPO / ".cache" / "message-sites"
OUTPUT = REPO / "plugins" / "plugin_utils" / "data" / "sglang-messages.json"

# Bump when the extraction changes: the per-release site cache is keyed by it.
EXTRACTOR_VERSION = 4

# The wheel read for each release, as scripts/gen_flag_catalog.py reads it (CPython 3.12, x86_64 Linux).
TARGET_PYTHON = "3.12"
TARGET_PLATFORM = "manylinux_2_34_x86_64"
TARGET_WHEEL_TAGS = ("py3-none-any", f"cp312-cp312-{TARGET_PLATFORM}")

LOG_METHODS = {
    "error": "logger.error",
    "exception": "logger.exception",
    "critical": "logger.critical",
    "fatal": "logger.critical",
    "warning": "logger.warning",
    "warn": "logger.warning",
}
PLACEHOLDER = None  # a run-time value inside a rendered message
PERCENT_RE = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsa%]")
BRACE_RE = re.compile(r"\{\{|\}\}|\{[^{}]*\}")
MAX_DEPTH = 4
MAX_ALTERNATIVES = 4
MAX_DYNAMIC_TEXT = 120
# Templates are kept to their first characters: a message's opening is what identifies it, and the index must
# stay small enough for the collection tarball.
MAX_TEXT = 240


def version_key(version: str) -> tuple:
    base, _sep, post = version.partition(".post")
    return tuple(int(part) for part in base.split(".")) + (int(post) if post else 0,)


def released_versions(first: str, last: str) -> list[str]:
    """Every release ``pip index versions sglang`` lists between ``first`` and ``last``, oldest first."""
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "sglang"], check=True, capture_output=True, text=True).stdout
    listed = next(line for line in out.splitlines() if line.startswith("Available versions:"))
    versions = [v.strip() for v in listed.split(":", 1)[1].split(",")]
    low, high = version_key(first), version_key(last)
    return sorted((v for v in versions if low <= version_key(v) <= high), key=version_key)


def download(version: str) -> Path:
    """The release's wheel (or sdist when it has no wheel), downloaded once into ``.cache/wheels``."""
    WHEELS.mkdir(parents=True, exist_ok=True)

    def found() -> list[Path]:
        wheels = [WHEELS / f"sglang-{version}-{tag}.whl" for tag in TARGET_WHEEL_TAGS]
        return [p for p in wheels + [WHEELS / f"sglang-{version}.tar.gz"] if p.exists()]

    if not found():
        pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(WHEELS)]
        wheel = pip + ["--only-binary=:all:", "--python-version", TARGET_PYTHON, "--platform", TARGET_PLATFORM, f"sglang=={version}"]
        if subprocess.run(wheel, check=False).returncode != 0:
            subprocess.run(pip + ["--no-binary=:all:", f"sglang=={version}"], check=True)
    paths = found()
    if not paths:
        raise SystemExit(f"pip download left no sglang-{version} wheel or sdist in {WHEELS}")
    return paths[0]


def srt_sources(archive: Path):
    """(path from ``sglang/``, source text) of every module under ``sglang/srt/`` in a wheel or sdist."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            for name in sorted(wheel.namelist()):
                if name.startswith("sglang/srt/") and name.endswith(".py"):
                    yield name, wheel.read(name).decode("utf-8", "replace")
        return
    with tarfile.open(archive) as sdist:
        for member in sorted(sdist.getmembers(), key=lambda m: m.name):
            rel = member.name.split("/", 1)[-1]
            prefix = len("python/")
            rel = rel[prefix:] if rel.startswith("python/") else rel
            if member.isfile() and rel.startswith("sglang/srt/") and rel.endswith(".py"):
                yield rel, io.TextIOWrapper(sdist.extractfile(member), encoding="utf-8", errors="replace").read()


# ---------------------------------------------------------------------------------------------------
# Rendering a message expression into literal parts and placeholders
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Site:
    kind: str
    text: str
    module: str
    line: int


class Scope:
    """String bindings visible at a site: the enclosing function's assignments, then the module's."""

    def __init__(self, module_bindings: dict, function_bindings: dict | None = None):
        self.module_bindings = module_bindings
        self.function_bindings = function_bindings or {}

    def value_of(self, name: str, line: int):
        """The expression ``name`` holds at ``line``: its last plain assignment before it, plus the ``+=`` after."""
        events = [e for e in self.function_bindings.get(name, ()) if e[0] < line]
        if not events:
            events = self.module_bindings.get(name, [])
        last = max((i for i, e in enumerate(events) if e[1] == "="), default=None)
        if last is None:
            return None
        pieces = [e[2] for e in events[last:]]
        return pieces


def collect_bindings(body_owner: ast.AST) -> dict:
    """name -> [(line, '=' or '+=', value)] for the simple assignments in a function or module body (nested
    functions and classes excluded)."""
    bindings: dict[str, list] = {}
    stack = list(ast.iter_child_nodes(body_owner))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            bindings.setdefault(node.targets[0].id, []).append((node.lineno, "=", node.value))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            bindings.setdefault(node.target.id, []).append((node.lineno, "=", node.value))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            bindings.setdefault(node.target.id, []).append((node.lineno, "+=", node.value))
        stack.extend(ast.iter_child_nodes(node))
    for events in bindings.values():
        events.sort(key=lambda e: e[0])
    return bindings


def _substitute(parts: list, pattern: re.Pattern, literal_of) -> list:
    """Replace the format fields of the literal parts by placeholders (``literal_of`` maps an escape)."""
    out = []
    for part in parts:
        if part is PLACEHOLDER:
            out.append(part)
            continue
        pos = 0
        for match in pattern.finditer(part):
            start = match.start()
            out.append(part[pos:start])
            escaped = literal_of(match.group(0))
            out.append(PLACEHOLDER if escaped is None else escaped)
            pos = match.end()
        out.append(part[pos:])
    return out


def _percent_literal(field: str):
    return "%" if field == "%%" else None


def _brace_literal(field: str):
    return field[0] if field in ("{{", "}}") else None


def _product(lefts: list, rights: list) -> list:
    return [left + right for left in lefts for right in rights][:MAX_ALTERNATIVES]


def render(node: ast.AST, scope: Scope, line: int, depth: int = 0) -> list:
    """The messages ``node`` can evaluate to (both branches of a conditional expression, at most
    :data:`MAX_ALTERNATIVES`), each as literal strings and placeholders whose concatenation is the message."""
    if depth > MAX_DEPTH:
        return [[PLACEHOLDER]]
    if isinstance(node, ast.Constant):
        return [[node.value]] if isinstance(node.value, str) else [[PLACEHOLDER]]
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            else:
                parts.append(PLACEHOLDER)
        return [parts]
    if isinstance(node, ast.IfExp):
        return (render(node.body, scope, line, depth + 1) + render(node.orelse, scope, line, depth + 1))[:MAX_ALTERNATIVES]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _product(render(node.left, scope, line, depth + 1), render(node.right, scope, line, depth + 1))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return [
            _substitute(parts, PERCENT_RE, _percent_literal) if has_static_text(parts) else [PLACEHOLDER] for parts in render(node.left, scope, line, depth + 1)
        ]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return [
            _substitute(parts, BRACE_RE, _brace_literal) if has_static_text(parts) else [PLACEHOLDER]
            for parts in render(node.func.value, scope, line, depth + 1)
        ]
    if isinstance(node, ast.Name):
        pieces = scope.value_of(node.id, line)
        if pieces:
            alternatives = [[]]
            for piece in pieces:
                alternatives = _product(alternatives, render(piece, scope, line, depth + 1))
            return alternatives
    return [[PLACEHOLDER]]


def template_text(parts: list) -> str:
    """The parts as one template: literal braces doubled, each run of placeholders one ``{}``."""
    out = []
    previous_placeholder = False
    for part in parts:
        if part is PLACEHOLDER:
            if not previous_placeholder:
                out.append("{}")
            previous_placeholder = True
        elif part:
            out.append(part.replace("{", "{{").replace("}", "}}"))
            previous_placeholder = False
    return "".join(out)


def has_static_text(parts: list) -> bool:
    return any(isinstance(p, str) and any(ch.isalnum() for ch in p) for p in parts)


# ---------------------------------------------------------------------------------------------------
# Finding the sites in a module
# ---------------------------------------------------------------------------------------------------


def logger_names(tree: ast.Module) -> set[str]:
    """``logging``, ``logger`` and every name bound from a ``getLogger`` / ``init_logger`` call."""
    names = {"logging", "logger"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = ast.unparse(node.value.func)
            if func.endswith("getLogger") or func.endswith("init_logger"):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def _is_logger(node: ast.AST, names: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    return isinstance(node, ast.Attribute) and node.attr in ("logger", "_logger", "log")


def _message_argument(call: ast.Call):
    if call.args:
        return call.args[0]
    for keyword in call.keywords:
        if keyword.arg in ("msg", "message", "detail", "reason", "error"):
            return keyword.value
    return None


class SiteFinder(ast.NodeVisitor):
    def __init__(self, module: str, source: str, tree: ast.Module):
        self.module = module
        self.source = source
        self.loggers = logger_names(tree)
        self.module_scope = Scope(collect_bindings(tree))
        self.scopes = [self.module_scope]
        self.sites: list[Site] = []

    def _function(self, node):
        self.scopes.append(Scope(self.module_scope.module_bindings, collect_bindings(node)))
        self.generic_visit(node)
        self.scopes.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def _add(self, kind: str, message: ast.AST | None, line: int, lazy_args: bool = False):
        """One site per distinct message the expression can give; ``lazy_args``: a logger call with %-arguments."""
        alternatives = render(message, self.scopes[-1], line) if message is not None else [[]]
        texts = []
        for parts in alternatives:
            if lazy_args and has_static_text(parts):  # logging formats the message with the arguments
                parts = _substitute(parts, PERCENT_RE, _percent_literal)
            text = template_text(parts)[:MAX_TEXT] if has_static_text(parts) else None
            if text not in texts:
                texts.append(text)
        for text in texts:
            if text is not None:
                self.sites.append(Site(kind, text, self.module, line))
            else:
                expression = ast.unparse(message) if message is not None else ""
                self.sites.append(Site(f"dynamic:{kind}", expression[:MAX_DYNAMIC_TEXT], self.module, line))

    def visit_Raise(self, node: ast.Raise):
        exc = node.exc
        if isinstance(exc, ast.Call):
            name = ast.unparse(exc.func).rsplit(".", 1)[-1]
            self._add(f"raise:{name}", _message_argument(exc), node.lineno)
        elif isinstance(exc, (ast.Name, ast.Attribute)):
            name = ast.unparse(exc).rsplit(".", 1)[-1]
            if name[:1].isupper():  # an exception class raised bare; lower-case names re-raise a caught one
                self._add(f"raise:{name}", None, node.lineno)
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert):
        if node.msg is not None:
            self._add("assert", node.msg, node.lineno)
        else:
            condition = ast.get_source_segment(self.source, node.test) or ast.unparse(node.test)
            self.sites.append(Site("assert:condition", condition.replace("{", "{{").replace("}", "}}")[:MAX_TEXT], self.module, node.lineno))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in LOG_METHODS and _is_logger(func.value, self.loggers):
            message = _message_argument(node)
            self._add(LOG_METHODS[func.attr], message, node.lineno, lazy_args=message is not None and len(node.args) > 1)
        self.generic_visit(node)


# Sites of a module's source text, by its sha1: most modules are unchanged from one release to the next.
_MODULE_SITES: dict[str, list | None] = {}


def module_sites(path: str, source: str) -> list | None:
    """(kind, text, line) of each site in one module, or None when it does not parse."""
    digest = hashlib.sha1(source.encode("utf-8", "replace")).hexdigest()
    if digest not in _MODULE_SITES:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)  # old releases' invalid escapes in regex literals
                tree = ast.parse(source, filename=path)
        except SyntaxError:
            _MODULE_SITES[digest] = None
        else:
            finder = SiteFinder(path, source, tree)
            finder.visit(tree)
            _MODULE_SITES[digest] = [(s.kind, s.text, s.line) for s in finder.sites]
    return _MODULE_SITES[digest]


def release_sites(archive: Path) -> tuple[list[Site], list[str]]:
    """The sites of a release's ``sglang/srt`` and the modules that could not be parsed."""
    sites, unparsed = [], []
    for path, source in srt_sources(archive):
        found = module_sites(path, source)
        if found is None:
            unparsed.append(path)
            continue
        sites.extend(Site(kind, text, path, line) for kind, text, line in found)
    return sites, unparsed


def cached_sites(version: str, archive: Path) -> tuple[list[Site], list[str]]:
    SITE_CACHE.mkdir(parents=True, exist_ok=True)
    cache = SITE_CACHE / f"{version}.json"
    if cache.exists():
        data = json.loads(cache.read_text(encoding="utf-8"))
        if data["extractor"] == EXTRACTOR_VERSION and data["archive"] == archive.name:
            return [Site(*s) for s in data["sites"]], data["unparsed"]
    sites, unparsed = release_sites(archive)
    payload = {"extractor": EXTRACTOR_VERSION, "archive": archive.name, "sites": [[s.kind, s.text, s.module, s.line] for s in sites], "unparsed": unparsed}
    cache.write_text(json.dumps(payload), encoding="utf-8")
    return sites, unparsed


# ---------------------------------------------------------------------------------------------------
# The index
# ---------------------------------------------------------------------------------------------------


def ranges(indexes: list[int]) -> str:
    """Sorted release indexes as compact ranges: ``0-5,7,9-91``."""
    out = []
    start = previous = indexes[0]
    for index in indexes[1:] + [None]:
        if index is not None and index == previous + 1:
            previous = index
            continue
        out.append(str(start) if start == previous else f"{start}-{previous}")
        if index is not None:
            start = previous = index
    return ",".join(out)


def build_index(versions: list[str]) -> dict:
    releases = []
    seen: dict[tuple[str, str], dict] = {}
    for r_index, version in enumerate(versions):
        archive = download(version)
        sites, unparsed = cached_sites(version, archive)
        releases.append(
            {"version": version, "archive": archive.name, "sha256": hashlib.sha256(archive.read_bytes()).hexdigest(), "sites": len(sites), "unparsed": unparsed}
        )
        for site in sites:
            entry = seen.setdefault((site.kind, site.text), {"modules": set(), "releases": set(), "line": None})
            entry["modules"].add(site.module)
            entry["releases"].add(r_index)
            entry["line"] = (version, site.module, site.line)  # the newest release's place of it
        print(f"{version}: {len(sites)} sites ({archive.name})", file=sys.stderr)
    modules = sorted({m for entry in seen.values() for m in entry["modules"]})
    module_index = {m: i for i, m in enumerate(modules)}
    templates = []
    for (kind, text), entry in sorted(seen.items()):
        _version, where_module, where_line = entry["line"]
        templates.append(
            [
                kind,
                text,
                sorted(module_index[m] for m in entry["modules"]),
                ranges(sorted(entry["releases"])),
                f"{module_index[where_module]}:{where_line}",
            ]
        )
    return {
        "schema": 1,
        "generated_by": "scripts/gen_message_templates.py (ast over each release's wheel; nothing imported)",
        "first": versions[0],
        "last": versions[-1],
        "releases": releases,
        "modules": modules,
        "template_fields": ["kind", "text", "modules", "releases", "newest_place"],
        "templates": templates,
    }


def write_pattern_table() -> None:
    """The diagnoser's patterns from the new index and message_map's rules (diagnosis/templates.py)."""
    sys.path.insert(0, str(REPO / ".build" / "collections"))
    from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis import templates  # pylint: disable=import-outside-toplevel

    table = templates.build_pattern_table()
    path = Path(templates.PATTERNS_PATH).resolve()
    head = json.dumps({key: value for key, value in table.items() if key != "patterns"})
    rows = ",\n".join(json.dumps(row) for row in table["patterns"])  # one pattern a line: the diffs stay readable
    path.write_text(head[:-1] + ', "patterns": [\n' + rows + "\n]}\n", encoding="utf-8")
    print(f"{path.relative_to(REPO)}: {len(table['patterns'])} patterns")


def main(argv: list[str]) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--first", default="0.4.0")
    cli.add_argument("--last", default="0.5.23")
    cli.add_argument("--patterns-only", action="store_true", help="only rewrite the pattern table from the committed index (after a rule change)")
    args = cli.parse_args(argv)
    if not args.patterns_only:
        versions = released_versions(args.first, args.last)
        index = build_index(versions)
        OUTPUT.write_text(json.dumps(index, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"{OUTPUT.relative_to(REPO)}: {len(versions)} releases, {len(index['templates'])} templates, {OUTPUT.stat().st_size} bytes")
    write_pattern_table()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
