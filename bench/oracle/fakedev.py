# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Device stand-ins that let SGLang's real sizing code run on a CPU-only torch.

Only driver-level queries and handles are replaced; no SGLang function is
touched here.  Every replacement stands for one fact about the GPUs of a case:
their count, name, total memory, compute capability and the free memory that
``cudaMemGetInfo`` would report at each point of startup.

Import this module (and call :func:`shim` and :func:`configure`) before any
``sglang`` import.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import stat
import sys
import tempfile
import types
from contextlib import contextmanager

import torch

GIB = 1 << 30
MIB = 1 << 20

# Mutable per-case device state: read by every stub below.
STATE = {
    "n_gpus": 1,
    "total_mib": 81559,
    "capability": (9, 0),
    "name": "NVIDIA H100 80GB HBM3",
    "free_bytes": 79 * GIB,
    "sm_count": 132,
    "cuda": "12.9",
}

# Names of shim attributes that were called (calling one raises, so a case
# that needs a CUDA-only kernel fails loudly instead of silently).
SHIM_CALLS: list[str] = []

# ``__version__`` of each shimmed package: the pin of the SGLang release being run
# (transformers parses torchvision's; flashinfer 0.6.3 is 0.5.9's pin). See shim().
SHIM_VERSIONS = {"torchvision": "0.29.1", "flashinfer": "0.6.3"}
# Plain Python objects that a shimmed module must really hold (module -> attribute -> value),
# e.g. a logger that SGLang configures; set by a harness adapter through shim().
SHIM_ATTRS: dict[str, dict] = {}


# --------------------------------------------------------------------------
# Import shims for CUDA-only packages that SGLang imports at module level.
# --------------------------------------------------------------------------
class _Shim(types.ModuleType):
    """A module whose every attribute is another shim; calling one raises."""

    def __init__(self, name: str):
        super().__init__(name)
        self.__path__ = []  # behaves like a package so submodules import
        self.__file__ = f"<fakedev shim {name}>"
        root = name.split(".")[0]
        if root in SHIM_VERSIONS:
            self.__version__ = SHIM_VERSIONS[root]
        for attr, value in SHIM_ATTRS.get(name, {}).items():
            setattr(self, attr, value)

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        child = _Shim(f"{self.__name__}.{attr}")
        setattr(self, attr, child)
        return child

    def __call__(self, *args, **kwargs):
        SHIM_CALLS.append(self.__name__)
        raise RuntimeError(f"fakedev: shimmed CUDA-only {self.__name__} was called")

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return True

    def __mro_entries__(self, bases):
        return (object,)


class _ShimFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, roots):
        self.roots = set(roots)

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in self.roots:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return _Shim(spec.name)

    def exec_module(self, module):
        return None


def shim(*roots: str, versions: dict | None = None, attrs: dict | None = None) -> None:
    """Make ``import <root>[.sub]`` return inert shims for these packages.

    ``versions`` overrides :data:`SHIM_VERSIONS` (root -> ``__version__``); ``attrs`` adds to
    :data:`SHIM_ATTRS` (module -> attribute -> value)."""
    SHIM_VERSIONS.update(versions or {})
    SHIM_ATTRS.update(attrs or {})
    sys.meta_path.insert(0, _ShimFinder(roots))
    if "sgl_kernel" in roots:
        _declare_missing_kernel_ops("sgl_kernel")


def _declare_missing_kernel_ops(namespace: str) -> None:
    """Let ``torch.library.register_fake("<ns>::op")`` succeed for a shimmed kernel package.

    The real package registers its CUDA operators when imported; SGLang then
    attaches meta implementations to them at module level.  Declaring the
    missing operator (generic schema, no implementation) lets that import-time
    registration run; calling such an operator still fails.
    """
    lib = torch.library.Library(namespace, "FRAGMENT")
    orig = torch.library.register_fake

    def register_fake(op, *args, **kwargs):
        if isinstance(op, str) and op.startswith(namespace + "::"):
            name = op.split("::", 1)[1]
            if name not in _DECLARED and torch._C._dispatch_find_schema_or_throw is not None:
                try:
                    torch._C._dispatch_find_schema_or_throw(op, "")
                except RuntimeError:
                    lib.define(f"{name}(Tensor[] args) -> ()")
                _DECLARED.add(name)
        return orig(op, *args, **kwargs)

    torch.library.register_fake = register_fake
    _KEEP.append(lib)


_KEEP: list = []
_DECLARED: set = set()


# --------------------------------------------------------------------------
# torch.cuda / torch.distributed device queries.
# --------------------------------------------------------------------------
class _Props:
    def __init__(self):
        self.name = STATE["name"]
        self.total_memory = STATE["total_mib"] * MIB
        self.major, self.minor = STATE["capability"]
        self.multi_processor_count = STATE["sm_count"]
        self.is_integrated = False
        self.L2_cache_size = 50 * MIB
        self.warp_size = 32
        self.gcnArchName = ""
        self.uuid = "GPU-00000000-0000-0000-0000-000000000000"


class _Inert:
    """Stream / Event stand-in: accepts any call, queues no work."""

    def __init__(self, *args, **kwargs):
        self.device = torch.device("cuda", 0)
        self.cuda_stream = 0

    def __getattr__(self, attr):
        return lambda *a, **k: None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@contextmanager
def _inert_ctx(*args, **kwargs):
    yield _Inert()


