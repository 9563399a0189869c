# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sglang_service role's launch decisions, on flag names normalized by the flag validator.

Every check here works on ServerArgs fields, so ``--api-key``, ``api-key`` or ``tensor_parallel_size`` are the
same flags as ``api_key`` and ``tp_size``: a spelling cannot slip a secret into the unit or hide the bind address.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_catalog import load_catalog
from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_validator import check_server_args

# Flags that carry a secret (every catalog in plugin_utils/data was read for flags whose name or help says
# secret, password, key or token; tests/unit/plugins/plugin_utils/test_service_launch_secrets.py re-reads them).
# They reach SGLang only through the unit's 0600 secrets file (--config, a systemd credential), never as
# flags in the unit file or in ps: api_key from sglang_service_api_key, the others from sglang_service_secret_args.
SECRET_FIELDS = (
    "api_key",  # --api-key: the server's bearer key
    "admin_api_key",  # --admin-api-key: the key of the admin endpoints
    "ssl_keyfile_password",  # --ssl-keyfile-password: decrypts the TLS private key
    "watermark_config",  # --watermark-config (0.5.22+): inline JSON may hold the watermark key and key_b
)
RESERVED_FIELDS = SECRET_FIELDS + ("config",)

_TOKENS = "counts, sizes or handling of model tokens (units of text), not a credential"
_JSON_KEYS = "names the keys of a JSON object it takes; holds no credential"
_TENSOR_KEYS = "attention keys or weight keys of the model, not a credential"
# Flags whose name or help says secret, password, key or token but that carry no secret, with the reason.
NOT_SECRET_FIELDS = {
    "ssl_keyfile": "the path of the TLS private key file, not the key; the file's own mode protects it",
    "enable_ssl_refresh": "a switch that reloads the TLS cert and key files; holds no secret",
    "disaggregation_ib_device": "InfiniBand device names",
    "default_chat_template_kwargs": _JSON_KEYS,
    "mm_process_config": _JSON_KEYS,
    "modelexpress_config": _JSON_KEYS + " (a gRPC address, a model name, a source)",
    "radix_eviction_policy_config": _JSON_KEYS,
    "lora_strict_loading": _TENSOR_KEYS,
    "speculative_draft_window_size": _TENSOR_KEYS,
    "enable_encoder_swa_bounded_replay": _TENSOR_KEYS,
}
NOT_SECRET_FIELDS.update(
    {
        field: _TOKENS
        for field in (
            "boundary_reduction",
            "bucket_inter_token_latency",
            "bucket_time_to_first_token",
            "chunked_prefill_size",
            "collect_tokens_histogram",
            "cp_strategy",
            "cuda_graph_bs_prefill",
            "cuda_graph_max_bs_prefill",
            "detokenizer_worker_num",
            "disable_attn_tp_gather",
            "disable_tokenizer_batch_decode",
            "disaggregation_decode_extra_slots",
            "disaggregation_decode_host_receive_threshold",
            "ds_heavy_token_num",
            "dsa_prefill_cp_mode",
            "dsa_triton_union",
            "dwdp_size",
            "dynamic_batch_tokenizer_batch_size",
            "dynamic_batch_tokenizer_batch_timeout",
            "enable_cache_report",
            "enable_decoder_swa_bounded_replay",
            "enable_dynamic_batch_tokenizer",
            "enable_page_major_kv_layout",
            "enable_strict_thinking",
            "enable_tokenizer_batch_encode",
            "encoder_bootstrap_port",
            "generation_tokens_buckets",
            "hf_chat_template_name",
            "hybrid_kvcache_ratio",
            "kt_max_deferred_experts_per_token",
            "max_prefill_tokens",
            "max_total_tokens",
            "mlx_enable_sampling",
            "mm_preprocess_cache_size_mb",
            "multi_item_scoring_delimiter",
            "nsa_prefill_cp_mode",
            "num_continuous_decode_steps",
            "num_reserved_decode_tokens",
            "page_size",
            "piecewise_cuda_graph_max_tokens",
            "piecewise_cuda_graph_tokens",
            "prefill_cp_mode",
            "prefill_delayer_token_usage_low_watermark",
            "prompt_tokens_buckets",
            "return_input_ids",
            "return_output_ids",
            "sampling_mask_max_tokens",
            "skip_tokenizer_init",
            "speculative_accept_threshold_acc",
            "speculative_accept_threshold_single",
            "speculative_dflash_block_size",
            "speculative_dflash_draft_window_size",
            "speculative_draft_kv_cache_dtype",
            "speculative_draft_sink_size",
            "speculative_dspark_align_verify_tokens_to_graph_tier",
            "speculative_dspark_block_size",
            "speculative_eagle_topk",
            "speculative_ngram_external_corpus_max_tokens",
            "speculative_num_draft_tokens",
            "speculative_token_map",
            "stream_interval",
            "swa_full_tokens_ratio",
            "tbo_token_distribution_threshold",
            "tokenizer_backend",
            "tokenizer_metrics_allowed_custom_labels",
            "tokenizer_metrics_custom_labels_header",
            "tokenizer_mode",
            "tokenizer_path",
            "tokenizer_worker_num",
        )
    }
)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
# SGLang's own defaults for --host and --port (server_args.py, 0.5.9 and 0.5.23).
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 30000


