# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A deployment as replicas x members: what each member of one replica launches with.

A replica is one SGLang server. When it spans several containers (members, one per Proxmox node or GPU subset),
SGLang joins them itself: every member runs ``launch_server`` with the same parallel sizes plus ``--nnodes``,
its own ``--node-rank`` and rank 0's ``--dist-init-addr``; torch.distributed's TCPStore on rank 0 is the
rendezvous, and only rank 0 serves HTTP (engine.py: a node of rank >= 1 starts no tokenizer manager or server).
The single-node layout is the replica of one member, which adds nothing to the command line.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

# Flags the role derives from the inventory for a member of a multi-node replica.
DERIVED_FIELDS = ("nnodes", "node_rank", "dist_init_addr")
_UNROUTABLE = ("", "0.0.0.0", "::", "localhost")
_INTERFACE = re.compile(r"^[A-Za-z0-9_.:@-]{1,15}$")


class TopologyError(ValueError):
    """An inventory that does not describe a launchable replica; the message names the hosts and the fix."""


@dataclass(frozen=True)
class ReplicaMember:
    """One container of a replica, as the inventory and the container's own facts describe it."""

    host: str
    rank: int
    address: str
    node: str
    gpu_count: int = 0


@dataclass(frozen=True)
class MemberPlan:
    """What one member adds to its launch: flags, environment, and whether it is the head (rank 0)."""

    replica: str
    host: str
    rank: int
    nnodes: int
    is_head: bool
    head: ReplicaMember
    members: tuple
    server_args: dict = field(default_factory=dict)
    environment: dict = field(default_factory=dict)

    def as_dict(self):
        """The plan as plain data for Ansible (members and head as dicts)."""
        return asdict(self)


def _int(value, what, low, high, fix):
    if isinstance(value, bool):
        raise TopologyError("%s must be a whole number, got %r; %s" % (what, value, fix))
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise TopologyError("%s must be a whole number, got %r; %s" % (what, value, fix)) from None
    if str(number) != str(value).strip() or not low <= number <= high:
        raise TopologyError("%s must be a whole number from %d to %d, got %r; %s" % (what, low, high, value, fix))
    return number


def _member(raw, replica):
    if not isinstance(raw, Mapping) or not raw.get("host"):
        raise TopologyError("each member of replica %s needs host, rank, address and node; got %r" % (replica, raw))
    host = str(raw["host"])
    rank = _int(raw.get("rank", 0), "sglang_service_node_rank of %s" % host, 0, 1023, "give each member of the replica its own rank, 0 for the head")
    gpus = _int(raw.get("gpu_count") or 0, "the GPU count of %s" % host, 0, 4096, "give the member's GPUs in sglang_service_gpu_indices")
    return ReplicaMember(host=host, rank=rank, address=str(raw.get("address") or ""), node=str(raw.get("node") or host), gpu_count=gpus)


def _members(raw_members, replica):
    if not isinstance(raw_members, (list, tuple)) or not raw_members:
        raise TopologyError("replica %s has no members: put its containers in inventory group %s" % (replica, replica))
    members = sorted((_member(raw, replica) for raw in raw_members), key=lambda m: (m.rank, m.host))
    ranks = [m.rank for m in members]
    if ranks != list(range(len(members))):
        listing = ", ".join("%s=%d" % (m.host, m.rank) for m in members)
        raise TopologyError(
            "replica %s has node ranks %s: its %d members need the ranks 0 to %d, each once (rank 0 is the head that serves "
            "HTTP); set sglang_service_node_rank on each member" % (replica, listing, len(members), len(members) - 1)
        )
    return tuple(members)


def _dist_init_addr(head, port, replica):
    address = head.address.strip("[]")
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        parsed = None
    if address in _UNROUTABLE or (parsed is not None and (parsed.is_loopback or parsed.is_unspecified)):
        raise TopologyError(
            "replica %s: the head %s has address %r, which the other members cannot reach for the rendezvous "
            "(--dist-init-addr); set sglang_service_member_address on %s to its address on the network that joins the nodes"
            % (replica, head.host, head.address, head.host)
        )
    return ("[%s]:%d" if parsed is not None and parsed.version == 6 else "%s:%d") % (address, port)


