# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/secret_scan.py, the scan `make molecule` and the end-to-end test run over their -vvvv output."""

import json
import os
import sys
from urllib.parse import quote

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import secret_scan  # noqa: E402 (scripts/ is not a package)

SECRET = "p@ss w/rd\"Q7"


def test_every_spelling_of_a_secret_is_found_with_its_line(tmp_path):
    log = tmp_path / "logs" / "run.log"
    log.parent.mkdir()
    log.write_text("ok\nEXEC HTTPS_PROXY=http://u:%s@proxy\n{\"msg\": \"%s\"}\n%s\n" % (SECRET, json.dumps(SECRET)[1:-1], quote(SECRET, safe="")))
    (tmp_path / "logs" / "clean.log").write_text("nothing here\n")
    hits = secret_scan.scan([str(tmp_path / "logs")], {"proxy password": SECRET})
    assert [(os.path.basename(h.path), h.line) for h in hits] == [("run.log", 2), ("run.log", 3), ("run.log", 4)]


def test_the_command_line_names_hits_but_never_prints_the_value(tmp_path, capsys):
    canaries = tmp_path / "canaries.yml"
    canaries.write_text("API key: %s\n" % json.dumps(SECRET))
    generated = tmp_path / "generated"
    generated.mkdir()
    (generated / "pve.json").write_text(json.dumps({"PVE password": "generated-pass-1234"}))
    (tmp_path / "out.log").write_text("a\ngenerated-pass-1234\n")
    assert secret_scan.main(["--canaries", str(canaries), "--canaries", str(generated), str(tmp_path / "out.log")]) == 1
    out = capsys.readouterr().out
    assert "out.log:2: PVE password (pve.json)" in out and "generated-pass-1234" not in out and SECRET not in out
    assert "2 secrets" in out and "1 hits" in out
    (tmp_path / "out.log").write_text("clean\n")
    assert secret_scan.main(["--canaries", str(canaries), str(tmp_path / "out.log")]) == 0


def test_a_canary_too_short_to_mean_anything_is_refused(tmp_path):
    canaries = tmp_path / "canaries.yml"
    canaries.write_text("token: abc\n")
    with pytest.raises(SystemExit, match="at least 8 characters"):
        secret_scan.load_canaries([str(canaries)])


def test_the_committed_canaries_load():
    path = os.path.join(os.path.dirname(__file__), "..", "fixtures", "secret-canaries.yml")
    assert len(secret_scan.load_canaries([path])) >= 9
