# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parse ``nvidia-smi --query-*`` CSV output (``--format=csv,noheader,nounits``) into GPU facts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

GPU_QUERY_FIELDS = (
    "index",
    "name",
    "uuid",
    "memory.total",
    "memory.used",
    "memory.free",
    "driver_version",
    "compute_cap",
)
# compute_cap is missing from drivers older than 510; the query is retried without it.
GPU_QUERY_FIELDS_LEGACY = GPU_QUERY_FIELDS[:-1]
PROCESS_QUERY_FIELDS = ("pid", "process_name", "used_memory", "gpu_uuid")

_GPU_KEYS = {
    "index": "index",
    "name": "name",
    "uuid": "uuid",
    "memory.total": "memory_total_mib",
    "memory.used": "memory_used_mib",
    "memory.free": "memory_free_mib",
    "driver_version": "driver_version",
    "compute_cap": "compute_capability",
}
_INT_KEYS = ("index", "memory_total_mib", "memory_used_mib", "memory_free_mib")
_MISSING = ("[n/a]", "[not supported]", "n/a", "[unknown error]", "[insufficient permissions]", "")


def query(run_command, nvidia_smi, kind, fields):
    """``nvidia-smi --query-<kind>=<fields>`` in bare CSV, run with ``run_command`` (AnsibleModule's): (rc, out, err)."""
    return run_command([nvidia_smi, "--query-%s=%s" % (kind, ",".join(fields)), "--format=csv,noheader,nounits"])


def query_gpus(run_command, nvidia_smi):
    """(rc, out, err, fields) of the GPU query; asked again without compute_cap when the driver does not know it."""
    rc, out, err = query(run_command, nvidia_smi, "gpu", GPU_QUERY_FIELDS)
    if rc != 0 and "compute_cap" in (out + err):
        rc, out, err = query(run_command, nvidia_smi, "gpu", GPU_QUERY_FIELDS_LEGACY)
        return rc, out, err, GPU_QUERY_FIELDS_LEGACY
    return rc, out, err, GPU_QUERY_FIELDS


def uuid_key(text):
    """A GPU UUID as compared: lower case, without the ``GPU-`` prefix nvidia-smi prints."""
    text = str(text).strip().lower()
    return text[4:] if text.startswith("gpu-") else text


class NvidiaSmiParseError(ValueError):
    """nvidia-smi printed something that is not the CSV that was asked for."""


def _value(raw):
    raw = raw.strip()
    return None if raw.lower() in _MISSING else raw


def _int(raw, field, line):
    if raw is None:
        return None
    try:
        return int(float(raw))
    except ValueError:
        raise NvidiaSmiParseError("nvidia-smi field %s is %r, not a number, in line %r" % (field, raw, line)) from None


def _rows(text, fields):
    rows = []
    for line in text.splitlines():
        if not line.strip():
            continue
        cells = [cell.strip() for cell in line.split(",")]
        if len(cells) > len(fields) and fields[1] in ("name", "process_name"):
            # Names may contain commas; everything between the fixed fields belongs to the name.
            extra = len(cells) - len(fields)
            name_end = 2 + extra
            cells = [cells[0], ",".join(cells[1:name_end])] + cells[name_end:]
        if len(cells) != len(fields):
            raise NvidiaSmiParseError("nvidia-smi printed %d fields where %d were queried (%s): %r" % (len(cells), len(fields), ",".join(fields), line))
        rows.append((line, cells))
    return rows


def parse_gpus(text, fields=GPU_QUERY_FIELDS):
    """Return one dict per GPU with the keys of GPU_QUERY_FIELDS mapped to llmops names (MiB integers)."""
    gpus = []
    for line, cells in _rows(text, fields):
        gpu = {}
        for field, cell in zip(fields, cells):
            key = _GPU_KEYS[field]
            value = _value(cell)
            gpu[key] = _int(value, field, line) if key in _INT_KEYS else value
        gpu.setdefault("compute_capability", None)
        if gpu["memory_free_mib"] is None and None not in (gpu["memory_total_mib"], gpu["memory_used_mib"]):
            gpu["memory_free_mib"] = gpu["memory_total_mib"] - gpu["memory_used_mib"]
        gpus.append(gpu)
    return gpus


def parse_processes(text):
    """Return the compute processes as dicts: pid, process_name, used_memory_mib, gpu_uuid."""
    processes = []
    if "no running processes found" in text.lower():
        return processes
    for line, cells in _rows(text, PROCESS_QUERY_FIELDS):
        pid, name, used, uuid = (_value(cell) for cell in cells)
        processes.append(
            {
                "pid": _int(pid, "pid", line),
                "process_name": name,
                "used_memory_mib": _int(used, "used_memory", line),
                "gpu_uuid": uuid,
            }
        )
    return processes


def attach_processes(gpus, processes):
    """Add to each GPU the list of compute processes that hold memory on it."""
    for gpu in gpus:
        gpu["processes"] = [p for p in processes if p["gpu_uuid"] and p["gpu_uuid"] == gpu.get("uuid")]
    return gpus
