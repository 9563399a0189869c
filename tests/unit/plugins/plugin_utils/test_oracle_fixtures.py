# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Schema and provenance of the differential-oracle fixtures (tests/fixtures/oracle).

The fixtures are what SGLang's own sizing code printed and returned when run on a
CPU with the GPU queries stubbed (bench/oracle/, ``make oracle``).  These checks
need neither torch nor the network: they pin which wheel produced each file, that
every case is complete and self-consistent (the returned token count is the one
SGLang logged), and that the incident rows still carry the numbers the research
notes derived (oracle-0.5.23.md §4/§5, seed-on-0.5.9.md §3-§5).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[4]
FIXTURES = REPO / "tests" / "fixtures" / "oracle"
MODEL_CONFIGS = REPO / "tests" / "fixtures" / "model-configs"
WHEELS = REPO / "bench" / ".wheels"

# The wheels that produced the fixtures (PyPI files; the pins of their METADATA).
PROVENANCE = {
    "0.5.23": {
        "wheel_filename": "sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "00b3cd5b265ac76c64185fbb6b95424f324ddd9f428d0306b77bc9db9d859937",
        "transformers_version": "5.19.0",
        "harness": "harness_0_5_23.py",
    },
    "0.5.9": {
        "wheel_filename": "sglang-0.5.9-py3-none-any.whl",
        "wheel_sha256": "8a936c4d25fea605f44254e533cff2144c73ceffbc1f8738aba393461bbb64d1",
        "transformers_version": "4.57.1",
        "harness": "harness_0_5_9.py",
    },
}
MIN_CASES = 200
CASE_KEYS = {"id", "model", "gpu", "pre_model_load_gib", "server_args", "env", "weights", "resolved", "result", "error", "log_lines"}
WEIGHT_KEYS = {"target_param_bytes", "target_buffer_bytes", "draft_param_bytes", "draft_buffer_bytes", "resident_bytes", "source"}
KV_LINE = re.compile(r"KV Cache is allocated\..*#tokens: (\d+)")
MAMBA_LINE = re.compile(r"Mamba Cache is allocated\. max_mamba_cache_size: (\d+)")


def _load(version: str) -> dict:
    with open(FIXTURES / f"sglang-{version}.json") as fh:
        return json.load(fh)


@pytest.fixture(scope="module", params=sorted(PROVENANCE))
def fixture(request):
    return request.param, _load(request.param)


def _completed(cases):
    return [c for c in cases if not c.get("harness_error") and (c["result"] or c["error"])]


def _assert_provenance(fixture, provenance):
    version, data = fixture
    want = provenance[version]
    assert data["sglang_version"] == version
    assert data["wheel_filename"] == want["wheel_filename"]
    assert data["wheel_sha256"] == want["wheel_sha256"]
    assert data["transformers_version"] == want["transformers_version"]
    assert data["torch_version"].startswith("2.13.0")  # the CPU build; see bench/oracle/README.md
    assert "bench/oracle" in data["generated_by"] and want["harness"] in data["generated_by"]


def test_provenance_names_the_pinned_wheel(fixture):
    _assert_provenance(fixture, PROVENANCE)


def test_recorded_sha256_matches_a_local_wheel_when_present(fixture):
    version, data = fixture
    wheel = WHEELS / data["wheel_filename"]
    if not wheel.exists():
        pytest.skip(f"{wheel} not downloaded (make oracle fetches it)")
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == data["wheel_sha256"]


def test_enough_cases_ran_to_sglangs_own_outcome(fixture):
    version, data = fixture
    ids = [c["id"] for c in data["cases"]]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    done = _completed(data["cases"])
    assert len(done) >= MIN_CASES, f"{version}: only {len(done)} cases completed"
    # both outcomes are represented, and several fatal classes
    assert sum(1 for c in done if c["result"]) >= 100
    assert len({c["error"]["type"] for c in done if c["error"]}) >= 2


