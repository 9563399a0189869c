# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shared plumbing of the version harnesses: model dirs, log capture, fork per case.

A harness process serves one GPU type: it installs the device stubs, imports
SGLang once (about 7 s), then forks one child per case.  Each case needs its
own process because SGLang's argument resolution writes environment variables
and process-wide context, and its platform probes are ``lru_cache``d.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import sys
import tempfile
import traceback
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CONFIGS = os.path.join(REPO, "tests", "fixtures", "model-configs")
GIB = 1 << 30

# Log lines worth keeping in a fixture (sizing-relevant INFO/WARNING text).
KEEP = re.compile(
    r"mem|Mem|KV Cache|Mamba|mamba|max_running_requests|max_total|capped|Reserving|"
    r"context|chunked|page_size|attention backend|radix|speculative|Disabling|"
    r"cuda graph|CUDA graph|weight|SWA|swa|dtype|fraction|Overlap|overlap",
)


def make_model_dir(model: str) -> str:
    """A temp model dir holding the real config files only (no weights, no tokenizer), and, for a checkpoint whose
    ``auto_map`` names its own config class, a stand-in for that remote-code module (:func:`_remote_config_stand_in`)."""
    src = os.path.join(CONFIGS, model)
    dst = tempfile.mkdtemp(prefix="oracle-model-")
    for name in ("config.json", "hf_quant_config.json", "generation_config.json"):
        if os.path.exists(os.path.join(src, name)):
            shutil.copy(os.path.join(src, name), os.path.join(dst, name))
    _remote_config_stand_in(dst)
    return dst


def _remote_config_stand_in(model_dir: str) -> None:
    """Stands in for the checkpoint's ``configuration_*.py`` (not vendored, and the hub is unreachable): a
    ``PretrainedConfig`` subclass of the config's ``model_type`` that keeps every config.json field, as those remote
    classes do (their defaults only fill keys a real config.json already holds). A reference into another hub repo
    (``org/name--module.Class``) is pointed at the local module. transformers still refuses it without
    ``trust_remote_code``, as it refuses the real one."""
    path = os.path.join(model_dir, "config.json")
    with open(path, encoding="utf-8") as handle:
        config = json.load(handle)
    auto_map = config.get("auto_map") or {}
    reference = auto_map.get("AutoConfig")
    if not isinstance(reference, str) or not config.get("model_type"):
        return
    module, cls = reference.split("--")[-1].rsplit(".", 1)
    with open(os.path.join(model_dir, module + ".py"), "w", encoding="utf-8") as handle:
        handle.write(f"from transformers import PretrainedConfig\n\n\nclass {cls}(PretrainedConfig):\n    model_type = {config['model_type']!r}\n")
    if "--" in reference:
        auto_map["AutoConfig"] = f"{module}.{cls}"
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(config, handle, indent=2)


class ListHandler(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record):
        try:
            msg = record.getMessage()
        except Exception:  # a bad format string in a log call must not end the case
            msg = str(record.msg)
        self.lines.append(f"{record.levelname} {msg}")


ELAPSED = re.compile(r"elapsed=[0-9.]+ s")


def trimmed(lines: list[str], limit: int = 25) -> list[str]:
    """The sizing-relevant lines, wall-clock times masked so that reruns compare equal."""
    keep = [ELAPSED.sub("elapsed=<t> s", ln)[:600] for ln in lines if KEEP.search(ln)]
    seen, out = set(), []
    for ln in keep:
        if ln not in seen:
            seen.add(ln)
            out.append(ln)
    return out[:limit]


class FakeGroup:
    """A process group of ``size`` identical ranks seen from rank 0."""

    def __init__(self, size: int):
        self.world_size = size
        self.rank_in_group = 0
        self.rank = 0
        self.local_rank = 0
        self.ranks = list(range(size))
        self.first_rank = 0
        self.last_rank = size - 1
        self.is_first_rank = True
        self.is_last_rank = size == 1
        self.unique_name = "oracle"
        self.device_group = SimpleNamespace(rank=lambda: 0, size=lambda: size)
        self.cpu_group = SimpleNamespace(rank=lambda: 0, size=lambda: size)
        self.use_pynccl = False
        self.pynccl_comm = None
        self.ca_comm = None


class WorkerCheckFailed(AssertionError):
    """One of TpModelWorker's asserts on the sized pool, applied by the harness at SGLang's line."""

    def __init__(self, message: str, where: str):
        super().__init__(message)
        self.where = where


