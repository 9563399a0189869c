#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read what a Proxmox VE LXC deployment must know before it changes anything: node, storages, template, container."""

from __future__ import annotations

DOCUMENTATION = r"""
module: proxmox_lxc_node_info
short_description: Read a Proxmox VE node, its storages, a template and a container in one pass
version_added: 0.1.0
description:
  - Read-only. Gathers what a container deployment checks before it changes anything
    - the PVE version; the node (online, RAM, CPUs);
    - the status of the node's storages (enabled, active, content types, free and total bytes);
    - whether an OS template volume is on its storage;
    - the container, looked up by ID or else by hostname (status, lock, current config, keys with pending
      changes), or the next free ID when it does not exist.
  - Fails with a clear message when the node is unknown or offline, or when a hostname matches several guests.
author: llmops.sglang maintainers (@llmops-sglang)
requirements:
  - proxmoxer >= 2.3
  - requests
options:
  node:
    description: Name of the Proxmox VE node.
    type: str
    required: true
  storages:
    description: Storages whose status on O(node) is returned. Unknown ones are returned with C(exists=false).
    type: list
    elements: str
    default: []
  ostemplate:
    description: Template volume id (C(local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst)) to look for.
    type: str
  vmid:
    description: Container ID to look up. V(0) looks the container up by O(hostname) instead.
    type: int
    default: 0
  hostname:
    description: Container hostname, used for the lookup when O(vmid=0).
    type: str
  memory:
    description: Memory the container gets, in MiB; compared with O(model_size_bytes). V(0) skips the check.
    type: int
    default: 0
  model_size_bytes:
    description:
      - Size of the model weights the container will load, in bytes. When O(memory) is below it, the module
        warns - loading the weights through the page cache of a container that small is slow or OOM-killed.
    type: int
    default: 0
extends_documentation_fragment:
  - llmops.sglang.proxmox_api
  - llmops.sglang.action_groups.proxmox
  - llmops.sglang.attributes
  - llmops.sglang.attributes.read_only
notes:
  - Runs where the API is reachable, usually the controller (C(delegate_to=localhost)).
"""

EXAMPLES = r"""
- name: Read node, storages, template and container before creating CT sglang-1
  llmops.sglang.proxmox_lxc_node_info:
    api_host: pve1.example.org
    api_user: root@pam
    api_token_id: ansible
    api_token_secret: "{{ vault_pve_token_secret }}"
    node: pve1
    storages: [local, local-lvm]
    ostemplate: local:vztmpl/debian-12-standard_12.7-1_amd64.tar.zst
    hostname: sglang-1
  delegate_to: localhost
  register: pve
"""

RETURN = r"""
pve_version:
  description: PVE version (C(GET /version)).
  returned: always
  type: str
  sample: 8.2.4
node:
  description: The node as C(GET /nodes) lists it.
  returned: always
  type: dict
  sample: {node: pve1, status: online, maxmem: 270582939648, mem: 2147483648, maxcpu: 64}
storages:
  description: Status of each storage of O(storages) on the node, keyed by name.
  returned: always
  type: dict
  sample: {local-lvm: {exists: true, enabled: true, active: true, content: [images, rootdir], avail: 536870912000,
           total: 1099511627776, type: lvmthin}}
template_present:
  description: Whether O(ostemplate) is on its storage; V(null) when O(ostemplate) is not given.
  returned: always
  type: bool
container:
  description: The container, if it exists.
  returned: always
  type: dict
  contains:
    exists:
      description: Whether the container exists.
      type: bool
    vmid:
      description: Its ID (the next free ID when it does not exist and O(vmid=0)).
      type: int
    node:
      description: The node that holds it.
      type: str
    hostname:
      description: Its hostname.
      type: str
    status:
      description: C(running), C(stopped), ...
      type: str
    lock:
      description: Config lock (C(backup), C(snapshot), C(migrate), ...), empty when unlocked.
      type: str
    config:
      description: Current config (without C(digest)).
      type: dict
    pending:
      description: Config keys whose change waits for a restart.
      type: list
      elements: str
"""

from ansible.module_utils.common.text.converters import to_native

from ansible_collections.community.proxmox.plugins.module_utils.proxmox import (
    ProxmoxAnsible,
    create_proxmox_module,
)


def storage_status(listing, names):
    """Status of each named storage from a GET /nodes/{node}/storage listing, unknown ones marked missing."""
    by_name = dict((item.get("storage"), item) for item in listing)
    out = {}
    for name in names:
        item = by_name.get(name)
        if item is None:
            out[name] = dict(exists=False, enabled=False, active=False, content=[], avail=0, total=0, type="")
            continue
        out[name] = dict(
            exists=True,
            enabled=bool(int(item.get("enabled", 1))),
            active=bool(int(item.get("active", 0))),
            content=[c for c in str(item.get("content", "")).split(",") if c],
            avail=int(item.get("avail") or 0),
            total=int(item.get("total") or 0),
            type=item.get("type", ""),
        )
    return out


