# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""sglang_startup_report and a calibrated sglang_memory_budget, run ad hoc through ansible as an operator would.

The start is a real one: tests/fixtures/startup_logs/sglang-docs-llama31-8b-tp1.log (Llama-3.1-8B-Instruct on
an 80 GB H100, SGLang docs CI; source in INDEX.yml), behind a launch marker as the role's unit writes it. The
second start of the same key is that log with the free memory shifted, as another tenant on the GPU would.
"""

import json
import os
import re

import pytest
from ansible_adhoc import HAVE_COLLECTIONS, NO_COLLECTIONS_REASON, run_adhoc

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
LLAMA = os.path.join(REPO, "tests", "fixtures", "model-configs", "meta-llama__Llama-3.1-8B-Instruct")
REAL_START = os.path.join(REPO, "tests", "fixtures", "startup_logs", "sglang-docs-llama31-8b-tp1.log")
H100 = {"name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559}
# The launch's flags as INDEX.yml records them.
ARGS = {
    "mem_fraction_static": 0.88,
    "chunked_prefill_size": 8192,
    "max_prefill_tokens": 16384,
    "cuda_graph_max_bs": 160,
    "attention_backend": "flashinfer",
    "host": "127.0.0.1",
    "port": 30000,
}
MARKER = "=== llmops.sglang launch 2026-12-02T07:00:00Z invocation=0123456789abcdef0123456789abcdef ===\n"

pytestmark = pytest.mark.skipif(not HAVE_COLLECTIONS, reason=NO_COLLECTIONS_REASON)


def write_launch(path, shift_gib=0.0):
    with open(REAL_START, encoding="utf-8") as handle:
        text = handle.read()
    if shift_gib:
        text = re.sub(r"avail mem=(\d+\.\d+)", lambda m: "avail mem=%.2f" % (float(m.group(1)) - shift_gib), text)
    path.write_text("an earlier launch's line: Load weight begin. avail mem=1.00 GB\n" + MARKER + text)


def report(log, store, **extra):
    args = dict(
        log_path=str(log),
        calibration_store=str(store),
        sglang_version="0.5.9",
        gpus=[H100],
        server_args=ARGS,
        model_id="meta-llama/Llama-3.1-8B-Instruct",
        **extra,
    )
    run = run_adhoc("llmops.sglang.sglang_startup_report", args)
    assert "Traceback" not in run.output
    return run


def budget(store):
    run = run_adhoc(
        "llmops.sglang.sglang_memory_budget",
        dict(
            model=LLAMA,
            gpus=[H100],
            server_args=ARGS,
            sglang_version="0.5.9",
            calibration_store=str(store),
            model_id="meta-llama/Llama-3.1-8B-Instruct",
            fail_on="never",
        ),
    )
    assert "Traceback" not in run.output
    return run.result


def test_first_start_stored_second_preflight_calibrated_third_start_drifts(tmp_path):
    log, store = tmp_path / "sglang.log", tmp_path / "calibration"
    write_launch(log)
    uncalibrated = budget(store)
    assert uncalibrated["confidence"] == "exact" and uncalibrated["calibration"]["match"] == "none"

    first = report(log, store, budget=uncalibrated).result
    assert first["changed"] is True and first["observations"] == 1
    rank0 = first["startup"]["ranks"][0]
    assert rank0["pre_load_avail_gib"] == 78.81  # this launch's line, not the earlier launch's 1.00
    residual = {r["component"]: r for r in first["residuals"]}
    assert residual["pre_load_gib"]["delta"] == pytest.approx(78.81 - uncalibrated["budget"]["per_gpu"][0]["pre_model_load_gib"], abs=1e-3)
    assert residual["max_total_num_tokens"]["observed"] == 444500
    assert first["drift"] == []
    assert any(line.startswith("max_total_num_tokens: predicted ") for line in first["recap"])

    calibrated = budget(store)
    assert calibrated["confidence"] == "calibrated"
    assert calibrated["calibration"]["match"] == "exact" and calibrated["calibration"]["observations"] == 1
    assert calibrated["budget"]["per_gpu"][0]["pre_model_load_gib"] == 78.81
    tokens = calibrated["budget"]["totals"]["max_total_num_tokens"]
    assert abs(tokens - 444500) / 444500 < 0.005

    write_launch(log, shift_gib=6.0)
    third = report(log, store, budget=calibrated)
    assert third.result["observations"] == 2
    assert [d["component"] for d in third.result["drift"]] == ["pre_load_gib"]
    assert "pre_load_gib moved: 72.81 GiB this start" in third.output  # shown as a warning


def test_a_cut_start_is_reported_not_stored(tmp_path):
    log, store = tmp_path / "sglang.log", tmp_path / "calibration"
    with open(REAL_START, encoding="utf-8") as handle:
        head = [line for line in handle if "max_total_num_tokens" not in line]
    log.write_text(MARKER + "".join(head))
    result = report(log, store).result
    assert result["changed"] is False and result["calibration_file"] is None
    assert result["startup"]["complete"] is False
    assert not store.exists()


def test_a_corrupt_store_fails_with_the_file_named_and_keeps_it(tmp_path):
    log, store = tmp_path / "sglang.log", tmp_path / "calibration"
    write_launch(log)
    assert report(log, store).result["observations"] == 1
    stored = next(store.glob("*.json"))
    stored.write_text('{"schema": "llmops.sglang/calibration/v1", "observations": [')
    run = report(log, store)
    assert run.rc != 0 and run.result["failed"] is True
    assert str(stored) in run.result["msg"] and "is not valid JSON" in run.result["msg"]
    assert stored.read_text() == '{"schema": "llmops.sglang/calibration/v1", "observations": ['
    failed = run_adhoc(
        "llmops.sglang.sglang_memory_budget",
        dict(model=LLAMA, gpus=[H100], server_args=ARGS, sglang_version="0.5.9", calibration_store=str(store), model_id="meta-llama/Llama-3.1-8B-Instruct"),
    )
    assert failed.result["failed"] is True and str(stored) in failed.result["msg"]


def test_a_store_without_the_key_inputs_is_refused(tmp_path):
    log = tmp_path / "sglang.log"
    write_launch(log)
    run = run_adhoc("llmops.sglang.sglang_startup_report", {"log_path": str(log), "calibration_store": str(tmp_path / "store")})
    assert run.result["failed"] is True
    assert "calibration_store" in run.result["msg"] and "model_id" in run.result["msg"]


def test_store_file_schema(tmp_path):
    log, store = tmp_path / "sglang.log", tmp_path / "calibration"
    write_launch(log)
    report(log, store)
    data = json.loads(next(store.glob("*.json")).read_text())
    assert data["schema"] == "llmops.sglang/calibration/v1"
    assert set(data["key"]) == {"sglang_version", "gpu_name", "driver_version", "model_id", "model_revision", "tp_size", "pp_size", "sizing_flags_hash"}
    assert "port" not in data["sizing_flags"] and data["sizing_flags"]["mem_fraction_static"] == 0.88
    assert data["observations"][0]["gpu_total_mib"] == [81559]
