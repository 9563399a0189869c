# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The budget engine's two reference fixtures, read one way for the unit tests and for bench/bench_budget.py.

* ``tests/fixtures/oracle/sglang-<V>.json``: cases SGLang's own sizing code ran on the CPU (bench/oracle/), with
  SGLang's result or its exact exception;
* ``tests/fixtures/startup_logs/INDEX.yml``: real public startup logs with the numbers SGLang printed.
"""

from __future__ import annotations

import json
import pathlib

import yaml

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget import engine
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import evaluate, load_model_dir
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.weights import mla_absorbed_bytes

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "tests" / "fixtures" / "model-configs"
ORACLE_DIR = ROOT / "tests" / "fixtures" / "oracle"
STARTUP_DIR = ROOT / "tests" / "fixtures" / "startup_logs"
GIB = 1 << 30
PINNED_VERSIONS = ("0.5.9", "0.5.23")

# Torch/stub failures of the CPU harness itself: SGLang never got to size anything, so there is no oracle answer.
HARNESS_ARTEFACTS = ("Cannot access accelerator device", "Torch not compiled with CUDA", "shimmed ", "Could not run 'aten::")
# The flags of a startup log's INDEX entry that reach the engine.
STARTUP_LOG_ARGS = ("tp_size", "mem_fraction_static", "chunked_prefill_size", "context_length", "kv_cache_dtype", "max_running_requests", "page_size")


# ---------------------------------------------------------------- oracle fixtures


def no_oracle_record(case):
    err = case.get("error") or {}
    return bool(case.get("harness_error")) or (case.get("result") is None and not err) or any(a in str(err.get("message", "")) for a in HARNESS_ARTEFACTS)


def oracle_cases():
    """(SGLang version, case) for every case the oracle ran to an answer."""
    out = []
    for path in sorted(ORACLE_DIR.glob("sglang-*.json")):
        data = json.loads(path.read_text())
        out.extend((data["sglang_version"], case) for case in data["cases"] if not no_oracle_record(case))
    return out


def oracle_model(case, with_weights):
    """The case's model; with_weights gives it the bytes the oracle measured (then only the sizing is compared)."""
    model = load_model_dir(str(CONFIGS / case["model"]))
    if with_weights and case.get("weights"):
        # resident_bytes is what the oracle's free-memory stub actually dropped by (the breakdown fields describe
        # the real classes even when a rounded W such as 28.29 GiB was given instead)
        model["weights"] = {"target_param_bytes": case["weights"]["resident_bytes"]}
    return model


def oracle_gpus(case):
    gpu = case["gpu"]
    return [
        {
            "index": i,
            "name": gpu["name"],
            "memory_total_mib": gpu["memory_total_mib"],
            "compute_capability": gpu.get("compute_capability"),
            "pre_model_load_gib": case["pre_model_load_gib"],
        }
        for i in range(int(gpu.get("count", 1)))
    ]


def load_oom_in_harness(case, got_err):
    """The CPU harness stubs free memory, so weights larger than the baseline never OOM there: SGLang's sizing
    then fails on the negative remainder. On a GPU the weight load itself runs out of memory first, which is
    what the engine reports; both say the launch cannot start."""
    resident = (case.get("weights") or {}).get("resident_bytes") or 0
    return got_err["type"] == "torch.OutOfMemoryError" and resident >= case["pre_model_load_gib"] * GIB


REMOTE_CODE_ASK = "Please pass the argument `trust_remote_code=True` to allow custom code to be run."


def _comparable(message):
    """transformers' remote-code refusal names the harness's temporary model directory (and, for an auto_map into
    another repository, that repository); what both sides must say is the request to pass trust_remote_code."""
    return REMOTE_CODE_ASK if REMOTE_CODE_ASK in message else message


def _as_the_oracle_counts(model, version, case):
    """The engine's own weights, less the post-load transform the oracle does not run (bench/oracle/README.md,
    "Weights"): the MLA absorbed ``w_kc``/``w_vc`` copies that ``post_load_weights`` makes on a real GPU."""
    rv, args, spec, total, source, override, ranks, gpu_mem, sm, _notes, env = engine._prepare(
        model, oracle_gpus(case), case["server_args"], version, False, case.get("env") or {}
    )
    if not spec.is_mla:
        return model
    core = engine._core(spec, total, source, override, ranks, gpu_mem, sm, args, rv.release, env)
    wb = core["weights"]
    absorbed = mla_absorbed_bytes(spec, core["resolved"].attn_tp)
    return dict(
        model,
        weights={
            "target_param_bytes": wb.target_param_bytes,
            "target_buffer_bytes": wb.target_buffer_bytes - absorbed,
            "draft_param_bytes": wb.draft_param_bytes,
            "draft_buffer_bytes": wb.draft_buffer_bytes,
        },
    )


