# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Draft the release-registry entry of a new SGLang release, for the engineer to finish from its source.

``python scripts/draft_release.py V [--previous PREV] [--out DIR]`` writes ``DIR/V.md`` (default
``.cache/release-draft/``, git-ignored) with (a) the report of ``scripts/release_diff.py PREV V``, (b) a draft
entry for ``plugins/plugin_utils/releases.py``: ``_SIZING_<V> = replace(_SIZING_<PREV>, ...)`` with one commented
line per :class:`SizingBehaviour` field whose source area changed in that diff, and the ``_REGISTRY`` line, and
(c) the checklist of CONTRIBUTING.md. PREV defaults to the newest release in the registry.

``--check`` only verifies that V can be drafted (a version string, newer than PREV, not in the registry yet
unless ``--previous`` is given, on the package index) and fails with the reason; ``make release`` runs it
before anything downloads. The map from SGLang functions to fields is :data:`SOURCE_AREAS`, taken from the
field comments of ``budget/behaviour.py``, the docstrings of ``budget/profiles.py`` and the registry's comments.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import FrozenSet, List, Optional, Sequence, Tuple

from packaging.version import InvalidVersion, Version

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / ".build" / "collections"))
sys.path.insert(0, str(REPO / "scripts"))

import release_diff  # noqa: E402
from gen_release_pins import SIMPLE_INDEX  # noqa: E402

from ansible_collections.llmops.sglang.plugins.plugin_utils import releases  # noqa: E402
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.behaviour import SizingBehaviour  # noqa: E402

DRAFT_DIR = REPO / ".cache" / "release-draft"
PROJECT = "sglang"


@dataclass(frozen=True)
class SourceArea:
    """Where in SGLang's source (any release) one :class:`SizingBehaviour` field is decided.

    ``names``: functions, methods or classes, matched without leading underscores (SGLang's ``ServerArgs._handle_x``
    methods became ``arg_groups`` functions ``handle_x``); a dotted name (``TpModelWorker.__init__``) must end the
    qualified name, a plain one may be any part of it. ``modules``: files (relative to ``sglang/``) wholly about the
    field. ``unread``: files that also decide it but that ``release_diff.py`` does not read (check by hand).
    ``messages_only``: only added or removed raise / log texts in these places count, not every code change.
    """

    field: str
    names: FrozenSet[str]
    modules: Tuple[str, ...] = ()
    unread: Tuple[str, ...] = ()
    messages_only: bool = False


_GPU_MEMORY_SETTINGS = ("handle_gpu_memory_settings",)  # 0.5.9 server_args.py:911-1069, 0.5.23 memory_hook.py:47
_CUDA_GRAPH_CONFIG = (
    "parse_cuda_graph_config",
    "handle_cuda_graph_config",
    "validate_cuda_graph_config",
    "apply_cuda_graph_compatibility",
)  # ServerArgs methods to 0.5.18, then cuda_graph_hook.py
_MODEL_ADJUSTMENTS = ("handle_model_specific_adjustments",)  # 0.5.9 server_args.py:1182, arg_groups/model_hook.py
_MAMBA_STRATEGY = (
    "handle_mamba_radix_cache",  # 0.5.9 server_args.py:1699-1764
    "_mamba_radix_cache_resolution",  # 0.5.23 arg_groups/overrides.py:454-487
    "supports_mamba_cache_extra_buffer",
    "validate_mamba_extra_buffer",
    "validate_mamba_no_buffer",
)
_MAMBA_POOL = ("handle_max_mamba_cache",)  # 0.5.9 model_runner_kv_cache_mixin.py:151, 0.5.23 kv_cache_configurator:3229
_MAMBA_OVERRIDES = ("srt/arg_groups/model_overrides/qwen3_5.py", "srt/arg_groups/model_overrides/nemotron_h.py")