def find_container(resources, vmid, hostname):
    """The /cluster/resources entry of the container with vmid (if > 0) or else with hostname, or None.

    Raises ValueError when the id belongs to a VM, or when several guests carry the hostname.
    """
    guests = [r for r in resources if r.get("type") in ("lxc", "qemu")]
    if vmid:
        found = [r for r in guests if int(r.get("vmid", -1)) == int(vmid)]
    else:
        found = [r for r in guests if r.get("name") == hostname]
        if len(found) > 1:
            ids = ", ".join(str(r["vmid"]) for r in found)
            raise ValueError("several guests are named '{0}' (IDs {1}); set the container ID explicitly".format(hostname, ids))
    if not found:
        return None
    if found[0].get("type") != "lxc":
        raise ValueError("ID {0} belongs to a QEMU VM ('{1}'), not to a container; choose another ID".format(found[0]["vmid"], found[0].get("name", "")))
    return found[0]


def memory_warning(memory_mib, model_size_bytes):
    """A warning when the container memory is below the size of the model it will load, else None."""
    if not memory_mib or not model_size_bytes or memory_mib * 1048576 >= model_size_bytes:
        return None
    return (
        "The container gets {0} MiB of memory, less than the model's {1} MiB of weights: loading them through "
        "the page cache inside the container will be slow or OOM-killed. Raise the container memory above the "
        "model size.".format(memory_mib, -(-model_size_bytes // 1048576))
    )


def pending_keys(pending):
    """Keys of a GET .../pending listing whose change waits for a restart."""
    return sorted(item["key"] for item in pending if "pending" in item or item.get("delete"))


class ProxmoxLxcNodeInfo(ProxmoxAnsible):
    def gather(self):
        p = self.module.params
        api = self.proxmox_api
        result = dict(changed=False)
        result["pve_version"] = str(api.version.get().get("version", ""))
        nodes = dict((n["node"], n) for n in api.nodes.get())
        if p["node"] not in nodes:
            self.module.fail_json(
                msg="Node '{0}' is not in the cluster; the cluster has: {1}.".format(p["node"], ", ".join(sorted(nodes)) or "no node"), **result
            )
        node = nodes[p["node"]]
        if node.get("status") != "online":
            self.module.fail_json(msg="Node '{0}' is {1}, not online.".format(p["node"], node.get("status")), **result)
        result["node"] = node
        proxnode = api.nodes(p["node"])
        result["storages"] = storage_status(proxnode.storage.get(), p["storages"]) if p["storages"] else {}
        result["template_present"] = None
        if p["ostemplate"]:
            store = p["ostemplate"].split(":", 1)[0]
            present = False
            if result["storages"].get(store, {}).get("active", True):
                content = proxnode.storage(store).content.get(content="vztmpl")
                present = any(c.get("volid") == p["ostemplate"] for c in content)
            result["template_present"] = present
        found = find_container(api.cluster.resources.get(type="vm"), p["vmid"], p["hostname"])
        if found is None:
            vmid = p["vmid"] or int(api.cluster.nextid.get())
            result["container"] = dict(exists=False, vmid=vmid, node=p["node"], hostname=p["hostname"] or "", status="", lock="", config={}, pending=[])
            return result
        lxc = api.nodes(found["node"]).lxc(found["vmid"])
        config = lxc.config.get(current=1)
        config.pop("digest", None)
        result["container"] = dict(
            exists=True,
            vmid=int(found["vmid"]),
            node=found["node"],
            hostname=config.get("hostname", found.get("name")),
            status=found.get("status", ""),
            lock=config.get("lock", found.get("lock", "")) or "",
            config=config,
            pending=pending_keys(lxc.pending.get()),
        )
        return result


def main():
    module = create_proxmox_module(
        dict(
            node=dict(type="str", required=True),
            storages=dict(type="list", elements="str", default=[]),
            ostemplate=dict(type="str"),
            vmid=dict(type="int", default=0),
            hostname=dict(type="str"),
            memory=dict(type="int", default=0),
            model_size_bytes=dict(type="int", default=0),
        ),
        supports_check_mode=True,
        required_if=[("vmid", 0, ["hostname"])],
    )
    info = ProxmoxLxcNodeInfo(module)
    try:
        result = info.gather()
    except ValueError as e:
        module.fail_json(msg=to_native(e))
    except Exception as e:  # proxmoxer raises ResourceException and requests' errors
        module.fail_json(
            msg="Reading node '{0}' from the Proxmox API at {1} failed: {2}".format(module.params["node"], module.params["api_host"], to_native(e).strip())
        )
    warning = memory_warning(module.params["memory"], module.params["model_size_bytes"])
    if warning:
        module.warn(warning)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
