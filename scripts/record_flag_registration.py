# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Record SGLang's own ``launch_server`` argparse registration as a test fixture.

For each version this installs the real wheel (``pip install --no-deps sglang==V``) plus the few light
pure-Python packages its argument modules import, into a venv outside the repository. It then imports
``sglang.srt.server_args`` with import shims standing in for every package that is not installed
(torch, triton, sgl_kernel, transformers, ...), calls the version's real ``ServerArgs.add_cli_args``
on the parser ``prepare_server_args`` builds, and dumps every action.

The result is what ``tests/unit/plugins/plugin_utils/test_flag_catalog.py`` checks the AST-derived
catalogs against. Usage: ``python scripts/record_flag_registration.py VERSION...`` (e.g. 0.5.9 ... 0.5.23).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache"
FIXTURES = REPO / "tests" / "fixtures" / "flag_registration"
# Pure-Python packages that server_args.py and its argument modules need for real; everything else
# that is not installed is replaced by an import shim.
LIGHT_DEPS = ["msgspec", "packaging", "pyyaml", "psutil", "requests", "orjson", "typing-extensions", "dill"]

# Only packages the wheel declares as dependencies (under their import names) get a shim; an optional
# package that SGLang merely probes for (torch_npu, ...) stays absent, as on a plain CUDA host.
DIST_TO_IMPORT = {
    "pyzmq": "zmq",
    "pillow": "PIL",
    "nvidia_ml_py": "pynvml",
    "cuda_python": "cuda",
    "flashinfer_python": "flashinfer",
    "flashinfer_cubin": "flashinfer_cubin",
    "apache_tvm_ffi": "tvm_ffi",
    "python_multipart": "multipart",
    "prometheus_client": "prometheus_client",
    "ipython": "IPython",
    "nvidia_cutlass_dsl": "cutlass",
    "sglang_kernel": "sgl_kernel",
    "python_dateutil": "dateutil",
    "smg_grpc_proto": "smg_grpc_proto",
}
# Packages the declared dependencies bring with them (torch ships triton; transformers needs
# huggingface_hub, which 0.5.10 and later no longer declare themselves).
EXTRA_IMPORT_NAMES = ("triton", "safetensors", "starlette", "regex", "pydantic_core", "huggingface_hub")

# Attributes only vendor plugins add to torch (torch_npu, ...): a CUDA build of torch lacks them.
ABSENT_ATTRIBUTES = {"torch": ("npu", "musa", "mlu", "hpu")}


def ensure_venv(version: str) -> Path:
    """Create (once) the venv holding sglang==version without its heavy dependencies."""
    venv = CACHE / f"venv-flags-{version}"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run(pip + ["--no-deps", f"sglang=={version}"], check=True)
        subprocess.run(pip + LIGHT_DEPS, check=True)
    return python


# ---------------------------------------------------------------------------------------------------
# Inside the flag venv
# ---------------------------------------------------------------------------------------------------


def _install_import_shims(stubbed: set[str]) -> None:
    """Make every top-level package that is not installed importable as an inert stand-in."""
    import abc
    import importlib.abc
    import importlib.machinery
    import importlib.metadata
    import importlib.util
    import types

    # Python's own protocol names must stay absent on a stand-in (copy, pickle, typing, inspect probe them);
    # a library's own dunder (``PretrainedConfig.__class_validators__``) resolves to a stand-in.
    _PROTOCOL_NAMES = (
        set(dir(type))
        | set(dir(types.ModuleType))
        | {
            "__wrapped__",
            "__signature__",
            "__mro_entries__",
            "__origin__",
            "__args__",
            "__parameters__",
            "__get__",
            "__set__",
            "__delete__",
            "__set_name__",
            "__self__",
            "__path__",
            "__file__",
            "__spec__",
            "__loader__",
            "__all__",
            "__iter__",
            "__next__",
            "__len__",
            "__getitem__",
            "__call__",
            "__enter__",
            "__exit__",
            "__await__",
            "__aiter__",
            "__fspath__",
            "__index__",
            "__int__",
            "__float__",
            "__bool__",
            "__dataclass_fields__",
            "__get_pydantic_core_schema__",
            "__supertype__",
            "__version__",
            "__copy__",
            "__deepcopy__",
            "__reduce__",
            "__reduce_ex__",
            "__getstate__",
            "__setstate__",
            "__class_getitem__",
            "__init_subclass__",
            "__length_hint__",
            "__code__",
            "__defaults__",
            "__kwdefaults__",
            "__closure__",
            "__globals__",
            "__isabstractmethod__",
            "__abstractmethods__",
        }
    )

    class _StubMeta(abc.ABCMeta):
        def __getattr__(cls, name):
            if name in _PROTOCOL_NAMES:
                raise AttributeError(name)
            return _Stub

        def __call__(cls, *args, **kwargs):
            return _stub_call(args, kwargs)

        def __getitem__(cls, item):
            return _Stub

        def __setitem__(cls, item, value):
            pass

        def __setattr__(cls, name, value):
            """A stand-in stays inert when SGLang monkeypatches a library class at import (0.5.11 to
            0.5.13.post1: ``original = PretrainedConfig.from_dict.__func__``, then ``from_dict = patched``)."""

        def __contains__(cls, item):
            return False

        def __len__(cls):
            return 0

        def __iter__(cls):
            return iter(())

        def __bool__(cls):
            return False

        def register(cls, *args, **kwargs):
            # ABCMeta.register would shadow a stand-in's ``register`` (``AutoProcessor.register(...)``).
            return args[-1] if args else _Stub

        def __int__(cls):
            return 0

        __index__ = __int__

        def __float__(cls):
            return 0.0

        def __or__(cls, other):
            return _Stub

        __ror__ = __or__

        def __mro_entries__(cls, bases):
            return (object,)

    class _Stub(metaclass=_StubMeta):
        def __init_subclass__(cls, **kwargs):
            """Accept class keywords (``total=False``, ...) that the real base classes take."""

    class _StubValue(str):
        """What calling a stand-in returns: an empty, falsy string that also behaves like a stand-in."""

        def __getattr__(self, name):
            if name in _PROTOCOL_NAMES:
                raise AttributeError(name)
            return _StubValue()

        def __call__(self, *args, **kwargs):
            return _stub_call(args, kwargs)

    def _stub_call(args, kwargs):
        # Used as a decorator (``@triton.jit``, ``@triton.autotune(...)``) a stand-in hands the function back.
        if len(args) == 1 and not kwargs and callable(args[0]) and not isinstance(args[0], (_StubMeta, _StubValue)):
            return args[0]
        return _StubValue()

    class _StubModule(types.ModuleType):
        def __getattr__(self, name):
            if name in _PROTOCOL_NAMES or name in ABSENT_ATTRIBUTES.get(self.__name__, ()):
                raise AttributeError(name)
            return _Stub

    class _Loader(importlib.abc.Loader):
        def create_module(self, spec):
            module = _StubModule(spec.name)
            module.__path__ = []
            # Version checks at import time see the release the wheel pins (torch==2.9.1, ...).
            module.__version__ = pinned.get(spec.name.split(".")[0], "99.0.0")
            return module

        def exec_module(self, module):
            pass

    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            top = fullname.split(".")[0]
            if top == "sglang":
                return None
            if top not in stubbed:
                if top not in declared or importlib.machinery.PathFinder.find_spec(top) is not None:
                    return None
                stubbed.add(top)
            return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)

    pinned, declared = {}, set(EXTRA_IMPORT_NAMES)
    for requirement in importlib.metadata.requires("sglang") or []:
        if "extra ==" in requirement:
            continue
        name = re.match(r"^[A-Za-z0-9_.-]+", requirement).group(0).lower().replace("-", "_")
        name = DIST_TO_IMPORT.get(name, name)
        declared.add(name)
        match = re.match(r"^[A-Za-z0-9_.-]+==([0-9][^;,\s]*)", requirement)
        if match:
            pinned[name] = match.group(1)
    sys.meta_path.append(_Finder())


