#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pass NVIDIA GPUs into a Proxmox VE LXC container with devN entries (or raw lxc.* lines), idempotently."""

from __future__ import annotations

DOCUMENTATION = r"""
module: proxmox_lxc_devices
short_description: Pass NVIDIA GPU device nodes into a Proxmox VE LXC container, idempotently
version_added: 0.1.0
description:
  - Selects GPUs of the Proxmox VE node (all of them, or some by index or UUID) and works out the device
    nodes the container needs, C(/dev/nvidia<minor>) for each selected GPU plus the control devices
    (C(/dev/nvidiactl), C(/dev/nvidia-uvm), C(/dev/nvidia-uvm-tools)) and any extra ones
    (for example C(/dev/nvidia-caps/nvidia-cap1)).
  - "O(method=api): compares them with the C(devN) entries of the container config (PVE 8.1 and later) and
    writes only the difference through the API, guarded by the config digest. PVE lets only C(root@pam)
    with a password do this: an API token is refused (C(configuring device passthrough is only allowed
    for root@pam))."
  - "O(method=pct): the same comparison, but nothing is written; the module returns the C(pct set) argument
    vector that applies the difference on the node (C(pct) runs there as C(root@pam), so it works when the
    play only holds an API token)."
  - "O(method=raw): for PVE older than 8.1, which has no C(devN). Takes the text of C(/etc/pve/lxc/VMID.conf)
    in O(raw_config) and returns it with the module's C(lxc.cgroup2.devices.allow) and C(lxc.mount.entry)
    lines for NVIDIA devices replaced by the wanted ones. Nothing is written; the caller writes the file in
    place (pmxcfs refuses C(chmod) and renames, so C(ansible.builtin.copy) cannot), with
    M(llmops.sglang.proxmox_lxc_conf_write) and the SHA-1 of the text it read, so that a change made in
    between is not overwritten."
  - Only entries for NVIDIA device nodes (paths under C(/dev/nvidia)) are managed. Other C(devN) entries and
    other raw lines are left as they are. An existing entry for a wanted path keeps its number.
  - After a change, the module reads C(/pending) and reports the keys that wait for a container restart.
author: llmops.sglang maintainers (@llmops-sglang)
requirements:
  - proxmoxer >= 2.3
  - requests
options:
  node:
    description: Name of the Proxmox VE node that holds the container.
    type: str
    required: true
  vmid:
    description: ID of the container.
    type: int
    required: true
  host_gpus:
    description:
      - The node's GPUs, as M(llmops.sglang.proxmox_lxc_node_gpus) returns them. Each needs C(index) (the
        nvidia-smi index) and C(uuid); C(minor) (the N of C(/dev/nvidiaN)) defaults to the index, and C(name)
        is used in messages. Other keys are ignored.
    type: list
    elements: dict
    required: true
  gpus:
    description:
      - Which GPUs to pass through. V(all), or GPU indices and/or UUIDs (a UUID may be given with or
        without its C(GPU-) prefix).
    type: list
    elements: str
    default: [all]
  control_devices:
    description: Device nodes every GPU container needs besides the GPUs themselves.
    type: list
    elements: path
    default: [/dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidia-uvm-tools]
  extra_devices:
    description: More device nodes to pass, for example the C(/dev/nvidia-caps/*) nodes that exist on the node.
    type: list
    elements: path
    default: []
  gid:
    description: Group id of the device nodes inside the container (mapped through the container's idmap).
    type: int
    default: 44
  uid:
    description: Owner id of the device nodes inside the container.
    type: int
    default: 0
  mode:
    description: Access mode of the device nodes inside the container, four octal digits.
    type: str
    default: '0666'
  method:
    description: How the difference is applied; see the description.
    type: str
    choices: [api, pct, raw]
    default: api
  raw_config:
    description: Text of C(/etc/pve/lxc/VMID.conf) on the node. Required with O(method=raw).
    type: str
  device_majors:
    description:
      - With O(method=raw), the major number of every dynamically numbered device on the node, keyed by path
        (C(/dev/nvidia-uvm), C(/dev/nvidia-uvm-tools), C(/dev/nvidia-caps/nvidia-cap1), ...), as
        M(llmops.sglang.proxmox_lxc_node_gpus) returns them in C(device_nodes). The GPU and control nodes have
        the fixed major 195.
    type: dict
    default: {}
extends_documentation_fragment:
  - llmops.sglang.proxmox_api
  - llmops.sglang.action_groups.proxmox
  - llmops.sglang.attributes
attributes:
  check_mode:
    support: full
notes:
  - Runs where the API is reachable, usually the controller (C(delegate_to=localhost)).
  - Device ids and modes are the container-side values; PVE maps them through the container's idmap.
seealso:
  - module: llmops.sglang.proxmox_lxc_conf_write
  - name: PVE container config, devN
    description: The C(devN) property string.
    link: https://pve.proxmox.com/pve-docs/pct.conf.5.html
"""

