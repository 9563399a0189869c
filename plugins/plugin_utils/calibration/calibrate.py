# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""From stored starts to a sharper preflight: measured inputs, residuals per component, and drift.

* A start with the same key (release, GPU, driver, model revision, TP/PP, sizing flags) hands the preflight
  its measured pre-load free memory and weight bytes in place of the estimates (``confidence: calibrated``).
* A near key (same release, GPU, driver and layout, another model or flags) hands over only the measured
  CUDA context and NCCL overhead (card total minus pre-load free memory), and the result says so.
* Each new start is compared with what was stored: a component outside the stored spread is drift.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..budget.engine import load_model_dir
from .startup import RankStartup, StartupReport
from .store import CalibrationKey, CalibrationStore, StoredKey, launch_key

GIB = 1 << 30

# The components a start prints and the preflight predicts, as (name, unit).
COMPONENTS: Tuple[Tuple[str, str], ...] = (
    ("pre_load_gib", "GiB"),
    ("weights_gib", "GiB"),
    ("kv_pool_gib", "GiB"),
    ("max_total_num_tokens", "tokens"),
    ("swa_tokens", "tokens"),
    ("mamba_slots", "slots"),
    ("max_running_requests", "requests"),
)
# Drift tolerance beyond the stored spread: SGLang's pool varies by a few percent from launch to launch on
# the same command (issue 17), and it prints GiB with two decimals.
DRIFT_RELATIVE = 0.02
DRIFT_ABSOLUTE = {"GiB": 0.05, "tokens": 0, "slots": 0, "requests": 0}


def observed_components(rank: RankStartup) -> Dict[str, Optional[float]]:
    """One rank's numbers under the component names."""
    return {
        "pre_load_gib": rank.pre_load_gib,
        "weights_gib": rank.weight_load_gib,
        "kv_pool_gib": rank.kv_pool_gib,
        "max_total_num_tokens": rank.max_total_num_tokens,
        "swa_tokens": rank.swa_tokens,
        "mamba_slots": rank.mamba_slots,
        "max_running_requests": rank.max_running_requests,
    }


def predicted_components(budget: Mapping[str, Any]) -> Dict[str, Optional[float]]:
    """The engine's prediction for GPU 0 (rank 0) under the component names."""
    gpu = ((budget.get("budget") or {}).get("per_gpu") or [{}])[0]
    totals = (budget.get("budget") or {}).get("totals") or {}
    return {
        "pre_load_gib": gpu.get("pre_model_load_gib"),
        "weights_gib": gpu.get("weights_gib"),
        "kv_pool_gib": gpu.get("kv_pool_gib"),
        "max_total_num_tokens": totals.get("max_total_num_tokens"),
        "swa_tokens": totals.get("swa_max_total_num_tokens"),
        "mamba_slots": totals.get("mamba_slots") or None,
        "max_running_requests": totals.get("max_running_requests"),
    }


@dataclass(frozen=True)
class Residual:
    """Observed minus predicted for one component (relative to the observed value)."""

    component: str
    unit: str
    predicted: Optional[float]
    observed: Optional[float]

    @property
    def delta(self) -> Optional[float]:
        if self.predicted is None or self.observed is None:
            return None
        return round(self.observed - self.predicted, 4)

    @property
    def relative(self) -> Optional[float]:
        if self.delta is None or not self.observed:
            return None
        return round(self.delta / self.observed, 5)

    def to_dict(self) -> Dict[str, Any]:
        return dict(asdict(self), delta=self.delta, relative=self.relative)


def residuals(budget: Optional[Mapping[str, Any]], report: StartupReport) -> List[Residual]:
    """Rank 0's observed numbers beside the preflight's, for every component either side has."""
    rank = report.first
    observed = observed_components(rank) if rank else {}
    predicted = predicted_components(budget) if budget else {}
    return [
        Residual(name, unit, predicted.get(name), observed.get(name))
        for name, unit in COMPONENTS
        if predicted.get(name) is not None or observed.get(name) is not None
    ]


@dataclass(frozen=True)
class Spread:
    """Median, minimum and maximum of one component over stored starts."""

    count: int
    median: float
    minimum: float
    maximum: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Optional["Spread"]:
        values = [v for v in values if v is not None]
        if not values:
            return None
        return cls(len(values), statistics.median(values), min(values), max(values))


def stored_ranks(observation: Mapping[str, Any]) -> List[RankStartup]:
    """An observation's ranks back as RankStartup (unknown keys, such as derived ones, dropped)."""
    names = set(RankStartup.__dataclass_fields__)
    return [RankStartup(**{k: v for k, v in rank.items() if k in names}) for rank in observation.get("ranks") or []]