def _parallel_world(server_args):
    tp = _int(server_args.get("tp_size") or 1, "tp_size", 1, 4096, "set the tensor parallel size of the whole replica")
    pp = _int(server_args.get("pp_size") or 1, "pp_size", 1, 4096, "set the pipeline parallel size of the whole replica")
    return tp, pp


def plan_member(replica, host, members, server_args, dist_port=20000, dist_timeout=0, interface="", http_port=30000):
    """The plan of member ``host`` of ``replica`` (its members as dicts: host, rank, address, node, gpu_count).

    Raises TopologyError for ranks that are not 0..n-1, a head the others cannot reach, flags the role derives set
    by hand, parallel sizes that do not split over the members, or a rendezvous port that clashes.
    """
    replica = str(replica or host)
    if not isinstance(server_args, Mapping):
        raise TopologyError("the server args of %s must be a dict keyed by ServerArgs field" % host)
    group = _members(members, replica)
    by_host = {m.host: m for m in group}
    if host not in by_host:
        raise TopologyError("%s is not a member of replica %s (members: %s)" % (host, replica, ", ".join(by_host)))
    me, head, nnodes = by_host[host], group[0], len(group)
    port = _int(dist_port, "sglang_service_dist_port", 1, 65535, "pick a free TCP port for the rendezvous on the head")
    timeout = _int(dist_timeout or 0, "sglang_service_dist_timeout", 0, 86400, "give seconds, or 0 for SGLang's default")
    if interface and not _INTERFACE.match(str(interface)):
        raise TopologyError(
            "sglang_service_network_interface %r of %s is not a network interface name (at most 15 letters, digits or ._:@-); "
            "name the interface that reaches the other nodes, e.g. eth0" % (interface, host)
        )
    args, env = {}, {}
    if timeout:
        args["dist_timeout"] = timeout
    if nnodes > 1:
        derived = sorted(set(DERIVED_FIELDS) & set(server_args))
        if derived:
            raise TopologyError(
                "%s sets %s in its server args, but for replica %s the role derives them from the inventory "
                "(sglang_service_replica, sglang_service_node_rank, sglang_service_dist_port); remove them" % (host, ", ".join(derived), replica)
            )
        if port == int(http_port):
            raise TopologyError("sglang_service_dist_port %d of replica %s is also the HTTP port; give the rendezvous its own port" % (port, replica))
        tp, pp = _parallel_world(server_args)
        world = tp * pp
        if world % nnodes:
            raise TopologyError(
                "replica %s has %d members but tp_size %d x pp_size %d = %d GPUs do not split evenly over them; "
                "SGLang runs tp_size x pp_size / nnodes ranks on each node: make the product a multiple of %d" % (replica, nnodes, tp, pp, world, nnodes)
            )
        short = [m for m in group if m.gpu_count and m.gpu_count < world // nnodes]
        if short:
            raise TopologyError(
                "replica %s runs %d GPUs on each of its %d members, but %s; give each member %d GPUs or lower tp_size/pp_size"
                % (replica, world // nnodes, nnodes, ", ".join("%s (node %s) has %d" % (m.host, m.node, m.gpu_count) for m in short), world // nnodes)
            )
        args.update(nnodes=nnodes, node_rank=me.rank, dist_init_addr=_dist_init_addr(head, port, replica))
        if interface:
            env.update(NCCL_SOCKET_IFNAME=str(interface), GLOO_SOCKET_IFNAME=str(interface))
        if me.address:
            env["SGLANG_HOST_IP"] = me.address.strip("[]")
    return MemberPlan(
        replica=replica, host=host, rank=me.rank, nnodes=nnodes, is_head=me.rank == 0, head=head, members=group, server_args=args, environment=env
    )
