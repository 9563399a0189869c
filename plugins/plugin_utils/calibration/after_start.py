# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One successful start, reported: its numbers per rank beside the preflight's, stored, and checked for drift."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional

from .calibrate import Drift, Residual, drift, format_amount, residuals
from .startup import StartupReport, parse_startup
from .store import CalibrationKey, CalibrationStore, sizing_flags


@dataclass(frozen=True)
class AfterStart:
    """What a start printed, how far the preflight was from it, and what the store made of it."""

    report: StartupReport
    residuals: List[Residual]
    drift: List[Drift]
    recorded_in: Optional[str]
    observations: int

    @property
    def recap(self) -> List[str]:
        """One line per component: predicted, observed and the residual."""
        lines = []
        for residual in self.residuals:
            if residual.delta is None:
                side = "predicted" if residual.predicted is not None else "observed"
                value = residual.predicted if residual.predicted is not None else residual.observed
                lines.append("%s: %s %s %s (no counterpart)" % (residual.component, side, format_amount(value, residual.unit), residual.unit))
            else:
                lines.append(
                    "%s: predicted %s, observed %s %s (%+.2f %%)"
                    % (
                        residual.component,
                        format_amount(residual.predicted, residual.unit),
                        format_amount(residual.observed, residual.unit),
                        residual.unit,
                        100 * (residual.relative or 0.0),
                    )
                )
        return lines

    def to_dict(self) -> Dict[str, Any]:
        return {
            "startup": self.report.to_dict(),
            "residuals": [r.to_dict() for r in self.residuals],
            "drift": [d.to_dict() for d in self.drift],
            "recap": self.recap,
            "calibration_file": self.recorded_in,
            "observations": self.observations,
        }


def after_start(
    lines: Iterable[str],
    *,
    budget: Optional[Mapping[str, Any]],
    store: Optional[CalibrationStore],
    key: Optional[CalibrationKey],
    server_args: Mapping[str, Any],
    host: str,
    time: str,
    gpus: List[Mapping[str, Any]],
) -> AfterStart:
    """Report this launch's startup lines; with a store, compare with its earlier starts and append this one.

    Only a start that got as far as the scheduler's totals is stored: a cut log is a partial truth.
    """
    report = parse_startup(lines)
    found = residuals(budget, report)
    earlier = ()
    if store is not None and key is not None:
        stored = store.lookup(key)
        earlier = stored.observations if stored else ()
    moved = drift(earlier, report)
    recorded_in, count = None, len(earlier)
    if store is not None and key is not None and report.complete:
        entry = store.record(
            key,
            sizing_flags(server_args),
            {
                "time": time,
                "host": host,
                "gpu_total_mib": [gpu.get("memory_total_mib") for gpu in gpus],
                "gpu_free_mib": [gpu.get("memory_free_mib") for gpu in gpus],
                "ranks": [rank.to_dict() for rank in report.ranks],
                "predicted": {r.component: r.predicted for r in found if r.predicted is not None} or None,
            },
        )
        recorded_in, count = entry.path, len(entry.observations)
    return AfterStart(report, found, moved, recorded_in, count)