SOURCE_AREAS: Tuple[SourceArea, ...] = (
    SourceArea(
        "default_mem_fraction",
        frozenset(
            _GPU_MEMORY_SETTINGS
            + (
                "reserve_for_graph_mb",  # 0.5.23 memory_hook.py:357-399
                "adjust_mem_fraction_for_vlm",
            )
        ),
    ),
    SourceArea("mem_fraction_fallback", frozenset(_GPU_MEMORY_SETTINGS)),
    SourceArea("decode_graph_reserve_always", frozenset(_GPU_MEMORY_SETTINGS + ("reserve_for_graph_mb",))),
    SourceArea("draft_reserve_mib", frozenset(_GPU_MEMORY_SETTINGS)),  # 0.5.13 server_args.py:1628-1635
    SourceArea("mla_prefill_reserve_mib", frozenset(_GPU_MEMORY_SETTINGS + ("reserve_for_graph_mb",))),
    SourceArea("mid_memory_bucket", frozenset(_GPU_MEMORY_SETTINGS)),
    SourceArea(
        "decode_graph_bs_includes_max", frozenset({"get_batch_sizes_to_capture", "generate_cuda_graph_batch_sizes", "generate_decode_cuda_graph_batch_sizes"})
    ),  # 0.5.23 arg_groups/cuda_graph_hook.py:500
    SourceArea("cuda_graph_max_bs_flags", frozenset(_GPU_MEMORY_SETTINGS + _CUDA_GRAPH_CONFIG)),
    SourceArea("graph_bs_capped_by_max_running_requests", frozenset(_GPU_MEMORY_SETTINGS)),  # memory_hook.py:182-188
    SourceArea("decode_graph_backend_flag", frozenset(_CUDA_GRAPH_CONFIG)),
    SourceArea(
        "prefill_graphs",
        frozenset(
            _CUDA_GRAPH_CONFIG
            + _GPU_MEMORY_SETTINGS
            + (
                "generate_prefill_cuda_graph_batch_sizes",
                "generate_piecewise_cuda_graph_tokens",
                "handle_piecewise_cuda_graph",  # 0.5.10-0.5.13 server_args.py (the auto-off rules)
                "disable_full_prefill_cudagraph_if_incompatible",
                "finalize_cuda_graph_prefill_max_context",
                "_resolve_max_context_size",
            )
        ),  # 0.5.23 cuda_graph_hook.py:423-480
        modules=("srt/model_executor/piecewise_cuda_graph_runner.py",),
    ),
    SourceArea(
        "mla_prefill_graph_max_tokens",
        frozenset(
            _GPU_MEMORY_SETTINGS
            + (  # memory_hook.py:234-240
                "generate_piecewise_cuda_graph_tokens",
            )
        ),
    ),
    SourceArea("attn_dp_size_flag", frozenset({"handle_data_parallelism"})),  # 0.5.9 server_args.py:2109
    SourceArea(
        "spec_v2_env_default",
        frozenset(
            {
                "handle_speculative_decoding",  # 0.5.9 server_args.py:2352-2450, speculative_hook.py
                "handle_eagle_family",
            }
        ),
    ),
    SourceArea("gpt_oss_trtllm_mha_disables_hybrid_swa", frozenset(_MODEL_ADJUSTMENTS), modules=("srt/arg_groups/model_overrides/gpt_oss.py",)),
    SourceArea("llama4_attention_backends", frozenset(_MODEL_ADJUSTMENTS), modules=("srt/arg_groups/model_overrides/llama4.py",)),
    SourceArea("glm4v_vision_pads_heads", frozenset(), unread=("srt/models/glm4v.py",)),
    SourceArea("gemma3_rope_in_attention", frozenset(), unread=("srt/models/gemma3_causal.py",)),
    SourceArea("gemma3_rope_per_layer_type", frozenset(), unread=("transformers: models/gemma3/configuration_gemma3.py of the release's pin",)),
    SourceArea("nemotron_h_reads_layers_block_type", frozenset(), unread=("srt/configs/nemotron_h.py",)),
    SourceArea(
        "trtllm_mha_page_sizes",
        frozenset(
            {
                "_handle_attention_backend_compatibility",  # 0.5.9 server_args.py:1904
                "_mla_backend_page_constraints",
                "_page_size_default",
            }
        ),
    ),  # 0.5.23 arg_groups/overrides.py:1183
    SourceArea(
        "hybrid_sm100_model_overrides", frozenset(_MODEL_ADJUSTMENTS + ("handle_mamba_backend", "handle_linear_attn_backend")), modules=_MAMBA_OVERRIDES
    ),
    SourceArea("mamba2_sm100_default_backend", frozenset(_MODEL_ADJUSTMENTS + ("apply_nemotron_h_defaults",)), modules=_MAMBA_OVERRIDES),
    SourceArea("mamba_auto_picks_extra_buffer", frozenset(_MAMBA_STRATEGY)),
    SourceArea("no_buffer_forces_page_one", frozenset(_MAMBA_STRATEGY)),
    SourceArea("resolve_mamba_strategy", frozenset(_MAMBA_STRATEGY)),
    SourceArea(
        "mamba_radix_archs",
        frozenset(_MAMBA_STRATEGY + _MODEL_ADJUSTMENTS),  # 0.5.9 server_args.py:1548
        modules=_MAMBA_OVERRIDES,
    ),
    SourceArea("mamba_extra_buffer_archs", frozenset(_MAMBA_STRATEGY + _MODEL_ADJUSTMENTS), modules=_MAMBA_OVERRIDES),
    SourceArea("honours_language_model_only", frozenset({"ModelConfig.__init__"})),  # model_config.py is_lm_only
    SourceArea(
        "quant_config_check",
        frozenset({"ModelConfig._verify_quantization", "ModelConfig._parse_modelopt_quant_config"}),
        unread=("srt/layers/quantization/modelopt_quant.py", "srt/layers/quantization/__init__.py"),
    ),
    SourceArea("modelopt_fp4_min_sm", frozenset(), unread=("srt/layers/quantization/modelopt_quant.py",)),  # ModelOptFp4Config.get_min_capability
    SourceArea("mxfp4_sm100_intermediate_pad", frozenset(), unread=("srt/layers/quantization/mxfp4.py",)),  # Mxfp4MoEMethod.create_weights round_up
    SourceArea(
        "weight_dtype_quirks", frozenset(), unread=("srt/models/qwen3_5.py", "srt/models/qwen3_next.py", "srt/models/glm4_moe.py", "srt/models/nemotron_h.py")
    ),
    SourceArea(
        "draft_loaded_before_sizing",
        frozenset({"ModelRunner.initialize", "ModelRunner.load_model", "EAGLEWorker.__init__", "EagleDraftWorker.__init__", "EAGLEWorkerV2.__init__"}),
        unread=("srt/managers/scheduler.py",),
    ),  # 0.5.9 scheduler.py:563-565 init_model_worker
    SourceArea(
        "draft_kv_in_fraction",
        frozenset(
            {
                "get_cell_size_per_token",
                "DefaultPoolConfigurator.__init__",  # 0.5.23 pool_configurator.py:259-314
                "_dflash_draft_cell_size",
                "_draft_pool_bytes_per_token",
            }
        ),
    ),
    SourceArea("hybrid_swa_ratio_cell", frozenset({"get_cell_size_per_token", "HybridSWAPoolConfigurator"})),
    SourceArea(
        "swa_request_cap",
        frozenset(
            {
                "compute_swa_request_cap",
                "SWARequestCapPoolConfigurator",
                "SWAChunkCapPoolConfigurator",  # its name up to 0.5.21
                "create_memory_pool_configurator",
            }
        ),
    ),
    SourceArea("multimodal_runtime_reservation", frozenset({"mm_runtime_reservation_gb", "_profile_available_bytes"})),
    SourceArea(
        "large_hopper_vl_serving_archs",
        frozenset({"large_hopper_qwen3_vl_model_type", "expand_multimodal_decode_graph_to_running_limit", "_qwen3vl_hopper_serving_overrides"}),
    ),
    SourceArea(
        "dsa",
        frozenset(
            {
                "set_default_nsa_kv_cache_dtype",  # 0.5.9 server_args.py:1129
                "set_default_nsa_backends",
                "dsa_kv_cache_dtype_default",  # 0.5.23 arg_groups/overrides.py
                "dsa_split_backend_resolution",
                "compute_dsa_indexer_cell_size",  # 0.5.23 pool_configurator.py
                "calculate_mla_kv_cache_dim",
                "get_cell_size_per_token",
                "DeepseekV2AttentionMLA.__init__",  # which layers build an Indexer
            }
        ),
        modules=("srt/arg_groups/model_overrides/deepseek_v2.py",),
        unread=("srt/layers/attention/dsa/dsa_indexer.py", "srt/layers/attention/nsa/nsa_indexer.py"),
    ),
    SourceArea("config_type_fallbacks", frozenset({"get_config", "load_deepseek_v32_model"})),
    SourceArea("mamba_split", frozenset(_MAMBA_POOL)),
    SourceArea("mamba_slots_per_request", frozenset(_MAMBA_POOL + ("_calculate_mamba_ratio",))),  # 0.5.23 kv_cache_configurator.py:3062-3088
    SourceArea("mamba_skip_decode_lock_env", frozenset({"_calculate_mamba_ratio"})),  # 0.5.23 kv_cache_configurator.py:3066
    SourceArea("mamba_padding_slots_after_sizing", frozenset(_MAMBA_POOL + ("HybridReqToTokenPool.__init__", "MambaPool.__init__"))),
    SourceArea("mamba_spec_states_follow_slots", frozenset(_MAMBA_POOL)),
    SourceArea(
        "kv_tokens",
        frozenset(
            {
                "profile_max_num_token",
                "init_memory_pool",  # 0.5.9 model_runner_kv_cache_mixin.py:116, :339
                "_profile_available_bytes",
                "_resolve_memory_pool_config",
                "_derive_pool_sizes",
                "calculate_pool_sizes",
                "calculate_pool_sizes_from_max_tokens",
            }
        ),
    ),  # 0.5.23 pool_configurator.py:637
    SourceArea(
        "request_cap",
        frozenset(
            {
                "ModelRunner.initialize",  # 0.5.9 model_runner.py:590-600
                "resolve_max_num_reqs",
                "finalize_with_max_running_requests",
            }
        ),
    ),  # 0.5.23 kv_cache_configurator.py:3119
    SourceArea("requests_per_worker_at_least_one", frozenset({"resolve_max_num_reqs"} | set(_MAMBA_POOL))),
    SourceArea(
        "asserts_max_req_input_len",
        frozenset(
            {
                "TpModelWorker.__init__",  # 0.5.9 tp_worker.py:282-294
                "TpModelWorker.alloc_memory_pool",
            }
        ),
    ),  # 0.5.23 tp_worker.py:420-425
    SourceArea(
        "messages",
        frozenset(
            _MAMBA_POOL
            + (
                "profile_max_num_token",
                "_profile_available_bytes",
                "init_memory_pool",
                "resolve_max_num_reqs",
                "init_torch_distributed",  # 0.5.9 model_runner.py:828-851 imbalance
                "_check_tp_memory_balance",  # 0.5.23 distributed/bootstrap.py:441-452
                "TpModelWorker.get_worker_info",  # 0.5.23 tp_worker.py:558-567 KV below context
                "validate_swa_pool_size",
                "calculate_pool_sizes",
                "_resolve_memory_pool_config",
            )
        ),
    ),  # code too: 0.5.11 sets the fraction only after the pool is built
)