class ServiceLaunchError(ValueError):
    """Arguments the role cannot launch; the message names them and the fix."""


# C0 controls, DEL, C1 controls and the Unicode line/paragraph separators: none belongs in a flag value, and
# a line break could end a line of the unit file.
CONTROL_CHARACTERS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _strings(value):
    """Every string inside a typed flag value (lists and JSON objects included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def refuse_control_characters(fields, where):
    """Refuse a flag whose value holds a control character (newline, carriage return, escape, NUL, ...)."""
    for field, value in fields.items():
        for text in _strings(value):
            found = CONTROL_CHARACTERS.search(text)
            if found:
                raise ServiceLaunchError(
                    "%s in %s holds the control character %r at offset %d: flag values and paths may not contain "
                    "newlines or other control characters (they would break or inject lines of the systemd unit); "
                    "remove it" % (field, where, found.group(), found.start())
                )


def _validated(args, name, version, check_required=False):
    if not isinstance(args, Mapping):
        raise ServiceLaunchError("%s must be a dict keyed by flag name, e.g. {tp_size: 2}; got %s" % (name, type(args).__name__))
    return check_server_args(args, version, check_required=check_required)


def _refuse_reserved(fields, where):
    reserved = sorted(set(fields) & set(RESERVED_FIELDS))
    if reserved:
        raise ServiceLaunchError(
            "%s may not be set in %s: secrets reach SGLang only through the unit's 0600 secrets file, a systemd "
            "credential read with --config, so they never show in the unit file or in ps. Set the API key in the "
            "no_log variable sglang_service_api_key and %s in sglang_service_secret_args (no_log)."
            % (", ".join(reserved), where, ", ".join(f for f in SECRET_FIELDS if f != "api_key"))
        )


def secrets_config(secret_args, api_key, version):
    """The unit's secrets file (SGLang --config YAML): option name without dashes -> value, the API key first.

    secret_args may hold only SECRET_FIELDS other than api_key (validated like any flag of the release);
    raises ServiceLaunchError for anything else, FlagValidationError for a flag the release does not have.
    """
    fields = _validated(secret_args, "sglang_service_secret_args", version).values
    refuse_control_characters(fields, "sglang_service_secret_args")
    if "api_key" in fields:
        raise ServiceLaunchError(
            "api_key may not be set in sglang_service_secret_args: set sglang_service_api_key (the role's readiness probe and rollback use it too)."
        )
    not_secret = sorted(set(fields) - set(SECRET_FIELDS))
    if not_secret:
        raise ServiceLaunchError(
            "sglang_service_secret_args takes only secret flags (%s); move %s to "
            "sglang_service_server_args." % (", ".join(SECRET_FIELDS[1:]), ", ".join(not_secret))
        )
    if not isinstance(api_key, str):
        raise ServiceLaunchError("sglang_service_api_key must be a string, got %s" % type(api_key).__name__)
    catalog = load_catalog(version)
    config = {"api-key": api_key} if api_key else {}
    for field, value in fields.items():
        config[catalog.lookup(field).name[2:]] = value
    return config


def merge_service_args(server_args, extra_args, version, enable_metrics=True):
    """server_args and extra_args merged, keyed by ServerArgs field and typed (metrics on unless set).

    Raises FlagValidationError for a flag the release does not have, ServiceLaunchError for a flag set in both
    dicts, a reserved flag, or a missing model_path.
    """
    server = _validated(server_args, "sglang_service_server_args", version).values
    extra = _validated(extra_args, "sglang_service_extra_args", version).values
    overlap = sorted(set(server) & set(extra))
    if overlap:
        raise ServiceLaunchError("sglang_service_extra_args repeats %s from sglang_service_server_args; set each flag in one place only." % ", ".join(overlap))
    _refuse_reserved(list(server) + list(extra), "sglang_service_server_args or sglang_service_extra_args")
    refuse_control_characters(server, "sglang_service_server_args")
    refuse_control_characters(extra, "sglang_service_extra_args")
    merged = {"enable_metrics": True} if enable_metrics else {}
    merged.update(server)
    merged.update(extra)
    if not str(merged.get("model_path") or ""):
        raise ServiceLaunchError(
            "sglang_service_server_args needs model_path, the model directory in the container, e.g. {model_path: /srv/models/Qwen3-8B, tp_size: 1}."
        )
    return merged


def probe_url(host, port):
    """The local address that reaches a server bound to host (a wildcard bind is probed on loopback)."""
    if host in ("0.0.0.0", "127.0.0.1", "localhost"):
        host = "127.0.0.1"
    elif host in ("::", "::1"):
        host = "[::1]"
    elif ":" in host:
        host = "[%s]" % host
    return "http://%s:%d" % (host, port)


def launch_plan(args, version):
    """argv, bind address, probe URL and warnings for merged args (as ``merge_service_args`` returns them)."""
    validated = _validated(args, "the merged server args", version, check_required=True)
    fields = validated.values
    _refuse_reserved(fields, "the server args")
    refuse_control_characters(fields, "the server args")
    host = str(fields.get("host") or DEFAULT_HOST)
    port = int(fields.get("port") or DEFAULT_PORT)
    return {
        "argv": validated.argv,
        "host": host,
        "port": port,
        "loopback": host in LOOPBACK_HOSTS,
        "url": probe_url(host, port),
        "warnings": validated.warnings,
    }


# Flags a retune cannot change in place: the container's GPUs were chosen for the current parallel sizes.
GPU_COUNT_FIELDS = ("tp_size", "pp_size", "dp_size", "ep_size")


def pick_autotune_fix(fixes, min_max_running_requests, max_mem_fraction_static, side_effects=("none",)):
    """The budget engine's best-ranked fix the role may apply by itself, or None.

    A fix qualifies when it is predicted to start, keeps max_running_requests at or above the floor, keeps
    mem_fraction_static at or below the ceiling, changes no GPU count, and has an allowed side effect (by default
    none: no shorter context, lower precision or less speculation without the operator's consent).
    """
    for fix in fixes or []:
        changes = fix.get("changes") if isinstance(fix, Mapping) else None
        if not isinstance(changes, Mapping) or not changes or fix.get("verdict") == "fails":
            continue
        if fix.get("side_effect") not in side_effects or set(changes) & set(GPU_COUNT_FIELDS):
            continue
        if int(changes.get("max_running_requests", min_max_running_requests)) < min_max_running_requests:
            continue
        if float(changes.get("mem_fraction_static", 0)) > max_mem_fraction_static:
            continue
        return dict(fix)
    return None
