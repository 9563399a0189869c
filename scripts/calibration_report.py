# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Print the residual table of a calibration store (``make calibration-report STORE=DIR``).

Per SGLang release, GPU and component: how many stored starts, and the median, minimum and maximum of
(observed - predicted) / observed in %. A start stored without its preflight's prediction is left out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / ".build" / "collections"))

from ansible_collections.llmops.sglang.plugins.plugin_utils.calibration.report import (  # noqa: E402
    format_table,
    residual_table,
)
from ansible_collections.llmops.sglang.plugins.plugin_utils.calibration.store import (  # noqa: E402
    CalibrationStore,
    CalibrationStoreError,
)


def main(argv: list[str]) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("store", help="the calibration store directory (sglang_service_calibration_store)")
    args = cli.parse_args(argv)
    try:
        rows = residual_table(CalibrationStore(args.store))
    except CalibrationStoreError as exc:
        print("calibration report: %s" % exc, file=sys.stderr)
        return 2
    if not rows:
        print("calibration store %s holds no start with its prediction yet" % args.store)
        return 0
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