EXAMPLES = r"""
- name: Pass GPUs 0 and 1 into CT 129 through the API (root@pam with a password)
  llmops.sglang.proxmox_lxc_devices:
    api_host: pve1.example.org
    api_user: root@pam
    api_password: "{{ vault_pve_root_password }}"
    node: pve1
    vmid: 129
    host_gpus:
      - {index: 0, uuid: GPU-8a1c2f4e-0000-0000-0000-000000000000, minor: 0}
      - {index: 1, uuid: GPU-8a1c2f4e-0000-0000-0000-000000000001, minor: 1}
    gpus: ['0', '1']
  delegate_to: localhost

- name: Work out the pct set arguments with an API token (the token cannot set devN itself)
  llmops.sglang.proxmox_lxc_devices:
    api_host: pve1.example.org
    api_user: root@pam
    api_token_id: ansible
    api_token_secret: "{{ vault_pve_token_secret }}"
    node: pve1
    vmid: 129
    host_gpus: "{{ gpus }}"
    method: pct
  delegate_to: localhost
  register: plan
"""

RETURN = r"""
selected_gpus:
  description: The GPUs that were selected.
  returned: always
  type: list
  elements: dict
  sample: [{index: 0, uuid: GPU-8a1c2f4e-0000-0000-0000-000000000000, minor: 0}]
devices:
  description: The managed C(devN) entries as the config holds them once the change is applied.
  returned: when O(method) is V(api) or V(pct)
  type: dict
  sample: {dev0: '/dev/nvidia0,gid=44,mode=0666', dev1: '/dev/nvidiactl,gid=44,mode=0666'}
set:
  description: Entries that are (or, in check mode and with O(method=pct), would be) written.
  returned: when O(method) is V(api) or V(pct)
  type: dict
  sample: {dev2: '/dev/nvidia-uvm,gid=44,mode=0666'}
delete:
  description: Managed entries that are (or would be) removed because their device is no longer selected.
  returned: when O(method) is V(api) or V(pct)
  type: list
  elements: str
  sample: [dev5]
pct_set_argv:
  description: The C(pct set) command that applies the difference on the node; empty when there is none.
  returned: when O(method) is V(api) or V(pct)
  type: list
  elements: str
  sample: [pct, set, '129', -dev2, '/dev/nvidia-uvm,gid=44,mode=0666']
raw_config:
  description: The new text of C(/etc/pve/lxc/VMID.conf).
  returned: when O(method=raw)
  type: str
raw_lines:
  description: The raw lines the module manages in C(/etc/pve/lxc/VMID.conf).
  returned: when O(method=raw)
  type: list
  elements: str
  sample: ['lxc.cgroup2.devices.allow: c 195:0 rwm', 'lxc.mount.entry: /dev/nvidia0 dev/nvidia0 none bind,optional,create=file']
pending:
  description: Config keys that wait for a restart of the container (PVE's C(/pending)), read after the change.
  returned: always
  type: list
  elements: str
  sample: [dev0]
status:
  description: Container status (C(running), C(stopped)).
  returned: always
  type: str
"""

import re

from ansible.module_utils.common.text.converters import to_native

from ansible_collections.community.proxmox.plugins.module_utils.proxmox import (
    ProxmoxAnsible,
    create_proxmox_module,
)
from ansible_collections.llmops.sglang.plugins.module_utils.nvidia_smi import uuid_key

MANAGED_PREFIX = "/dev/nvidia"
NVIDIA_MAJOR = 195
NVIDIACTL_MINOR = 255
MODESET_MINOR = 254
DEV_KEY = re.compile(r"^dev(\d+)$")
MAX_DEVICES = 256
MODE = re.compile(r"^0[0-7]{3}$")
RAW_KEYS = ("lxc.cgroup2.devices.allow", "lxc.mount.entry")


class SelectionError(ValueError):
    """A GPU selector that matches no GPU of the node, or an empty selection."""


