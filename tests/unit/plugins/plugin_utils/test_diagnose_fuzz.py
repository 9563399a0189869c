# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Property-based fuzz of the diagnoser with hostile logs (issue 15, acceptance: "the same for sglang_diagnose").

The log is written to a real file and read with the target-side reader (module_utils/log_tail.read_tail, as
sglang_log_tail runs it), then classified on the controller (plugin_utils/diagnosis.diagnose, as the
sglang_diagnose action does). Logs are random bytes, binary noise, huge lines, stray and forged launch markers,
mixed with real SGLang error lines from the corpus; the unit's journal fields are random JSON. Every diagnosis
must return a catalog root cause with string evidence of bounded length (never an exception) within 1 s of
CPU and 200 MB. Examples are derandomized so that CI is repeatable.
"""

import os
import time
import tracemalloc

import pytest
from ansible_adhoc import HAVE_COLLECTIONS, NO_COLLECTIONS_REASON, run_adhoc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.llmops.sglang.plugins.module_utils.log_tail import format_marker, read_tail
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import CAUSES
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.diagnose import diagnose

# Real lines from the corpus (tests/fixtures/logs: the incident's log, SGLang's own error texts).
REAL_LINES = [
    b"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
    b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    b"[2026-05-01 10:00:00 TP0] Load weight end. type=Qwen3_5ForConditionalGeneration, avail mem=21.61 GB",
    b"launch_server.py: error: unrecognized arguments: --bogus",
    b"The server is fired up and ready to roll!",
]
MAX_LINE = 8192  # sglang_log_tail's default max_line_length

line = st.one_of(
    st.binary(max_size=200),
    st.sampled_from(REAL_LINES),
    st.builds(lambda n: b"x" * n, st.integers(0, 200000)),
    st.builds(lambda t: format_marker("2026-12-01T10:00:00+00:00", t).encode(), st.text(max_size=40)),
    st.just(b"=== llmops-sglang launch"),
    st.just(b"\r"),
    st.just(b"\x00\xff\xfe"),
)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=30)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=10,
)
unit = st.fixed_dictionaries(
    {},
    optional={
        "journal": st.one_of(st.lists(st.one_of(st.text(max_size=300), json_values), max_size=20), json_values),
        "active_state": st.one_of(st.sampled_from(["failed", "active", "activating", ""]), json_values),
        "sub_state": json_values,
        "result": json_values,
        "exit_code": json_values,
        "signal": json_values,
        "n_restarts": json_values,
        "invocation_id": json_values,
        "start_time": json_values,
        "exists": json_values,
    },
)


def _bounded(call):
    tracemalloc.start()
    start = time.process_time()  # CPU time: other processes on the machine do not count
    try:
        return call()
    finally:
        elapsed = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert elapsed < 1.0, f"took {elapsed:.2f} s"
        assert peak < 200 << 20, f"peak {peak >> 20} MiB"


def _check(result):
    assert result["root_cause"] in CAUSES
    assert result["underlying_cause"] is None or result["underlying_cause"] in CAUSES
    assert isinstance(result["summary"], str) and result["summary"]
    assert all(isinstance(x, str) and len(x) <= MAX_LINE + 64 for x in result["evidence"])


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(line, max_size=40), since_marker=st.booleans(), unit_fields=unit)
def test_hostile_logs_give_a_catalog_diagnosis(tmp_path, lines, since_marker, unit_fields):
    path = os.path.join(str(tmp_path), "sglang.log")
    with open(path, "wb") as handle:
        handle.write(b"\n".join(lines))
    tail = _bounded(lambda: {"log": read_tail(path, lines=300, max_bytes=1048576, since_marker=since_marker), "unit": unit_fields, "now": time.time()})
    _check(_bounded(lambda: diagnose(tail, since_marker=since_marker)))


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    tail=st.one_of(json_values, st.fixed_dictionaries({}, optional={"log": json_values, "unit": json_values, "now": json_values})), since_marker=st.booleans()
)
def test_a_malformed_tail_result_gives_a_catalog_diagnosis(tail, since_marker):
    """The action passes the module's result through: a broken or foreign result must not crash the play."""
    _check(_bounded(lambda: diagnose(tail, since_marker=since_marker)))


def test_a_50_mb_single_line_log_is_read_in_bounded_time_and_memory(tmp_path):
    path = tmp_path / "sglang.log"
    with open(path, "wb") as handle:
        for _chunk in range(50):
            handle.write(b"\xff" * (1 << 20))
        handle.write(b"\nRuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n")
    tail = _bounded(lambda: {"log": read_tail(str(path), lines=300, max_bytes=1048576, since_marker=False)})
    result = _bounded(lambda: diagnose(tail, since_marker=False))
    _check(result)
    assert tail["log"]["bytes_read"] <= 1048576
    assert result["root_cause"] != "none"


@pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)
@pytest.mark.parametrize("content", [b"\x00\xff" * 40000, b"y" * 3000000, b"\n" * 100000, b"\x1b[2J\x1b]0;title\x07" + REAL_LINES[0] + b"\r\n"])
def test_hostile_logs_through_the_real_cli(tmp_path, content):
    """The same through `ansible localhost -m llmops.sglang.sglang_diagnose`: a diagnosis, never a traceback."""
    log = tmp_path / "sglang.log"
    log.write_bytes(content)
    rc, host, output = run_adhoc("llmops.sglang.sglang_diagnose", {"log_path": str(log), "since_marker": False, "fail": False})
    assert rc == 0, output
    assert "Traceback" not in output
    _check(host)
