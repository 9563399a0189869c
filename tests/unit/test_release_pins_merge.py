# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""``scripts/gen_release_pins.py`` merges the releases it generates into ``data/sglang-releases.json``: the others
stay, a regenerated one is replaced in place, a new one joins in release order (checked on the committed file)."""

from __future__ import annotations

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from gen_release_pins import OUTPUT, Release, merge  # noqa: E402

COMMITTED = json.loads(OUTPUT.read_text(encoding="utf-8"))["releases"]


def release(version):
    return Release(**next(entry for entry in COMMITTED if entry["version"] == version))


def test_a_new_release_joins_in_release_order():
    # 0.5.10.post1 sorts between 0.5.10 and 0.5.11, as a version, not as text
    without = [entry for entry in COMMITTED if entry["version"] != "0.5.10.post1"]
    assert merge(without, [release("0.5.10.post1")]) == COMMITTED


def test_a_regenerated_release_replaces_its_entry_and_keeps_the_others():
    regenerated = release("0.5.12")
    regenerated.source_notes = regenerated.source_notes + ["regenerated"]
    merged = merge(COMMITTED, [regenerated])
    assert [e["version"] for e in merged] == [e["version"] for e in COMMITTED]
    assert [e for e in merged if e["version"] != "0.5.12"] == [e for e in COMMITTED if e["version"] != "0.5.12"]
    assert next(e for e in merged if e["version"] == "0.5.12")["source_notes"][-1] == "regenerated"


def test_the_first_run_writes_only_what_it_generated():
    assert merge([], [release("0.5.23"), release("0.5.9")]) == [entry for entry in COMMITTED if entry["version"] in ("0.5.9", "0.5.23")]
