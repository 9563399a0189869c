# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The release registry drives the engine: a release with one behaviour field flipped changes only the outputs
that depend on that field, and leaves every launch that never reaches it byte-identical.

Each case flips one field of a registry release (``releases.with_behaviour``) and evaluates real configs from
tests/fixtures/model-configs. ``untouched`` launches never reach the field, so their results must not change at
all; ``touched`` launches do, and every output path that changes must be one the field feeds.
"""

import json
from dataclasses import replace
import pathlib

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget import profiles
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.behaviour import GLM4_MOE_GATE_MODEL_DTYPE
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import evaluate, load_model_dir
from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import RELEASES, with_behaviour

CONFIGS = pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "model-configs"
H100 = {"name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559, "compute_capability": "9.0"}
L4 = {"name": "NVIDIA L4", "memory_total_mib": 23034, "compute_capability": "8.9"}
A6000 = {"name": "NVIDIA RTX A6000", "memory_total_mib": 49140, "compute_capability": "8.6"}
INCIDENT = {
    "tp_size": 2,
    "mem_fraction_static": 0.85,
    "context_length": 65536,
    "speculative_algorithm": "NEXTN",
    "speculative_num_steps": 3,
    "speculative_eagle_topk": 1,
    "speculative_num_draft_tokens": 4,
}

LAUNCHES = {
    "llama8b-h100": ("meta-llama__Llama-3.1-8B-Instruct", H100, {"tp_size": 1}),
    "llama8b-h100-bs100": ("meta-llama__Llama-3.1-8B-Instruct", H100, {"tp_size": 1, "cuda_graph_max_bs_decode": 100}),
    "qwen7b-l4": ("Qwen__Qwen2.5-7B-Instruct", L4, {"tp_size": 1}),
    "qwen36-incident": ("Qwen__Qwen3.6-27B", A6000, INCIDENT),
    "qwen36-h100": ("Qwen__Qwen3.6-27B", H100, {"tp_size": 1}),
    "qwen36-h100-extra-buffer-no-overlap": (
        "Qwen__Qwen3.6-27B",
        H100,
        {"tp_size": 1, "disable_overlap_schedule": True, "mamba_radix_cache_strategy": "extra_buffer"},
    ),
    "glm47-h100x8": ("zai-org__GLM-4.7", H100, {"tp_size": 8, "context_length": 32768}),
    "llama70b-tiny": ("meta-llama__Llama-3.1-70B-Instruct", A6000, {"tp_size": 2, "mem_fraction_static": 0.72}),
}


def run(launch, release):
    name, gpu, args = LAUNCHES[launch]
    gpus = [dict(gpu, index=i) for i in range(int(args.get("tp_size", 1)))]
    return evaluate(load_model_dir(str(CONFIGS / name)), gpus, args, release)


def flatten(value, path=""):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            out.update(flatten(item, f"{path}.{key}" if path else str(key)))
        return out
    return {path: json.dumps(value, sort_keys=True)}


def changed_paths(before, after):
    a, b = flatten(before), flatten(after)
    return {p for p in set(a) | set(b) if a.get(p) != b.get(p)}


NEWEST, OLDEST = RELEASES["0.5.23"], RELEASES["0.5.9"]
FLIPS = [
    pytest.param(
        NEWEST,
        {"decode_graph_bs_includes_max": False},
        ["llama8b-h100", "qwen36-incident"],
        ["llama8b-h100-bs100"],
        {"resolved_args.cuda_graph_bs"},
        id="decode_graph_bs_includes_max",
    ),
    pytest.param(
        NEWEST,
        {"mid_memory_bucket": (2048, 24, 80)},
        ["llama8b-h100", "qwen36-incident", "glm47-h100x8"],
        ["qwen7b-l4"],
        None,
        id="mid_memory_bucket-only-20-35GiB-cards",
    ),
    pytest.param(
        NEWEST,
        {"weight_dtype_quirks": frozenset({GLM4_MOE_GATE_MODEL_DTYPE})},
        ["llama8b-h100", "qwen36-incident"],
        ["glm47-h100x8"],
        None,
        id="weight_dtype_quirks-GLM-only",
    ),
    pytest.param(
        NEWEST,
        {"mamba_slots_per_request": profiles.mamba_slots_per_request_mixin},
        ["llama8b-h100", "glm47-h100x8", "qwen36-h100"],
        ["qwen36-h100-extra-buffer-no-overlap"],
        None,
        id="mamba_slots_per_request-only-where-the-rules-differ",
    ),
    pytest.param(
        NEWEST,
        {"draft_loaded_before_sizing": False},
        ["llama8b-h100", "qwen36-h100"],
        ["qwen36-incident"],
        None,
        id="draft_loaded_before_sizing-speculative-only",
    ),
    pytest.param(
        OLDEST,
        {"messages": replace(OLDEST.sizing.messages, not_enough_memory="flipped {mfs}")},
        ["llama8b-h100", "glm47-h100x8"],
        ["qwen36-incident"],
        {"error.message", "message"},
        id="messages.not_enough_memory-text-only",
    ),
    pytest.param(
        NEWEST,
        {"messages": replace(NEWEST.sizing.messages, imbalance_min_name="flipped")},
        ["llama8b-h100", "qwen36-incident", "llama70b-tiny"],
        [],
        None,
        id="imbalance_name-never-reached",
    ),
]


@pytest.mark.parametrize("base, changes, untouched, touched, allowed", FLIPS)
def test_one_flipped_field_changes_only_what_depends_on_it(base, changes, untouched, touched, allowed):
    flipped = with_behaviour(base, **changes)
    for launch in untouched:
        assert run(launch, flipped) == run(launch, base), f"{launch} does not reach {sorted(changes)}"
    for launch in touched:
        paths = changed_paths(run(launch, base), run(launch, flipped))
        assert paths, f"{launch} must change when {sorted(changes)} flips"
        if allowed is not None:
            assert paths <= allowed, f"{launch}: {sorted(paths - allowed)} changed too"


def test_registry_releases_are_in_release_order_and_complete():
    from ansible_collections.llmops.sglang.plugins.plugin_utils.releases import parse_version

    versions = list(RELEASES)
    assert versions == sorted(versions, key=parse_version)
    for version, release in RELEASES.items():
        assert release.version == version
        assert (release.sizing is None) == (release.verified_by is None)
        assert release.verified_by in (None, "oracle", "source")
        assert pathlib.Path(release.flag_catalog_file).is_file()
        assert release.pins.wheel.startswith(f"sglang-{version}-")
    oracle_fixtures = {p.stem.split("-", 1)[1] for p in (CONFIGS.parent / "oracle").glob("sglang-*.json")}
    assert {v for v, r in RELEASES.items() if r.verified_by == "oracle"} == oracle_fixtures & set(RELEASES)


def test_ratio_fix_is_offered_when_the_ratio_sizes_the_slots():
    # 0.5.9 without the radix cache and with no request cap sizes the mamba slots by --mamba-full-memory-ratio
    # (mixin split, else branch), so a larger ratio is a real fix there; with a cap the slots follow the requests.
    model = load_model_dir(str(CONFIGS / "nvidia__Nemotron-H-56B-Base-8K"))
    gpus = [dict(H100, index=i, pre_model_load_gib=78.65) for i in range(2)]
    args = {
        "tp_size": 2,
        "mem_fraction_static": 0.93,
        "mamba_full_memory_ratio": 3.0,
        "mamba_ssm_dtype": "bfloat16",
        "disable_radix_cache": True,
        "kv_cache_dtype": "fp8_e4m3",
    }
    fixes = [f["changes"] for f in evaluate(model, gpus, args, "0.5.9")["fixes"]]
    assert {"mamba_full_memory_ratio": 6.0} in fixes
    capped = [f["changes"] for f in evaluate(model, gpus, dict(args, max_running_requests=64), "0.5.9")["fixes"]]
    assert not any("mamba_full_memory_ratio" in c for c in capped)


def test_no_budget_code_names_a_release():
    import re

    budget_dir = pathlib.Path(__file__).resolve().parents[4] / "plugins" / "plugin_utils" / "budget"
    pattern = re.compile(r"""["']0\.5\.\d+(\.post\d+)?["']|v059|v0523|_059\b|_0523\b""")
    hits = [f"{path.name}:{n}" for path in sorted(budget_dir.glob("*.py")) for n, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert hits == [], "release facts belong in plugin_utils/releases.py"


def test_a_release_read_only_from_source_says_so():
    """A new release's entry is verified_by "source" until its oracle fixture agrees (CONTRIBUTING.md)."""
    checked = run("llama8b-h100", RELEASES["0.5.23"])
    unchecked = run("llama8b-h100", replace(RELEASES["0.5.23"], verified_by="source"))
    assert unchecked["verified_by"] == "source" and checked["verified_by"] == "oracle"
    assert any(w["id"] == "release_not_oracle_checked" for w in unchecked["warnings"])
    assert not any(w["id"] == "release_not_oracle_checked" for w in checked["warnings"])


def _engine_root_causes():
    """Every root cause the budget engine can return, read from its code: StartupError's third argument, and the
    ids _verdict assigns to ``root`` or returns."""
    import ast

    budget_dir = pathlib.Path(__file__).resolve().parents[4] / "plugins" / "plugin_utils" / "budget"
    found = set()
    for path in budget_dir.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "StartupError" and len(node.args) > 2:
                arg = node.args[2]
                if isinstance(arg, ast.IfExp):
                    found.update(x.value for x in (arg.body, arg.orelse) if isinstance(x, ast.Constant))
                elif isinstance(arg, ast.Constant):
                    found.add(arg.value)
            if isinstance(node, ast.FunctionDef) and node.name == "_verdict":
                for sub in ast.walk(node):
                    targets = sub.targets if isinstance(sub, ast.Assign) else []
                    values = []
                    if any(getattr(t, "id", None) == "root" for t in targets):
                        values = [sub.value]
                    elif isinstance(sub, ast.Assign) and isinstance(sub.targets[0], ast.Tuple):
                        values = list(sub.value.elts) if isinstance(sub.value, ast.Tuple) else []
                    for value in values:
                        for leaf in ast.walk(value):
                            if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str) and "_" in leaf.value:
                                found.add(leaf.value)
    return found


def test_every_root_cause_the_engine_returns_is_a_diagnosis_catalog_id():
    from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import CAUSES, MEMORY_CAUSES

    causes = _engine_root_causes()
    assert {
        "kv_pool_too_small",
        "mamba_pool_too_small",
        "cuda_oom_weights",
        "cuda_oom_cuda_graph",
        "unsupported_quantization",
        "quant_shard_misaligned",
        "incompatible_feature_combination",
    } <= causes  # the scan sees them
    assert causes <= set(CAUSES), sorted(causes - set(CAUSES))
    # the memory failures the engine sizes are the catalog's budgeted causes, defined once there
    assert set(MEMORY_CAUSES) == {"kv_pool_too_small", "mamba_pool_too_small", "cuda_oom_weights", "cuda_oom_cuda_graph"} <= causes
