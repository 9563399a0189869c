# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Sizing-relevant source changes between two SGLang releases, read from their wheels with ``ast``.

``python scripts/release_diff.py PREV NEW [--json]`` downloads (``pip download --no-deps``) and unzips both
wheels under ``.cache/`` (reusing what is there), then reports, for the curated sizing modules (argument
defaults and the fraction / chunk / CUDA-graph heuristics, model runner, KV-cache configurator, memory and
mamba pools, hybrid SWA, speculative draft setup, the startup checks): every function whose AST changed (with
a short unified diff of its normalised source), the functions added and removed, the curated functions that
moved to another file, and every added or removed ``raise`` / logger / ``warnings.warn`` message.
SGLang is never imported. This is what drafting a release-registry entry starts from.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import re
import subprocess
import sys
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set, Tuple

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".cache"
WHEELS = CACHE / "wheels"
SOURCES = CACHE / "sglang-src"

# Files (globs relative to sglang/srt) that decide startup sizing in some release. A glob that matches nothing
# in a release is simply absent there (the arg_groups/ split of server_args.py came in 0.5.19, the
# KV-cache configurator in 0.5.16, the pool configurator in 0.5.11).
SIZING_MODULES: Tuple[str, ...] = (
    "server_args.py",
    "arg_groups/memory_hook.py",
    "arg_groups/mamba_hook.py",
    "arg_groups/model_hook.py",
    "arg_groups/speculative_hook.py",
    "arg_groups/cuda_graph_hook.py",
    "arg_groups/kv_cache_hook.py",
    "arg_groups/attention_hook.py",
    "arg_groups/overrides.py",
    "arg_groups/model_override_base.py",
    "arg_groups/prefill_buffer_ceiling.py",
    "arg_groups/validation_hook.py",
    "arg_groups/parallel_hook.py",
    "arg_groups/fields/memory.py",
    "arg_groups/fields/schedule.py",
    "arg_groups/fields/spec.py",
    "arg_groups/fields/exec_.py",
    "arg_groups/model_overrides/qwen3_5.py",
    "arg_groups/model_overrides/qwen3_vl.py",
    "arg_groups/model_overrides/nemotron_h.py",
    "arg_groups/model_overrides/gpt_oss.py",
    "arg_groups/nemotron_h_hook.py",  # 0.5.12-0.5.13: Nemotron-H's defaults and its mamba radix cache call
    "arg_groups/model_overrides/glm4_moe.py",
    "arg_groups/model_overrides/deepseek_v2.py",
    "model_executor/model_runner.py",
    "model_executor/model_runner_kv_cache_mixin.py",
    "model_executor/pool_configurator.py",
    "model_executor/model_runner_components/*.py",
    "model_executor/cuda_graph_runner.py",
    "model_executor/piecewise_cuda_graph_runner.py",
    "mem_cache/kv_cache_configurator.py",
    "mem_cache/kv_cache_dtype.py",
    "mem_cache/memory_pool.py",
    "mem_cache/mamba_pool.py",
    "mem_cache/swa_memory_pool.py",
    "mem_cache/allocator.py",
    "distributed/bootstrap.py",
    "managers/tp_worker.py",
    "speculative/eagle_worker.py",
    "speculative/eagle_worker_v2.py",
    "speculative/spec_utils.py",
    "speculative/draft_parallel.py",
    "speculative/spec_info.py",
    "configs/model_config.py",
    "configs/mamba_utils.py",
    "runtime_context.py",
)

