# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Schema checks for the two log corpora under tests/fixtures.

* tests/fixtures/logs/INDEX.yml: SGLang logs labelled with the diagnoser's root-cause ids
  (real public excerpts); PENDING.yml: real excerpts, same schema, that the diagnoser does not
  classify correctly yet (kept apart so its top-1 corpus test can stay strict).
* tests/fixtures/logs/validation/INDEX.yml: the held-out validation split (issue 14), same schema, its files under
  validation/<label>/, no source page shared with the training corpus.
* tests/fixtures/startup_logs/INDEX.yml: real startup logs with the KV-pool numbers SGLang
  printed, for the budget engine's accuracy bench.

Every entry must point at an existing, non-empty, small file and carry its public source.
The per-label counts are printed (run with ``-s``) so the corpus' coverage is visible.
"""

from __future__ import annotations

import collections
import pathlib
import re

import pytest
import yaml

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.timeline import ORDER, timeline

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"
LOGS = FIXTURES / "logs"
STARTUP = FIXTURES / "startup_logs"

# The closed catalog of root-cause ids from issue 4 (docs/ and the diagnoser use the same ids).
ROOT_CAUSE_IDS = frozenset(
    """
    none kv_pool_too_small mamba_pool_too_small cuda_oom_weights cuda_oom_cuda_graph cuda_oom_runtime
    kv_pool_exhausted_runtime req_pool_exhausted_runtime host_ram_oom_killed cuda_graph_capture_error
    unsupported_gpu_arch driver_cuda_mismatch dependency_import_error nccl_failure
    incompatible_feature_combination invalid_argument_value unrecognized_argument warmup_failed
    port_in_use model_not_found model_download_failed unsupported_quantization quant_shard_misaligned
    unsupported_architecture trust_remote_code_required
    context_length_exceeds_model tokenizer_error gpu_busy_other_process tp_memory_imbalance
    silent_death stale_log other
    """.split()
)
KINDS = frozenset({"real", "source-derived"})
MAX_FIXTURE_BYTES = 200 * 1024
URL = re.compile(r"^https://\S+$")
READY = "The server is fired up and ready to roll!"
REACHED = frozenset({"starting", "ready", "serving"})
KV_LINE = re.compile(r"KV Cache is allocated\. .*#tokens: \d+|max_total_num_tokens=\d+")


def _log_entries() -> list:
    entries = _load(LOGS / "INDEX.yml")
    pending = LOGS / "PENDING.yml"
    if pending.exists():
        entries += yaml.safe_load(pending.read_text(encoding="utf-8")) or []
    return entries


def _validation_entries() -> list:
    return _load(LOGS / "validation" / "INDEX.yml")


def _load(index: pathlib.Path) -> list:
    if not index.exists():
        pytest.skip("%s not present" % index)
    entries = yaml.safe_load(index.read_text(encoding="utf-8"))
    assert isinstance(entries, list) and entries, "%s must be a non-empty YAML list" % index
    return entries


def _check_file(base: pathlib.Path, entry: dict) -> pathlib.Path:
    rel = entry.get("file")
    assert isinstance(rel, str) and rel, "entry without file: %r" % entry
    path = (base / rel).resolve()
    assert base.resolve() in path.parents, "%s escapes %s" % (rel, base)
    assert path.is_file(), "%s listed in the index does not exist" % rel
    size = path.stat().st_size
    assert 0 < size <= MAX_FIXTURE_BYTES, "%s has %d bytes (must be 1..%d)" % (rel, size, MAX_FIXTURE_BYTES)
    # ansible-test sanity (line-endings) refuses any carriage return; a progress bar's bare CRs are stored as
    # newlines, which the diagnoser reads the same way (classify splits on CR, LF and CRLF alike).
    assert b"\r" not in path.read_bytes(), "%s holds carriage returns: store them as newlines" % rel
    return path


def _check_entry(entry: dict, seen: set) -> None:
    """The checks every corpus entry passes, training or validation: its file, listed once, a catalogued label."""
    _check_file(LOGS, entry)
    assert entry["file"] not in seen, "%s listed twice" % entry["file"]
    seen.add(entry["file"])
    assert entry.get("label") in ROOT_CAUSE_IDS, "%s: unknown label %r" % (entry["file"], entry.get("label"))


def test_log_corpus_entries_are_well_formed():
    entries = _log_entries()
    seen = set()
    for entry in entries:
        _check_entry(entry, seen)
        assert entry.get("kind") in KINDS, "%s: kind must be one of %s" % (entry["file"], sorted(KINDS))
        source = entry.get("source_url") or entry.get("source")
        assert isinstance(source, str) and source.strip(), "%s: no source" % entry["file"]
        if entry["kind"] == "real":
            assert URL.match(entry["source_url"]), "%s: source_url must be a public https URL" % entry["file"]
            assert entry["file"].startswith("real/%s/" % entry["label"]), "%s: real fixtures live under real/<label>/" % entry["file"]


def test_every_real_log_file_is_indexed():
    entries = _log_entries()
    listed = {e["file"] for e in entries}
    on_disk = {p.relative_to(LOGS).as_posix() for p in (LOGS / "real").rglob("*.log")}
    assert not on_disk - listed, "unindexed fixtures: %s" % sorted(on_disk - listed)


def test_validation_split_is_well_formed_and_apart_from_training():
    entries = _validation_entries()
    training = _log_entries() + (yaml.safe_load((LOGS / "source-derived" / "INDEX.yml").read_text(encoding="utf-8")) or [])
    training_sources = {e.get("source_url") for e in training}
    seen = set()
    for entry in entries:
        _check_entry(entry, seen)
        assert entry.get("kind") == "real" and entry.get("split") == "validation", "%s: kind real, split validation" % entry["file"]
        assert URL.match(entry.get("source_url") or ""), "%s: source_url must be a public https URL" % entry["file"]
        assert entry["file"].startswith("validation/%s/" % entry["label"]), "%s: validation fixtures live under validation/<label>/" % entry["file"]
        assert entry["source_url"] not in training_sources, "%s: its source page is in the training corpus too" % entry["file"]
        # fields only: nothing of the diagnoser (timeline included) is run on the held-out split by a unit test
        assert entry["label"] != "none" or entry.get("reached") in REACHED, "%s: reached must be one of %s" % (entry["file"], sorted(REACHED))
    on_disk = {p.relative_to(LOGS).as_posix() for p in (LOGS / "validation").rglob("*.log")}
    assert on_disk == seen, "validation files not indexed: %s" % sorted(on_disk - seen)


def test_corpus_holds_150_real_logs_20_healthy_and_a_validation_split_of_40():
    """Issue 14's floor: enough real logs, healthy ones among them, and a held-out split."""
    real = [e for e in _log_entries() if e["kind"] == "real"] + _validation_entries()
    assert len(real) >= 150, "%d real logs" % len(real)
    assert sum(e["label"] == "none" for e in real) >= 20
    assert len(_validation_entries()) >= 40


