# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/disaggregation.py: each head's prefill/decode role at the gateway, and the fleets it refuses."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.llmops.sglang.plugins.filter.sglang_topology import sglang_gateway_fleet, sglang_gateway_worker
from ansible_collections.llmops.sglang.plugins.plugin_utils.disaggregation import DisaggregationError, check_fleet, gateway_worker
from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_catalog import load_catalog


def worker(host, address, version="0.5.23", **args):
    return gateway_worker(host, "http://%s:30000" % address, args, version)


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])
def test_the_defaults_are_the_releases_own(version):
    catalog = load_catalog(version)
    plain, prefill, decode = (
        worker("r", "10.0.0.9", version),
        worker("p", "10.0.0.10", version, disaggregation_mode="prefill"),
        worker("d", "10.0.0.11", version, disaggregation_mode="decode"),
    )
    assert (plain.mode, plain.worker_type, plain.bootstrap_port, plain.transfer_backend) == ("null", "regular", 0, "")
    assert prefill.worker_type == "prefill" and prefill.bootstrap_port == catalog.lookup("disaggregation_bootstrap_port").default == 8998
    assert prefill.transfer_backend == decode.transfer_backend == catalog.lookup("disaggregation_transfer_backend").default
    assert (decode.worker_type, decode.bootstrap_port) == ("decode", 0)


def test_a_prefill_heads_own_bootstrap_port_and_backend_win():
    head = worker("p", "10.0.0.10", disaggregation_mode="prefill", disaggregation_bootstrap_port=9100, disaggregation_transfer_backend="nixl")
    assert (head.bootstrap_port, head.transfer_backend) == (9100, "nixl")


@pytest.mark.parametrize(
    "args,fragment",
    [
        ({"disaggregation_mode": "encode"}, "disaggregation_mode 'encode' is not one SGLang 0.5.23 accepts (null, prefill, decode)"),
        ({"disaggregation_mode": "prefill", "disaggregation_bootstrap_port": 70000}, "disaggregation_bootstrap_port 70000 is no TCP port"),
    ],
)
def test_a_bad_mode_or_port_is_named_with_the_head(args, fragment):
    with pytest.raises(DisaggregationError, match="^p: ") as raised:
        worker("p", "10.0.0.10", **args)
    assert fragment in str(raised.value)


PREFILL = worker("p0", "10.0.0.10", disaggregation_mode="prefill")
DECODE = worker("d0", "10.0.0.11", disaggregation_mode="decode")
REGULAR = worker("r0", "10.0.0.12")


def test_a_fleet_the_gateway_can_route_passes():
    check_fleet([REGULAR], pd_gateway=False)
    check_fleet([PREFILL, DECODE, worker("d1", "10.0.0.13", disaggregation_mode="decode")], pd_gateway=True)
    check_fleet([PREFILL, worker("p1", "10.0.0.10", disaggregation_mode="prefill", disaggregation_bootstrap_port=8999), DECODE], pd_gateway=True)


@pytest.mark.parametrize(
    "fleet,pd,fragment",
    [
        ([], False, "no replica head to register"),
        ([REGULAR, PREFILL], False, "p0 runs with --disaggregation-mode prefill, which serves only behind a prefill/decode gateway"),
        ([PREFILL, DECODE, REGULAR], True, "but r0 runs without --disaggregation-mode"),
        ([PREFILL], True, "there is no decode worker among p0: set disaggregation_mode decode"),
        ([DECODE], True, "there is no prefill worker among d0"),
        (
            [PREFILL, worker("d0", "10.0.0.11", disaggregation_mode="decode", disaggregation_transfer_backend="nixl")],
            True,
            "the workers use p0 (mooncake), d0 (nixl): set the same disaggregation_transfer_backend",
        ),
        ([PREFILL, worker("p1", "10.0.0.10", disaggregation_mode="prefill"), DECODE], True, "p0 and p1 both open their bootstrap server on 10.0.0.10:8998"),
    ],
)
def test_a_fleet_the_gateway_cannot_route_is_refused_with_the_fix(fleet, pd, fragment):
    with pytest.raises(DisaggregationError) as raised:
        check_fleet(fleet, pd_gateway=pd)
    assert fragment in str(raised.value)


def test_the_filters_pass_results_through_and_name_themselves_in_errors():
    workers = [
        sglang_gateway_worker({"disaggregation_mode": mode}, host, "http://%s:30000" % host, "0.5.23") for host, mode in (("p", "prefill"), ("d", "decode"))
    ]
    assert sglang_gateway_fleet(workers, True) == workers
    with pytest.raises(AnsibleFilterError, match="^sglang_gateway_fleet: p runs with --disaggregation-mode prefill"):
        sglang_gateway_fleet(workers[:1], False)
    with pytest.raises(AnsibleFilterError, match="^sglang_gateway_fleet: a worker is not an sglang_gateway_worker result"):
        sglang_gateway_fleet([{"host": "p"}], True)
    with pytest.raises(AnsibleFilterError, match="^sglang_gateway_worker: p: disaggregation_mode 'both'"):
        sglang_gateway_worker({"disaggregation_mode": "both"}, "p", "http://p:30000", "0.5.23")
