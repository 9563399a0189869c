# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sglang_service role's launch decisions, on flag names normalized by the flag validator.

Every check here works on ServerArgs fields, so ``--api-key``, ``api-key`` or ``tensor_parallel_size`` are the
same flags as ``api_key`` and ``tp_size``: a spelling cannot slip a secret into the unit or hide the bind address.
"""

from __future__ import annotations

from collections.abc import Mapping

from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_validator import check_server_args

# Secrets reach SGLang only through the unit's credential (--config); never as flags in the unit file or in ps.
RESERVED_FIELDS = ("api_key", "admin_api_key", "config")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
# SGLang's own defaults for --host and --port (server_args.py, 0.5.9 and 0.5.23).
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 30000


class ServiceLaunchError(ValueError):
    """Arguments the role cannot launch; the message names them and the fix."""


def _validated(args, name, version, check_required=False):
    if not isinstance(args, Mapping):
        raise ServiceLaunchError("%s must be a dict keyed by flag name, e.g. {tp_size: 2}; got %s"
                                 % (name, type(args).__name__))
    return check_server_args(args, version, check_required=check_required)


def _refuse_reserved(fields, where):
    reserved = sorted(set(fields) & set(RESERVED_FIELDS))
    if reserved:
        raise ServiceLaunchError(
            "%s may not be set in %s: the API key comes from the no_log variable sglang_service_api_key and "
            "reaches SGLang through a systemd credential (--config), so it never shows in the unit file or in ps."
            % (", ".join(reserved), where))


def merge_service_args(server_args, extra_args, version, enable_metrics=True):
    """server_args and extra_args merged, keyed by ServerArgs field and typed (metrics on unless set).

    Raises FlagValidationError for a flag the release does not have, ServiceLaunchError for a flag set in both
    dicts, a reserved flag, or a missing model_path.
    """
    server = _validated(server_args, "sglang_service_server_args", version).values
    extra = _validated(extra_args, "sglang_service_extra_args", version).values
    overlap = sorted(set(server) & set(extra))
    if overlap:
        raise ServiceLaunchError("sglang_service_extra_args repeats %s from sglang_service_server_args; set each "
                                 "flag in one place only." % ", ".join(overlap))
    _refuse_reserved(list(server) + list(extra), "sglang_service_server_args or sglang_service_extra_args")
    merged = {"enable_metrics": True} if enable_metrics else {}
    merged.update(server)
    merged.update(extra)
    if not str(merged.get("model_path") or ""):
        raise ServiceLaunchError("sglang_service_server_args needs model_path, the model directory in the "
                                 "container, e.g. {model_path: /srv/models/Qwen3-8B, tp_size: 1}.")
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