def _describe(gpu):
    parts = ["index {0}".format(gpu["index"]), gpu["uuid"]]
    if gpu.get("name"):
        parts.append(gpu["name"])
    return " ".join(parts)


def normalise_gpus(host_gpus):
    """host_gpus as dicts with an int index, a uuid, an int minor (default: the index) and a name."""
    out = []
    for n, gpu in enumerate(host_gpus):
        try:
            index = int(gpu["index"])
            uuid = str(gpu["uuid"]).strip()
            minor = index if gpu.get("minor") is None else int(gpu["minor"])
        except (KeyError, TypeError, ValueError):
            raise SelectionError("host GPU #{0} ({1!r}) needs an integer 'index', a 'uuid' and, if given, an integer 'minor'".format(n, gpu)) from None
        out.append(dict(index=index, uuid=uuid, minor=minor, name=gpu.get("name") or ""))
    return out


def select_gpus(host_gpus, selectors):
    """The GPUs of host_gpus that selectors name ('all', indices or UUIDs), in index order, without repeats."""
    if not host_gpus:
        raise SelectionError("the node reports no NVIDIA GPU (nvidia-smi listed none)")
    by_index = dict((int(g["index"]), g) for g in host_gpus)
    by_uuid = dict((uuid_key(g["uuid"]), g) for g in host_gpus)
    chosen = {}
    for raw in selectors or ["all"]:
        text = str(raw).strip()
        if text.lower() == "all":
            chosen.update(by_index)
            continue
        if re.match(r"^\d+$", text):
            gpu = by_index.get(int(text))
        else:
            gpu = by_uuid.get(uuid_key(text))
        if gpu is None:
            known = "; ".join(_describe(g) for g in sorted(host_gpus, key=lambda g: int(g["index"])))
            raise SelectionError("GPU '{0}' is not on this node. The node has: {1}. Select GPUs by nvidia-smi index or UUID, or 'all'.".format(text, known))
        chosen[int(gpu["index"])] = gpu
    return [chosen[i] for i in sorted(chosen)]


def gpu_device_path(gpu):
    """/dev/nvidiaN of a GPU: N is the device minor, which the driver may number differently from the index."""
    minor = gpu.get("minor")
    return "/dev/nvidia{0}".format(int(gpu["index"]) if minor is None else int(minor))


def device_paths(selected, control_devices, extra_devices):
    """The device nodes to pass, GPU nodes first (by minor), then control and extra nodes, without repeats."""
    paths = sorted((gpu_device_path(g) for g in selected), key=lambda p: int(p.replace(MANAGED_PREFIX, '', 1)))
    for path in list(control_devices) + sorted(extra_devices):
        if path not in paths:
            paths.append(path)
    for path in paths:
        if not path.startswith("/dev/") or "/../" in path or path.endswith("/.."):
            raise ValueError("device path '{0}' must be a node under /dev/".format(path))
    return paths


def parse_dev_value(value):
    """A devN property string as (path, {option: value})."""
    path, options = None, {}
    for n, part in enumerate(str(value).split(",")):
        key, eq, val = part.partition("=")
        if not eq and n == 0:
            path = part
        elif key == "path":
            path = val
        elif eq:
            options[key] = val
    return path, options


def format_dev_value(path, gid, mode, uid=0):
    """The devN value for a device node: path, then the options PVE knows, defaults left out."""
    parts = [path]
    if gid:
        parts.append("gid={0}".format(int(gid)))
    parts.append("mode={0}".format(mode))
    if uid:
        parts.append("uid={0}".format(int(uid)))
    return ",".join(parts)


DEV_DEFAULTS = {"gid": "0", "uid": "0", "mode": "0660", "deny-write": "0"}


def _options_with_defaults(options):
    return dict((key, str(options.get(key, default))) for key, default in DEV_DEFAULTS.items())


def _same_entry(current, wanted):
    """True if two devN values pass the same path with the same ids, mode and write access."""
    cpath, copts = parse_dev_value(current)
    wpath, wopts = parse_dev_value(wanted)
    return cpath == wpath and _options_with_defaults(copts) == _options_with_defaults(wopts)


