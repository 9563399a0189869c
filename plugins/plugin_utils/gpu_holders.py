# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Decide what to do about processes that hold GPU memory before the SGLang service starts.

A holder belongs to the service only when its PID is the unit's MainPID or its cgroup lies inside the
unit's control group (read from ``/proc/<pid>/cgroup`` on the target). Process names are never used to
decide: a ``python3`` on the GPU may be anyone's. The outcome is one of:

* ``proceed``: nobody holds memory on the GPUs this service will use;
* ``stop_unit``: only an earlier instance of this very unit holds it, so stop that unit cleanly;
* ``fail``: someone else holds it; the message names each holder, its GPU and its memory.
"""

from __future__ import annotations

PROCEED = "proceed"
STOP_UNIT = "stop_unit"
FAIL = "fail"


def cgroup_paths(proc_cgroup_text):
    """The cgroup paths listed in the text of ``/proc/<pid>/cgroup`` (v1 and v2 lines alike)."""
    paths = []
    for line in (proc_cgroup_text or "").splitlines():
        parts = line.strip().split(":", 2)
        if len(parts) == 3 and parts[2]:
            paths.append(parts[2])
    return paths


def in_control_group(proc_cgroup_text, control_group):
    """True when any cgroup of the process is ``control_group`` or lies below it."""
    if not control_group or control_group == "/":
        return False
    group = control_group.rstrip("/")
    return any(path == group or path.startswith(group + "/") for path in cgroup_paths(proc_cgroup_text))


def _gpu_labels(gpus):
    labels = {}
    for gpu in gpus or []:
        uuid = gpu.get("uuid")
        if uuid:
            labels[uuid] = "GPU %s (%s, %s)" % (gpu.get("index", "?"), gpu.get("name", "unknown model"), uuid)
    return labels


def _describe(holder, labels):
    name = holder.get("process_name") or "unknown process"
    memory = holder.get("used_memory_mib")
    memory_text = "%s MiB" % memory if memory is not None else "an unreported amount of memory"
    where = labels.get(holder.get("gpu_uuid"), "GPU %s" % (holder.get("gpu_uuid") or "unknown"))
    return "PID %s (%s) holds %s on %s" % (holder.get("pid"), name, memory_text, where)


def classify_gpu_holders(processes, unit, control_group="", main_pid=0, pid_cgroups=None, gpus=None, selected_uuids=None):
    """Sort GPU memory holders into this unit's own processes and foreign ones, and decide.

    ``processes``: ``[{pid, process_name, used_memory_mib, gpu_uuid}]`` as ``nvidia_gpu_info`` returns them.
    ``pid_cgroups``: ``{pid: text of /proc/<pid>/cgroup}``; a PID missing there was not visible on the
    target (in an LXC container nvidia-smi may report host PIDs), so it can't be shown to be ours.
    ``selected_uuids``: the GPUs this service will use; holders on other GPUs are ignored. None means all.
    """
    pid_cgroups = {int(k): v for k, v in (pid_cgroups or {}).items()}
    main_pid = int(main_pid or 0)
    selected = set(selected_uuids) if selected_uuids is not None else None
    labels = _gpu_labels(gpus)
    own, foreign, ignored = [], [], []
    for proc in processes or []:
        holder = dict(proc)
        holder["pid"] = int(holder.get("pid") or 0)
        if selected is not None and holder.get("gpu_uuid") not in selected:
            ignored.append(holder)
            continue
        pid = holder["pid"]
        if pid and (pid == main_pid or in_control_group(pid_cgroups.get(pid), control_group)):
            own.append(holder)
            continue
        if pid not in pid_cgroups:
            holder["reason"] = "PID not visible on the target (a process on the host or in another container?)"
        else:
            holder["reason"] = "not part of %s" % unit
        foreign.append(holder)

    if foreign:
        action = FAIL
        message = (
            "GPU memory on the GPUs selected for %s is held by other processes: %s. "
            "The role stops only earlier instances of its own unit and never kills by name: stop these "
            "processes (or pick other GPUs with sglang_service_gpu_ids), then run the play again."
            % (unit, "; ".join("%s, %s" % (_describe(h, labels), h["reason"]) for h in foreign))
        )
    elif own:
        action = STOP_UNIT
        message = "an earlier instance of %s still holds GPU memory (%s): stopping that unit before the start" % (
            unit,
            "; ".join(_describe(h, labels) for h in own),
        )
    else:
        action = PROCEED
        message = "no process holds memory on the GPUs selected for %s" % unit
    return {"action": action, "own": own, "foreign": foreign, "ignored": ignored, "message": message}


def gpus_after_stopping(gpus, own):
    """GPU facts as they will be once this unit's own holders are stopped: their memory counts as free.

    The budget must see the memory a restart frees, or an unchanged configuration would look as if it no
    longer fits while its own earlier instance still runs.
    """
    freed = {}
    for holder in own or []:
        memory = holder.get("used_memory_mib") or 0
        freed[holder.get("gpu_uuid")] = freed.get(holder.get("gpu_uuid"), 0) + int(memory)
    adjusted = []
    for gpu in gpus or []:
        gpu = dict(gpu)
        extra = freed.get(gpu.get("uuid"), 0)
        if extra:
            if gpu.get("memory_free_mib") is not None:
                gpu["memory_free_mib"] = int(gpu["memory_free_mib"]) + extra
            if gpu.get("memory_used_mib") is not None:
                gpu["memory_used_mib"] = max(0, int(gpu["memory_used_mib"]) - extra)
        adjusted.append(gpu)
    return adjusted