def test_every_case_is_well_formed(fixture):
    version, data = fixture
    for case in data["cases"]:
        cid = case["id"]
        assert CASE_KEYS <= set(case), cid
        assert (MODEL_CONFIGS / case["model"] / "config.json").exists(), cid
        gpu = case["gpu"]
        assert {"name", "memory_total_mib", "compute_capability", "count"} <= set(gpu), cid
        assert gpu["count"] == case["server_args"].get("tp_size", 1) * case["server_args"].get("pp_size", 1), cid
        assert 0 < case["pre_model_load_gib"] < gpu["memory_total_mib"] / 1024, cid
        if case.get("harness_error"):
            assert case["result"] is None and case["error"] is None, cid
            continue
        assert (case["result"] is None) != (case["error"] is None), cid
        if case["error"]:
            assert case["error"]["type"] and case["error"]["message"], cid
        else:
            res = case["result"]
            assert res["max_total_num_tokens"] > 0 and res["max_running_requests"] > 0, cid
            assert res["context_len"] > 0, cid
        if case["weights"] is not None:
            w = case["weights"]
            assert WEIGHT_KEYS <= set(w), cid
            if w["source"] == "meta-build":
                counted = sum(w[k] for k in WEIGHT_KEYS - {"resident_bytes", "source"})
                assert w["resident_bytes"] == counted, cid
            if version == "0.5.9":  # the draft is built after the target's pools in 0.5.9
                assert w["draft_param_bytes"] == 0, cid


def test_results_are_the_numbers_sglang_logged(fixture):
    """The returned sizes equal SGLang's own "KV/Mamba Cache is allocated" lines."""
    data = fixture[1]
    checked = 0
    for case in _completed(data["cases"]):
        if not case["result"]:
            continue
        res = case["result"]
        kv = [int(m.group(1)) for ln in case["log_lines"] for m in [KV_LINE.search(ln)] if m]
        if kv:
            # hybrid SWA logs the full pool first; page-aligned pools log the same count
            assert res["max_total_num_tokens"] in kv or res.get("swa_max_total_num_tokens") in kv, case["id"]
            checked += 1
        mamba = [int(m.group(1)) for ln in case["log_lines"] for m in [MAMBA_LINE.search(ln)] if m]
        if mamba:
            assert res["max_mamba_cache_size"] == mamba[0], case["id"]
    assert checked >= 50


def _expected_cases(data):
    return [c for c in data["cases"] if "notes_expect" in c]


@pytest.mark.parametrize("version,count", [("0.5.23", 20), ("0.5.9", 40)])
def test_incident_rows_are_present(version, count):
    assert len(_expected_cases(_load(version))) >= count


def test_incident_rows_reproduce_the_research_notes(fixture):
    """Each row equals the note's numbers, or, where the wheel's code says otherwise, the recorded
    deviation (which must really differ from the note and say why)."""
    version, data = fixture
    for case in _expected_cases(data):
        exp, cid = case["notes_expect"], case["id"]
        if "notes_deviation" in case:
            dev = case["notes_deviation"]
            assert dev["why"] and any(dev.get(k) != exp.get(k) for k in exp), cid
            exp = dev
        assert not case.get("harness_error"), cid
        if "error_type" in exp:
            assert case["error"] is not None, f"{cid}: expected {exp['error_type']}, got {case['result']}"
            assert case["error"]["type"] == exp["error_type"], cid
            assert exp["error_contains"] in case["error"]["message"], cid
        else:
            assert case["result"] is not None, f"{cid}: {case['error']}"
            for key in ("max_total_num_tokens", "max_mamba_cache_size", "max_running_requests"):
                if key in exp:
                    assert case["result"][key] == exp[key], (cid, key)
        if "mem_fraction_static" in exp:
            want = pytest.approx(exp["mem_fraction_static"], abs=5e-4)
            assert case["resolved"]["mem_fraction_static"] == want, cid


def test_the_incident_itself(fixture):
    """The seed command: 0.5.23 starts with ~204k tokens and 8 requests; 0.5.9 fails in the target."""
    version, data = fixture
    by_id = {c["id"]: c for c in data["cases"]}
    if version == "0.5.23":
        res = by_id["incident-0523-base"]["result"]
        # oracle-0.5.23.md says 204,134; the real load path also pre-expands the RoPE caches (8.3 MB)
        assert (res["max_total_num_tokens"], res["max_mamba_cache_size"], res["max_running_requests"]) == (203881, 40, 8)
        assert by_id["incident-0523-base"]["weights"]["source"] == "meta-build"
    else:
        for cid in ("incident-059-attempt1", "incident-059-attempt2", "incident-059-attempt3"):
            err = by_id[cid]["error"]
            assert err["type"] == "RuntimeError" and err["message"].startswith("Not enough memory."), cid
        assert by_id["incident-059-mrr32-pre47.3-wseed"]["result"]["max_total_num_tokens"] == 106655