def plan_devices(config, wanted_values):
    """Work out the devN changes that make config hold exactly wanted_values among the managed entries.

    config is the container config (GET .../config), wanted_values an ordered list of devN values.
    Returns (set, delete, final): set maps devN to the value to write, delete lists managed devN keys to drop,
    final maps devN to value for every managed entry once the change is applied. An entry that already
    passes a wanted path keeps its number; new ones take the lowest free number.
    """
    current = {}
    for key, value in config.items():
        match = DEV_KEY.match(key)
        if match:
            current[key] = value
    wanted_by_path = dict((parse_dev_value(v)[0], v) for v in wanted_values)
    to_set, to_delete, final = {}, [], {}
    placed = set()
    for key in sorted(current, key=lambda k: int(k[3:])):
        path = parse_dev_value(current[key])[0] or ""
        if not path.startswith(MANAGED_PREFIX):
            continue
        wanted = wanted_by_path.get(path)
        if wanted is None or path in placed:
            to_delete.append(key)
            continue
        placed.add(path)
        final[key] = wanted
        if not _same_entry(current[key], wanted):
            to_set[key] = wanted
    taken = set(current)
    free = (n for n in range(MAX_DEVICES) if "dev{0}".format(n) not in taken)
    for value in wanted_values:
        path = parse_dev_value(value)[0]
        if path in placed:
            continue
        try:
            key = "dev{0}".format(next(free))
        except StopIteration:
            raise ValueError("the container has no free devN slot left (PVE allows dev0 to dev{0})".format(MAX_DEVICES - 1)) from None
        placed.add(path)
        to_set[key] = value
        final[key] = value
    return to_set, to_delete, final


def pct_set_argv(vmid, to_set, to_delete):
    """The pct set command line that applies a plan; empty when there is nothing to do."""
    if not to_set and not to_delete:
        return []
    argv = ["pct", "set", str(vmid)]
    for key in sorted(to_set, key=lambda k: int(k[3:])):
        argv += ["-" + key, to_set[key]]
    if to_delete:
        argv += ["-delete", ",".join(to_delete)]
    return argv


def raw_lines(paths, device_majors, selected):
    """The lxc.cgroup2.devices.allow and lxc.mount.entry lines for device nodes on PVE before 8.1."""
    allow = []
    for gpu in selected:
        minor = int(gpu["index"]) if gpu.get("minor") is None else int(gpu["minor"])
        allow.append("c {0}:{1} rwm".format(NVIDIA_MAJOR, minor))
    for path in paths:
        if path == "/dev/nvidiactl":
            rule = "c {0}:{1} rwm".format(NVIDIA_MAJOR, NVIDIACTL_MINOR)
        elif path == "/dev/nvidia-modeset":
            rule = "c {0}:{1} rwm".format(NVIDIA_MAJOR, MODESET_MINOR)
        elif re.match(r"^/dev/nvidia\d+$", path):
            continue
        else:
            major = device_majors.get(path)
            if major is None:
                raise ValueError("the major number of {0} on the node is unknown; it is needed for the raw lxc.cgroup2.devices.allow line".format(path))
            rule = "c {0}:* rwm".format(int(major))
        if rule not in allow:
            allow.append(rule)
    lines = ["lxc.cgroup2.devices.allow: " + rule for rule in allow]
    for path in paths:
        lines.append("lxc.mount.entry: {0} {1} none bind,optional,create=file".format(path, path.lstrip("/")))
    return lines


def _managed_raw_line(line, majors):
    key, sep, value = line.partition(":")
    key, value = key.strip(), value.strip()
    if not sep or key not in RAW_KEYS:
        return False
    if key == "lxc.mount.entry":
        return value.split(" ")[0].startswith(MANAGED_PREFIX)
    match = re.match(r"^c (\d+):", value)
    return bool(match) and int(match.group(1)) in majors


def merge_raw_config(text, lines, majors):
    """text of /etc/pve/lxc/VMID.conf with the managed raw lines of its main section replaced by lines.

    A managed line is a mount entry of a /dev/nvidia* node or a cgroup2 allow line for one of majors.
    Snapshot sections ([name]) are kept as they are; the lines go at the end of the main section.
    """
    source = text.split("\n")
    end = next((n for n, line in enumerate(source) if re.match(r"^\[[^\]]+\]\s*$", line)), len(source))
    main, rest = source[:end], source[end:]
    kept = [line for line in main if not _managed_raw_line(line, majors)]
    while kept and not kept[-1].strip():
        kept.pop()
    merged = kept + list(lines)
    if rest:
        merged += [""] + rest
    out = "\n".join(merged)
    return out if out.endswith("\n") else out + "\n"