def oracle_agreement(version, case, with_weights):
    """(agrees, worst |error| % among the numbers that disagree, detail) for one oracle case.

    Agreement: the same exception class and, with the oracle's weights, the exact message; or
    max_total_num_tokens, max_running_requests and mamba slots each within 1 % (or 1 unit).
    """
    model = oracle_model(case, with_weights)
    if not with_weights:
        model = _as_the_oracle_counts(model, version, case)
    res = evaluate(model, oracle_gpus(case), case["server_args"], version, env=case.get("env") or {}, with_fixes=False)
    want_err, got_err = case.get("error"), res["error"]
    if want_err or got_err:
        same = bool(want_err and got_err) and (want_err["type"].split(".")[-1] == got_err["type"].split(".")[-1] or load_oom_in_harness(case, got_err))
        if same and with_weights and not load_oom_in_harness(case, got_err) and _comparable(want_err["message"]) != _comparable(got_err["message"]):
            return False, 100.0, f"message want={want_err['message'][:160]!r} got={got_err['message'][:160]!r}"
        return (
            same,
            0.0 if same else 100.0,
            (f"error want={want_err and want_err['type']} got={got_err and got_err['type']}: {(got_err or {}).get('message', '')[:120]}"),
        )
    totals, want = res["budget"]["totals"], case["result"]
    worst, bad = 0.0, []
    for name, got, exp in (
        ("max_total_num_tokens", totals["max_total_num_tokens"], want.get("max_total_num_tokens")),
        ("max_running_requests", totals["max_running_requests"], want.get("max_running_requests")),
        ("mamba_slots", totals["mamba_slots"], want.get("max_mamba_cache_size")),
    ):
        if exp is None or (got is not None and abs(got - exp) <= max(1, 0.01 * abs(exp))):
            continue
        bad.append(f"{name} got {got} want {exp}")
        worst = max(worst, 100.0 if got is None else abs(got - exp) / max(1, abs(exp)) * 100)
    return not bad, worst, "; ".join(bad)


# ---------------------------------------------------------------- startup logs


def startup_log_entries():
    index = STARTUP_DIR / "INDEX.yml"
    return (yaml.safe_load(index.read_text()) or []) if index.exists() else []


def startup_log_case(entry):
    """(inputs, None) for an entry the engine can be scored on, or (None, why not).

    inputs: model (config only), gpus (baseline = "Load weight begin" avail mem, or avail + mem usage after
    loading), args, version (the nearest profile is allowed), logged weight bytes per GPU (None when the log
    does not print them), the logged max_total_num_tokens, and whether the fraction is known (explicit, or the
    release is a pinned profile), which is what makes the log comparable.
    """
    folder = next(
        (base / entry["config_dir"] for base in (CONFIGS, STARTUP_DIR) if entry.get("config_dir") and (base / entry["config_dir"] / "config.json").exists()),
        None,
    )
    if folder is None:
        return None, "no config.json"
    obs = entry.get("observed") or {}
    before, after = obs.get("load_weight_avail_mem_gb_before"), obs.get("load_weight_avail_mem_gb_after")
    if before is None and after is not None and obs.get("mem_usage_gb") is not None:
        before = after + obs["mem_usage_gb"]
    if before is None:
        return None, "no baseline (Load weight begin avail mem) in the log"
    args = {k: v for k, v in (entry.get("server_args") or {}).items() if v is not None and k in STARTUP_LOG_ARGS}
    gpu = entry.get("gpu") or {}
    total_mib = gpu.get("memory_total_mib") or (before + 1) * 1024
    gpus = [
        {"index": i, "name": gpu.get("name", "GPU"), "memory_total_mib": total_mib, "pre_model_load_gib": before} for i in range(int(args.get("tp_size") or 1))
    ]
    version = str(entry.get("sglang_version") or "0.5.9")
    return {
        "model": load_model_dir(str(folder)),
        "gpus": gpus,
        "args": args,
        "version": version,
        "logged_weight_bytes": None if after is None else int((before - after) * GIB),
        "logged_tokens": obs.get("max_total_num_tokens"),
        "fraction_known": args.get("mem_fraction_static") is not None or version in PINNED_VERSIONS,
    }, None


def evaluate_startup_log(inputs, logged_weights):
    """The engine's result for a startup log, with the weights the log measured or with its own estimate."""
    model = dict(inputs["model"])
    if logged_weights:
        model["weights"] = {"target_param_bytes": inputs["logged_weight_bytes"]}
    return evaluate(model, inputs["gpus"], inputs["args"], inputs["version"], allow_nearest_profile=True, with_fixes=False)
