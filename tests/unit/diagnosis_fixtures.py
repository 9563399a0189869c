# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The diagnoser's log corpus, read one way for the unit tests and for bench/bench_diagnose.py.

``tests/fixtures/logs/INDEX.yml`` (real public logs) and ``source-derived/INDEX.yml`` label each log with its
root cause (the training corpus); ``validation/INDEX.yml`` is the held-out split; ``tests/fixtures/startup_logs``
holds real healthy starts too.
"""

from __future__ import annotations

import json
import pathlib

import yaml

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.classify import classify

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"
LOGS = FIXTURES / "logs"
INDEXES = (LOGS / "INDEX.yml", LOGS / "source-derived" / "INDEX.yml")
# The held-out split (issue 14): collected before the patterns changed, scored by the bench, never tuned to.
VALIDATION_INDEX = LOGS / "validation" / "INDEX.yml"


def _entries(indexes):
    entries = []
    for index in indexes:
        if index.exists():
            entries.extend(yaml.safe_load(index.read_text(encoding="utf-8")) or [])
    return entries


def corpus():
    """The training corpus: every labelled log the catalog may be tuned to."""
    return _entries(INDEXES)


def validation_split():
    """The validation split: scored, never tuned to (a log looked at for a miss moves to the training corpus)."""
    return _entries((VALIDATION_INDEX,))


def tail_for(entry):
    """(sglang_log_tail result, since_marker): ``*.tail.json`` files are whole results; a plain log is read as an
    ad hoc run would (since_marker false, no unit)."""
    path = LOGS / entry["file"]
    if path.name.endswith(".tail.json"):
        return json.loads(path.read_text(encoding="utf-8")), True
    lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    return {"log": {"path": str(path), "exists": True, "lines": lines, "mtime": path.stat().st_mtime}}, False


def healthy_real_logs():
    """Real public logs of starts that went on to serve: the corpus' real ``none`` cases and the startup logs."""
    paths = [LOGS / e["file"] for e in corpus() if e["label"] == "none" and e.get("kind") == "real"]
    return paths + sorted((FIXTURES / "startup_logs").glob("*.log"))


def is_false_alarm(result):
    """On a healthy log: ``other`` (read as a failure) or a specific cause with medium or high confidence."""
    return result["root_cause"] == "other" or (result["root_cause"] != "none" and result["confidence"] != "low")


def cut_short_false_alarms(path):
    """(prefixes, [(lines kept, result)]) for a healthy log cut after each of its lines (a start still loading,
    or killed from outside): each prefix must be ``none`` with the phase it reached, never a failure."""
    lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    alarms = []
    for end in range(1, len(lines) + 1):
        result = classify(lines[:end])
        if is_false_alarm(result):
            alarms.append((end, result))
    return len(lines), alarms