def _mem_get_info(device=None):
    return (int(STATE["free_bytes"]), STATE["total_mib"] * MIB)


def _install_nvidia_smi() -> None:
    """``nvidia-smi --query-gpu=memory.total`` is how SGLang reads capacity (MiB)."""
    bindir = tempfile.mkdtemp(prefix="oracle-nvsmi-")
    script = os.path.join(bindir, "nvidia-smi")
    with open(script, "w") as fh:
        fh.write(
            "#!/bin/sh\n"
            '# fakedev: stands for the GPUs of one oracle case\n'
            'for i in $(seq 1 "$ORACLE_NGPU"); do\n'
            '  case "$*" in\n'
            '    *memory.total*) echo "$ORACLE_TOTAL_MIB" ;;\n'
            '    *name*) echo "$ORACLE_GPU_NAME" ;;\n'
            '    *compute_cap*) echo "$ORACLE_CC" ;;\n'
            '    *) echo "$ORACLE_TOTAL_MIB" ;;\n'
            "  esac\n"
            "done\n"
        )
    os.chmod(script, os.stat(script).st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


def configure(*, n_gpus, total_mib, capability, free_bytes, name, sm_count=132, cuda="12.9"):
    """Install the stubs for one GPU type.  Safe to call again (child processes)."""
    STATE.update(n_gpus=n_gpus, total_mib=total_mib, capability=tuple(capability), free_bytes=int(free_bytes), name=name, sm_count=sm_count, cuda=cuda)
    os.environ["ORACLE_NGPU"] = str(n_gpus)
    os.environ["ORACLE_TOTAL_MIB"] = str(total_mib)
    os.environ["ORACLE_GPU_NAME"] = name
    os.environ["ORACLE_CC"] = "%d.%d" % tuple(capability)
    if "oracle-nvsmi-" not in os.environ.get("PATH", ""):
        _install_nvidia_smi()

    c = torch.cuda
    c.is_available = lambda: True
    c.is_initialized = lambda: True
    c._lazy_init = lambda: None
    c.device_count = lambda: STATE["n_gpus"]
    c.current_device = lambda: 0
    c.set_device = lambda *a, **k: None
    c.get_device_capability = lambda *a, **k: STATE["capability"]
    c.get_device_name = lambda *a, **k: STATE["name"]
    c.get_device_properties = lambda *a, **k: _Props()
    c.mem_get_info = _mem_get_info
    c.empty_cache = lambda: None
    c.synchronize = lambda *a, **k: None
    c.ipc_collect = lambda: None
    for fn in ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"):
        setattr(c, fn, lambda *a, **k: 0)
    c.reset_peak_memory_stats = lambda *a, **k: None
    c.Stream = _Inert
    c.Event = _Inert
    c.current_stream = lambda *a, **k: _Inert()
    c.default_stream = lambda *a, **k: _Inert()
    c.stream = _inert_ctx
    c.device = _inert_ctx
    torch.version.cuda = cuda

    # The MIN over ranks of free memory: every rank of a case is identical.
    torch.distributed.all_reduce = lambda tensor, *a, **k: None
    torch.distributed.is_initialized = lambda: True
    # Barriers between identical ranks: nothing to wait for.
    torch.distributed.barrier = lambda *a, **k: None
    torch.distributed.monitored_barrier = lambda *a, **k: None

    # Pool constructors ask torch.get_device_module(device) for streams.
    meta_mod = types.SimpleNamespace(Stream=_Inert, Event=_Inert, current_stream=lambda *a, **k: _Inert(), stream=_inert_ctx, synchronize=lambda *a, **k: None)
    torch.meta = meta_mod
    _orig = torch.get_device_module

    def _get_device_module(device=None):
        dev = str(device) if device is not None else "cuda"
        if dev.startswith("meta"):
            return meta_mod
        if dev.startswith("cuda"):
            return torch.cuda
        return _orig(device)

    torch.get_device_module = _get_device_module


def set_free_bytes(value: int) -> None:
    STATE["free_bytes"] = int(value)


# --------------------------------------------------------------------------
# Model construction on the meta device.
# --------------------------------------------------------------------------
class CudaToMeta(torch.overrides.TorchFunctionMode):
    """Redirect explicit ``device="cuda"`` / ``.cuda()`` / ``.to("cuda")`` to meta.

    Some model constructors (DeepSeek-V3) place tensors on cuda explicitly; on a
    CPU torch that would raise.  Building on meta allocates nothing either way.
    """

    target = "meta"

    def _fix(self, value):
        if isinstance(value, torch.device) and value.type == "cuda":
            return torch.device(self.target)
        if isinstance(value, str) and value.startswith("cuda"):
            return self.target
        if isinstance(value, int) and not isinstance(value, bool):
            return torch.device(self.target)  # a bare index means the accelerator (cuda:N)
        return value

    def __torch_function__(self, func, types_, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if "device" in kwargs:
            kwargs["device"] = self._fix(kwargs["device"])
        name = getattr(func, "__name__", "")
        if name == "cuda":
            return args[0].to(self.target)
        if name == "to":
            args = tuple(a if isinstance(a, torch.Tensor) else self._fix(a) for a in args)
        return func(*args, **kwargs)


class CudaToCpu(CudaToMeta):
    """Like CudaToMeta, but onto the CPU: for small metadata whose values are read (``.item()``)."""

    target = "cpu"