class ProxmoxLxcDevices(ProxmoxAnsible):
    """The API side: read the config, write the difference, read what is pending."""

    def lxc(self):
        p = self.module.params
        return self.proxmox_api.nodes(p["node"]).lxc(p["vmid"])

    def read(self):
        return self.lxc().config.get()

    def status(self):
        return self.lxc().status.current.get().get("status", "unknown")

    def pending(self):
        keys = []
        for item in self.lxc().pending.get():
            if "pending" in item or item.get("delete"):
                keys.append(item["key"])
        return sorted(keys)

    def write(self, to_set, to_delete, digest):
        values = dict(to_set)
        if to_delete:
            values["delete"] = ",".join(to_delete)
        if digest:
            values["digest"] = digest
        self.lxc().config.put(**values)


def module_args():
    return dict(
        node=dict(type="str", required=True),
        vmid=dict(type="int", required=True),
        host_gpus=dict(type="list", elements="dict", required=True),
        gpus=dict(type="list", elements="str", default=["all"]),
        control_devices=dict(type="list", elements="path", default=["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"]),
        extra_devices=dict(type="list", elements="path", default=[]),
        gid=dict(type="int", default=44),
        uid=dict(type="int", default=0),
        mode=dict(type="str", default="0666"),
        method=dict(type="str", choices=["api", "pct", "raw"], default="api"),
        raw_config=dict(type="str"),
        device_majors=dict(type="dict", default={}),
    )


def _api_error(module, what, exc, **result):
    text = to_native(exc)
    hint = ""
    if "only allowed for root@pam" in text:
        hint = " PVE lets only root@pam with a password set devN entries; with an API token, use method=pct (pct set on the node over SSH)."
    elif "locked" in text or "got timeout" in text:
        hint = " Another job holds the container's config lock; wait for it, or clear a stale lock with 'pct unlock'."
    module.fail_json(msg="{0}: {1}.{2} The container was not changed by this task.".format(what, text.strip(), hint), **result)


def main():
    module = create_proxmox_module(
        module_args(),
        supports_check_mode=True,
        required_if=[("method", "raw", ["raw_config"])],
    )
    p = module.params
    if not MODE.match(p["mode"]):
        module.fail_json(msg="mode '{0}' is not an access mode of four octal digits such as 0666 or 0660".format(p["mode"]))
    try:
        selected = select_gpus(normalise_gpus(p["host_gpus"]), p["gpus"])
        paths = device_paths(selected, p["control_devices"], p["extra_devices"])
    except ValueError as e:
        module.fail_json(msg="GPU selection for CT {0}: {1}".format(p["vmid"], to_native(e)))
    result = dict(changed=False, selected_gpus=selected)
    api = ProxmoxLxcDevices(module)
    where = "CT {0} on node {1}".format(p["vmid"], p["node"])
    try:
        config = api.read()
        result["status"] = api.status()
    except Exception as e:  # proxmoxer raises ResourceException and requests' errors
        _api_error(module, "Could not read the config of " + where, e)

    if p["method"] == "raw":
        majors = set([NVIDIA_MAJOR] + [int(m) for m in p["device_majors"].values()])
        try:
            lines = raw_lines(paths, p["device_majors"], selected)
        except ValueError as e:
            module.fail_json(msg="Raw lxc.* lines for {0}: {1}".format(where, to_native(e)))
        new_text = merge_raw_config(p["raw_config"], lines, majors)
        result.update(raw_lines=lines, raw_config=new_text, changed=new_text != p["raw_config"])
        try:
            result["pending"] = api.pending()
        except Exception as e:
            _api_error(module, "Could not read the pending changes of " + where, e, **result)
        module.exit_json(**result)

    wanted = [format_dev_value(path, p["gid"], p["mode"], p["uid"]) for path in paths]
    try:
        to_set, to_delete, final = plan_devices(config, wanted)
    except ValueError as e:
        module.fail_json(msg="devN entries for {0}: {1}".format(where, to_native(e)))
    result.update(devices=final, set=to_set, delete=to_delete, pct_set_argv=pct_set_argv(p["vmid"], to_set, to_delete))
    if p["method"] == "api" and (to_set or to_delete):
        result["changed"] = True
        if not module.check_mode:
            try:
                api.write(to_set, to_delete, config.get("digest"))
            except Exception as e:
                result["changed"] = False
                _api_error(module, "PVE refused the devN change of " + where, e, **result)
    try:
        result["pending"] = api.pending()
    except Exception as e:
        _api_error(module, "Could not read the pending changes of " + where, e, **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