def _type_name(value) -> str | None:
    if value is None:
        return None
    name = getattr(value, "__name__", None)
    return name if name else type(value).__name__


def _plain(value):
    """JSON-safe form of a default, choice or const."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return repr(value)


def record_inside_venv(version: str) -> dict:
    stubbed: set[str] = set()
    _install_import_shims(stubbed)
    import importlib.metadata

    from sglang.srt.server_args import ServerArgs  # the version's real module

    installed = importlib.metadata.version("sglang")
    if installed != version:
        raise SystemExit(f"venv holds sglang {installed}, expected {version}")
    # prepare_server_args() builds exactly this parser before parsing the launch argv.
    parser = argparse.ArgumentParser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    actions = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        kind = type(action)
        actions.append(
            {
                "option_strings": list(action.option_strings),
                "dest": action.dest,
                "action_class": kind.__name__ if kind.__module__ == "argparse" else f"{kind.__module__}.{kind.__name__}",
                "default": _plain(action.default),
                "choices": _plain(action.choices),
                "nargs": action.nargs,
                "type": _type_name(action.type),
                "const": _plain(action.const),
                "required": action.required,
            }
        )
    return {
        "sglang_version": version,
        "recorded_by": "scripts/record_flag_registration.py",
        "builder": "argparse.ArgumentParser(prog='sglang serve'); sglang.srt.server_args.ServerArgs.add_cli_args(parser)",
        "python": sys.version.split()[0],
        "real_packages": sorted(LIGHT_DEPS),
        "stubbed_packages": sorted(stubbed),
        "allow_abbrev": parser.allow_abbrev,
        "action_count": len(actions),
        "actions": sorted(actions, key=lambda a: (a["option_strings"] or [a["dest"]])[0]),
    }


def _dumps(record: dict) -> str:
    """JSON with one action per line: small, and a re-recording diffs flag by flag."""
    head = {k: v for k, v in record.items() if k != "actions"}
    lines = [json.dumps(action, sort_keys=True) for action in record["actions"]]
    return json.dumps(head, indent=1, sort_keys=True)[:-2] + ',\n "actions": [\n  ' + ",\n  ".join(lines) + "\n ]\n}"


def main(argv: list[str]) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("versions", nargs="+", metavar="VERSION")
    cli.add_argument("--inside-venv", action="store_true", help=argparse.SUPPRESS)
    args = cli.parse_args(argv)
    if args.inside_venv:
        sys.stdout.write(_dumps(record_inside_venv(args.versions[0])))
        return 0
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for version in args.versions:
        python = ensure_venv(version)
        result = subprocess.run(
            [str(python), str(Path(__file__).resolve()), "--inside-venv", version],
            capture_output=True,
            text=True,
            cwd=str(CACHE),
            check=False,
        )
        if result.returncode:
            sys.stderr.write(result.stderr)
            raise SystemExit(f"recording SGLang {version}'s registration failed (see the traceback above)")
        out = FIXTURES / f"sglang-{version}.json"
        out.write_text(result.stdout + "\n")
        print(f"{out.relative_to(REPO)}: {json.loads(result.stdout)['action_count']} actions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
