# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Map SGLang's own failure and warning messages (``data/sglang-messages.json``) to catalog ids.

The index is generated from every release's wheel by ``scripts/gen_message_templates.py``. Each template is
mapped by the first :class:`MessageRule` of :data:`RULES` that matches it: to a root cause of ``catalog.py``,
or to ``other`` with a one-line reason saying why the message is none of the catalog's causes. The rules are
modelled on what the messages mean in SGLang's source (the raising code), in this order: messages without
static text; messages that name a catalogued cause; SGLang's argument checks; warnings SGLang carries on past;
then each source area's own failures, which the catalog has no id for.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache

from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.catalog import CAUSES
from ansible_collections.llmops.sglang.plugins.plugin_utils.diagnosis.literal_index import required_literals

INDEX_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "sglang-messages.json")

# Kinds of the index: raise:<Exception>, assert (with a message), assert:condition (a bare assert: the template is
# its condition's source), logger.error / logger.exception / logger.critical, logger.warning, dynamic:<kind>.
ERROR_KIND = r"^(?:raise:|assert|logger\.(?:error|exception|critical)$)"
WARNING_KIND = r"^logger\.warning$"
MESSAGE_ERROR_KIND = r"^(?:raise:|assert$|logger\.(?:error|exception|critical)$)"
BARE_ASSERT_KIND = r"^assert:condition$"

# Areas of sglang/srt, as module-path regexes.
ARGUMENT_MODULES = r"^sglang/srt/(?:server_args\.py|server_args_config_parser\.py|arg_groups/)"
REQUEST_MODULES = (
    r"^sglang/srt/(?:openai_api/|entrypoints/(?:openai|anthropic|systemone|search|tool|harmony_utils|context)|"
    r"function_call|parser/|reasoning_parser|code_completion_parser|conversation|jinja_template_utils|sampling/|constrained/|"
    r"managers/(?:io_struct|tokenizer_manager|template_manager|template_detection|multimodal_processor|image_processor|"
    r"multimodal_processors/|image_processors/|mm_utils|multi_modality_padding|session_controller|async_mm_data_processor)|"
    r"multimodal/|mm_utils|session/|entrypoints/(?:http_request_decompression|request_headers|v1_loads))"
)