@dataclass(frozen=True)
class FieldChange:
    """A SizingBehaviour field whose source area changed, and the changes that say so (report lines)."""

    field: str
    evidence: Tuple[str, ...]


@dataclass(frozen=True)
class Draft:
    version: str
    previous: str
    diff_report: str
    changed: Tuple[FieldChange, ...]
    unread: Tuple[SourceArea, ...]  # areas with files release_diff.py does not read

    @property
    def path_name(self) -> str:
        return f"{self.version}.md"


class DraftError(SystemExit):
    """V cannot be drafted; the message says why."""


# ------------------------------------------------------------------------------------------------
# What can be drafted
# ------------------------------------------------------------------------------------------------
def sizing_name(version: str) -> str:
    """The registry's variable for a release's sizing: ``0.5.10.post1`` -> ``_SIZING_0_5_10_post1``."""
    return "_SIZING_" + version.replace(".", "_")


def index_versions(index: str, project: str = PROJECT) -> FrozenSet[str]:
    """The versions a PEP 691 JSON simple index lists for ``project`` (its PEP 700 ``versions`` key)."""
    url = index.format(project=project)
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json", "User-Agent": "llmops.sglang draft_release"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            data = json.loads(response.read())
    except (urllib.error.URLError, ValueError) as exc:
        raise DraftError(f"cannot read the package index {url}: {exc}") from exc
    if "versions" not in data:
        raise DraftError(f"the package index {url} lists no versions (PEP 700, api-version >= 1.1)")
    return frozenset(data["versions"])


