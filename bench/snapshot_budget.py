# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The budget engine's whole output on every reference input, as one canonical JSON document.

A refactor of the engine must leave this document byte-identical: ``python bench/snapshot_budget.py OUT.json``
before and after, then ``cmp``. It covers the oracle fixtures (with the oracle's weights and with the engine's
own), the startup logs, every model config on three GPU set-ups, and the incident's flags, each under every
release the fixtures name, fixes included where the launch does not fit.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".build" / "collections"))
sys.path.insert(0, str(ROOT / "tests" / "unit"))

from budget_fixtures import (
    CONFIGS,
    evaluate_startup_log,
    oracle_cases,
    oracle_gpus,
    oracle_model,  # noqa: E402
    startup_log_case,
    startup_log_entries,
)

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import (
    BudgetInputError,  # noqa: E402
    evaluate,
    load_model_dir,
)

GPU_SETUPS = {
    "2xA6000": [{"index": i, "name": "NVIDIA RTX A6000", "memory_total_mib": 49140} for i in range(2)],
    "8xH100": [{"index": i, "name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559} for i in range(8)],
    "4xB200": [{"index": i, "name": "NVIDIA B200", "memory_total_mib": 183359, "compute_capability": "10.0"} for i in range(4)],
}
INCIDENT_ARGS = {
    "tp_size": 2,
    "mem_fraction_static": 0.85,
    "context_length": 65536,
    "enable_torch_compile": True,
    "speculative_algorithm": "NEXTN",
    "speculative_num_steps": 3,
    "speculative_eagle_topk": 1,
    "speculative_num_draft_tokens": 4,
}


def _run(model, gpus, args, version, **kw):
    try:
        return evaluate(model, gpus, args, version, **kw)
    except BudgetInputError as exc:
        return {"input_error": str(exc)}


def snapshot(versions):
    out = {}
    for version, case in oracle_cases():
        for weights in (True, False):
            out[f"oracle/{version}/{case['id']}/{'given' if weights else 'shapes'}"] = _run(
                oracle_model(case, weights), oracle_gpus(case), case["server_args"], version, env=case.get("env") or {}, with_fixes=not weights
            )
    for entry in startup_log_entries():
        inputs, _why = startup_log_case(entry)
        if inputs is None:
            continue
        for weights in (True, False):
            if weights and not inputs["logged_weight_bytes"]:
                continue
            out[f"startup/{entry['file']}/{weights}"] = evaluate_startup_log(inputs, weights)
    for folder in sorted(p for p in CONFIGS.iterdir() if (p / "config.json").exists()):
        model = load_model_dir(str(folder))
        for version in versions:
            for name, gpus in GPU_SETUPS.items():
                for tp in (1, 2, len(gpus)):
                    out[f"config/{folder.name}/{version}/{name}/tp{tp}"] = _run(model, gpus, {"tp_size": tp}, version)
            out[f"incident-flags/{folder.name}/{version}"] = _run(model, GPU_SETUPS["2xA6000"], INCIDENT_ARGS, version)
    return out


def main() -> None:
    versions = sys.argv[2:] or ["0.5.9", "0.5.23"]
    text = json.dumps(snapshot(versions), sort_keys=True, indent=1, default=str)
    pathlib.Path(sys.argv[1]).write_text(text)
    print(f"{len(json.loads(text))} results, sha256 {hashlib.sha256(text.encode()).hexdigest()}")


if __name__ == "__main__":
    main()