def component_spreads(observations: Sequence[Mapping[str, Any]]) -> Dict[str, Spread]:
    """Each component's spread over the stored starts (rank 0's values)."""
    per_component: Dict[str, List[float]] = {component[0]: [] for component in COMPONENTS}
    for observation in observations:
        ranks = stored_ranks(observation)
        report = StartupReport(tuple(ranks))
        if report.first is None:
            continue
        for name, value in observed_components(report.first).items():
            if value is not None:
                per_component[name].append(value)
    return {name: spread for name, spread in ((n, Spread.of(v)) for n, v in per_component.items()) if spread}


@dataclass(frozen=True)
class Drift:
    """A component of a new start outside the spread of the stored ones."""

    component: str
    unit: str
    observed: float
    stored: Spread

    @property
    def message(self) -> str:
        return (
            "%s moved: %s %s this start, %s..%s over %d stored start(s) (median %s); typical causes: a driver "
            "update, another tenant on the GPU, a changed checkpoint"
            % (
                self.component,
                format_amount(self.observed, self.unit),
                self.unit,
                format_amount(self.stored.minimum, self.unit),
                format_amount(self.stored.maximum, self.unit),
                self.stored.count,
                format_amount(self.stored.median, self.unit),
            )
        )

    def to_dict(self) -> Dict[str, Any]:
        return {"component": self.component, "unit": self.unit, "observed": self.observed, "stored": asdict(self.stored), "message": self.message}


def format_amount(value: float, unit: str) -> str:
    """A component's number as SGLang prints it: GiB with two decimals, counts whole."""
    return ("%.2f" % value) if unit == "GiB" else ("%d" % round(value))


def drift(observations: Sequence[Mapping[str, Any]], report: StartupReport) -> List[Drift]:
    """The components of this start outside the stored spread widened by SGLang's own launch-to-launch noise."""
    if not observations or report.first is None:
        return []
    spreads = component_spreads(observations)
    found = []
    for name, unit in COMPONENTS:
        value = observed_components(report.first).get(name)
        spread = spreads.get(name)
        if value is None or spread is None:
            continue
        slack = max(DRIFT_RELATIVE * abs(spread.median), DRIFT_ABSOLUTE[unit])
        if value < spread.minimum - slack or value > spread.maximum + slack:
            found.append(Drift(name, unit, value, spread))
    return found


@dataclass(frozen=True)
class Calibration:
    """What the store can tell a preflight: measured inputs (exact key) or the measured overhead (near key)."""

    match: str  # "exact", "near" or "none"
    observations: int
    files: Tuple[str, ...]
    pre_load_gib: Tuple[float, ...] = ()
    free_mib: Tuple[Optional[float], ...] = ()
    weight_gib: Optional[float] = None
    context_overhead_gib: Optional[float] = None
    observed: Optional[Dict[str, Spread]] = None

    @property
    def note(self) -> str:
        if self.match == "exact":
            return (
                "calibrated from %d earlier start(s) of this exact launch: measured pre-load free memory and "
                "weight bytes replace the estimates" % self.observations
            )
        if self.match == "near":
            return (
                "CUDA context and NCCL overhead measured on %d start(s) of another model on this release, GPU "
                "and driver (%.2f GiB per GPU); weights and the rest are still estimated" % (self.observations, self.context_overhead_gib or 0.0)
            )
        return "no stored start matches this launch; the estimates stand"

    def to_dict(self) -> Dict[str, Any]:
        return {
            "match": self.match,
            "observations": self.observations,
            "files": list(self.files),
            "pre_load_gib": list(self.pre_load_gib),
            "free_mib": list(self.free_mib),
            "weight_gib": self.weight_gib,
            "context_overhead_gib": self.context_overhead_gib,
            "note": self.note,
            "observed": {k: asdict(v) for k, v in (self.observed or {}).items()},
        }


def _per_rank_median(observations: Sequence[Mapping[str, Any]], attribute: str) -> Tuple[float, ...]:
    """Per rank position, the median over observations of one measured number (positions all must have)."""
    columns: Dict[int, List[float]] = {}
    for observation in observations:
        for position, rank in enumerate(stored_ranks(observation)):
            value = getattr(rank, attribute)
            if value is not None:
                columns.setdefault(position, []).append(value)
    if not columns or sorted(columns) != list(range(len(columns))):
        return ()
    return tuple(round(statistics.median(columns[p]), 3) for p in range(len(columns)))


