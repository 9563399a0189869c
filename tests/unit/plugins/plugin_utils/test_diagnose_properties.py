# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Property tests: whatever the tail looks like, the diagnoser returns a valid result and never raises."""

from __future__ import annotations

import pathlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.llmops.sglang.plugins.module_utils.log_tail import format_marker, read_tail
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import CAUSES, PHASES
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.classify import classify
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.diagnose import diagnose

INCIDENT = (
    (pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "logs" / "incident" / "attempt1-0.5.9-not-enough-memory.log")
    .read_text(encoding="utf-8")
    .splitlines()
)
SGLANG_LINES = INCIDENT + [
    "[2026-01-01 00:00:00 TP1] Capturing batches (bs=160 avail_mem=0.21 GB)",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.",
    "The server is fired up and ready to roll!",
    "sglang serve: error: unrecognized arguments: --foo",
    "NCCL WARN Connect to 10.0.0.1<1234> failed",
    "Traceback (most recent call last):",
]


def assert_valid(result):
    assert result["root_cause"] in CAUSES
    assert result["phase"] in PHASES
    assert result["confidence"] in ("high", "medium", "low")
    assert isinstance(result["evidence"], list) and all(isinstance(e, str) for e in result["evidence"])
    assert isinstance(result["summary"], str) and "\n" not in result["summary"] and len(result["summary"]) <= 600
    assert result["fix"] and result["verify"] and result["catalog_version"]


def decorate(line, ansi, quote, crlf, rank):
    if rank is not None:
        line = "[2026-01-01 00:00:00 TP%d] %s" % (rank, line)
    if ansi:
        line = "\x1b[1;31m" + line + "\x1b[0m"
    if quote:
        line = "> " + line
    return line + ("\r" if crlf else "")


line_strategy = st.one_of(
    st.text(max_size=300),
    st.sampled_from(SGLANG_LINES),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
)
decorated = st.builds(decorate, line_strategy, st.booleans(), st.booleans(), st.booleans(), st.one_of(st.none(), st.integers(0, 7)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(decorated, max_size=60), st.integers(0, len(INCIDENT)))
def test_any_tail_gives_a_valid_result(lines, cut):
    # a tail that starts mid-traceback: drop the first `cut` lines of the incident
    assert_valid(diagnose({"log": {"exists": True, "lines": INCIDENT[cut:] + lines, "mtime": 1.0}}, since_marker=False))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=4), st.booleans(), st.booleans())
def test_decorations_do_not_change_the_diagnosis(flags, quote, crlf):
    plain = classify(INCIDENT)
    ansi = flags[0]
    decorated_lines = [decorate(line, ansi, quote, crlf, None) for line in INCIDENT]
    assert classify(decorated_lines)["root_cause"] == plain["root_cause"] == "kv_pool_too_small"
    assert classify("\r\n".join(decorated_lines))["root_cause"] == "kv_pool_too_small"


@settings(max_examples=40, deadline=None)
@given(st.permutations(INCIDENT))
def test_interleaving_keeps_the_root_cause(lines):
    assert classify(list(lines))["root_cause"] == "kv_pool_too_small"


@settings(max_examples=80, deadline=None)
@given(
    st.one_of(st.none(), st.integers(), st.dictionaries(st.text(max_size=8), st.integers(), max_size=3), st.lists(st.text(max_size=5), max_size=3)),
    st.one_of(
        st.none(),
        st.dictionaries(
            st.sampled_from(["verdict", "root_cause", "fixes", "budget", "message"]),
            st.one_of(
                st.none(), st.text(max_size=10), st.integers(), st.lists(st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=2), max_size=2)
            ),
        ),
    ),
)
def test_malformed_tail_and_budget_shapes(unit, budget):
    tail = {"log": {"exists": True, "lines": INCIDENT, "mtime": 5.0, "marker": None}, "unit": unit}
    assert_valid(diagnose(tail, since_marker=True, budget=budget))


def test_edge_inputs():
    for lines in ([], [""], None, "", b"\xff\xfe", ["x" * 1_000_000], [b"\x00\x01binary\xff"], "a\r\nb\rc"):
        assert_valid(diagnose({"log": {"exists": True, "lines": lines, "mtime": 1.0}}, since_marker=False))
    assert_valid(diagnose({}))
    assert_valid(diagnose(None))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=4000), st.integers(1, 5000), st.integers(0, 50), st.booleans())
def test_read_tail_on_random_bytes(tmp_path, data, max_bytes, lines, marker):
    path = tmp_path / "random.log"
    body = data + (("\n" + format_marker("t", "i") + "\n").encode() if marker else b"") + data[: len(data) // 2]
    path.write_bytes(body)
    result = read_tail(str(path), lines=lines, max_bytes=max_bytes)
    assert len(result["lines"]) <= lines
    assert result["size"] == len(body)
    assert all("\n" not in line for line in result["lines"])
    assert_valid(diagnose({"log": result}, since_marker=True))


_anything = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.lists(st.text(max_size=20), max_size=3),
    st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(
    st.fixed_dictionaries({}, optional={k: _anything for k in ("exists", "lines", "marker", "mtime", "path")}),
    st.fixed_dictionaries(
        {},
        optional={
            k: _anything
            for k in (
                "active_state",
                "result",
                "invocation_id",
                "start_time",
                "journal",
                "kernel_oom",
                "exit_code",
                "signal",
                "exec_main_code",
                "start_limit_hit",
                "name",
            )
        },
    ),
    st.booleans(),
)
def test_malformed_field_values(log, unit, since_marker):
    assert_valid(diagnose({"log": log, "unit": unit}, since_marker=since_marker))