def check_draftable(version: str, previous: Optional[str], index: str) -> str:
    """The release to diff against (``previous`` or the registry's newest), or DraftError saying why not."""
    try:
        releases.parse_version(version)
        wanted = Version(version)
    except (releases.UnsupportedVersionError, InvalidVersion):
        raise DraftError(f"{version!r} is not an SGLang version (MAJOR.MINOR.PATCH[.postN], e.g. 0.5.24)") from None
    if previous is None:
        if version in releases.RELEASES:
            raise DraftError(
                f"sglang {version} is already in the registry (plugins/plugin_utils/releases.py); "
                f"`make catalogs` regenerates its data, or pass --previous to draft it again"
            )
        previous = releases.SUPPORTED_VERSIONS[-1]
    elif previous not in releases.RELEASES:
        raise DraftError(f"--previous {previous} is not in the registry (it has: {', '.join(releases.SUPPORTED_VERSIONS)})")
    if wanted <= Version(previous):
        raise DraftError(f"sglang {version} is not newer than {previous}, the release it would be drafted from")
    listed = index_versions(index)
    if not any(_same_version(v, wanted) for v in listed):
        newest = max((Version(v) for v in listed if _is_version(v)), default=None)
        raise DraftError(f"sglang {version} is not on the package index ({index.format(project=PROJECT)}; newest there: {newest})")
    return previous


