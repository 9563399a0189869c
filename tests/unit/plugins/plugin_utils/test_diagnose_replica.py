# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/diagnosis/replica.py on real logs, each classified by the real diagnoser first.

Rank 0's log is a real TCPStore timeout "waiting for clients" (SGLang issue 507, sources in INDEX.yml); the
failing rank's is a real CUDA OOM at init because another process held the GPU (slurmv4); a healthy member's is
a real start that served (the SGLang docs' send-request page). The logs stand for the members of one replica.
"""

from __future__ import annotations

import pytest
from diagnosis_fixtures import LOGS

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.diagnose import diagnose
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.replica import first_failing_member

WAITING = "real/nccl_failure/sglang-507-tp4-diststore-timeout-1-of-4-clients.log"
GPU_BUSY = "real/gpu_busy_other_process/slurmv4-tp8-cuda-oom-at-init-distributed.log"
CLIENT_TIMEOUT = "real/nccl_failure/sglang-2561-multinode-engine-c10d-client-socket-timeout.log"
HEALTHY = "real/none/sglang-docs-send-request-llama31-8b-h100.log"


def _diagnosis(name):
    path = LOGS / name
    lines = path.read_text(encoding="utf-8").splitlines()
    return diagnose({"log": {"path": str(path), "exists": True, "lines": lines, "mtime": path.stat().st_mtime}}, since_marker=False)


def _member(rank, name):
    return {"rank": rank, "host": "m%d" % rank, "node": "pve%d" % (rank + 1), "diagnosis": _diagnosis(name)}


def test_the_rank_that_died_is_reported_not_rank_0s_timeout():
    result = first_failing_member([_member(1, GPU_BUSY), _member(0, WAITING)])
    assert (result.rank, result.host, result.node, result.root_cause) == (1, "m1", "pve2", "gpu_busy_other_process")
    assert result.summary.startswith("rank 1 (m1 on node pve2) failed first: gpu_busy_other_process")
    assert [m["root_cause"] for m in result.members] == ["nccl_failure", "gpu_busy_other_process"]


def test_a_member_that_never_reached_the_rendezvous_comes_before_rank_0s_wait():
    result = first_failing_member([_member(0, WAITING), _member(1, HEALTHY), _member(2, CLIENT_TIMEOUT)])
    assert result.rank == 2 and "never reached rank 0" in result.reason


def test_when_every_member_only_waits_rank_0_is_reported():
    assert first_failing_member([_member(0, WAITING)]).rank == 0


def test_the_lowest_failing_rank_wins():
    assert first_failing_member([_member(2, GPU_BUSY), _member(1, GPU_BUSY), _member(0, WAITING)]).rank == 1


@pytest.mark.parametrize("members", [[], None, [{"rank": 0}], [{"rank": 0, "diagnosis": "x"}]])
def test_malformed_input_is_refused(members):
    with pytest.raises(ValueError, match="rank, host, node"):
        first_failing_member(members)


def test_a_member_the_role_saw_fail_comes_before_rank_0s_wait_but_after_a_logged_cause():
    unreachable = dict(_member(1, HEALTHY), error="Timeout when waiting for 10.89.0.2:20000")
    result = first_failing_member([_member(0, WAITING), unreachable])
    assert result.rank == 1 and result.summary.endswith("failed first: Timeout when waiting for 10.89.0.2:20000")
    assert first_failing_member([_member(0, WAITING), unreachable, _member(2, GPU_BUSY)]).rank == 2
