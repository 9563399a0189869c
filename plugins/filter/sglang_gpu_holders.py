# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter that decides what to do about GPU memory holders before the SGLang service starts."""

from __future__ import annotations

DOCUMENTATION = r"""
name: sglang_gpu_holders
short_description: Decide whether GPU memory holders block a start of the SGLang service
version_added: 0.1.0
author: llmops.sglang maintainers (@llmops-sglang)
description:
  - Sorts the processes that hold GPU memory into the service's own (its unit's MainPID or a PID whose
    cgroup lies inside the unit's control group) and foreign ones, and decides C(proceed), C(stop_unit)
    or C(fail). Process names are never used to decide.
options:
  _input:
    description: Processes holding GPU memory, as C(llmops.sglang.nvidia_gpu_info) returns them.
    type: list
    elements: dict
    required: true
  unit:
    description: The service's unit name, for example C(sglang.service).
    type: str
    required: true
  control_group:
    description: The unit's control group (C(systemctl show -p ControlGroup)), for example C(/system.slice/sglang.service).
    type: str
    default: ""
  main_pid:
    description: The unit's MainPID (0 when not running).
    type: int
    default: 0
  pid_cgroups:
    description: Map of PID to the text of C(/proc/<pid>/cgroup) read on the target; PIDs missing here were not visible there.
    type: dict
    default: {}
  gpus:
    description: GPU facts (index, name, uuid), used to name the GPUs in the message.
    type: list
    elements: dict
    default: []
  selected_uuids:
    description: UUIDs of the GPUs the service will use; holders on other GPUs are ignored. Omit to consider all GPUs.
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: Decide about GPU memory holders
  ansible.builtin.set_fact:
    holders: >-
      {{ gpu_info.processes | llmops.sglang.sglang_gpu_holders('sglang.service',
         control_group='/system.slice/sglang.service', main_pid=1234, pid_cgroups={}) }}
"""

RETURN = r"""
_value:
  description: The decision.
  type: dict
  contains:
    action:
      description: C(proceed), C(stop_unit) or C(fail).
      type: str
    own:
      description: Holders that belong to the unit.
      type: list
    foreign:
      description: Holders that don't, each with a C(reason).
      type: list
    ignored:
      description: Holders on GPUs the service does not use.
      type: list
    message:
      description: One line naming who holds what.
      type: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.llmops.sglang.plugins.filter.sglang_argv import INT, LIST, MAPPING, NONE, TEXT, require_input
from ansible_collections.llmops.sglang.plugins.plugin_utils.gpu_holders import (
    classify_gpu_holders,
    gpus_after_stopping,
)


def sglang_gpu_holders(processes, unit, control_group="", main_pid=0, pid_cgroups=None, gpus=None, selected_uuids=None):
    """Jinja entry point for :func:`classify_gpu_holders`."""
    name = "sglang_gpu_holders"
    require_input(
        name, "the input", processes, LIST, "the list of GPU processes", "pass the processes that llmops.sglang.nvidia_gpu_info returns", elements=MAPPING
    )
    require_input(name, "unit", unit, TEXT, "the unit name", "pass it as a string, e.g. 'sglang.service'")
    require_input(
        name, "control_group", control_group, TEXT, "a control group path", "pass systemctl show -p ControlGroup's value, e.g. '/system.slice/sglang.service'"
    )
    require_input(name, "main_pid", main_pid, INT + TEXT, "the unit's MainPID", "pass an integer (0 when not running)")
    if isinstance(main_pid, str) and not main_pid.strip().isdigit():
        raise AnsibleFilterError(
            "%s: main_pid must be the unit's MainPID, got a string that is no PID (%r); pass an integer (0 when not running)" % (name, main_pid[:80])
        )
    require_input(name, "pid_cgroups", pid_cgroups, MAPPING + NONE, "a dict of PID to /proc/<pid>/cgroup text", "pass {} when no PID was visible")
    require_input(name, "gpus", gpus, LIST + NONE, "the list of GPU facts", "pass llmops.sglang.nvidia_gpu_info's gpus", elements=MAPPING)
    require_input(
        name,
        "selected_uuids",
        selected_uuids,
        LIST + NONE,
        "a list of GPU UUIDs",
        "pass the selected GPUs' uuid strings, or omit it for all GPUs",
        elements=TEXT,
    )
    try:
        return classify_gpu_holders(processes, unit, control_group, main_pid, pid_cgroups, gpus, selected_uuids)
    except (TypeError, ValueError) as exc:
        raise AnsibleFilterError(
            "sglang_gpu_holders: bad input (%s); pass nvidia_gpu_info processes, integer PIDs and a dict of PID to /proc/<pid>/cgroup text" % exc
        ) from exc


def sglang_gpus_after_stopping(gpus, own):
    """Jinja entry point for :func:`gpus_after_stopping`."""
    require_input("sglang_gpus_after_stopping", "the input", gpus, LIST, "the list of GPU facts", "pass llmops.sglang.nvidia_gpu_info's gpus", elements=MAPPING)
    require_input(
        "sglang_gpus_after_stopping", "own", own, LIST + NONE, "the 'own' list of sglang_gpu_holders", "pass sglang_gpu_holders(...).own", elements=MAPPING
    )
    try:
        return gpus_after_stopping(gpus, own)
    except (TypeError, ValueError, AttributeError) as exc:
        raise AnsibleFilterError(
            "sglang_gpus_after_stopping: bad input (%s); pass nvidia_gpu_info gpus and the 'own' list of sglang_gpu_holders" % exc
        ) from exc


class FilterModule:
    """llmops.sglang GPU holder filter."""

    def filters(self):
        return {"sglang_gpu_holders": sglang_gpu_holders, "sglang_gpus_after_stopping": sglang_gpus_after_stopping}
