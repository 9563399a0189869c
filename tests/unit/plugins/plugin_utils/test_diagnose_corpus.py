# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Top-1 root cause of every indexed log fixture (real, source-derived and the incident's own).

The list comes from tests/fixtures/logs/INDEX.yml (the real corpus) and source-derived/INDEX.yml, so the
test grows with the corpus. Plain logs are classified as an ad hoc run would (since_marker false, no unit);
``*.tail.json`` files are whole sglang_log_tail results.
"""

from __future__ import annotations

import json

import pytest
from diagnosis_fixtures import LOGS, corpus, tail_for

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import CAUSES
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.diagnose import diagnose


ENTRIES = corpus()


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_top1_root_cause(entry):
    assert entry["label"] in CAUSES, "%s: label %s is not a catalog id" % (entry["file"], entry["label"])
    tail, since_marker = tail_for(entry)
    result = diagnose(tail, since_marker=since_marker)
    assert result["root_cause"] == entry["label"], result["summary"]
    assert result["evidence"], "a diagnosis always quotes evidence"
    assert "\n" not in result["summary"]


def test_corpus_spans_catalog():
    labels = {e["label"] for e in ENTRIES}
    assert len(labels) >= 12, sorted(labels)


def test_incident_without_budget_flags_the_misleading_message():
    tail, _is_tail_json = tail_for({"file": "incident/attempt1-0.5.9-not-enough-memory.log"})
    result = diagnose(tail, since_marker=False)
    assert result["root_cause"] == "kv_pool_too_small"
    assert result["confidence"] == "medium"
    assert result["numbers"]["mem_fraction_static"] == 0.85
    assert result["numbers"]["model_class"] == "Qwen3_5ForConditionalGeneration"
    assert "--max-running-requests" in result["fix"]
    assert any("model_runner_kv_cache_mixin.py\", line 416" in line for line in result["evidence"])


def test_incident_with_budget_names_the_mamba_pool_and_the_budget_fix():
    tail, _is_tail_json = tail_for({"file": "incident/attempt1-0.5.9-not-enough-memory.log"})
    budget = json.loads((LOGS / "incident" / "attempt1-budget.json").read_text(encoding="utf-8"))
    result = diagnose(tail, since_marker=False, budget=budget)
    assert result["root_cause"] == "mamba_pool_too_small"
    assert result["log_root_cause"] == "kv_pool_too_small"
    assert result["phase"] == "memory_pool"
    assert result["confidence"] == "high"
    assert result["budget_used"] is True
    assert result["fix"] == ("--max-running-requests 32 -> fits, 106,655 KV tokens, 32 running requests (cap concurrency at 32 requests)")
    assert result["fix_changes"] == {"max_running_requests": 32}
    assert result["numbers"]["budget_mamba_slots"] == 240
    assert result["summary"].startswith("mamba_pool_too_small: ")
    assert "fix: --max-running-requests 32 -> fits" in result["summary"]


def test_incident_with_the_real_budget_engine():
    """The budget engine's own result for incident attempt 1 (Qwen3.6-27B, 2x A6000, TP 2, NEXTN 3/1/4)."""
    engine = pytest.importorskip("ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine")
    config = json.loads((LOGS.parents[0] / "model-configs" / "Qwen__Qwen3.6-27B" / "config.json").read_text())
    args = {
        "model_path": "/models/Qwen3.6-27B",
        "tp_size": 2,
        "mem_fraction_static": 0.85,
        "context_length": 65536,
        "enable_torch_compile": True,
        "speculative_algorithm": "NEXTN",
        "speculative_num_steps": 3,
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
    }
    budget = engine.evaluate({"config": config}, [{"name": "NVIDIA RTX A6000", "memory_total_mib": 49140}] * 2, args, "0.5.9")
    tail, _is_tail_json = tail_for({"file": "incident/attempt1-0.5.9-not-enough-memory.log"})
    result = diagnose(tail, since_marker=False, budget=budget)
    assert budget["verdict"] == "fails"
    assert result["root_cause"] == budget["root_cause"] == "mamba_pool_too_small"
    assert result["budget_used"] is True and result["confidence"] == "high"
    top = budget["fixes"][0]
    flag = "--" + next(iter(top["changes"])).replace("_", "-")
    assert result["fix"].startswith(flag), result["fix"]
    minimum = budget["budget"]["totals"]["min_viable_mem_fraction_static"]
    if minimum and "mem_fraction_static" not in top["changes"]:
        assert "raising --mem-fraction-static alone would need >= %s" % minimum in result["fix"]


def test_incident_silent_death_never_quotes_the_older_run():
    tail, _is_tail_json = tail_for({"file": "incident/attempt4-silent-death.tail.json"})
    result = diagnose(tail, since_marker=True)
    assert result["root_cause"] == "silent_death"
    assert result["freshness"]["status"] == "stale"
    assert result["freshness"]["log_lines"] == 0
    assert not any("Not enough memory" in line for line in result["evidence"])
    assert any("status=9/KILL" in line for line in result["evidence"])
    assert "SIGKILL" in result["fix"]
    assert result["numbers"]["unit_signal"] == "SIGKILL"
