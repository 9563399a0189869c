#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: nvidia_gpu_info
short_description: Read NVIDIA GPU facts and the processes holding GPU memory with nvidia-smi
version_added: 0.1.0
description:
  - Runs C(nvidia-smi) on the target and returns, per GPU, its index, name, UUID, total, used and free
    memory in MiB, the driver version and the compute capability, plus the compute processes that hold
    memory on it.
  - The result feeds M(llmops.sglang.sglang_memory_budget), which budgets against the real free memory,
    and the C(llmops.sglang.sglang_service) role, which refuses to start while another process holds GPU memory.
  - Read-only; supports check mode.
author:
  - llmops.sglang maintainers (@llmops-sglang)
options:
  nvidia_smi_path:
    description: Path or name of the C(nvidia-smi) executable.
    type: str
    default: nvidia-smi
  missing_ok:
    description:
      - When C(nvidia-smi) is absent or finds no NVIDIA driver, return O(missing_ok=true) results with
        RV(available=false) and an empty GPU list instead of failing.
      - Used for planning and for tests on machines without a GPU; nothing is reported as checked.
    type: bool
    default: false
  include_processes:
    description: Also query the compute processes holding GPU memory.
    type: bool
    default: true
extends_documentation_fragment:
  - llmops.sglang.attributes
  - llmops.sglang.attributes.read_only
notes:
  - Drivers older than 510 cannot report the compute capability; it is then returned as V(null).
seealso:
  - module: llmops.sglang.sglang_memory_budget
"""

EXAMPLES = r"""
- name: Read GPU facts inside the container
  llmops.sglang.nvidia_gpu_info:
  register: gpu_info

- name: Refuse to continue while something else holds GPU memory
  ansible.builtin.assert:
    that: gpu_info.processes | length == 0
    fail_msg: "GPU memory is held by {{ gpu_info.processes | map(attribute='process_name') | join(', ') }}"
"""

RETURN = r"""
available:
  description: Whether nvidia-smi ran and reported GPUs.
  returned: always
  type: bool
gpu_count:
  description: Number of GPUs nvidia-smi reported.
  returned: always
  type: int
driver_version:
  description: The NVIDIA driver version (the kernel module's), taken from the first GPU.
  returned: always
  type: str
  sample: "570.133.20"
gpus:
  description: One entry per GPU, in nvidia-smi index order.
  returned: always
  type: list
  elements: dict
  contains:
    index: {description: nvidia-smi index., type: int}
    name: {description: Product name., type: str, sample: NVIDIA RTX A6000}
    uuid: {description: GPU UUID., type: str}
    memory_total_mib: {description: Total memory in MiB., type: int, sample: 49140}
    memory_used_mib: {description: Used memory in MiB., type: int}
    memory_free_mib: {description: Free memory in MiB., type: int}
    driver_version: {description: Driver version., type: str}
    compute_capability: {description: "Compute capability such as C(8.6); null on old drivers.", type: str}
    processes: {description: Compute processes on this GPU (same keys as RV(processes))., type: list, elements: dict}
processes:
  description: Compute processes holding GPU memory.
  returned: always
  type: list
  elements: dict
  contains:
    pid: {description: Process id (in the namespace nvidia-smi runs in)., type: int}
    process_name: {description: Process name or command., type: str}
    used_memory_mib: {description: "GPU memory held, in MiB.", type: int}
    gpu_uuid: {description: UUID of the GPU the memory is on., type: str}
msg:
  description: Why no GPU was found, when RV(available) is false.
  returned: when available is false
  type: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.llmops.sglang.plugins.module_utils.nvidia_smi import (
    PROCESS_QUERY_FIELDS,
    NvidiaSmiParseError,
    attach_processes,
    parse_gpus,
    parse_processes,
    query,
    query_gpus,
)


def _unavailable(module, msg):
    if module.params["missing_ok"]:
        module.exit_json(changed=False, available=False, gpu_count=0, driver_version=None, gpus=[], processes=[], msg=msg)
    module.fail_json(msg=msg)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            nvidia_smi_path=dict(type="str", default="nvidia-smi"),
            missing_ok=dict(type="bool", default=False),
            include_processes=dict(type="bool", default=True),
        ),
        supports_check_mode=True,
    )
    nvidia_smi = module.get_bin_path(module.params["nvidia_smi_path"])
    if not nvidia_smi:
        _unavailable(
            module,
            "nvidia-smi (%s) was not found on this host: install the NVIDIA userspace that matches the host "
            "driver (role llmops.sglang.nvidia_userspace), or declare the GPUs for planning" % module.params["nvidia_smi_path"],
        )

    rc, out, err, fields = query_gpus(module.run_command, nvidia_smi)
    if rc != 0:
        lines = (err or out).strip().splitlines()
        _unavailable(module, "nvidia-smi failed (rc=%d): %s" % (rc, lines[-1] if lines else "no output"))
    try:
        gpus = parse_gpus(out, fields)
        processes = []
        if module.params["include_processes"]:
            prc, pout, perr = query(module.run_command, nvidia_smi, "compute-apps", PROCESS_QUERY_FIELDS)
            if prc != 0:
                module.fail_json(msg="nvidia-smi --query-compute-apps failed (rc=%d): %s" % (prc, (perr or pout).strip()))
            processes = parse_processes(pout)
    except NvidiaSmiParseError as exc:
        module.fail_json(msg="cannot read nvidia-smi output: %s" % exc)
    if not gpus:
        _unavailable(module, "nvidia-smi reported no GPU")
    attach_processes(gpus, processes)
    module.exit_json(
        changed=False,
        available=True,
        gpu_count=len(gpus),
        driver_version=gpus[0].get("driver_version"),
        gpus=gpus,
        processes=processes,
    )


if __name__ == "__main__":
    main()
