# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The calibration store: a directory of JSON files on the controller, one per launch key, every start kept.

Schema (``llmops.sglang/calibration/v1``), one file ``<key digest>.json`` per key::

    {"schema": "llmops.sglang/calibration/v1",
     "key": {"sglang_version": "0.5.9", "gpu_name": "NVIDIA RTX A6000", "driver_version": "535.261.03",
             "model_id": "Qwen/Qwen3.6-27B", "model_revision": "<commit>", "tp_size": 2, "pp_size": 1,
             "sizing_flags_hash": "<sha256 of the sizing flags>"},
     "sizing_flags": {...the flags that were hashed...},
     "observations": [{"time": "2026-12-02T06:50:00Z", "host": "sglang-qwen36",
                       "ranks": [<RankStartup.to_dict()>, ...], "predicted": {...} or null}, ...]}

A new start appends; nothing is ever overwritten or dropped. Writers take an exclusive ``flock`` on the
store's ``.lock`` file and replace a key's file atomically (a temporary file in the same directory, fsync,
``os.replace``), so concurrent plays never corrupt it. A file that does not parse is an error naming it, and
it is left exactly as it was.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

SCHEMA = "llmops.sglang/calibration/v1"

# Server arguments that do not change how SGLang sizes memory: where it listens, who may call it, what it logs
# and what it calls the model. Every other flag is part of the key, so an unknown flag can only split a key,
# never merge two that size differently.
NON_SIZING_FLAGS = frozenset(
    (
        "host",
        "port",
        "api_key",
        "admin_api_key",
        "served_model_name",
        "log_level",
        "log_level_http",
        "log_requests",
        "log_requests_level",
        "enable_metrics",
        "enable_metrics_for_all_schedulers",
        "show_time_cost",
        "decode_log_interval",
        "file_storage_path",
        "enable_cache_report",
        "tokenizer_path",
        "tokenizer_mode",
        "skip_server_warmup",
        "warmups",
        "watchdog_timeout",
        "dist_timeout",
        "model_path",
        "revision",
        "trust_remote_code",
        "download_dir",
        "crash_dump_folder",
        "bucket_time_to_first_token",
        "bucket_inter_token_latency",
        "bucket_e2e_request_latency",
        "collect_tokens_histogram",
        "prompt_tokens_buckets",
        "generation_tokens_buckets",
        "gc_warning_threshold_secs",
        "enable_request_time_stats_logging",
        "dist_init_addr",
        "nnodes",
        "node_rank",
    )
)


class CalibrationStoreError(Exception):
    """A store that cannot be read or written; the message names the path, what is wrong and the fix."""


@dataclass(frozen=True)
class CalibrationKey:
    """What must match for an observation to stand in for the estimates of a new start."""

    sglang_version: str
    gpu_name: str
    driver_version: str
    model_id: str
    model_revision: str
    tp_size: int
    pp_size: int
    sizing_flags_hash: str

    @property
    def digest(self) -> str:
        """The file name's stem: a digest of the whole key."""
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:24]

    def near(self, other: "CalibrationKey") -> bool:
        """Same release, GPU, driver and parallel layout: the CUDA context and NCCL overhead carry over."""
        return (self.sglang_version, self.gpu_name, self.driver_version, self.tp_size, self.pp_size) == (
            other.sglang_version,
            other.gpu_name,
            other.driver_version,
            other.tp_size,
            other.pp_size,
        )


def sizing_flags(server_args: Mapping[str, Any]) -> Dict[str, Any]:
    """The server arguments that can change SGLang's memory sizing (all but ``NON_SIZING_FLAGS``; unset dropped)."""
    return {k: server_args[k] for k in sorted(server_args) if k not in NON_SIZING_FLAGS and server_args[k] is not None}


def make_key(*, sglang_version: str, gpu_name: str, driver_version: str, model_id: str, model_revision: str, server_args: Mapping[str, Any]) -> CalibrationKey:
    flags = sizing_flags(server_args)
    return CalibrationKey(
        sglang_version=str(sglang_version),
        gpu_name=str(gpu_name),
        driver_version=str(driver_version or ""),
        model_id=str(model_id),
        model_revision=str(model_revision or ""),
        tp_size=int(server_args.get("tp_size") or 1),
        pp_size=int(server_args.get("pp_size") or 1),
        sizing_flags_hash=hashlib.sha256(json.dumps(flags, sort_keys=True, default=str).encode()).hexdigest(),
    )