# SGLang's combination wording ("cannot be used with", "is not supported with", "requires --flag", "only
# supported when") in its argument checks and kernels' limits.
COMBINATION_WORDS = (
    r"cannot be (?:used|combined|enabled|set)\b|\bnot (?:yet )?(?:supported|compatible|allowed|implemented|available)\s+(?:with|when|for|in|together|"
    r"if|on a|under|while)\b|"
    r"incompatible|mutually exclusive|\bonly (?:be )?(?:supported|used|works?|available|valid|applies|compatible|allowed|implemented|enabled|makes sense)\b|"
    r"\brequires?\b|\bneeds?\b|must (?:also )?(?:be )?(?:used|set|enabled|specified|disabled|provided|combined|paired|on|off)\b|"
    r"(?:is|are) (?:only )?required\b|conflicts?\b|does(?:n't| not) (?:yet )?(?:support|work)|do(?:n't| not) (?:yet )?support|"
    r"\bonly supports?\b|compatibility of \w+ and|\bwhen (?:setting|enabling|using)\b|\bis not supported (?:for|with|in|on|when|under)\b|"
    r"cannot (?:enable|set|use|specify|run|be)\b|\bboth\b|\beither\b|\btogether\b|\bwithout\b|\bwhen (?:using|--|\w+ is)|\bwith --"
)
COMBINATION = "(?i)" + COMBINATION_WORDS
# A check outside the argument modules that names a flag next to the combination wording.
NAMES_A_FLAG = r"(?is)^(?=.*?--[a-z]).*?(?:" + COMBINATION_WORDS + r")"
# A message that names a GPU generation a kernel or backend needs.
_ARCH = r"(?:NVIDIA |CUDA |AMD |an? |the )?\(?(?:SM ?>?=? ?\d{2,3}\w*|sm_?\d{2,3}\w*|SM\d+x|Hopper|Blackwell|Ampere|Ada|compute capability|gfx9\d+|MI3\d\d)"
GPU_ARCH = (
    r"(?i)(?:requires?|needs?|supported only on|only (?:be )?(?:supported|available|implemented|works?|runs?) on|not (?:yet )?supported on|unsupported on|"
    r"is only supported on|(?:supports?|available on) only|only supports?)\s+" + _ARCH + r"|"
    r"not supported on (?:this|your|the current|these) (?:GPU|hardware|device|platform|architecture)|Unsupported compute capability|"
    r"Current platform does not support|hardware does not support|not supported on (?:Blackwell|Hopper|Ampere|SM ?\d+)|"
    r"supports? SM\d+ and SM\d+ only|on (?:Blackwell|Hopper) GPUs|Blackwell GPUs|Hopper GPUs"
)
DEPENDENCY = (
    r"(?i)\bpip install\b|please install|\bis not installed\b|not installed\b|\binstall (?:it|the|with)\b|please upgrade|\bupgrade (?:your|to|it)\b|"
    r"version is wrong|increase the version of|requires? (?:\w+[-_ ])?(?:version|package)|package is required|is required (?:for|to|when)\b.{0,40}\bpackage|"
    r"(?:flashinfer|sgl[-_]kernel|vllm|transformers|triton|torch|deep_?gemm|cuDNN|Mooncake|mooncake-transfer-engine|grpcio)\s*(?:>=|version|"
    r"is not available|not available)|"
    r"library not found|Failed to load \w+ library|could not import|failed to import|Cannot import"
)
# A bare assert that checks a parallel size against a model dimension (catalog.DIVISIBILITY_ASSERT_RE, over the source).
DIVISIBILITY = (
    r"%\s*\(?[\w.()\[\]]*(?:tp_size|world_size|ep_size|dp_size|tp_rank_size|attn_tp_size|moe_tp_size)|"
    r"(?:tp_size|world_size|ep_size|dp_size|attn_tp_size|moe_tp_size)[\w.()]*\s*%"
)


@dataclass(frozen=True)
class Release:
    version: str
    archive: str
    sha256: str


@dataclass(frozen=True)
class Template:
    """One deduplicated message: its kind, text (``{}`` per run-time value), modules and releases."""

    kind: str
    text: str
    modules: tuple
    release_ranges: tuple  # ((first index, last index), ...) into MessageIndex.releases
    newest_place: str  # module:line in the newest release that has it

    def in_release(self, index):
        return any(first <= index <= last for first, last in self.release_ranges)

    @property
    def first_release(self):
        return self.release_ranges[0][0]

    @property
    def last_release(self):
        return self.release_ranges[-1][1]

    @property
    def is_warning(self):
        return self.kind == "logger.warning"

    @property
    def is_error_site(self):
        """A raise, an assert or an error-level log line (the sites the coverage counts), static or dynamic."""
        prefix = len("dynamic:")
        kind = self.kind[prefix:] if self.kind.startswith("dynamic:") else self.kind
        return re.match(ERROR_KIND, kind) is not None


@dataclass(frozen=True)
class MessageIndex:
    releases: tuple
    templates: tuple

    def release_index(self, version):
        for index, release in enumerate(self.releases):
            if release.version == version:
                return index
        raise KeyError(f"SGLang {version} is not in the message index ({self.releases[0].version}-{self.releases[-1].version})")


def _ranges(text):
    out = []
    for item in text.split(","):
        first, _sep, last = item.partition("-")
        out.append((int(first), int(last or first)))
    return tuple(out)


@lru_cache(maxsize=1)
def load_index():
    """The generated index (read once)."""
    with open(INDEX_PATH, encoding="utf-8") as handle:
        data = json.load(handle)
    modules = data["modules"]
    templates = []
    for kind, text, module_indexes, release_ranges, newest in data["templates"]:
        module_index, _sep, line = newest.partition(":")
        templates.append(Template(kind, text, tuple(modules[i] for i in module_indexes), _ranges(release_ranges), f"{modules[int(module_index)]}:{line}"))
    releases = tuple(Release(r["version"], r["archive"], r["sha256"]) for r in data["releases"])
    return MessageIndex(releases, tuple(templates))


