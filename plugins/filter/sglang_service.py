# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters the sglang_service role plans its launch and its retune with (docs: the same-name .yml files)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError
from ansible.utils.display import Display

from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_validator import FlagValidationError
from ansible_collections.llmops.sglang.plugins.plugin_utils.service_launch import (
    ServiceLaunchError,
    launch_plan,
    merge_service_args,
    pick_autotune_fix,
)

display = Display()


def sglang_service_args(server_args, version, extra_args=None, enable_metrics=True):
    """server_args and extra_args merged and keyed by ServerArgs field, after the role's checks."""
    try:
        return merge_service_args(server_args, extra_args or {}, version, bool(enable_metrics))
    except (FlagValidationError, ServiceLaunchError) as exc:
        raise AnsibleFilterError(str(exc)) from None


def sglang_service_launch(args, version):
    """argv, host, port, loopback and probe url for merged server args."""
    try:
        plan = launch_plan(args, version)
    except (FlagValidationError, ServiceLaunchError) as exc:
        raise AnsibleFilterError(str(exc)) from None
    for warning in plan.pop("warnings"):
        display.warning(warning)
    return plan


def sglang_autotune_fix(fixes, min_max_running_requests, max_mem_fraction_static, side_effects=None):
    """The best-ranked budget fix within the retune bounds, or None."""
    return pick_autotune_fix(fixes, int(min_max_running_requests), float(max_mem_fraction_static),
                             tuple(side_effects or ("none",)))


class FilterModule:
    """sglang_service launch filters."""

    def filters(self):
        return {
            "sglang_autotune_fix": sglang_autotune_fix,
            "sglang_service_args": sglang_service_args,
            "sglang_service_launch": sglang_service_launch,
        }
