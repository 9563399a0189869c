# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The residual table of a whole calibration store: how good the preflight is on this operator's own fleet."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Dict, List, Tuple

from .calibrate import COMPONENTS, observed_components, stored_ranks
from .startup import StartupReport
from .store import CalibrationStore


@dataclass(frozen=True)
class ResidualRow:
    """One component on one release and GPU: the relative residuals (observed - predicted) / observed, in %."""

    sglang_version: str
    gpu_name: str
    component: str
    count: int
    median_pct: float
    minimum_pct: float
    maximum_pct: float


def residual_table(store: CalibrationStore) -> List[ResidualRow]:
    """Every stored start that kept its prediction, grouped by release, GPU and component."""
    groups: Dict[Tuple[str, str, str], List[float]] = {}
    for entry in store.entries():
        for observation in entry.observations:
            predicted = observation.get("predicted") or {}
            report = StartupReport(tuple(stored_ranks(observation)))
            if report.first is None:
                continue
            observed = observed_components(report.first)
            for name, _unit in COMPONENTS:
                want, got = observed.get(name), predicted.get(name)
                if want and got is not None:
                    key = (entry.key.sglang_version, entry.key.gpu_name, name)
                    groups.setdefault(key, []).append(100.0 * (want - got) / want)
    return [
        ResidualRow(version, gpu, name, len(values), round(statistics.median(values), 2), round(min(values), 2), round(max(values), 2))
        for (version, gpu, name), values in sorted(groups.items())
    ]


def format_table(rows: List[ResidualRow]) -> str:
    """The table as text, one row per release, GPU and component."""
    header = ("release", "GPU", "component", "starts", "median %", "min %", "max %")
    lines = [header] + [
        (r.sglang_version, r.gpu_name, r.component, str(r.count), "%+.2f" % r.median_pct, "%+.2f" % r.minimum_pct, "%+.2f" % r.maximum_pct) for r in rows
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines)
