#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""On a Proxmox VE node: the NVIDIA driver version, the GPUs and the device nodes; create /dev/nvidia-uvm."""

from __future__ import annotations

DOCUMENTATION = r"""
module: proxmox_lxc_node_gpus
short_description: Read the NVIDIA driver, GPUs and device nodes of a Proxmox VE node
version_added: 0.1.0
description:
  - Runs on the Proxmox VE node (over SSH). In one pass it reads
    - the NVIDIA kernel module version (C(/sys/module/nvidia/version), else C(/proc/driver/nvidia/version));
    - the GPUs as C(nvidia-smi) lists them, with the device minor of each (the N of C(/dev/nvidiaN), from
      C(/proc/driver/nvidia/gpus/*/information) matched by UUID; the driver may number devices differently
      from the nvidia-smi index);
    - the NVIDIA device nodes under C(/dev) and C(/dev/nvidia-caps) with their major and minor numbers.
  - With O(create_uvm=true) it runs C(nvidia-modprobe -u -c0) when C(/dev/nvidia-uvm) is missing, since that
    node appears only when first used and PVE refuses to start a container whose passed device is missing.
  - Fails with a clear message when the NVIDIA kernel module is not loaded.
author: llmops.sglang maintainers (@llmops-sglang)
options:
  nvidia_smi:
    description: Path or name of C(nvidia-smi).
    type: str
    default: nvidia-smi
  nvidia_modprobe:
    description: Path or name of C(nvidia-modprobe).
    type: str
    default: /usr/bin/nvidia-modprobe
  create_uvm:
    description: Create C(/dev/nvidia-uvm) and C(/dev/nvidia-uvm-tools) with C(nvidia-modprobe) when missing.
    type: bool
    default: true
extends_documentation_fragment:
  - llmops.sglang.attributes
attributes:
  check_mode:
    support: full
notes:
  - Reads only, except C(nvidia-modprobe) when O(create_uvm=true) and the node is missing.
"""

EXAMPLES = r"""
- name: Read the node's GPUs and make sure /dev/nvidia-uvm exists
  llmops.sglang.proxmox_lxc_node_gpus:
  delegate_to: pve1
  register: node_gpus
"""

RETURN = r"""
driver_version:
  description: NVIDIA kernel module version.
  returned: always
  type: str
  sample: 550.54.14
gpus:
  description: The GPUs, in nvidia-smi index order.
  returned: always
  type: list
  elements: dict
  sample: [{index: 0, uuid: GPU-8a1c2f4e-0000-0000-0000-000000000000, minor: 0, name: NVIDIA H100 80GB HBM3,
            memory_total_mib: 81559, memory_used_mib: 0, memory_free_mib: 81005, driver_version: 550.54.14,
            compute_capability: '9.0'}]
device_nodes:
  description: NVIDIA character device nodes, with their numbers.
  returned: always
  type: list
  elements: dict
  sample: [{path: /dev/nvidia-uvm, major: 508, minor: 0}]
created:
  description: Device nodes that nvidia-modprobe created in this run.
  returned: always
  type: list
  elements: str
"""

import glob
import os
import re
import stat

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.llmops.sglang.plugins.module_utils.nvidia_smi import (
    NvidiaSmiParseError,
    parse_gpus,
    query_gpus,
    uuid_key,
)

VERSION_FILES = ("/sys/module/nvidia/version", "/proc/driver/nvidia/version")
VERSION = re.compile(r"\b(\d{3,}\.\d+(?:\.\d+)?)\b")


def driver_version(texts):
    """The first driver version found in the texts of the version files, or ''."""
    for text in texts:
        found = VERSION.search(text or "")
        if found:
            return found.group(1)
    return ""


def parse_information(texts):
    """Device minors by GPU UUID from the texts of /proc/driver/nvidia/gpus/<bus>/information."""
    minors = {}
    for text in texts:
        record = {}
        for line in text.splitlines():
            field, sep, value = line.partition(":")
            if sep:
                record[field.strip()] = value.strip()
        if record.get("GPU UUID") and re.match(r"^\d+$", record.get("Device Minor", "")):
            minors[uuid_key(record["GPU UUID"])] = int(record["Device Minor"])
    return minors


def with_minors(gpus, minors):
    """The GPUs (parsed nvidia-smi rows) with the device minor of each; the index where none is known."""
    out = []
    for gpu in sorted(gpus, key=lambda g: g["index"]):
        gpu = dict(gpu)
        minor = minors.get(uuid_key(gpu["uuid"]))
        gpu["minor"] = gpu["index"] if minor is None else minor
        out.append(gpu)
    return out


def device_nodes():
    """The NVIDIA character device nodes under /dev and /dev/nvidia-caps, sorted by path."""
    out = []
    for path in sorted(glob.glob("/dev/nvidia*") + glob.glob("/dev/nvidia-caps/*")):
        try:
            info = os.stat(path)
        except OSError:
            continue
        if stat.S_ISCHR(info.st_mode):
            out.append(dict(path=path, major=os.major(info.st_rdev), minor=os.minor(info.st_rdev)))
    return out


def read_text(path):
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return ""


def main():
    module = AnsibleModule(
        argument_spec=dict(
            nvidia_smi=dict(type="str", default="nvidia-smi"),
            nvidia_modprobe=dict(type="str", default="/usr/bin/nvidia-modprobe"),
            create_uvm=dict(type="bool", default=True),
        ),
        supports_check_mode=True,
    )
    p = module.params
    version = driver_version([read_text(path) for path in VERSION_FILES])
    if not version:
        module.fail_json(
            msg="The NVIDIA kernel module is not loaded on this node: neither {0} gives a driver "
            "version. A container shares the node's kernel, so the driver (kernel module) must be "
            "installed and loaded on the node ('modprobe nvidia'), not in the container.".format(" nor ".join(VERSION_FILES))
        )
    smi = module.get_bin_path(p["nvidia_smi"]) if "/" not in p["nvidia_smi"] else p["nvidia_smi"]
    if not smi or not os.access(smi, os.X_OK):
        module.fail_json(
            msg="nvidia-smi ({0}) is not on this node; it comes with the NVIDIA driver {1} that is loaded. Install the driver's utilities on the node.".format(
                p["nvidia_smi"], version
            )
        )
    rc, out, err, fields = query_gpus(module.run_command, smi)
    if rc != 0:
        module.fail_json(msg="nvidia-smi failed on this node (rc {0}): {1}".format(rc, (err or out).strip()))
    try:
        gpus = parse_gpus(out, fields)
    except NvidiaSmiParseError as e:
        module.fail_json(msg="nvidia-smi on this node: {0}".format(e))
    infos = [read_text(path) for path in glob.glob("/proc/driver/nvidia/gpus/*/information")]
    gpus = with_minors(gpus, parse_information(infos))
    nodes = device_nodes()
    created = []
    if p["create_uvm"] and "/dev/nvidia-uvm" not in [n["path"] for n in nodes]:
        created = ["/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"]
        if not module.check_mode:
            rc, out, err = module.run_command([p["nvidia_modprobe"], "-u", "-c0"])
            if rc != 0:
                module.fail_json(
                    msg="'{0} -u -c0' failed (rc {1}): {2}. Without /dev/nvidia-uvm CUDA cannot start in a container.".format(
                        p["nvidia_modprobe"], rc, (err or out).strip()
                    )
                )
            nodes = device_nodes()
            created = [path for path in created if path in [n["path"] for n in nodes]]
    module.exit_json(changed=bool(created), driver_version=version, gpus=gpus, device_nodes=nodes, created=created)


if __name__ == "__main__":
    main()