# Functions that matter wherever they live: looked up by name across the whole package when the curated files
# of one release hold them and the other's do not (files move between releases).
SIZING_FUNCTIONS: Tuple[str, ...] = (
    "_handle_gpu_memory_settings",
    "_handle_mamba_radix_cache",
    "_handle_speculative_decoding",
    "profile_max_num_token",
    "init_memory_pool",
    "handle_max_mamba_cache",
    "calculate_mla_kv_cache_dim",
    "set_num_token_hybrid",
    "get_cell_size_per_token",
    "_resolve_memory_pool_config",
    "_derive_pool_sizes",
    "_profile_available_bytes",
    "_handle_max_mamba_cache",
    "resolve_max_num_reqs",
    "calculate_pool_sizes",
    "create_memory_pool_configurator",
    "compute_swa_request_cap",
    "get_available_gpu_memory",
    "measure_pre_model_load_memory",
    "init_torch_distributed",
    "reserve_rope_cache_for_long_sequences",
    "get_batch_sizes_to_capture",
    "_generate_cuda_graph_batch_sizes",
    "generate_prefill_cuda_graph_batch_sizes",
    "_generate_piecewise_cuda_graph_tokens",
    "adjust_mem_fraction_for_vlm",
    "auto_choose_speculative_params",
    "get_nvgpu_memory_capacity",
    "alloc_memory_pool",
    "configure_kv_cache_dtype",
    "mamba_cache_per_req",
)

LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "info_once", "warning_once"}
DIFF_LINES = 60


@dataclass
class FunctionChange:
    module: str
    qualname: str
    kind: str  # changed | added | removed | moved
    prev_location: Optional[str] = None
    new_location: Optional[str] = None
    diff: List[str] = field(default_factory=list)


@dataclass
class MessageChange:
    module: str
    qualname: str
    kind: str  # added | removed
    statement: str  # raise | log | warn
    text: str
    location: str


@dataclass
class ReleaseDiff:
    prev: str
    new: str
    modules_only_in_prev: List[str]
    modules_only_in_new: List[str]
    functions: List[FunctionChange]
    messages: List[MessageChange]


@dataclass
class FunctionSource:
    qualname: str
    lineno: int
    text: str  # ast.unparse of the definition: comments and formatting do not count as changes


@dataclass
class Message:
    qualname: str
    statement: str
    text: str
    lineno: int


# ------------------------------------------------------------------------------------------------
# Wheels
# ------------------------------------------------------------------------------------------------
def release_root(version: str) -> Path:
    """The unzipped ``sglang`` package of ``version``, downloading and unzipping the wheel when missing."""
    package = SOURCES / version / "sglang"
    if package.is_dir():
        return package
    wheel = _wheel(version)
    if wheel is None:
        WHEELS.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", f"sglang=={version}", "-d", str(WHEELS)], check=True)
        wheel = _wheel(version)
        if wheel is None:
            raise SystemExit(f"no sglang {version} wheel in {WHEELS} after pip download")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(SOURCES / version)
    return package


def _wheel(version: str) -> Optional[Path]:
    found = sorted(WHEELS.glob(f"sglang-{version}-*.whl"))
    return found[0] if found else None


# ------------------------------------------------------------------------------------------------
# Source model
# ------------------------------------------------------------------------------------------------
def sizing_modules(package: Path) -> List[str]:
    srt = package / "srt"
    out: Set[str] = set()
    for pattern in SIZING_MODULES:
        out.update(str(p.relative_to(package)) for p in srt.glob(pattern) if p.is_file())
    return sorted(out)


def parse(path: Path) -> Optional[ast.Module]:
    try:
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return None


