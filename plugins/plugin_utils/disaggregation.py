# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Prefill/decode disaggregation: each head's role at the model gateway, read from its own server args, and the
checks a fleet must pass before smg routes to it.

SGLang (``--disaggregation-mode prefill|decode``): a prefill server opens a bootstrap server on
``--disaggregation-bootstrap-port``; a decode server asks that bootstrap server, at the address and room the router
puts in each request (``bootstrap_host``/``bootstrap_port``/``bootstrap_room``), where to pull the KV cache from.
smg (``--pd-disaggregation``) sends every request to one prefill and one decode worker, and registers a prefill
worker with its bootstrap port. The defaults (mode ``null``, port 8998, backend ``mooncake``) are the release's own,
read from its flag catalog.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from urllib.parse import urlsplit

from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_catalog import load_catalog

# SGLang's --disaggregation-mode value -> smg's worker_type.
WORKER_TYPES = {"null": "regular", "prefill": "prefill", "decode": "decode"}


class DisaggregationError(ValueError):
    """A fleet whose prefill/decode roles the gateway cannot route, named with the fix."""


@dataclass(frozen=True)
class GatewayWorker:
    """One head as the gateway registers it."""

    host: str
    url: str
    mode: str
    worker_type: str
    bootstrap_port: int
    transfer_backend: str

    def as_dict(self) -> dict:
        return asdict(self)


def _release_value(server_args, catalog, field):
    value = server_args.get(field)
    return catalog.lookup(field).default if value is None or value == "" else value


def gateway_worker(host: str, url: str, server_args: dict, version: str) -> GatewayWorker:
    """The role at the gateway of the head ``host`` (served at ``url``), from its merged server args."""
    catalog = load_catalog(version)
    mode = str(_release_value(server_args, catalog, "disaggregation_mode"))
    choices = catalog.lookup("disaggregation_mode").choices or tuple(WORKER_TYPES)
    if mode not in choices or mode not in WORKER_TYPES:
        raise DisaggregationError(
            "%s: disaggregation_mode %r is not one SGLang %s accepts (%s); set one of them in its server args"
            % (host, mode, catalog.version, ", ".join(c for c in choices if c in WORKER_TYPES))
        )
    port = 0
    if mode == "prefill":
        port = int(_release_value(server_args, catalog, "disaggregation_bootstrap_port"))
        if not 0 < port < 65536:
            raise DisaggregationError("%s: disaggregation_bootstrap_port %d is no TCP port; set 1-65535 in its server args" % (host, port))
    backend = str(_release_value(server_args, catalog, "disaggregation_transfer_backend")) if mode != "null" else ""
    return GatewayWorker(host=host, url=url, mode=mode, worker_type=WORKER_TYPES[mode], bootstrap_port=port, transfer_backend=backend)


def check_fleet(workers: list, pd_gateway: bool) -> None:
    """Refuse a fleet that the gateway, in its mode, cannot route every request through."""
    if not workers:
        raise DisaggregationError("no replica head to register with the gateway; deploy the replicas (deploy.yml) first")
    by_type = {kind: [w for w in workers if w.worker_type == kind] for kind in WORKER_TYPES.values()}
    if not pd_gateway:
        disaggregated = by_type["prefill"] + by_type["decode"]
        if disaggregated:
            raise DisaggregationError(
                "%s run%s with --disaggregation-mode %s, which serves only behind a prefill/decode gateway: set sglang_gateway_pd_disaggregation: true on "
                "the gateway, or drop disaggregation_mode from their server args"
                % (", ".join(w.host for w in disaggregated), "s" if len(disaggregated) == 1 else "", "/".join(sorted({w.mode for w in disaggregated})))
            )
        return
    if by_type["regular"]:
        raise DisaggregationError(
            "the gateway runs --pd-disaggregation, which routes only to prefill and decode workers, but %s run%s without --disaggregation-mode: "
            "set disaggregation_mode prefill or decode in their server args, or sglang_gateway_pd_disaggregation: false"
            % (", ".join(w.host for w in by_type["regular"]), "s" if len(by_type["regular"]) == 1 else "")
        )
    for kind in ("prefill", "decode"):
        if not by_type[kind]:
            raise DisaggregationError(
                "a prefill/decode gateway needs at least one prefill and one decode worker; there is no %s worker among %s: set disaggregation_mode %s "
                "in one replica's server args" % (kind, ", ".join(w.host for w in workers), kind)
            )
    backends = {w.transfer_backend for w in workers}
    if len(backends) > 1:
        raise DisaggregationError(
            "the KV cache moves from prefill to decode over one transfer backend, but the workers use %s: set the same disaggregation_transfer_backend on "
            "every replica" % ", ".join("%s (%s)" % (w.host, w.transfer_backend) for w in workers)
        )
    seen = {}
    for worker in by_type["prefill"]:
        endpoint = (urlsplit(worker.url).hostname, worker.bootstrap_port)
        if endpoint in seen:
            raise DisaggregationError(
                "%s and %s both open their bootstrap server on %s:%d: give one of them another disaggregation_bootstrap_port"
                % (seen[endpoint], worker.host, endpoint[0], endpoint[1])
            )
        seen[endpoint] = worker.host
