# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The root cause of a failed multi-node launch, from the diagnosis of every member's own log.

When one rank dies, the others report its absence: rank 0's TCPStore times out "waiting for clients", NCCL's
watchdog times out, or a peer "exited". Those are symptoms. The cause is the first rank whose own log says
something else; only when every member shows a symptom is the member that could not reach the rendezvous (a
client socket timeout) or, last, rank 0 reported. A member whose log shows no cause but that the role saw fail
(its check of rank 0's rendezvous port timed out) comes right after the members whose logs explain it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass

# What a rank logs when another rank, not itself, failed (torch c10d TCPStore, ProcessGroupNCCL, NCCL).
PEER_WAIT = re.compile(
    r"waiting for clients|clients joined|Watchdog caught collective operation timeout|ProcessGroupNCCL.{0,80}[Tt]imeout|"
    r"remote process exited or there was a network error|Connection reset by peer|Connection closed by peer"
)
# A non-zero rank that never reached rank 0's TCPStore (torch/csrc/distributed/c10d/socket.cpp).
CLIENT_TIMEOUT = re.compile(r"The client socket has timed out after \d+m?s while trying to connect to")
NO_CAUSE = ("none", "other")


@dataclass(frozen=True)
class MemberDiagnosis:
    """One member's diagnosis (sglang_diagnose's result) with where it ran."""

    rank: int
    host: str
    node: str
    root_cause: str
    summary: str
    evidence: tuple
    error: str = ""

    @property
    def text(self):
        return "\n".join(self.evidence)


@dataclass(frozen=True)
class ReplicaDiagnosis:
    """The member whose failure explains the launch, and every member's own cause."""

    rank: int
    host: str
    node: str
    root_cause: str
    summary: str
    reason: str
    members: tuple

    def as_dict(self):
        return asdict(self)


def _member(raw):
    if not isinstance(raw, Mapping) or not isinstance(raw.get("diagnosis"), Mapping):
        raise ValueError("each member needs rank, host, node and diagnosis (sglang_diagnose's result); got %r" % (raw,))
    diagnosis = raw["diagnosis"]
    return MemberDiagnosis(
        rank=int(raw.get("rank", 0)),
        host=str(raw.get("host", "")),
        node=str(raw.get("node", "") or raw.get("host", "")),
        root_cause=str(diagnosis.get("root_cause") or "other"),
        summary=str(diagnosis.get("summary") or diagnosis.get("root_cause") or ""),
        evidence=tuple(str(line) for line in diagnosis.get("evidence") or ()),
        error=str(raw.get("error") or ""),
    )


def _pick(members):
    """The member to report and why, by the precedence of the module docstring."""
    causes = [m for m in members if m.root_cause not in NO_CAUSE and not PEER_WAIT.search(m.text) and not CLIENT_TIMEOUT.search(m.text)]
    if causes:
        return causes[0], "its own log shows the failure; the other members only report its absence"
    observed = [m for m in members if m.error]
    if observed:
        return observed[0], "the role saw it fail (%s) while its log shows no cause" % observed[0].error
    unexplained = [m for m in members if m.root_cause == "other"]
    if unexplained:
        return unexplained[0], "it failed without a catalogued message while the others waited for it"
    unreachable = [m for m in members if CLIENT_TIMEOUT.search(m.text)]
    if unreachable:
        return unreachable[0], "it never reached rank 0's rendezvous (--dist-init-addr): check the network between the nodes and the interface"
    failed = [m for m in members if m.root_cause != "none"]
    if failed:
        return failed[0], "every member reports a missing peer; this is the first of them"
    return members[0], "no member's log shows a failure"


def first_failing_member(members):
    """The ReplicaDiagnosis of a list of {rank, host, node, diagnosis, error} (in any order; error: what the role
    saw of the member itself, such as rank 0's rendezvous port out of its reach, or empty)."""
    if not isinstance(members, (list, tuple)) or not members:
        raise ValueError("members must be a non-empty list of {rank, host, node, diagnosis}")
    ordered = sorted((_member(raw) for raw in members), key=lambda m: m.rank)
    chosen, reason = _pick(ordered)
    return ReplicaDiagnosis(
        rank=chosen.rank,
        host=chosen.host,
        node=chosen.node,
        root_cause=chosen.root_cause,
        summary="rank %d (%s on node %s) failed first: %s"
        % (chosen.rank, chosen.host, chosen.node, chosen.summary if chosen.root_cause not in NO_CAUSE or not chosen.error else chosen.error),
        reason=reason,
        members=tuple({"rank": m.rank, "host": m.host, "node": m.node, "root_cause": m.root_cause} for m in ordered),
    )