# ---------------------------------------------------------------------------
# The releases between the two noted ones. Their fixtures run a subset of the grid
# (bench/oracle/cases.py: every incident row without the notes' numbers, every edge case,
# the first generated cases of each model) through the release's adapter (bench/oracle/adapters.py).
# ---------------------------------------------------------------------------
SUBSET_PROVENANCE = {
    "0.5.10": {
        "wheel_filename": "sglang-0.5.10-py3-none-any.whl",
        "wheel_sha256": "ac8855a5d57dac8831fee526bca5212f1ae451f378e2ab08b3baecbc4deb4076",
        "transformers_version": "5.3.0",
        "harness": "harness_0_5_10.py",
    },
    "0.5.10.post1": {
        "wheel_filename": "sglang-0.5.10.post1-py3-none-any.whl",
        "wheel_sha256": "a854a68b11caf6b4b55c241a44378a7cdede7ede325db85c955f131506703bc6",
        "transformers_version": "5.3.0",
        "harness": "harness_0_5_10.py",
    },
    "0.5.11": {
        "wheel_filename": "sglang-0.5.11-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "fe0748beaff218d3e16c9018a5e19f018db06fc3c7ac4f90d2f93da1cf074b6f",
        "transformers_version": "5.6.0",
        "harness": "harness_0_5_10.py",
    },
    "0.5.12": {
        "wheel_filename": "sglang-0.5.12-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "4ed786a38655851fd055ef57380c34d29b87753b53f63457309f51e5bf48c2e6",
        "transformers_version": "5.6.0",
        "harness": "harness_0_5_10.py",
    },
    "0.5.12.post1": {
        "wheel_filename": "sglang-0.5.12.post1-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "94b3f3cc6b97f1364f247b8d9c1d106ec63cf22c55d6b65bc40ff29b0206ef5f",
        "transformers_version": "5.6.0",
        "harness": "harness_0_5_10.py",
    },
    "0.5.13": {
        "wheel_filename": "sglang-0.5.13-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "9d26266ab7e99165098f9e173f4a5a0ef6a0b64a6f30ef0b5ee859eead37e75a",
        "transformers_version": "5.8.1",
        "harness": "harness_0_5_10.py",
    },
    "0.5.13.post1": {
        "wheel_filename": "sglang-0.5.13.post1-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "1c1653ecf2893c7d7b1cf0c3e1cc9b7550ebad95c809de2f44bcc91b7a1e1fe3",
        "transformers_version": "5.8.1",
        "harness": "harness_0_5_10.py",
    },
    "0.5.14": {
        "wheel_filename": "sglang-0.5.14-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "4fe16056b45c8aca00f5f90ceb174dc3a62a3f5dccf159c791370795cd00fc99",
        "transformers_version": "5.8.1",
        "harness": "harness_0_5_14.py",
    },
    "0.5.15": {
        "wheel_filename": "sglang-0.5.15-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "21492759b4b99e117bd81610f633422f3fdae2896c2cde6931eab886deccc44f",
        "transformers_version": "5.12.1",
        "harness": "harness_0_5_14.py",
    },
    "0.5.15.post1": {
        "wheel_filename": "sglang-0.5.15.post1-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "8e182e1c449197cb6f98716a7cf432a3ea7af78c172f9b840ab28ad9e6cda9b4",
        "transformers_version": "5.12.1",
        "harness": "harness_0_5_14.py",
    },
    "0.5.16": {
        "wheel_filename": "sglang-0.5.16-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "d5f345a18953dd35df568ac56bdcb7f5ee910ab39efea4469b714556d1070713",
        "transformers_version": "5.12.1",
        "harness": "harness_0_5_16.py",
    },
    "0.5.17": {
        "wheel_filename": "sglang-0.5.17-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "575e38f5683624ded3b4bb267f637a098e5ed37d13a1d1ff5ea09bd781a04d16",
        "transformers_version": "5.12.1",
        "harness": "harness_0_5_17.py",
    },
    "0.5.18": {
        "wheel_filename": "sglang-0.5.18-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "e97b585dd2d5db2802599feba47c84cce972f5e1231a6816fef996200207b5cf",
        "transformers_version": "5.12.1",
        "harness": "harness_0_5_17.py",
    },
    "0.5.19": {
        "wheel_filename": "sglang-0.5.19-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "425e87377e725d03db8262382008f3fd9561a6cf5d82f485f8b9929f02ffe12b",
        "transformers_version": "5.12.1",
        "harness": "harness_0_5_19.py",
    },
    "0.5.20": {
        "wheel_filename": "sglang-0.5.20-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "1573527042f4f6b4ead838302818595fc77fdc611dbcc2e40cd150fbc8f8513c",
        "transformers_version": "5.12.1",
        "harness": "harness_0_5_19.py",
    },
    "0.5.21": {
        "wheel_filename": "sglang-0.5.21-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "96c029f75dec99baa33a5db3d41b1bebefdd6bcfba3a2f7c807fe1cf49a87c20",
        "transformers_version": "5.12.1",
        "harness": "harness_0_5_21.py",
    },
    "0.5.22": {
        "wheel_filename": "sglang-0.5.22-cp311-cp311-manylinux_2_34_x86_64.whl",
        "wheel_sha256": "cc9a0f15bd8f877a0584fdb7a1702240177a1f1cc8d17c978715161717b9037b",
        "transformers_version": "5.19.0",
        "harness": "harness_0_5_22.py",
    },
}
MIN_SUBSET_CASES = 150
# Up to 0.5.13.post1 the target's pools are sized inside its ModelRunner, before the scheduler
# builds the draft worker (bench/oracle/cases.py: draft_resident_at_sizing).
DRAFT_BUILT_AFTER_TARGET_POOLS = {"0.5.10", "0.5.10.post1", "0.5.11", "0.5.12", "0.5.12.post1", "0.5.13", "0.5.13.post1"}