def error_record(exc: BaseException) -> dict:
    if isinstance(exc, WorkerCheckFailed):  # reported as SGLang reports it: a bare AssertionError
        return {"type": "AssertionError", "message": str(exc), "raised_at": exc.where}
    tb = traceback.extract_tb(exc.__traceback__)
    where = None
    for fr in reversed(tb):
        if "/sglang/" in fr.filename:
            where = "%s:%d" % (fr.filename.split("/site-packages/")[-1], fr.lineno)
            break
    rec = {"type": type(exc).__name__, "message": str(exc)[:2000], "raised_at": where}
    if os.environ.get("ORACLE_TRACE"):
        rec["trace"] = traceback.format_exc()[-6000:]
    return rec


# Exceptions that come from the CPU stand-in, not from SGLang's own checks.
STUB_FAILURE = re.compile(
    r"Could not run 'aten::|Torch not compiled with CUDA|fakedev|Cannot access accelerator|"
    r"SimpleNamespace|meta tensor|on meta|FakeGroup|CUDA driver|libcuda|nvml|NVML|"
    r"No module named|cannot import name|not compiled|not linked with support for cuda|"
    r"Default process group has not been initialized",
)


def run_group(group: list[dict], run_case, out_path: str, timeout_s: int = 300) -> None:
    """Fork one child per case; each writes one JSON line to ``out_path``."""
    for case in group:
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            signal.alarm(timeout_s)
            try:
                rec = run_case(case)
                err = rec.get("error")
                if err and (STUB_FAILURE.search(err["message"]) or err.get("raised_at") is None):
                    rec["harness_error"] = err.get("trace", "") + "%s: %s" % (err["type"], err["message"])
                    rec["error"] = None
            except BaseException:  # the harness itself broke: keep the trace
                rec = {"id": case["id"], "harness_error": traceback.format_exc()[-4000:]}
            data = json.dumps(rec, default=str).encode()
            with os.fdopen(wfd, "wb") as fh:
                fh.write(data)
            os._exit(0)
        os.close(wfd)
        chunks = []
        with os.fdopen(rfd, "rb") as fh:
            while True:
                b = fh.read(1 << 16)
                if not b:
                    break
                chunks.append(b)
        status = os.waitpid(pid, 0)[1]
        if chunks:
            rec = json.loads(b"".join(chunks))
        else:
            rec = {"id": case["id"], "harness_error": f"child died, wait status {status}"}
        with open(out_path, "a") as fh:
            fh.write(json.dumps(rec) + "\n")
        print("  %-55s %s" % (case["id"], _summary(rec)), file=sys.stderr, flush=True)


def _summary(rec: dict) -> str:
    if rec.get("harness_error"):
        return "HARNESS ERROR " + rec["harness_error"].strip().splitlines()[-1][:150]
    if rec.get("error"):
        return "%s: %s" % (rec["error"]["type"], rec["error"]["message"][:110])
    r = rec.get("result") or {}
    return "tokens=%s K=%s reqs=%s" % (r.get("max_total_num_tokens"), r.get("max_mamba_cache_size"), r.get("max_running_requests"))


def tensor_bytes(modules) -> tuple[int, int, set]:
    """Bytes of params and buffers of the given modules, each tensor counted once."""
    seen: set = set()
    params = buffers = 0
    for mod in modules:
        for t in mod.parameters():
            if id(t) not in seen:
                seen.add(id(t))
                params += t.numel() * t.element_size()
        for t in mod.buffers():
            if id(t) not in seen:
                seen.add(id(t))
                buffers += t.numel() * t.element_size()
    return params, buffers, seen


def tensor_bytes_excluding(module, seen: set) -> tuple[int, int]:
    params = buffers = 0
    for t in module.parameters():
        if id(t) not in seen:
            seen.add(id(t))
            params += t.numel() * t.element_size()
    for t in module.buffers():
        if id(t) not in seen:
            seen.add(id(t))
            buffers += t.numel() * t.element_size()
    return params, buffers


class GroupRunner:
    """The part every harness family shares: run one group of cases (same GPU and baseline) in this process."""

    def main(self, group_path: str, out_path: str) -> None:
        group = json.load(open(group_path))
        self.setup(group[0]["gpu"], group[0]["pre_model_load_gib"])
        self.import_sglang()
        run_group(group, self.run_case, out_path)


def main(adapter_cls) -> None:
    """Entry point of every adapter module: ``python harness_X.py GROUP.json OUT.jsonl [VERSION]``."""
    version = sys.argv[3] if len(sys.argv) > 3 else None
    adapter_cls(version).main(sys.argv[1], sys.argv[2])


def resolved_args(sa, mc, fields, as_text=()) -> dict:
    """The resolved server args a fixture records, in ``fields`` order: each read from the ServerArgs (None when
    the release lacks it), ``context_length`` from the model config, the ``as_text`` ones as strings."""
    out = {}
    for name in fields:
        value = getattr(sa, name, None)
        if name == "context_length" and mc is not None:
            value = mc.context_len
        out[name] = str(value) if name in as_text else value
    return out
