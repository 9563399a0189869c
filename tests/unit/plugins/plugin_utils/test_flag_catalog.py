# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The committed flag catalogs (AST over the wheels) against SGLang's own argparse registration.

tests/fixtures/flag_registration/sglang-<V>.json is what the real ``ServerArgs.add_cli_args`` of each
release registered when run once with import shims (scripts/record_flag_registration.py). No network.
"""

import json
from pathlib import Path

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_catalog import (
    DATA_DIR,
    as_option,
    load_catalog,
)
from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import SUPPORTED_VERSIONS

RECORDED = Path(__file__).resolve().parents[3] / "fixtures" / "flag_registration"
# argparse stores the callable; the catalog names the type the source spells (json.loads -> "json").
RECORDED_TYPE_NAME = {"json": "loads"}

# Flags checked one by one (defaults, choices, types), beyond the all-flags comparison below.
SAMPLE = {
    "0.5.9": [
        "--model-path",
        "--tensor-parallel-size",
        "--mem-fraction-static",
        "--context-length",
        "--enable-torch-compile",
        "--speculative-algorithm",
        "--speculative-num-steps",
        "--speculative-eagle-topk",
        "--speculative-num-draft-tokens",
        "--mamba-full-memory-ratio",
        "--max-mamba-cache-size",
        "--kv-cache-dtype",
        "--attention-backend",
        "--load-format",
        "--quantization",
        "--dtype",
        "--schedule-policy",
        "--page-size",
        "--chunked-prefill-size",
        "--cuda-graph-max-bs",
        "--cuda-graph-bs",
        "--max-running-requests",
        "--disable-radix-cache",
        "--mamba-ssm-dtype",
        "--mamba-scheduler-strategy",
        "--tool-call-parser",
        "--reasoning-parser",
        "--sampling-backend",
        "--grammar-backend",
        "--lora-paths",
        "--port",
        "--host",
        "--json-model-override-args",
        "--hybrid-kvcache-ratio",
    ],
    "0.5.23": [
        "--model-path",
        "--tp-size",
        "--mem-fraction-static",
        "--context-length",
        "--enable-torch-compile",
        "--speculative-algorithm",
        "--speculative-num-steps",
        "--speculative-eagle-topk",
        "--speculative-num-draft-tokens",
        "--mamba-full-memory-ratio",
        "--max-mamba-cache-size",
        "--kv-cache-dtype",
        "--attention-backend",
        "--load-format",
        "--quantization",
        "--dtype",
        "--page-size",
        "--chunked-prefill-size",
        "--cuda-graph-max-bs-decode",
        "--cuda-graph-max-bs-prefill",
        "--cuda-graph-backend-decode",
        "--cuda-graph-bs-decode",
        "--max-running-requests",
        "--disable-radix-cache",
        "--mamba-ssm-dtype",
        "--mamba-radix-cache-strategy",
        "--mamba-track-interval",
        "--tool-call-parser",
        "--reasoning-parser",
        "--sampling-backend",
        "--kv-canary-real-data",
        "--monokernel-backend",
        "--disable-cuda-graph",
        "--lora-paths",
        "--port",
        "--cuda-graph-config",
    ],
}


def recorded(version):
    return json.loads((RECORDED / f"sglang-{version}.json").read_text())


def committed(version):
    return json.loads((Path(DATA_DIR) / f"sglang-flags-{version}.json").read_text())


def by_first_option(entries):
    return {entry["option_strings"][0]: entry for entry in entries}


def normalized(values):
    """Choices recorded from a set come back sorted; compare as sorted text."""
    return None if values is None else sorted(map(str, values))


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_catalog_metadata_names_the_wheel(version):
    data = committed(version)
    assert data["sglang_version"] == version
    assert data["wheel_filename"].startswith(f"sglang-{version}-")
    assert len(data["wheel_sha256"]) == 64 and int(data["wheel_sha256"], 16) >= 0
    assert data["flag_count"] == len(data["flags"])
    options = [o for f in data["flags"] for o in f["option_strings"]]
    assert len(options) == len(set(options)) == data["option_string_count"]


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_flag_count_matches_the_real_registration(version):
    registration = recorded(version)
    assert registration["sglang_version"] == version
    assert committed(version)["flag_count"] == registration["action_count"] == len(registration["actions"])


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_every_flag_has_the_recorded_option_strings_and_dest(version):
    catalog = {tuple(f["option_strings"]): f["dest"] for f in committed(version)["flags"]}
    real = {tuple(a["option_strings"]): a["dest"] for a in recorded(version)["actions"]}
    assert catalog == real


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_every_flag_matches_the_recorded_default_choices_nargs_type_const(version):
    real = by_first_option(recorded(version)["actions"])
    mismatches = []
    for name, flag in by_first_option(committed(version)["flags"]).items():
        action = real[name]
        mine = {
            "default": flag["default"],
            "choices": normalized(flag["choices"]),
            "nargs": flag["nargs"],
            "type": RECORDED_TYPE_NAME.get(flag["type"], flag["type"]),
            "const": flag["const"],
            "required": flag["required"],
        }
        theirs = {
            "default": action["default"],
            "choices": normalized(action["choices"]),
            "nargs": action["nargs"],
            "type": action["type"],
            "const": action["const"],
            "required": action["required"],
        }
        if mine != theirs:
            mismatches.append((name, mine, theirs))
    assert mismatches == []


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_sample_flags_agree_one_by_one(version):
    real = by_first_option(recorded(version)["actions"])
    mine = by_first_option(committed(version)["flags"])
    # the sizing and serving flags of both ends of the range, as far as this release registers them
    sample = [name for name in sorted(set(SAMPLE["0.5.9"]) | set(SAMPLE["0.5.23"])) if name in real]
    assert len(sample) >= 25
    with_choices = 0
    for name in sample:
        assert name in mine, f"{name} missing from the {version} catalog"
        assert mine[name]["default"] == real[name]["default"], name
        assert normalized(mine[name]["choices"]) == normalized(real[name]["choices"]), name
        assert mine[name]["boolean"] == (real[name]["nargs"] == 0), name
        with_choices += mine[name]["choices"] is not None
    assert with_choices >= 8


def test_known_values_of_the_incident_flags():
    """Spot values read from the wheels' source by hand, so a wrong recording cannot hide a wrong catalog."""
    old, new = load_catalog("0.5.9"), load_catalog("0.5.23")
    assert old.lookup("speculative_algorithm").choices == ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM")
    assert old.lookup("context_length").type == "int"
    assert new.lookup("context_length").type == "human_readable_int"
    assert old.lookup("mamba_full_memory_ratio").default == 0.9
    assert new.lookup("mamba_full_memory_ratio").default is None  # fallback 0.9 applied during resolution
    assert old.lookup("enable_torch_compile").boolean and old.lookup("enable_torch_compile").action == "store_true"
    assert old.lookup("tp_size").dest == "tensor_parallel_size" and old.lookup("tp_size").field == "tp_size"
    assert new.lookup("tp_size").dest == "tp_size"
    assert old.lookup("model_path").required and old.lookup("--model").field == "model_path"


