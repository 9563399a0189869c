# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters the sglang_service role plans its launch and its retune with (docs: the same-name .yml files)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.utils.display import Display

from ansible_collections.llmops.sglang.plugins.filter.sglang_argv import (
    BOOL,
    LIST,
    MAPPING,
    NONE,
    NUMBER,
    TEXT,
    require_input,
)
from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_validator import FlagValidationError
from ansible_collections.llmops.sglang.plugins.plugin_utils.service_launch import (
    ServiceLaunchError,
    launch_plan,
    merge_service_args,
    pick_autotune_fix,
    secrets_config,
)

display = Display()


def sglang_service_args(server_args, version, extra_args=None, enable_metrics=True):
    """server_args and extra_args merged and keyed by ServerArgs field, after the role's checks."""
    name = "sglang_service_args"
    require_input(
        name,
        "the input",
        server_args,
        MAPPING,
        "sglang_service_server_args as a dict",
        "set it to a dict keyed by flag name, e.g. {model_path: /srv/models/m, tp_size: 2}",
    )
    _require_version(name, version)
    require_input(name, "extra_args", extra_args, MAPPING + NONE, "sglang_service_extra_args as a dict", "set it to a dict keyed by flag name, or {}")
    require_input(name, "enable_metrics", enable_metrics, BOOL, "true or false", "pass a bool")
    try:
        return merge_service_args(server_args, extra_args or {}, version, bool(enable_metrics))
    except (FlagValidationError, ServiceLaunchError) as exc:
        raise AnsibleFilterError(str(exc)) from None


def sglang_service_launch(args, version):
    """argv, host, port, loopback and probe url for merged server args."""
    require_input("sglang_service_launch", "the input", args, MAPPING, "the merged server args as a dict", "pass sglang_service_args' result")
    _require_version("sglang_service_launch", version)
    try:
        plan = launch_plan(args, version)
    except (FlagValidationError, ServiceLaunchError) as exc:
        raise AnsibleFilterError(str(exc)) from None
    for warning in plan.pop("warnings"):
        display.warning(warning)
    return plan


def sglang_service_secrets(secret_args, version, api_key=""):
    """The unit's secrets file content (SGLang --config keys) from the API key and the secret flags."""
    require_input(
        "sglang_service_secrets",
        "the input",
        secret_args,
        MAPPING + NONE,
        "sglang_service_secret_args as a dict",
        "set it to a dict keyed by flag name, or {}",
        secret=True,
    )
    _require_version("sglang_service_secrets", version)
    require_input(
        "sglang_service_secrets", "api_key", api_key, TEXT, "sglang_service_api_key as a string", "quote the key, or leave it empty for none", secret=True
    )
    try:
        return secrets_config(secret_args, api_key, version)
    except (FlagValidationError, ServiceLaunchError) as exc:
        raise AnsibleFilterError(str(exc)) from None


def sglang_autotune_fix(fixes, min_max_running_requests, max_mem_fraction_static, side_effects=None):
    """The best-ranked budget fix within the retune bounds, or None."""
    name = "sglang_autotune_fix"
    require_input(
        name, "the input", fixes, LIST + NONE, "the budget's list of fixes", "pass llmops.sglang.sglang_memory_budget's fixes (or [])", elements=MAPPING
    )
    require_input(name, "min_max_running_requests", min_max_running_requests, NUMBER, "a number of requests", "pass an integer, e.g. 8")
    require_input(name, "max_mem_fraction_static", max_mem_fraction_static, NUMBER, "a fraction", "pass a number between 0 and 1, e.g. 0.9")
    require_input(
        name,
        "side_effects",
        side_effects,
        LIST + NONE,
        "a list of allowed side effects",
        "pass a list, e.g. ['none', 'shorter_context'], or omit it",
        elements=TEXT,
    )
    try:
        return pick_autotune_fix(fixes, int(min_max_running_requests), float(max_mem_fraction_static), tuple(side_effects or ("none",)))
    except (TypeError, ValueError) as exc:
        raise AnsibleFilterError(
            "%s: a fix in the input has a malformed change (%s); pass the fixes of llmops.sglang.sglang_memory_budget unchanged" % (name, exc)
        ) from None


def _require_version(filter_name, version):
    require_input(filter_name, "version", version, TEXT, "the SGLang release as a string", "quote it, e.g. '0.5.9'")


class FilterModule:
    """sglang_service launch filters."""

    def filters(self):
        return {
            "sglang_autotune_fix": sglang_autotune_fix,
            "sglang_service_args": sglang_service_args,
            "sglang_service_launch": sglang_service_launch,
            "sglang_service_secrets": sglang_service_secrets,
        }
