# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters for replicas: a replica that spans several members, and each head's prefill/decode role at the gateway
(docs: the same-name .yml files)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.llmops.sglang.plugins.filter.sglang_argv import BOOL, INT, LIST, MAPPING, NONE, TEXT, require_input
from ansible_collections.llmops.sglang.plugins.plugin_utils.disaggregation import DisaggregationError, GatewayWorker, check_fleet, gateway_worker
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.replica import first_failing_member
from ansible_collections.llmops.sglang.plugins.plugin_utils.topology import TopologyError, plan_member


def sglang_replica_member(members, host, replica, server_args, dist_port=20000, dist_timeout=0, interface="", http_port=30000):
    """The launch plan of member ``host`` of ``replica``: derived flags, environment, head and members."""
    name = "sglang_replica_member"
    require_input(name, "the input", members, LIST, "the replica's members as a list", "pass [{host, rank, address, node, gpu_count}, ...]", elements=MAPPING)
    require_input(name, "host", host, TEXT, "the member's inventory name", "pass inventory_hostname")
    require_input(name, "replica", replica, TEXT, "the replica's name", "pass sglang_service_replica (or '' for a replica of one)")
    require_input(name, "server_args", server_args, MAPPING, "the merged server args", "pass sglang_service_args' result")
    require_input(name, "interface", interface, TEXT, "an interface name or ''", "quote it, e.g. eth0")
    for argument, value in (("dist_port", dist_port), ("dist_timeout", dist_timeout), ("http_port", http_port)):
        require_input(name, argument, value, INT + TEXT, "a whole number", "pass an integer")
    try:
        return plan_member(replica, host, members, server_args, dist_port, dist_timeout, interface, int(http_port)).as_dict()
    except (TopologyError, ValueError) as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc)) from None


def sglang_replica_diagnosis(members, diagnoses, errors=None):
    """The member whose own log explains a failed multi-node launch, from every member's diagnosis."""
    name = "sglang_replica_diagnosis"
    require_input(name, "the input", members, LIST, "the replica's members", "pass the plan's members (rank, host, node)", elements=MAPPING)
    require_input(name, "diagnoses", diagnoses, LIST, "one sglang_diagnose result per member", "pass them in the members' order", elements=MAPPING)
    require_input(name, "errors", errors, LIST + NONE, "one error text per member ('' for none)", "pass them in the members' order", elements=TEXT)
    errors = errors or [""] * len(members)
    if not len(members) == len(diagnoses) == len(errors):
        raise AnsibleFilterError(
            "%s: %d members, %d diagnoses and %d errors; pass one of each per member, in the same order" % (name, len(members), len(diagnoses), len(errors))
        )
    try:
        return first_failing_member([dict(member, diagnosis=d, error=e) for member, d, e in zip(members, diagnoses, errors)]).as_dict()
    except (TypeError, ValueError) as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc)) from None


def sglang_gateway_worker(server_args, host, url, version):
    """How the gateway registers head ``host``: regular, or prefill (with its bootstrap port) or decode."""
    name = "sglang_gateway_worker"
    require_input(name, "the input", server_args, MAPPING, "the head's merged server args", "pass llmops_sglang_effective_server_args")
    for argument, value, fix in (
        ("host", host, "pass inventory_hostname"),
        ("url", url, "pass llmops_sglang_worker_url"),
        ("version", version, "pass llmops_sglang_version"),
    ):
        require_input(name, argument, value, TEXT, "text", fix)
    try:
        return gateway_worker(host, url, server_args, version).as_dict()
    except ValueError as exc:  # DisaggregationError, or a release the registry does not know
        raise AnsibleFilterError("%s: %s" % (name, exc)) from None


def sglang_gateway_fleet(workers, pd_disaggregation):
    """The heads' gateway roles, unchanged once the gateway's mode can route through them all; else the reason."""
    name = "sglang_gateway_fleet"
    require_input(name, "the input", workers, LIST, "every head's sglang_gateway_worker result", "pass them as a list", elements=MAPPING)
    require_input(name, "pd_disaggregation", pd_disaggregation, BOOL, "true or false", "pass the gateway's sglang_gateway_pd_disaggregation")
    try:
        check_fleet([GatewayWorker(**worker) for worker in workers], bool(pd_disaggregation))
    except TypeError as exc:
        raise AnsibleFilterError("%s: a worker is not an sglang_gateway_worker result (%s); pass those results unchanged" % (name, exc)) from None
    except DisaggregationError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc)) from None
    return workers


class FilterModule:
    """Replica topology filters."""

    def filters(self):
        return {
            "sglang_gateway_fleet": sglang_gateway_fleet,
            "sglang_gateway_worker": sglang_gateway_worker,
            "sglang_replica_diagnosis": sglang_replica_diagnosis,
            "sglang_replica_member": sglang_replica_member,
        }
