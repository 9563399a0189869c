# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Grafana dashboard (dashboards/sglang.json) queries only metrics that SGLang's releases really export.

The names come from each registry release's own source (plugins/plugin_utils/data/sglang-metrics-<V>.json,
generated from the wheel by scripts/gen_metric_catalog.py), with their types: a ``_bucket``, ``_sum`` or
``_count`` series is only queried on a histogram (or summary).
"""

import json
import re
from pathlib import Path

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import SUPPORTED_VERSIONS

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "plugins" / "plugin_utils" / "data"
DASHBOARD = json.loads((REPO / "dashboards" / "sglang.json").read_text())
SERIES = re.compile(r"\bsglang:[a-z0-9_]+")
SUFFIXES = ("_bucket", "_sum", "_count")


def queried_series():
    exprs = [target["expr"] for panel in DASHBOARD["panels"] for target in panel["targets"]]
    exprs += [v["definition"] for v in DASHBOARD["templating"]["list"] if v.get("definition")]
    return sorted({name for expr in exprs for name in SERIES.findall(expr)})


def test_the_dashboard_queries_sglang_metrics():
    assert len(queried_series()) >= 12


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_every_queried_series_exists_in_the_release(version):
    metrics = json.loads((DATA / ("sglang-metrics-%s.json" % version)).read_text())["metrics"]
    missing = []
    for series in queried_series():
        base = next((series[: -len(s)] for s in SUFFIXES if series.endswith(s) and series[: -len(s)] in metrics), series)
        kind = (metrics.get(base) or {}).get("type")
        if kind is None or (base != series and kind not in ("Histogram", "Summary")):
            missing.append(series)
    assert missing == [], "SGLang %s exports no %s" % (version, ", ".join(missing))