@dataclass(frozen=True)
class MessageRule:
    """Templates whose text (and module path, kind) match go to ``target``: a catalog id, or ``other`` with a reason.

    ``wrapper`` marks a message that wraps another exception (``Capture cuda graph failed: {e}``): as a pattern it
    yields to a specific cause. ``warning`` rules map warnings that name a catalogued cause.
    """

    target: str
    text: str = ""
    module: str = ""
    kind: str = ERROR_KIND
    reason: str = ""
    wrapper: bool = False


class _CompiledRule:
    """A rule's regexes compiled once, with memoised kind and module tests (the index holds thousands of
    templates but few distinct kinds and modules) and the literals its text regex cannot match without."""

    def __init__(self, rule):
        self.rule = rule
        self.kind = re.compile(rule.kind) if rule.kind else None
        self.module = re.compile(rule.module) if rule.module else None
        self.text = re.compile(rule.text) if rule.text else None
        literals = required_literals(rule.text) if rule.text else None
        self.literals = tuple(sorted(literals)) if literals else None
        self._kinds = {}
        self._modules = {}

    def _kind_ok(self, kind):
        if kind not in self._kinds:
            self._kinds[kind] = self.kind.search(kind) is not None
        return self._kinds[kind]

    def _module_ok(self, modules):
        if modules not in self._modules:
            self._modules[modules] = any(self.module.search(path) for path in modules)
        return self._modules[modules]

    def matches(self, template, low_text=None):
        if self.kind is not None and not self._kind_ok(template.kind):
            return False
        if self.module is not None and not self._module_ok(template.modules):
            return False
        if self.text is None:
            return True
        if self.literals is not None:
            low = template.text.lower() if low_text is None else low_text
            if not any(literal in low for literal in self.literals):
                return False
        return self.text.search(template.text) is not None


def _id(target, text, **kwargs):
    return MessageRule(target=target, text=text, **kwargs)


def _other(reason, text="", **kwargs):
    return MessageRule(target="other", text=text, reason=reason, **kwargs)


WARNING_REASON = "warning, start continues"
BUG_REASON = "{}: a bug to report upstream, not a launch configuration"