def launch_key(
    *, sglang_version: str, gpus: List[Mapping[str, Any]], server_args: Mapping[str, Any], model_id: str, model_revision: str = "", driver_version: str = ""
) -> CalibrationKey:
    """The key of a launch from what the preflight has: the first GPU's name and driver (nvidia_gpu_info's)."""
    if not gpus:
        raise CalibrationStoreError("calibration: no GPU given to key the launch on; pass the preflight's gpus")
    if not model_id:
        raise CalibrationStoreError("calibration: no model id to key the launch on; set the model id (hub id or local path) and its revision")
    first = gpus[0]
    return make_key(
        sglang_version=sglang_version,
        gpu_name=str(first.get("name") or "GPU"),
        driver_version=str(driver_version or first.get("driver_version") or ""),
        model_id=model_id,
        model_revision=model_revision,
        server_args=server_args,
    )


@dataclass(frozen=True)
class StoredKey:
    """One key's file: the key, its sizing flags and every observation, oldest first."""

    path: str
    key: CalibrationKey
    sizing_flags: Dict[str, Any]
    observations: Tuple[Dict[str, Any], ...]


class CalibrationStore:
    """A store directory (created 0700 on first write)."""

    def __init__(self, directory: str):
        if not directory:
            raise CalibrationStoreError("calibration store: no directory given; set the store's path")
        self.directory = os.path.abspath(os.path.expanduser(directory))

    def _path(self, key: CalibrationKey) -> str:
        return os.path.join(self.directory, key.digest + ".json")

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            handle = os.open(os.path.join(self.directory, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise CalibrationStoreError(
                "calibration store %s cannot be created or locked: %s; choose a directory the controller user may write" % (self.directory, exc.strerror)
            ) from exc
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield
        finally:
            os.close(handle)

    def _load(self, path: str) -> StoredKey:
        try:
            with open(path, encoding="utf-8") as stream:
                data = json.load(stream)
        except OSError as exc:
            raise CalibrationStoreError("calibration store file %s cannot be read: %s" % (path, exc.strerror)) from exc
        except ValueError as exc:
            raise CalibrationStoreError(
                "calibration store file %s is not valid JSON (%s); nothing in it was changed: repair it or move it out of the store" % (path, exc)
            ) from exc
        if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("observations"), list):
            raise CalibrationStoreError(
                "calibration store file %s is not a %s file (schema %r); nothing in it was changed: move it out "
                "of the store" % (path, SCHEMA, data.get("schema") if isinstance(data, dict) else None)
            )
        try:
            key = CalibrationKey(**data["key"])
        except (KeyError, TypeError) as exc:
            raise CalibrationStoreError("calibration store file %s has a malformed key (%s); nothing in it was changed" % (path, exc)) from exc
        return StoredKey(path, key, dict(data.get("sizing_flags") or {}), tuple(data["observations"]))

    def _write(self, path: str, data: Dict[str, Any]) -> None:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=self.directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as stream:
                json.dump(data, stream, indent=1, sort_keys=True)
                stream.write("\n")
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def record(self, key: CalibrationKey, flags: Mapping[str, Any], observation: Mapping[str, Any]) -> StoredKey:
        """Append one observation under the key (the file is created on the first); returns the key's file."""
        with self._locked():
            path = self._path(key)
            if os.path.exists(path):
                stored = self._load(path)
                if stored.key != key:
                    raise CalibrationStoreError(
                        "calibration store file %s holds another key than its name says; nothing was changed: move it out of the store" % path
                    )
                observations = list(stored.observations)
            else:
                observations = []
            observations.append(dict(observation))
            self._write(path, {"schema": SCHEMA, "key": asdict(key), "sizing_flags": dict(flags), "observations": observations})
        return StoredKey(path, key, dict(flags), tuple(observations))

    def lookup(self, key: CalibrationKey) -> Optional[StoredKey]:
        """The key's observations, or None when it has none."""
        path = self._path(key)
        if not os.path.exists(path):
            return None
        return self._load(path)

    def entries(self) -> List[StoredKey]:
        """Every key's file, in name order (a file that does not parse is an error naming it)."""
        if not os.path.isdir(self.directory):
            return []
        return [
            self._load(os.path.join(self.directory, name)) for name in sorted(os.listdir(self.directory)) if name.endswith(".json") and not name.startswith(".")
        ]

    def near(self, key: CalibrationKey) -> List[StoredKey]:
        """Other keys on the same release, GPU, driver and layout (other models or flags)."""
        return [entry for entry in self.entries() if entry.key != key and entry.key.near(key)]
