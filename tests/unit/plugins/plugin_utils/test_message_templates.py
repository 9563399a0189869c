# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SGLang's message templates (data/sglang-messages.json), their map to catalog ids and the patterns made of them.

The spot-check messages are SGLang's own, quoted from the wheels at the cited file:line, written as Python prints
an uncaught exception (``<Type>: <message>``) or as the traceback prints a failed bare assert's source line.
"""

from __future__ import annotations

import json
import pathlib
import re
from collections import Counter

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis import message_map, templates
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import CATALOG, CAUSES
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.classify import normalize
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.literal_index import LiteralIndex

STARTUP_LOGS = pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "startup_logs"
INDEX = message_map.load_index()
VERSIONS = [release.version for release in INDEX.releases]
ALL_PATTERNS = [(cause_id, pattern) for cause_id, patterns in templates.patterns_by_cause().items() for pattern in patterns]
COMPILED = [(cause_id, pattern, re.compile(pattern.regex, pattern.flags)) for cause_id, pattern in ALL_PATTERNS]


def _key(version):
    base, _sep, post = version.partition(".post")
    return tuple(int(part) for part in base.split(".")), int(post or 0)


def template_causes(line):
    """{cause id: warning} of the template patterns that match one log line."""
    line = normalize(line)
    return {cause_id: pattern.warning for cause_id, pattern, regex in COMPILED if regex.search(line)}


def own_catalog_causes(line):
    """The catalog causes whose hand-written patterns match one log line."""
    return {cause.id for cause in CATALOG for pattern in cause.patterns if pattern.compiled().search(normalize(line))}


def test_the_index_covers_every_release_from_0_4_0_to_0_5_23_without_a_gap():
    assert VERSIONS[0] == "0.4.0" and VERSIONS[-1] == "0.5.23"
    assert VERSIONS == sorted(VERSIONS, key=_key) and len(set(VERSIONS)) == len(VERSIONS)
    bases = {}
    for version in VERSIONS:
        (major, minor, patch), post = _key(version)
        bases.setdefault((major, minor), {}).setdefault(patch, []).append(post)
    # every patch release of 0.4 (0.4.0-0.4.10) and of 0.5 (0.5.1-0.5.23: PyPI has no 0.5.0), each with its post
    # releases numbered without a hole
    assert sorted(bases[(0, 4)]) == list(range(0, 11))
    assert sorted(bases[(0, 5)]) == list(range(1, 24))
    for patches in bases.values():
        for posts in patches.values():
            assert posts == list(range(len(posts))), posts
    for release in INDEX.releases:
        assert re.fullmatch(r"[0-9a-f]{64}", release.sha256), release
        assert release.archive.startswith(f"sglang-{release.version}-") and release.archive.endswith(".whl")
    for template in INDEX.templates:
        assert template.release_ranges and all(0 <= first <= last < len(VERSIONS) for first, last in template.release_ranges), template


def test_every_template_that_occurs_in_a_release_is_mapped():
    unmapped = [f"{template.kind} {template.text[:100]!r} ({template.newest_place})" for template, rule in message_map.mapped_templates() if rule is None]
    assert not unmapped, f"{len(unmapped)} templates match no rule of message_map.RULES, e.g.:\n" + "\n".join(unmapped[:20])


@pytest.mark.parametrize("release", ["0.5.9", "0.5.23"])
def test_coverage_of_raise_assert_and_error_sites(release):
    report = message_map.coverage(release)
    assert report.sites > 1000
    assert report.mapped_to_id + report.reasoned_other + report.unmapped == report.sites
    assert report.share >= 0.98, report


def test_rules_target_catalog_ids_and_every_other_has_a_reason():
    for rule in message_map.RULES:
        assert rule.target == "other" or rule.target in CAUSES, rule
        assert rule.target != "other" or rule.reason.strip(), rule
    with pytest.raises(ValueError, match="without a reason"):
        message_map._validate((message_map.MessageRule(target="other", text="x"),))
    with pytest.raises(ValueError, match="not a catalog id"):
        message_map._validate((message_map.MessageRule(target="no_such_cause", text="x"),))


def _template(text_start, kind=None):
    found = [t for t in INDEX.templates if t.text.startswith(text_start) and (kind is None or t.kind == kind)]
    assert found, text_start
    return found[0]


@pytest.mark.parametrize(
    "text_start, kind, target",
    [
        # 0.4.0 model_executor/model_runner.py:502; 0.5.23 model_executor/pool_configurator.py:96-99
        ("Not enough memory. Please try to increase --mem-fraction-static.", "raise:RuntimeError", "kv_pool_too_small"),
        # 0.5.23 mem_cache/kv_cache_configurator.py:3393-3401
        ("Not enough GPU memory for hybrid (mamba/linear-attention) state cache.", "raise:RuntimeError", "mamba_pool_too_small"),
        # 0.5.9 models/registry.py:49
        ("Model architectures {} are not supported for now.", "raise:ValueError", "unsupported_architecture"),
        # 0.5.9 server_args.py:2649
        ("Cannot enable both --enable-tokenizer-batch-encode and --enable-dynamic-batch-tokenizer.", "raise:ValueError", "incompatible_feature_combination"),
        # 0.5.9 models/qwen2.py:122 (a bare assert: the template is its condition)
        ("self.total_num_heads % tp_size == 0", "assert:condition", "invalid_argument_value"),
        # 0.5.9 mem_cache/common.py:320
        ("alloc_req_slots runs out of memory.", "raise:RuntimeError", "req_pool_exhausted_runtime"),
        # 0.5.9 managers/scheduler.py:2243 (a warning that names the cause)
        ("KV cache pool is full. Retract requests.", "logger.warning", "kv_pool_exhausted_runtime"),
    ],
)
def test_spot_checks_map_to_the_right_id(text_start, kind, target):
    assert message_map.rule_for(_template(text_start, kind)).target == target


def test_warnings_and_internal_asserts_map_to_a_reasoned_other():
    # 0.5.9 managers/scheduler.py: a warning SGLang logs and carries on past
    warning = next(t for t in INDEX.templates if t.kind == "logger.warning" and message_map.rule_for(t).target == "other")
    assert message_map.rule_for(warning).reason == message_map.WARNING_REASON
    attention_asserts = [t for t in INDEX.templates if t.kind == "assert:condition" and all("/layers/attention/" in m for m in t.modules)]
    reasons = Counter(message_map.rule_for(t).reason for t in attention_asserts)
    assert reasons.most_common(1)[0][0] == message_map.BUG_REASON.format("internal invariant of the attention backend")


@pytest.mark.parametrize(
    "line, cause_id",
    [
        # 0.4.0 model_executor/model_runner.py:502
        ("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.", "kv_pool_too_small"),
        # 0.5.23 model_executor/pool_configurator.py:96-99
        ("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=0.88", "kv_pool_too_small"),
        # 0.5.23 mem_cache/kv_cache_configurator.py:3393-3401
        (
            "RuntimeError: Not enough GPU memory for hybrid (mamba/linear-attention) state cache. Computed max_mamba_cache_size=0 "
            "(total_rest_memory=1.52 GB, mamba_cache_per_req=412.00 MB). Try: (1) reduce --max-running-requests, (2) increase "
            "--mem-fraction-static, (3) reduce --speculative-num-draft-tokens, or (4) use GPUs with more memory.",
            "mamba_pool_too_small",
        ),
        # 0.4.0 hf_transformers_utils.py:173-179
        (
            "RuntimeError: Failed to load the tokenizer. If the tokenizer is a custom tokenizer not yet available in the HuggingFace "
            "transformers library, consider setting `trust_remote_code=True` in LLM or using the `--trust-remote-code` flag in the CLI.",
            "tokenizer_error",
        ),
        # 0.4.0 model_executor/model_runner.py:216
        ("ValueError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes.", "tp_memory_imbalance"),
        # 0.5.9 models/qwen2.py:122, as the traceback prints the failed line
        ("    assert self.total_num_heads % tp_size == 0", "invalid_argument_value"),
        # 0.5.9 server_args.py:2649
        (
            "ValueError: Cannot enable both --enable-tokenizer-batch-encode and --enable-dynamic-batch-tokenizer. Please choose one tokenizer "
            "batching approach.",
            "incompatible_feature_combination",
        ),
    ],
)
def test_template_patterns_match_real_messages(line, cause_id):
    assert cause_id in template_causes(line)


def test_an_older_spelling_of_the_same_failure_is_matched_by_the_templates_only():
    # 0.4.5 layers/quantization/modelopt_quant.py:68-71 (0.4.1.post5-0.4.10.post2) and its 0.5.9 spelling,
    # layers/quantization/modelopt_quant.py:461-465, which catalog.py's own pattern was written for
    old = "ValueError: ModelOpt only supports static FP8 quantization in SGLang. Check the `hf_quant_config.json` file for your model's configuration."
    new = (
        "ValueError: ModelOptFp8Config only supports static FP8 quantization in SGLang. For FP4 quantization, use ModelOptFp4Config. "
        "Check the quantization config for your model's configuration."
    )
    assert "unsupported_quantization" in own_catalog_causes(new)
    assert "unsupported_quantization" not in own_catalog_causes(old)
    assert template_causes(old).get("unsupported_quantization") is False
    assert template_causes(new).get("unsupported_quantization") is False


def test_a_wrapper_message_is_marked_so_the_wrapped_cause_wins():
    # 0.5.9 model_executor/cuda_graph_runner.py:373
    line = "Exception: Capture cuda graph failed: CUDA error: an illegal memory access was encountered"
    wrappers = [pattern.wrapper for cause_id, pattern, regex in COMPILED if cause_id == "cuda_graph_capture_error" and regex.search(line)]
    assert wrappers and all(wrappers)


def test_template_patterns_are_not_failures_on_healthy_start_logs():
    index = LiteralIndex([(i, pattern.regex, pattern.flags) for i, (_cause, pattern) in enumerate(ALL_PATTERNS)])
    logs = sorted(STARTUP_LOGS.glob("*.log"))
    assert logs
    for path in logs:
        lines = [normalize(line) for line in path.read_text(encoding="utf-8", errors="replace").splitlines()]
        for line, keys in zip(lines, index.keys_per_line([line.lower() for line in lines])):
            for key in keys:
                cause_id, pattern, regex = COMPILED[key]
                assert pattern.warning or not regex.search(line), (path.name, cause_id, pattern.label, line)


def test_patterns_are_keyed_by_a_word_and_weighted_by_severity():
    index = LiteralIndex([(i, pattern.regex, pattern.flags) for i, (_cause, pattern) in enumerate(ALL_PATTERNS)])
    assert not index.always and not index.substrings
    for cause_id, pattern in ALL_PATTERNS:
        assert cause_id in CAUSES and cause_id not in ("none", "other")
        assert pattern.weight == (templates.WARNING_WEIGHT if pattern.warning else templates.ERROR_WEIGHT)
        assert re.fullmatch(r"SGLang [\w:.]+ \(0\.[\w.]+(?:-0\.[\w.]+)?\)", pattern.label), pattern.label
    assert templates.template_patterns("no_evidence") == ()


def test_short_or_common_templates_are_not_patterns():
    short = message_map.Template("raise:ValueError", "Invalid value: {}", ("sglang/srt/server_args.py",), ((0, 0),), "sglang/srt/server_args.py:1")
    common = message_map.Template("raise:ValueError", "{} is not supported for the {} {}", ("sglang/srt/server_args.py",), ((0, 0),), "x:1")
    assert templates.template_regex(short) is None
    assert templates.template_regex(common) is None
    bare = message_map.Template("assert:condition", "self.tp_size % self.dp_size == 0", ("sglang/srt/server_args.py",), ((0, 0),), "x:1")
    assert re.search(templates.template_regex(bare), "    assert self.tp_size % self.dp_size == 0")


def test_the_committed_pattern_table_is_current():
    with open(templates.PATTERNS_PATH, encoding="utf-8") as handle:
        committed = json.load(handle)
    assert committed == templates.build_pattern_table(), "stale pattern table: run make template-patterns"