def test_recorded_registration_holds_no_import_shim_values():
    """The shims stand in for torch & co; no default or choice may come from one (they are empty strings)."""
    for version in SUPPORTED_VERSIONS:
        for action in recorded(version)["actions"]:
            assert "" not in (action["choices"] or []), action
            assert "Stub" not in json.dumps(action), action


def test_lookup_accepts_fields_dests_and_option_spellings():
    catalog = load_catalog("0.5.9")
    flag = catalog.lookup("mem_fraction_static")
    assert catalog.lookup("--mem-fraction-static") is flag
    assert catalog.lookup("mem-fraction-static") is flag
    assert catalog.lookup("tensor_parallel_size") is catalog.lookup("--tp-size")
    assert catalog.lookup("mem_fraction_statik") is None
    assert as_option("mem_fraction_static") == "--mem-fraction-static"


def test_abbreviations_follow_argparse_prefix_matching():
    new = load_catalog("0.5.23")
    assert new.abbreviation_of("--cuda-graph-max-bs") == ["--cuda-graph-max-bs-decode", "--cuda-graph-max-bs-prefill"]
    assert new.abbreviation_of("--mem-fraction") == ["--mem-fraction-static"]
    assert new.abbreviation_of("--mem-fraction-static") == []
    assert load_catalog("0.5.9").abbreviation_of("--cuda-graph-max-bs") == []