def _is_version(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


def _same_version(text: str, wanted: Version) -> bool:
    return _is_version(text) and Version(text) == wanted


# ------------------------------------------------------------------------------------------------
# Diff -> fields
# ------------------------------------------------------------------------------------------------
def bare(name: str) -> str:
    """``ServerArgs._handle_x`` -> ``ServerArgs.handle_x`` (``__init__`` stays distinct: ``init__``)."""
    return ".".join(part.lstrip("_") for part in name.split("."))


def _names_match(qualname: str, names: FrozenSet[str]) -> bool:
    qualname = bare(qualname)
    parts = qualname.split(".")
    return any(qualname == n or qualname.endswith("." + n) if "." in n else n in parts for n in map(bare, names))


def _in_area(area: SourceArea, module: str, qualname: str) -> bool:
    return _names_match(qualname, area.names) or any(module == m or module.endswith("/" + m) for m in area.modules)


def fields_changed(diff: release_diff.ReleaseDiff) -> Tuple[FieldChange, ...]:
    """Each SizingBehaviour field (in its declaration order) whose source area the diff touches, with evidence."""
    out = []
    for area in SOURCE_AREAS:
        evidence: List[str] = []
        if not area.messages_only:
            for c in diff.functions:
                modules = {c.module} | {loc.rsplit(":", 1)[0] for loc in (c.prev_location, c.new_location) if loc}
                if any(_in_area(area, m, c.qualname) for m in modules):
                    where = " -> ".join(x for x in (c.prev_location, c.new_location) if x)
                    evidence.append(f"{c.qualname} {c.kind} [{where}]")
        for m in diff.messages:
            if _in_area(area, m.module, m.qualname or ""):
                sign = "+" if m.kind == "added" else "-"
                evidence.append(f"{sign} {m.statement} {m.location} in {m.qualname}: {m.text}")
        if evidence:
            out.append(FieldChange(area.field, tuple(evidence)))
    return tuple(out)


def draft(version: str, previous: str) -> Draft:
    """Diff ``previous`` -> ``version`` and map the changes onto SizingBehaviour fields."""
    diff = release_diff.compare(previous, version)
    return Draft(
        version=version,
        previous=previous,
        diff_report=release_diff.render(diff),
        changed=fields_changed(diff),
        unread=tuple(a for a in SOURCE_AREAS if a.unread),
    )


# ------------------------------------------------------------------------------------------------
# The document
# ------------------------------------------------------------------------------------------------
# The same steps as CONTRIBUTING.md "Adding an SGLang release" (tests/unit/test_draft_release.py checks it).
CHECKLIST: Tuple[str, ...] = (
    "Read the diff report (section 1) and this draft; the field list is a map of where to look, not a verdict.",
    "For each field listed in section 2, read SGLang {version}'s source and set the field in `{sizing}` "
    "with a comment citing file:line in the {version} wheel (`.cache/sglang-src/{version}/sglang/`); delete the "
    "commented lines that do not change, and check the files under \"Not read by release_diff.py\" by hand.",
    "Paste the entry into `plugins/plugin_utils/releases.py` after `{previous_sizing}` and the `_REGISTRY` line "
    "after `(\"{previous}\", ...)`; with the sizing set, the line is `(\"{version}\", {sizing}, \"source\")`.",
    "Record the flag registration: `python scripts/record_flag_registration.py {version}` (it builds a venv; "
    "tests/fixtures/flag_registration/README.md), then "
    "`pytest -q tests/unit/plugins/plugin_utils/test_flag_catalog.py`.",
    "Run the oracle: `make release V={version} ORACLE=1` or `ORACLE_VERSIONS={version} make oracle` (bench/oracle/"
    "adapters.py needs the release: a harness, subclassed only where the internals differ, and a requirements "
    "file), then commit `tests/fixtures/oracle/sglang-{version}.json`.",
    "`python bench/bench_budget.py`: flip verified_by to \"oracle\" only when the engine agrees on >= 99 % of "
    ">= 150 cases; otherwise fix the behaviour from the source (never to fit the fixture) or keep \"source\".",
    "Regenerate the generated docs: `python scripts/gen_release_docs.py` (README and roles' tables).",
    "Add a changelog fragment under `changelogs/fragments/` and run `make changelog`.",
)


def checklist(version: str, previous: str) -> List[str]:
    values = {"version": version, "previous": previous, "sizing": sizing_name(version), "previous_sizing": sizing_name(previous)}
    return [f"{i}. {step.format(**values)}" for i, step in enumerate(CHECKLIST, 1)]


def render(d: Draft) -> str:
    prev_release = releases.RELEASES[d.previous]
    base = sizing_name(d.previous)
    lines = [
        f"# Drafting SGLang {d.version} from {d.previous}",
        "",
        f"Written by `python scripts/draft_release.py {d.version} --previous {d.previous}` (`make release "
        f"V={d.version}`). Every line below is a place to read in SGLang {d.version}'s source, not a result.",
        "",
        f"## 1. Sizing-relevant source changes (`scripts/release_diff.py {d.previous} {d.version}`)",
        "",
        "````text",
        d.diff_report,
        "````",
        "",
        "## 2. Draft registry entry (`plugins/plugin_utils/releases.py`)",
        "",
    ]
    if prev_release.sizing is None:
        lines += [
            f"SGLang {d.previous}'s sizing is not modelled, so `{base}` does not exist yet: model it first, "
            f"or draft from a modelled release with `--previous`.",
            "",
        ]
    lines += [
        f"{len(d.changed)} of {len(dataclasses.fields(SizingBehaviour))} SizingBehaviour fields have a changed source area.",
        "",
        "```python",
        f"# {d.version}: <what differs from {d.previous}, each with file:line in the {d.version} wheel>",
        f"{sizing_name(d.version)} = replace(",
        f"    {base},",
    ]
    for change in d.changed:
        lines.append(f"    # {change.field}=...,  # {len(change.evidence)} change(s), see below")
    lines += [
        ")",
        "```",
        "",
        f"In `_REGISTRY`, after `(\"{d.previous}\", ...)`:",
        "",
        "```python",
        f"    (\"{d.version}\", None, None),",
        "```",
        "",
        "### Why each field is listed",
        "",
    ]
    for change in d.changed:
        lines.append(f"- `{change.field}`:")
        lines += [f"    - {line}" for line in change.evidence]
    lines += ["", "### Not read by release_diff.py: check by hand", ""]
    lines += [f"- `{a.field}`: " + ", ".join(f"`{m}`" for m in a.unread) for a in d.unread]
    lines += ["", "## 3. Checklist", ""] + checklist(d.version, d.previous)
    return "\n".join(lines) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("version", help="the new SGLang release, e.g. 0.5.24")
    cli.add_argument("--previous", help="the registry release to diff against (default: the newest)")
    cli.add_argument("--out", type=Path, default=DRAFT_DIR, help=f"where V.md goes (default {DRAFT_DIR})")
    cli.add_argument("--check", action="store_true", help="only check that V can be drafted")
    cli.add_argument("--index", default=SIMPLE_INDEX, help="the PEP 691 JSON simple index URL, {project} for the name (default: PyPI's)")
    args = cli.parse_args(argv)
    previous = check_draftable(args.version, args.previous, args.index)
    if args.check:
        print(f"sglang {args.version} is on the package index; it will be drafted from {previous}")
        return 0
    result = draft(args.version, previous)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / result.path_name
    path.write_text(render(result), encoding="utf-8")
    shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    print(
        f"draft of SGLang {args.version} (from {previous}): {shown}; "
        f"{len(result.changed)} fields to check: {', '.join(c.field for c in result.changed) or 'none'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
