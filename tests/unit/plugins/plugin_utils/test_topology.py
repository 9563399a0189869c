# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/topology.py: what each member of a replica adds to its launch, and the inventories it refuses."""

from __future__ import annotations

import re

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_validator import check_server_args
from ansible_collections.llmops.sglang.plugins.plugin_utils.topology import TopologyError, plan_member

TWO_NODES = [
    {"host": "a1", "rank": 1, "address": "10.89.16.11", "node": "pve2", "gpu_count": 8},
    {"host": "a0", "rank": 0, "address": "10.89.16.10", "node": "pve1", "gpu_count": 8},
]


def test_a_replica_of_one_adds_nothing():
    plan = plan_member("", "solo", [{"host": "solo", "rank": 0, "address": "127.0.0.1"}], {"tp_size": 2})
    assert (plan.server_args, plan.environment, plan.is_head, plan.nnodes, plan.replica) == ({}, {}, True, 1, "solo")


def test_each_member_gets_its_rank_and_rank_0s_rendezvous():
    args = {"tp_size": 16}
    head = plan_member("replica_a", "a0", TWO_NODES, args, dist_port=20000, dist_timeout=600, interface="eth0")
    other = plan_member("replica_a", "a1", TWO_NODES, args, dist_port=20000, dist_timeout=600, interface="eth0")
    assert head.server_args == {"nnodes": 2, "node_rank": 0, "dist_init_addr": "10.89.16.10:20000", "dist_timeout": 600}
    assert other.server_args == {"nnodes": 2, "node_rank": 1, "dist_init_addr": "10.89.16.10:20000", "dist_timeout": 600}
    assert other.environment == {"NCCL_SOCKET_IFNAME": "eth0", "GLOO_SOCKET_IFNAME": "eth0", "SGLANG_HOST_IP": "10.89.16.11"}
    assert (head.is_head, other.is_head, other.head.host) == (True, False, "a0")
    assert [m.host for m in other.members] == ["a0", "a1"]


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])
def test_the_derived_flags_are_flags_of_the_release(version):
    plan = plan_member("replica_a", "a1", TWO_NODES, {"tp_size": 8, "pp_size": 2}, dist_timeout=60)
    argv = check_server_args(dict(plan.server_args, model_path="/m", tp_size=8, pp_size=2), version).argv
    assert argv[argv.index("--dist-init-addr") + 1] == "10.89.16.10:20000"
    assert argv[argv.index("--node-rank") + 1] == "1" and argv[argv.index("--nnodes") + 1] == "2"


def test_an_ipv6_head_is_bracketed():
    members = [{"host": "a0", "rank": 0, "address": "fd00::10"}, {"host": "a1", "rank": 1, "address": "fd00::11"}]
    assert plan_member("r", "a1", members, {"tp_size": 2}).server_args["dist_init_addr"] == "[fd00::10]:20000"


@pytest.mark.parametrize(
    "members, args, kwargs, needle",
    [
        ([dict(TWO_NODES[0], rank=2), TWO_NODES[1]], {"tp_size": 2}, {}, "need the ranks 0 to 1"),
        ([dict(TWO_NODES[0], rank=0), TWO_NODES[1]], {"tp_size": 2}, {}, "need the ranks 0 to 1"),
        ([TWO_NODES[0], dict(TWO_NODES[1], address="127.0.0.1")], {"tp_size": 2}, {}, "which the other members cannot reach"),
        ([TWO_NODES[0], dict(TWO_NODES[1], address="")], {"tp_size": 2}, {}, "set sglang_service_member_address on a0"),
        (TWO_NODES, {"tp_size": 3}, {}, "do not split evenly"),
        (TWO_NODES, {"tp_size": 32}, {}, "a0 (node pve1) has 8"),
        (TWO_NODES, {"tp_size": 2, "node_rank": 1}, {}, "derives them from the inventory"),
        (TWO_NODES, {"tp_size": 2}, {"dist_port": 30000}, "also the HTTP port"),
        (TWO_NODES, {"tp_size": 2}, {"dist_port": 70000}, "from 1 to 65535"),
        (TWO_NODES, {"tp_size": 2}, {"interface": "eth0; reboot"}, "not a network interface name"),
        ([{"host": "x", "rank": 0}], {}, {}, "not a member of replica replica_a"),
        ([], {}, {}, "has no members"),
        ([{"rank": 0}], {}, {}, "needs host, rank, address and node"),
        ([dict(TWO_NODES[0], rank="one")], {}, {}, "must be a whole number"),
    ],
)
def test_bad_inventories_are_refused_with_the_host_and_the_fix(members, args, kwargs, needle):
    with pytest.raises(TopologyError, match=re.escape(needle)):
        plan_member("replica_a", "a1", members, args, **kwargs)