RULES = (
    # -- no static text ----------------------------------------------------------------------------------------
    _other(
        "no static text: the message is built at run time (the template is its source expression), so the log's exception line is left to the "
        "catalog's own patterns",
        kind=r"^dynamic:",
    ),
    # -- messages that name a catalogued cause ---------------------------------------------------------------
    # 0.4.0 model_executor/model_runner.py "Not enough memory. Please try to increase --mem-fraction-static."; 0.5.23
    # model_executor/pool_configurator.py (with "Current value: ..."); 0.5.23 mem_cache/kv_cache_configurator.py
    _id("kv_pool_too_small", r"Not enough memory\. Please try to increase --mem-fraction-static|Loaded weights leave no GPU memory for the KV cache"),
    _id("kv_pool_too_small", r"^(?:Memory pool size is too small|max_running_request is zero)$", module=r"managers/tp_worker"),
    _id("kv_pool_too_small", r"SWA pool .{0,40}(?:cannot hold even one request|leaves no room for the full KV pool)|cannot fit ONE worst-case request"),
    _id("kv_pool_too_small", r"leaves no allocatable page for sub-pool"),
    _id("mamba_pool_too_small", r"Not enough GPU memory for hybrid \(mamba/linear-attention\) state cache|state cache is too small to serve any requests"),
    _id("mamba_pool_too_small", r"auxiliary-state cache is too small to serve any requests"),
    _id("mamba_pool_too_small", r"max_running_requests is capped to \{\} by the mamba state cache", kind=WARNING_KIND),
    _id("req_pool_exhausted_runtime", r"alloc_req_slots runs out of memory|Not enough space for mamba (?:cache|ping pong idx)"),
    # managers/schedule_batch.py "{Prefill,Decode} out of memory. Try to lower your batch size." ("Avaliable tokens" up to 0.4.9.post1)
    _id("kv_pool_exhausted_runtime", r"out of memory\. Try to lower your batch size|Out of memory even after retracting"),
    _id("kv_pool_exhausted_runtime", r"KV cache pool is full\. Retract requests", kind=WARNING_KIND),
    _id("tp_memory_imbalance", r"The memory capacity is unbalanced"),
    _id(
        "context_length_exceeds_model",
        r"User-specified context_length \(\{\}\) is greater than the derived|set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN",
    ),
    _id("port_in_use", r"Port is already in use|port \{\} is already in use|Could not bind port|The port \{\} is in use|is not available in \{\} seconds"),
    _id("model_not_found", r"Cannot find any model weights with"),
    _id("model_download_failed", r"Download failed for \{\} after|Downloaded model files are (?:still )?corrupted"),
    _id("unsupported_architecture", r"Model architectures \{\} are not supported for now|Cannot find model module\. '\{\}' is not a registered model"),
    _id("unsupported_architecture", r"does not support model architecture \{\}"),
    _id(
        "tokenizer_error",
        r"Failed to load the tokenizer|failed to load tokenizer for|Retry with use_fast=False for \{\} also failed|"
        r"Cannot use the fast tokenizer in slow tokenizer mode",
    ),
    # entrypoints/http_server.py _wait_and_warmup / _execute_server_warmup
    _id("warmup_failed", r"^Initialization failed\. warmup error"),
    # model_executor/cuda_graph_runner.py (0.4.x "Capture CUDA graph failed", later "Capture cuda graph failed")
    _id("cuda_graph_capture_error", r"^Capture (?:cuda|CUDA) graph failed", wrapper=True),
    _id("nccl_failure", r"^NCCL error: \{\}$"),
    # the 0.5.9 / 0.5.23 quantization refusals of catalog.py (layers/quantization/modelopt_quant.py), and the
    # shard misfits of a quantized checkpoint under TP (fp8.py block_n/block_k, the Marlin / AWQ / GPTQ group and
    # thread sizes, the "not aligned with the quantized weight shape" check of parameter.py)
    _id("unsupported_quantization", r"only supports static FP8 quantization"),
    _id(
        "quant_shard_misaligned",
        r"is not divisible by weight quantization block_[nk]|is not divisible by\s+(?:group_size|min_thread_[nk]|min_[nk]_threads|pack_factor)"
        r"|size is not aligned with the quantized weight shape",
    ),
    _id("dependency_import_error", "", kind=r"^raise:(?:ImportError|ModuleNotFoundError)$"),
    _id("dependency_import_error", DEPENDENCY),
    _id("unsupported_gpu_arch", GPU_ARCH),
    # -- SGLang's argument checks -----------------------------------------------------------------------------
    _id("invalid_argument_value", DIVISIBILITY, kind=BARE_ASSERT_KIND),
    _id("incompatible_feature_combination", COMBINATION, module=ARGUMENT_MODULES),
    _id("invalid_argument_value", "", module=ARGUMENT_MODULES),
    # -- warnings SGLang carries on past ----------------------------------------------------------------------
    _other(WARNING_REASON, kind=WARNING_KIND),
    # -- requests and disaggregation: their own failures, whatever they mention ------------------------------
    _other(
        "request validation or request processing: it rejects one request with an error response and the server keeps serving",
        module=REQUEST_MODULES,
    ),
    _other(
        "prefill/decode (or encoder) disaggregation: its bootstrap, KV transfer or peer pairing failed; the catalog has no disaggregation cause",
        module=r"^sglang/srt/disaggregation/",
    ),
    # -- a check elsewhere that names a flag it cannot be combined with ---------------------------------------
    _id(
        "incompatible_feature_combination",
        NAMES_A_FLAG,
        kind=MESSAGE_ERROR_KIND,
    ),
    _id(
        "unsupported_quantization",
        r"(?i)not (?:yet )?supported|unsupported|only supports?|does not support|not implemented|unknown quant|cannot load",
        kind=MESSAGE_ERROR_KIND,
        module=r"^sglang/srt/layers/quantization/",
    ),
    # -- wrappers: the lines before them say why ---------------------------------------------------------------
    _other(
        "a wrapper: a subprocess or the scheduler failed to initialize and this line points at the messages above, which name the cause",
        r"^Initialization failed\. Please see the error messages above|scheduler is dead|hit an exception: \{\}$|^Exception in \w+:?\s*\{\}$|"
        r"failed to be inspected\. Please check the logs",
    ),
    # -- each area's own failures, which the catalog has no id for ----------------------------------------------
    _other(
        "hierarchical (host or storage) KV cache: its storage backend's setup or I/O failed; the catalog has no HiCache cause",
        module=r"^sglang/srt/mem_cache/(?:storage/|pool_host|memory_pool_host|hiradix|hi_mamba|hicache|mooncake_store|nixl|lmcache|host_memory|embedding_store|"
        r"embedding_cache_controller|flush_cache|l2_transfer)|^sglang/srt/managers/cache_controller",
    ),
    _other("LoRA adapters: loading or batching an adapter failed; the catalog has no LoRA cause", module=r"^sglang/srt/(?:lora/|mem_cache/lora_)"),
    _other(
        "a non-CUDA hardware backend (Ascend NPU, MLX, XPU, CPU, HPU): outside the CUDA deployments the catalog covers",
        module=r"^sglang/srt/(?:hardware_backend/|platforms/|layers/amx_utils|mem_cache/allocator_ascend|model_executor/(?:npu_graph_runner|"
        r"mindspore_runner|cpu_graph_runner))",
    ),
    _other(
        "debugging, tracing or benchmarking aids: not on the launch path",
        module=r"^sglang/srt/(?:debug_utils/|kv_canary/|observability/|tracing/|metrics/|bench_utils|eplb_simulator/|managers/(?:scheduler_profiler|"
        r"request_metrics)|"
        r"managers/scheduler_runtime_checker)",
    ),
    _other(
        "expert-parallel load balancing and elastic EP: an internal invariant of expert placement, a bug to report upstream",
        module=r"^sglang/srt/(?:eplb/|elastic_ep/|managers/(?:eplb|expert_|deepseek_eplb)|model_executor/expert_location)",
    ),
    _other(
        BUG_REASON.format("internal invariant of speculative decoding (draft model, verification, its CUDA graphs)"),
        module=r"^sglang/srt/(?:speculative/|dllm/|beam_search/)",
    ),
    _other(
        BUG_REASON.format("internal invariant of the attention backend"), module=r"^sglang/srt/layers/(?:attention/|radix|dcp|cp/|communicator_(?:nsa|dsa)_cp)"
    ),
    _other(
        BUG_REASON.format("internal invariant of the MoE layers (routing, dispatch, expert kernels)"), module=r"^sglang/srt/layers/(?:moe/|fused_moe|ep_moe)"
    ),
    _other(BUG_REASON.format("internal invariant of a quantization method's weights or kernels"), module=r"^sglang/srt/layers/quantization/"),
    _other(BUG_REASON.format("internal invariant of a model layer (linear, rotary, embedding, communication, sampler)"), module=r"^sglang/srt/layers/"),
    _other(
        "the model implementation's check of this architecture's config, weights or inputs: a bug or an unsupported checkpoint variant to report upstream",
        module=r"^sglang/srt/models/",
    ),
    _other(
        "weight loading: the checkpoint's files or tensors are not what this loader expects (format, names, shapes), a cause the catalog does not name",
        module=r"^sglang/srt/(?:model_loader/|weight_cache/|weight_sync/|checkpoint_engine/|connector/)",
    ),
    _other(
        "model configuration: the checkpoint's config has values this release does not understand, a cause the catalog does not name",
        module=r"^sglang/srt/(?:configs/|hf_transformers_utils|utils/hf_transformers)",
    ),
    _other(
        BUG_REASON.format("internal invariant of the KV cache, its pools or the radix tree"),
        module=r"^sglang/srt/mem_cache/",
    ),
    _other(
        BUG_REASON.format("internal invariant of the distributed layer (process groups, communicators, all-reduce)"),
        module=r"^sglang/srt/(?:distributed/|layers/communicat|poll_based_barrier|host_shared_memory)",
    ),
    _other(
        BUG_REASON.format("internal invariant of the model runner (forward batch, CUDA graph buffers, compilation)"),
        module=r"^sglang/srt/(?:model_executor/|compilation/|batch_overlap/|two_batch_overlap|single_batch_overlap|operations|batch_invariant_ops/|"
        r"custom_op|_custom_ops|patch_torch|"
        r"torch_memory_saver_adapter|offloader|cuda_vmm|kernel_plugins/|state_capturer/|runtime_context|multiplex/)",
    ),
    _other(
        BUG_REASON.format("internal invariant of the scheduler and its managers"),
        module=r"^sglang/srt/managers/",
    ),
    _other(
        "server front end (HTTP, gRPC, engine API): a request or a control call failed, not a launch configuration",
        module=r"^sglang/srt/(?:entrypoints/|server\.py|grpc/|rust_server/|rust_extensions/|ray/|plugins/)",
    ),
    _other(
        "a shared helper's input check: the caller's own message or frame names the cause",
        module=r"^sglang/srt/(?:utils/|utils\.py|environ\.py|warmup\.py|model_parallel\.py|tokenizer/|aio_rwlock|mm_utils)",
    ),
)


