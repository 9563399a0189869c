# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""After-start truth (issue 17): startup lines per rank, the calibration store, calibrated inputs and drift.

The startup lines are real ones (tests/fixtures/startup_logs, each with its public source in INDEX.yml), or,
where no public log of a release's spelling exists here, SGLang's own f-string filled in (file:line beside it).
"""

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import evaluate
from ansible_collections.llmops.sglang.plugins.plugin_utils.calibration.calibrate import calibrated_inputs, calibration_for, drift, residuals
from ansible_collections.llmops.sglang.plugins.plugin_utils.calibration.startup import parse_startup
from ansible_collections.llmops.sglang.plugins.plugin_utils.calibration.store import CalibrationStore, CalibrationStoreError, make_key, sizing_flags

STARTUP = Path(__file__).resolve().parents[3] / "fixtures" / "startup_logs"
CONFIGS = Path(__file__).resolve().parents[3] / "fixtures" / "model-configs"
A6000 = {"name": "NVIDIA RTX A6000", "memory_total_mib": 49140}


def read_log(name):
    with open(STARTUP / name, encoding="utf-8", errors="replace") as handle:
        return parse_startup(handle)


def key_for(model_id="Qwen/Qwen3-8B", **server_args):
    return make_key(
        sglang_version="0.5.9",
        gpu_name=A6000["name"],
        driver_version="535.261.03",
        model_id=model_id,
        model_revision="b968826d9c46dd6066d109eabc6255188de91218",
        server_args=dict({"tp_size": 1, "context_length": 8192}, **server_args),
    )


def observation(pre_load=47.0, weights=15.27, tokens=100000, total_mib=49140, rank="TP0"):
    return {
        "time": "2026-12-02T07:00:00Z",
        "host": "ct129",
        "gpu_total_mib": [total_mib],
        "ranks": [{"rank": rank, "pre_load_avail_gib": pre_load, "weight_gib": weights, "max_total_num_tokens": tokens, "max_running_requests": 2048}],
    }


# ---------------------------------------------------------------- startup lines


def test_four_ranks_of_a_real_tp4_start():
    # llms-in-clouds-qwq32b-4xL4-tp4.log: QwQ-32B on 4x L4 (source in INDEX.yml)
    report = read_log("llms-in-clouds-qwq32b-4xL4-tp4.log")
    assert [r.rank for r in report.ranks] == ["TP0", "TP1", "TP2", "TP3"]
    rank0 = report.first
    assert (rank0.pre_load_avail_gib, rank0.post_load_avail_gib, rank0.weight_gib) == (21.63, 6.09, 15.54)
    assert (rank0.kv_tokens, rank0.kv_pool_gib, rank0.pool_end_avail_gib) == (46611, 2.84, 2.09)
    assert (rank0.max_total_num_tokens, rank0.max_running_requests, rank0.context_len) == (46611, 2049, 131072)
    assert report.complete


def test_graph_capture_and_available_memory_of_a_real_start():
    # slurmv4-dsr1-tp16-2x8-h100-pd-decode.log: DeepSeek-R1 decode node, MLA's single KV size
    rank0 = read_log("slurmv4-dsr1-tp16-2x8-h100-pd-decode.log").first
    assert (rank0.kv_tokens, rank0.kv_gib) == (326265, 21.35)
    assert (rank0.graph_gib, rank0.post_graph_avail_gib, rank0.available_gpu_mem_gib) == (0.83, 14.4, 14.4)


def test_old_kv_line_without_token_count_and_derived_numbers():
    # sglang-docs-llama31-8b-tp1.log (early 2025): "KV Cache is allocated. K size: ..., V size: ..." only
    rank0 = read_log("sglang-docs-llama31-8b-tp1.log").first
    assert rank0.kv_tokens is None and rank0.kv_pool_gib == 54.26
    assert rank0.weight_load_gib == 15.09  # no "mem usage": the drop across the load
    # maxuhl98-llama31-8b-24gb-tp1.log prints no "Load weight begin": after + usage
    assert read_log("maxuhl98-llama31-8b-24gb-tp1.log").first.pre_load_gib == round(7.37 + 15.02, 2)


def test_a_start_cut_before_the_scheduler_is_incomplete():
    # sglang-pr10622 (Qwen3-Next DP4 TP4 EP): the excerpt stops after the pools, on four DP/TP/EP ranks
    report = read_log("sglang-pr10622-qwen3-next-80b-fp8-dp4-tp4-ep.log")
    assert not report.complete
    assert "DP0 TP0 EP0" in [r.rank for r in report.ranks]


def test_0_5_23_spellings():
    # SGLang 0.5.23's own f-strings: model_runner.py:1373, memory_pool.py:2089 and :1005,
    # pool_configurator.py:889, cuda_graph_setup.py:696, scheduler.py:1269
    lines = [
        "[2026-11-30 10:00:00 TP0] Load weight begin. avail mem=78.10 GB",
        "[2026-11-30 10:00:09 TP0] Load weight end. elapsed=9.02 s, type=Qwen3NextForCausalLM, quant=fp8, avail mem=40.02 GB, mem usage=38.08 GB.",
        "[2026-11-30 10:00:10 TP0] Mamba Cache is allocated. max_mamba_cache_size: 310, conv_state size: 0.22GB, ssm_state size: 9.19GB ",
        "[2026-11-30 10:00:10 TP0] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1024000, K size: 11.72 GB, V size: 11.72 GB",
        "[2026-11-30 10:00:10 TP0] Draft KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1024000, K size: 0.98 GB, V size: 0.98 GB",
        "[2026-11-30 10:00:10 TP0] Use sliding window memory pool. full_layer_tokens=1024000, swa_layer_tokens=819200",
        "[2026-11-30 10:00:30 TP0] Capture decode CUDA graph end. elapsed=19.80 s, mem usage=1.21 GB, avail mem=5.33 GB.",
        "[2026-11-30 10:00:31 TP0] max_total_num_tokens=1024000, chunked_prefill_size=8192, max_prefill_tokens=16384, "
        "max_running_requests=310, context_len=262144, available_gpu_mem=5.30 GB",
    ]
    rank0 = parse_startup(lines).first
    assert (rank0.pre_load_avail_gib, rank0.weight_gib) == (78.10, 38.08)
    assert (rank0.mamba_slots, rank0.mamba_ssm_gib) == (310, 9.19)
    assert (rank0.kv_tokens, rank0.kv_pool_gib) == (1024000, 23.44)  # the draft's pool is another line
    assert (rank0.full_tokens, rank0.swa_tokens) == (1024000, 819200)
    assert (rank0.graph_gib, rank0.post_graph_avail_gib, rank0.available_gpu_mem_gib) == (1.21, 5.33, 5.30)
    assert (rank0.max_total_num_tokens, rank0.max_running_requests) == (1024000, 310)


def test_garbage_gives_an_empty_report():
    report = parse_startup(["\x00\xff not a log", "", "Traceback (most recent call last):"])
    assert report.ranks == () and not report.complete and report.first is None


# ---------------------------------------------------------------- the store


def test_sizing_flags_leave_out_what_does_not_size():
    flags = sizing_flags({"host": "0.0.0.0", "port": 30000, "api_key": "k", "mem_fraction_static": 0.85, "context_length": None, "tp_size": 2})
    assert flags == {"mem_fraction_static": 0.85, "tp_size": 2}
    assert key_for(port=1).sizing_flags_hash == key_for(port=2).sizing_flags_hash
    assert key_for(mem_fraction_static=0.8).sizing_flags_hash != key_for(mem_fraction_static=0.85).sizing_flags_hash


def test_every_start_is_kept_and_the_file_is_private(tmp_path):
    store = CalibrationStore(str(tmp_path / "store"))
    key = key_for()
    store.record(key, {}, observation(tokens=100000))
    stored = store.record(key, {}, observation(tokens=101000))
    assert [o["ranks"][0]["max_total_num_tokens"] for o in store.lookup(key).observations] == [100000, 101000]
    assert stored.path == str(tmp_path / "store" / (key.digest + ".json"))
    assert os.stat(tmp_path / "store").st_mode & 0o777 == 0o700
    assert json.loads(Path(stored.path).read_text())["schema"] == "llmops.sglang/calibration/v1"


def _write_many(directory, worker, count):
    store = CalibrationStore(directory)
    for i in range(count):
        store.record(key_for(), {}, observation(tokens=worker * 1000 + i))


def test_concurrent_writers_lose_nothing(tmp_path):
    directory = str(tmp_path / "store")
    workers = [multiprocessing.Process(target=_write_many, args=(directory, w, 25)) for w in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    tokens = sorted(o["ranks"][0]["max_total_num_tokens"] for o in CalibrationStore(directory).lookup(key_for()).observations)
    assert tokens == sorted(w * 1000 + i for w in range(4) for i in range(25))
    assert [n for n in os.listdir(directory) if n.startswith(".tmp-")] == []


@pytest.mark.parametrize(
    "content, complaint",
    [
        ('{"schema": "llmops.sglang/calibration/v1", "key": ', "is not valid JSON"),
        ('{"schema": "something else", "observations": []}', "is not a llmops.sglang/calibration/v1 file"),
        ('[1, 2]', "is not a llmops.sglang/calibration/v1 file"),
    ],
)
def test_a_corrupt_file_is_named_and_left_as_it_was(tmp_path, content, complaint):
    store = CalibrationStore(str(tmp_path))
    key = key_for()
    path = tmp_path / (key.digest + ".json")
    path.write_text(content)
    with pytest.raises(CalibrationStoreError, match=complaint) as failure:
        store.record(key, {}, observation())
    assert str(path) in str(failure.value)
    assert path.read_text() == content
    with pytest.raises(CalibrationStoreError, match=str(path)):
        store.entries()


def test_an_unwritable_store_says_so(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(CalibrationStoreError, match="cannot be created or locked"):
        CalibrationStore(str(blocker / "store")).record(key_for(), {}, observation())


# ---------------------------------------------------------------- calibration, residuals, drift


def qwen3_8b():
    return {"config": json.loads((CONFIGS / "Qwen__Qwen3-8B" / "config.json").read_text())}


def test_exact_key_replaces_the_estimates_with_the_measurements(tmp_path):
    store = CalibrationStore(str(tmp_path))
    key = key_for()
    store.record(key, {}, observation(pre_load=46.9, weights=15.3))
    store.record(key, {}, observation(pre_load=47.1, weights=15.3))
    calibration = calibration_for(store, key)
    assert (calibration.match, calibration.observations) == ("exact", 2)
    assert calibration.pre_load_gib == (47.0,) and calibration.weight_gib == 15.3
    model, gpus = calibrated_inputs(qwen3_8b(), [dict(A6000)], calibration)
    assert gpus[0]["pre_model_load_gib"] == 47.0
    assert model["weights"] == {"target_param_bytes": int(15.3 * (1 << 30))}
    result = evaluate(model, gpus, {"context_length": 8192}, "0.5.9", with_fixes=False)
    assert result["budget"]["per_gpu"][0]["pre_model_load_gib"] == 47.0
    assert result["budget"]["per_gpu"][0]["weights_gib"] == 15.3
    # Declared cards at the stored starts (free = total); real facts now, 6 GiB held by another process.
    shared = calibrated_inputs(qwen3_8b(), [dict(A6000, memory_free_mib=49140 - 6144)], calibration)[1]
    assert shared[0]["pre_model_load_gib"] == 41.0
    # Stored with real facts (48638 MiB free then, the driver's own share): the same free memory now changes nothing.
    real = key_for(mem_fraction_static=0.8)
    store.record(real, {}, dict(observation(pre_load=47.0, weights=15.3), gpu_free_mib=[48638]))
    measured = calibration_for(store, real)
    same = calibrated_inputs(qwen3_8b(), [dict(A6000, memory_free_mib=48638)], measured)[1]
    assert same[0]["pre_model_load_gib"] == 47.0


def test_near_key_lends_only_the_context_overhead(tmp_path):
    store = CalibrationStore(str(tmp_path))
    store.record(key_for(model_id="meta-llama/Llama-3.1-8B"), {}, observation(pre_load=47.2, total_mib=49140))
    calibration = calibration_for(store, key_for())
    assert calibration.match == "near"
    assert calibration.context_overhead_gib == round(49140 / 1024 - 47.2, 3)
    assert "another model" in calibration.note
    gpus = calibrated_inputs(qwen3_8b(), [dict(A6000, memory_free_mib=40960)], calibration)[1]
    assert gpus[0]["pre_model_load_gib"] == round(40.0 - calibration.context_overhead_gib, 3)
    # another release shares nothing
    other = make_key(sglang_version="0.5.23", gpu_name=A6000["name"], driver_version="535.261.03", model_id="x", model_revision="", server_args={"tp_size": 1})
    assert calibration_for(store, other).match == "none"


def test_residuals_and_drift_on_the_incident_host(tmp_path):
    budget = evaluate(qwen3_8b(), [dict(A6000)], {"context_length": 8192}, "0.5.9", with_fixes=False)
    predicted_tokens = budget["budget"]["totals"]["max_total_num_tokens"]
    line = (
        "[2026-12-02 07:00:00 TP0] max_total_num_tokens=%d, chunked_prefill_size=8192, max_prefill_tokens=16384, "
        "max_running_requests=2048, context_len=8192, available_gpu_mem=4.10 GB" % (predicted_tokens - 1000)
    )
    report = parse_startup(["[2026-12-02 06:59:50 TP0] Load weight begin. avail mem=47.02 GB", line])
    by_name = {r.component: r for r in residuals(budget, report)}
    assert by_name["max_total_num_tokens"].delta == -1000
    assert by_name["pre_load_gib"].observed == 47.02
    stored = [observation(tokens=predicted_tokens - 900), observation(tokens=predicted_tokens - 1100)]
    stored[0]["ranks"][0]["pre_load_avail_gib"] = stored[1]["ranks"][0]["pre_load_avail_gib"] = 47.0
    assert drift(stored, report) == []
    shifted = parse_startup(["[2026-12-02 08:00:00 TP0] Load weight begin. avail mem=39.50 GB"])
    moved = drift(stored, shifted)
    assert [d.component for d in moved] == ["pre_load_gib"]
    assert "pre_load_gib moved: 39.50 GiB this start, 47.00..47.00 over 2 stored start(s)" in moved[0].message