def functions(tree: ast.Module) -> Dict[str, FunctionSource]:
    """Every function and method by qualified name (nested functions stay inside their parent's text)."""
    out: Dict[str, FunctionSource] = {}

    def walk(body: Iterable[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.setdefault(prefix + node.name, FunctionSource(prefix + node.name, node.lineno, ast.unparse(node)))
            elif isinstance(node, (ast.If, ast.Try)):  # definitions under `if TYPE_CHECKING` / `try: import`
                walk(node.body, prefix)
                walk(getattr(node, "orelse", []), prefix)

    walk(tree.body, "")
    return out


def _message_text(node: Optional[ast.expr]) -> Optional[str]:
    if node is None:
        return None
    if isinstance(node, ast.Call) and node.args:  # raise ValueError("...") / f"..." / "...".format(...)
        first = node.args[0]
        if isinstance(first, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Call)):
            return ast.unparse(first)
        return None
    if isinstance(node, (ast.Constant, ast.JoinedStr)):
        return ast.unparse(node)
    return None


def messages(tree: ast.Module) -> List[Message]:
    """Messages of ``raise``, ``logger.<level>(...)`` and ``warnings.warn(...)``, with the enclosing function."""
    out: List[Message] = []

    def visit(node: ast.AST, qual: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = qual
            if isinstance(child, ast.ClassDef):
                name = f"{qual}.{child.name}" if qual else child.name
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{qual}.{child.name}" if qual else child.name
            if isinstance(child, ast.Raise):
                text = _message_text(child.exc)
                if text:
                    out.append(Message(qual, "raise", text, child.lineno))
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
                attr, owner = child.func.attr, child.func.value
                owner_name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
                statement = None
                if attr in LOG_METHODS and "log" in owner_name.lower():
                    statement = "log"
                elif attr == "warn" and owner_name == "warnings":
                    statement = "warn"
                if statement and child.args:
                    text = _message_text(ast.Call(func=child.func, args=child.args, keywords=[]))
                    if text:
                        out.append(Message(qual, statement, text, child.lineno))
            visit(child, name)

    visit(tree, "")
    return out


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _find_by_name(package: Path, name: str) -> List[Tuple[str, FunctionSource]]:
    """Definitions of ``name`` anywhere in the package (text pre-filter, then ast)."""
    pattern = re.compile(rf"^\s*(async\s+)?def\s+{re.escape(name)}\s*\(", re.M)
    found: List[Tuple[str, FunctionSource]] = []
    for path in sorted((package / "srt").rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if not pattern.search(text):
            continue
        tree = parse(path)
        if tree is None:
            continue
        for qual, src in functions(tree).items():
            if qual.split(".")[-1] == name:
                found.append((str(path.relative_to(package)), src))
    return found


def _diff(prev: str, new: str, prev_name: str, new_name: str) -> List[str]:
    lines = list(difflib.unified_diff(prev.splitlines(), new.splitlines(), prev_name, new_name, lineterm="", n=1))
    if len(lines) > DIFF_LINES:
        lines = lines[:DIFF_LINES] + [f"... ({len(lines) - DIFF_LINES} more diff lines)"]
    return lines


# ------------------------------------------------------------------------------------------------
# Comparison
# ------------------------------------------------------------------------------------------------
def compare(prev: str, new: str) -> ReleaseDiff:
    prev_pkg, new_pkg = release_root(prev), release_root(new)
    prev_mods, new_mods = set(sizing_modules(prev_pkg)), set(sizing_modules(new_pkg))
    changes: List[FunctionChange] = []
    message_changes: List[MessageChange] = []
    prev_funcs: Dict[str, Dict[str, FunctionSource]] = {}
    new_funcs: Dict[str, Dict[str, FunctionSource]] = {}
    for module in sorted(prev_mods | new_mods):
        a = parse(prev_pkg / module) if module in prev_mods else None
        b = parse(new_pkg / module) if module in new_mods else None
        fa = functions(a) if a else {}
        fb = functions(b) if b else {}
        prev_funcs[module], new_funcs[module] = fa, fb
        for qual in sorted(set(fa) | set(fb)):
            if qual in fa and qual in fb:
                if fa[qual].text != fb[qual].text:
                    changes.append(
                        FunctionChange(
                            module,
                            qual,
                            "changed",
                            f"{module}:{fa[qual].lineno}",
                            f"{module}:{fb[qual].lineno}",
                            _diff(fa[qual].text, fb[qual].text, f"{prev}/{module}", f"{new}/{module}"),
                        )
                    )
            elif qual in fa:
                changes.append(FunctionChange(module, qual, "removed", prev_location=f"{module}:{fa[qual].lineno}"))
            else:
                changes.append(FunctionChange(module, qual, "added", new_location=f"{module}:{fb[qual].lineno}"))
        message_changes += _message_diff(module, a, b)
    changes += _moved(prev, new, prev_pkg, new_pkg, prev_funcs, new_funcs)
    return ReleaseDiff(prev, new, sorted(prev_mods - new_mods), sorted(new_mods - prev_mods), changes, message_changes)


def _message_diff(module: str, a: Optional[ast.Module], b: Optional[ast.Module]) -> List[MessageChange]:
    ma = messages(a) if a else []
    mb = messages(b) if b else []
    keys_a = {_normalise(m.text) for m in ma}
    keys_b = {_normalise(m.text) for m in mb}
    out = [MessageChange(module, m.qualname, "removed", m.statement, m.text, f"{module}:{m.lineno}") for m in ma if _normalise(m.text) not in keys_b]
    out += [MessageChange(module, m.qualname, "added", m.statement, m.text, f"{module}:{m.lineno}") for m in mb if _normalise(m.text) not in keys_a]
    return out


def _moved(
    prev: str, new: str, prev_pkg: Path, new_pkg: Path, prev_funcs: Dict[str, Dict[str, FunctionSource]], new_funcs: Dict[str, Dict[str, FunctionSource]]
) -> List[FunctionChange]:
    """Curated functions defined in one release's curated files and not the other's: where they went."""

    def names(funcs: Dict[str, Dict[str, FunctionSource]]) -> Dict[str, Tuple[str, FunctionSource]]:
        out = {}
        for module, by_qual in funcs.items():
            for qual, src in by_qual.items():
                short = qual.split(".")[-1]
                if short in SIZING_FUNCTIONS:
                    out.setdefault(short, (module, src))
        return out

    in_prev, in_new = names(prev_funcs), names(new_funcs)
    out: List[FunctionChange] = []
    for name in sorted(set(in_prev) ^ set(in_new)):
        if name in in_prev:
            module, src = in_prev[name]
            elsewhere = _find_by_name(new_pkg, name)
            if elsewhere:
                new_module, new_src = elsewhere[0]
                out.append(
                    FunctionChange(
                        module,
                        src.qualname,
                        "moved",
                        f"{module}:{src.lineno}",
                        f"{new_module}:{new_src.lineno}",
                        _diff(src.text, new_src.text, f"{prev}/{module}", f"{new}/{new_module}"),
                    )
                )
        else:
            module, src = in_new[name]
            elsewhere = _find_by_name(prev_pkg, name)
            if elsewhere:
                old_module, old_src = elsewhere[0]
                out.append(
                    FunctionChange(
                        module,
                        src.qualname,
                        "moved",
                        f"{old_module}:{old_src.lineno}",
                        f"{module}:{src.lineno}",
                        _diff(old_src.text, src.text, f"{prev}/{old_module}", f"{new}/{module}"),
                    )
                )
    return out


# ------------------------------------------------------------------------------------------------
# Output
# ------------------------------------------------------------------------------------------------
def render(result: ReleaseDiff) -> str:
    lines = [f"# SGLang {result.prev} -> {result.new}: sizing-relevant changes (paths relative to the package)"]
    if result.modules_only_in_prev:
        lines.append("modules gone: " + ", ".join(result.modules_only_in_prev))
    if result.modules_only_in_new:
        lines.append("modules new: " + ", ".join(result.modules_only_in_new))
    if not result.functions and not result.messages:
        lines.append("no sizing-relevant change: the curated modules are AST-identical")
    for kind in ("changed", "moved", "added", "removed"):
        picked = [c for c in result.functions if c.kind == kind]
        if not picked:
            continue
        lines.append(f"\n## functions {kind} ({len(picked)})")
        for c in picked:
            where = " -> ".join(x for x in (c.prev_location, c.new_location) if x)
            lines.append(f"- {c.qualname}  [{where}]")
            lines += [f"    {d}" for d in c.diff]
    if result.messages:
        lines.append(f"\n## messages ({len(result.messages)})")
        for m in result.messages:
            sign = "+" if m.kind == "added" else "-"
            lines.append(f"{sign} {m.statement} {m.location} in {m.qualname or '<module>'}: {m.text}")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prev", help="older SGLang release, e.g. 0.5.9")
    parser.add_argument("new", help="newer SGLang release, e.g. 0.5.10")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    result = compare(args.prev, args.new)
    print(json.dumps(asdict(result), indent=1) if args.json else render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