def _validate(rules):
    for rule in rules:
        if rule.target != "other" and rule.target not in CAUSES:
            raise ValueError(f"message rule targets {rule.target!r}, which is not a catalog id")
        if rule.target == "other" and not rule.reason:
            raise ValueError(f"message rule {rule.text!r} maps to other without a reason")
    return rules


_validate(RULES)


@lru_cache(maxsize=1)
def _compiled_rules():
    return tuple(_CompiledRule(rule) for rule in RULES)


def rule_for(template, rules=None):
    """The first rule (of ``rules``, by default :data:`RULES`) that matches ``template``, or None."""
    low = template.text.lower()
    compiled = _compiled_rules() if rules is None else rules
    return next((c.rule for c in compiled if c.matches(template, low)), None)


@lru_cache(maxsize=1)
def mapped_templates():
    """(template, rule or None) for every template of the index, in index order."""
    return tuple((template, rule_for(template)) for template in load_index().templates)


@lru_cache(maxsize=1)
def id_templates():
    """(template, rule) of the templates mapped to a catalog id. Only the rules up to the last one that targets
    an id are tried: a template that passes them all maps to ``other`` (or to nothing)."""
    compiled = _compiled_rules()
    end = 1 + max(index for index, c in enumerate(compiled) if c.rule.target != "other")
    head = compiled[:end]
    out = []
    for template in load_index().templates:
        rule = rule_for(template, head)
        if rule is not None and rule.target != "other":
            out.append((template, rule))
    return tuple(out)


@dataclass(frozen=True)
class CoverageReport:
    """The raise / assert / error-log templates of one release under sglang/srt, and how they are mapped."""

    release: str
    sites: int
    mapped_to_id: int
    reasoned_other: int
    unmapped: int

    @property
    def share(self):
        return (self.mapped_to_id + self.reasoned_other) / self.sites if self.sites else 1.0


def coverage(release):
    """How many of ``release``'s error sites (distinct templates) map to a catalog id or to a reasoned ``other``."""
    index = load_index().release_index(release)
    sites = mapped = other = unmapped = 0
    for template, rule in mapped_templates():
        if not (template.in_release(index) and template.is_error_site):
            continue
        sites += 1
        if rule is None:
            unmapped += 1
        elif rule.target == "other":
            other += 1
        else:
            mapped += 1
    return CoverageReport(release, sites, mapped, other, unmapped)
