# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The same launch under every release of the registry: "which release runs my configuration"."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional, Tuple

from ..releases import RELEASES
from .engine import evaluate
from .errors import BudgetInputError


@dataclass(frozen=True)
class ReleaseOutcome:
    """One release's prediction for the launch (``verdict`` ``not_modelled`` or ``rejected`` when the engine gives
    none: the release's sizing is not modelled, or its flag list or checks refuse the input)."""

    version: str
    verdict: str
    root_cause: Optional[str]
    max_total_num_tokens: Optional[int]
    max_running_requests: Optional[int]
    mamba_slots: Optional[int]
    verified_by: Optional[str]
    message: str


@dataclass(frozen=True)
class ReleaseComparison:
    outcomes: Tuple[ReleaseOutcome, ...]

    @property
    def first_release_that_starts(self) -> Optional[str]:
        """The oldest release whose startup goes through (``fits`` or ``degraded``)."""
        return next((o.version for o in self.outcomes if o.verdict in ("fits", "degraded")), None)

    def to_dict(self) -> Dict[str, Any]:
        return {"releases": [asdict(o) for o in self.outcomes], "first_release_that_starts": self.first_release_that_starts}


def compare_releases(model: Any, gpus: Any, server_args: Any, env: Optional[Dict[str, str]] = None) -> ReleaseComparison:
    """Evaluate the launch under every registry release, oldest first (no fix search)."""
    outcomes: List[ReleaseOutcome] = []
    for version, release in RELEASES.items():
        if release.sizing is None:
            outcomes.append(ReleaseOutcome(version, "not_modelled", None, None, None, None, None, f"SGLang {version}'s startup sizing is not modelled yet"))
            continue
        try:
            res = evaluate(model, gpus, server_args, release, env=env, with_fixes=False)
        except BudgetInputError as exc:
            outcomes.append(ReleaseOutcome(version, "rejected", None, None, None, None, release.verified_by, str(exc)))
            continue
        totals = res["budget"]["totals"]
        outcomes.append(
            ReleaseOutcome(
                version,
                res["verdict"],
                res["root_cause"],
                totals["max_total_num_tokens"],
                totals["max_running_requests"],
                totals["mamba_slots"],
                release.verified_by,
                res["message"],
            )
        )
    return ReleaseComparison(tuple(outcomes))