def test_every_fixture_file_has_its_provenance():
    present = {p.name.removeprefix("sglang-").removesuffix(".json") for p in FIXTURES.glob("sglang-*.json")}
    assert present == set(PROVENANCE) | set(SUBSET_PROVENANCE)


@pytest.fixture(scope="module", params=sorted(SUBSET_PROVENANCE))
def subset_fixture(request):
    return request.param, _load(request.param)


def test_subset_provenance_names_the_pinned_wheel(subset_fixture):
    _assert_provenance(subset_fixture, SUBSET_PROVENANCE)
    test_recorded_sha256_matches_a_local_wheel_when_present(subset_fixture)


def test_subset_ran_every_case_to_sglangs_own_outcome(subset_fixture):
    version, data = subset_fixture
    ids = [c["id"] for c in data["cases"]]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    assert not [c["id"] for c in data["cases"] if c.get("harness_error")], version
    done = _completed(data["cases"])
    assert len(done) >= MIN_SUBSET_CASES, f"{version}: only {len(done)} cases completed"
    assert sum(1 for c in done if c["result"]) >= 100
    assert len({c["error"]["type"] for c in done if c["error"]}) >= 2


def test_subset_keeps_every_incident_row_and_edge_case(subset_fixture):
    """The subset drops generated cases and the architecture grid only; the incident rows are those of the noted release with
    the same startup order, and carry no note's numbers (the notes are about that other release)."""
    version, data = subset_fixture
    ids = {c["id"] for c in data["cases"]}
    noted = _load("0.5.9" if version in DRAFT_BUILT_AFTER_TARGET_POOLS else "0.5.23")["cases"]
    want = {c["id"] for c in noted if not c["id"].startswith(("gen-", "arch-", "multinode-"))}  # arch-, multinode-: the noted releases' grid
    assert want <= ids, sorted(want - ids)
    assert not [c["id"] for c in data["cases"] if "notes_expect" in c or "notes_deviation" in c]


def test_subset_cases_are_well_formed(subset_fixture):
    test_every_case_is_well_formed(subset_fixture)
    version, data = subset_fixture
    if version in DRAFT_BUILT_AFTER_TARGET_POOLS:
        for case in data["cases"]:
            if case["weights"] is not None:
                assert case["weights"]["draft_param_bytes"] == 0, case["id"]


def test_subset_results_are_the_numbers_sglang_logged(subset_fixture):
    test_results_are_the_numbers_sglang_logged(subset_fixture)