def test_healthy_logs_reach_serving_and_show_no_failure():
    """A `none` excerpt shows nothing that SGLang prints on a failed start. With `reached: ready` or `serving` (or
    no `reached`) it shows the server up (the ready banner, Uvicorn bound, requests answered or batch lines); with
    `reached: starting` it ends before the ready line, past one start-up milestone after the arguments at least (model
    config, torch distributed init, weight loading, ...)."""
    failure_marks = (
        "Traceback (most recent call last)",
        "Scheduler hit an exception",
        "Initialization failed",
        "Received sigquit",
        "CUDA out of memory",
        "OutOfMemoryError",
        "Killed",
    )
    entries = [e for e in _log_entries() if e["label"] == "none" and e["kind"] == "real"]
    pending = yaml.safe_load((LOGS / "PENDING.yml").read_text(encoding="utf-8")) or []
    for entry in entries:
        text = (LOGS / entry["file"]).read_text(encoding="utf-8", errors="replace")
        assert entry.get("reached", "ready") in REACHED, "%s: reached must be one of %s" % (entry["file"], sorted(REACHED))
        if entry.get("reached") == "starting":
            assert READY not in text, "%s: reached starting, but the excerpt shows the ready line" % entry["file"]
            last = timeline(text.splitlines()).last
            assert last and ORDER[last] > ORDER["args"], "%s: reached starting must get past the arguments at least (last milestone %s)" % (
                entry["file"],
                last,
            )
        else:
            serving = re.search(r'"(?:POST|GET) /(?:generate|v1/\S+|health\S*) HTTP/1\.1" 200', text)
            batches = timeline(text.splitlines()).reached == "serving"  # a serving tail of batch lines
            assert READY in text or "Uvicorn running on" in text or serving or batches, entry["file"]
        if entry in pending:  # a case the diagnoser does not reach yet (a retried traceback before the ready line)
            continue
        for mark in failure_marks:
            assert mark not in text, "%s: healthy excerpt contains %r" % (entry["file"], mark)


def test_log_corpus_counts(capsys):
    entries = _log_entries()
    by_label = collections.Counter((e["kind"], e["label"]) for e in entries)
    with capsys.disabled():
        print("\nlog corpus: %d entries" % len(entries))
        for (kind, label), count in sorted(by_label.items()):
            print("  %-15s %-32s %d" % (kind, label, count))
    real_failures = [e for e in entries if e["kind"] == "real" and e["label"] != "none"]
    assert len({e["label"] for e in real_failures}) >= 1


def test_startup_log_entries_carry_recomputable_numbers():
    entries = _load(STARTUP / "INDEX.yml")
    for entry in entries:
        path = _check_file(STARTUP, entry)
        assert URL.match(entry.get("source_url") or ""), "%s: source_url" % entry["file"]
        assert entry.get("model"), "%s: model (HF id) missing" % entry["file"]
        args = entry.get("server_args")
        assert isinstance(args, dict) and "tp_size" in args, "%s: server_args.tp_size missing" % entry["file"]
        observed = entry.get("observed") or {}
        tokens = observed.get("max_total_num_tokens")
        assert isinstance(tokens, int) and tokens > 0, "%s: observed.max_total_num_tokens" % entry["file"]
        text = path.read_text(encoding="utf-8", errors="replace")
        printed = {int(n) for n in re.findall(r"(?:#tokens: |max_total_num_tokens=)(\d+)", text)}
        assert KV_LINE.search(text) and tokens in printed, "%s: observed.max_total_num_tokens=%s is not what the log prints (%s)" % (
            entry["file"],
            tokens,
            sorted(printed),
        )
        config_dir = entry.get("config_dir")
        if config_dir:
            assert (FIXTURES / "model-configs" / config_dir / "config.json").is_file() or (STARTUP / config_dir / "config.json").is_file(), (
                "%s: config_dir %s not found" % (entry["file"], config_dir)
            )