def _free_then(observations: Sequence[Mapping[str, Any]]) -> Tuple[Optional[float], ...]:
    """Per GPU, the median free MiB when the stored starts were preflighted (the card's total if not measured)."""
    columns: Dict[int, List[float]] = {}
    for observation in observations:
        totals = observation.get("gpu_total_mib") or []
        frees = observation.get("gpu_free_mib") or [None] * len(totals)
        for position, (total, free) in enumerate(zip(totals, frees)):
            value = free if free is not None else total
            if value is not None:
                columns.setdefault(position, []).append(float(value))
    return tuple(statistics.median(columns[p]) if p in columns else None for p in range(max(columns, default=-1) + 1))


def _exact(entry: StoredKey) -> Calibration:
    observations = entry.observations
    weights = [
        max(w for w in (r.weight_load_gib for r in stored_ranks(o)) if w is not None)
        for o in observations
        if any(r.weight_load_gib is not None for r in stored_ranks(o))
    ]
    return Calibration(
        match="exact",
        observations=len(observations),
        files=(entry.path,),
        pre_load_gib=_per_rank_median(observations, "pre_load_gib"),
        free_mib=_free_then(observations),
        weight_gib=round(statistics.median(weights), 3) if weights else None,
        observed=component_spreads(observations),
    )


def _near(entries: Sequence[StoredKey]) -> Optional[Calibration]:
    overheads: List[float] = []
    for entry in entries:
        for observation in entry.observations:
            totals = observation.get("gpu_total_mib") or []
            for total, rank in zip(totals, stored_ranks(observation)):
                if total and rank.pre_load_gib is not None:
                    overheads.append(total / 1024.0 - rank.pre_load_gib)
    if not overheads:
        return None
    return Calibration(
        match="near",
        observations=sum(len(e.observations) for e in entries),
        files=tuple(e.path for e in entries),
        context_overhead_gib=round(statistics.median(overheads), 3),
    )


def calibration_for(store: CalibrationStore, key: CalibrationKey) -> Calibration:
    """The best the store knows for this key: exact, else near, else nothing."""
    entry = store.lookup(key)
    if entry is not None and entry.observations:
        exact = _exact(entry)
        if exact.pre_load_gib or exact.weight_gib is not None:
            return exact
    near = _near(store.near(key))
    return near if near is not None else Calibration(match="none", observations=0, files=())


def _free_mib(gpu: Mapping[str, Any]) -> Optional[float]:
    """Free MiB as nvidia_gpu_info reports them (free, or total minus used); None for a declared card."""
    if gpu.get("memory_free_mib") is not None:
        return float(gpu["memory_free_mib"])
    if gpu.get("memory_used_mib") is not None and gpu.get("memory_total_mib"):
        return float(gpu["memory_total_mib"] - gpu["memory_used_mib"])
    return None


def calibrated_inputs(model: Any, gpus: List[Dict[str, Any]], calibration: Calibration) -> Tuple[Any, List[Dict[str, Any]]]:
    """The engine's inputs with the measured numbers in place of the estimates."""
    gpus = [dict(gpu) for gpu in gpus]
    if calibration.match == "exact":
        if len(calibration.pre_load_gib) >= len(gpus):
            for gpu, measured in zip(gpus, calibration.pre_load_gib):
                gpu["pre_model_load_gib"] = measured
            # Free memory that is gone since the stored starts (another tenant now) comes off what they measured.
            for gpu, free_then in zip(gpus, calibration.free_mib):
                free_now = _free_mib(gpu)
                if free_then is not None and free_now is not None and free_now < free_then:
                    gpu["pre_model_load_gib"] = round(max(0.0, gpu["pre_model_load_gib"] - (free_then - free_now) / 1024.0), 3)
        if calibration.weight_gib is not None and isinstance(model, dict):
            model = dict(model, weights={"target_param_bytes": int(calibration.weight_gib * GIB)})
    elif calibration.match == "near":
        for gpu in gpus:
            total = gpu.get("memory_total_mib")
            if not total:
                continue
            free = _free_mib(gpu)
            free = total if free is None else free
            gpu["pre_model_load_gib"] = round(max(0.0, free / 1024.0 - calibration.context_overhead_gib), 3)
    return model, gpus


def calibrate_launch(
    store_directory: str,
    *,
    sglang_version: str,
    gpus: List[Dict[str, Any]],
    server_args: Mapping[str, Any],
    model: Any,
    model_id: str,
    model_revision: str = "",
) -> Tuple[Any, List[Dict[str, Any]], Calibration]:
    """The preflight's inputs calibrated from the store (a model path is read so that its weights can be set)."""
    calibration = calibration_for(
        CalibrationStore(store_directory),
        launch_key(sglang_version=sglang_version, gpus=gpus, server_args=server_args, model_id=model_id, model_revision=model_revision),
    )
    if isinstance(model, str):
        model = load_model_dir(model)
    model, gpus = calibrated_inputs(model, gpus, calibration)
    return model, gpus, calibration
