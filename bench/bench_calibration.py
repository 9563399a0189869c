# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Calibration figures: the preflight's max_total_num_tokens before and after one real start of the same key.

Each real startup log in tests/fixtures/startup_logs is treated as the first start of its launch: its lines
are parsed (plugin_utils.calibration.startup), recorded in a throw-away calibration store, and the preflight
of a second start of the same key is calibrated from it. Uncalibrated means what a preflight knows before
any start: the card's total memory and the engine's own weight estimate. Both are scored against the
max_total_num_tokens the log printed. Target (issue 17): calibrated median <= 0.5 %.

Run from the repository root (``make bench`` does): ``python bench/bench_calibration.py``.
"""

from __future__ import annotations

import os
import pathlib
import statistics
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / ".build" / "collections"))
sys.path.insert(0, str(ROOT / "tests" / "unit"))  # budget_fixtures: the fixture readers the unit tests use

from budget_fixtures import STARTUP_DIR, startup_log_case, startup_log_entries  # noqa: E402

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget import engine  # noqa: E402
from ansible_collections.llmops.sglang.plugins.plugin_utils.calibration.calibrate import (  # noqa: E402
    calibrated_inputs,
    calibration_for,
)
from ansible_collections.llmops.sglang.plugins.plugin_utils.calibration.startup import parse_startup  # noqa: E402
from ansible_collections.llmops.sglang.plugins.plugin_utils.calibration.store import (  # noqa: E402
    CalibrationStore,
    make_key,
    sizing_flags,
)


def before_any_start(gpus):
    """What the preflight knows before a start: each card's total memory (the log's free memory dropped)."""
    return [{k: v for k, v in gpu.items() if k != "pre_model_load_gib"} for gpu in gpus]


def error_pct(result, want):
    got = result["budget"]["totals"]["max_total_num_tokens"]
    return None if not got else abs(got - want) / want * 100


def main() -> None:
    rows, skipped = [], []
    with tempfile.TemporaryDirectory() as directory:
        store = CalibrationStore(directory)
        for entry in startup_log_entries():
            inputs, why_not = startup_log_case(entry)
            if inputs is None or not inputs["fraction_known"] or not inputs["logged_tokens"]:
                skipped.append("%s: %s" % (entry["file"], why_not or "fraction left to an unpinned release's default"))
                continue
            gpus = before_any_start(inputs["gpus"])
            key = make_key(
                sglang_version=inputs["version"],
                gpu_name=gpus[0]["name"],
                driver_version="",
                model_id=entry.get("model") or entry["file"],
                model_revision="",
                server_args=inputs["args"],
            )
            with open(STARTUP_DIR / entry["file"], encoding="utf-8", errors="replace") as handle:
                report = parse_startup(handle)
            store.record(
                key,
                sizing_flags(inputs["args"]),
                {"time": "bench", "host": "bench", "gpu_total_mib": [g["memory_total_mib"] for g in gpus], "ranks": [r.to_dict() for r in report.ranks]},
            )
            calibration = calibration_for(store, key)
            try:
                plain = engine.evaluate(inputs["model"], gpus, inputs["args"], inputs["version"], allow_nearest_profile=True, with_fixes=False)
                model, calibrated_gpus = calibrated_inputs(inputs["model"], gpus, calibration)
                calibrated = engine.evaluate(model, calibrated_gpus, inputs["args"], inputs["version"], allow_nearest_profile=True, with_fixes=False)
            except engine.BudgetInputError as exc:
                skipped.append("%s: %s" % (entry["file"], exc))
                continue
            want = inputs["logged_tokens"]
            rows.append((entry["file"], error_pct(plain, want), error_pct(calibrated, want), calibration.match))
    scored = [r for r in rows if r[1] is not None and r[2] is not None]
    print("calibration: %d real startup logs, each as the first start of its key; |error| of the second start's max_total_num_tokens" % len(scored))
    if scored:
        print(
            "   uncalibrated (card total, own weight estimate): median %.2f %%, max %.2f %%"
            % (statistics.median(r[1] for r in scored), max(r[1] for r in scored))
        )
        print(
            "   calibrated (measured pre-load free memory and weights): median %.2f %% (target <= 0.5 %%), "
            "max %.2f %%" % (statistics.median(r[2] for r in scored), max(r[2] for r in scored))
        )
    for name, plain_err, calibrated_err, match in rows:
        print(
            "   %s: uncalibrated %s, calibrated (%s) %s"
            % (name, "-" if plain_err is None else "%.2f %%" % plain_err, match, "-" if calibrated_err is None else "%.2f %%" % calibrated_err)
        )
    for line in skipped:
        print("   skipped %s" % line)


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
