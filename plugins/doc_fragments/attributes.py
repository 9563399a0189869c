# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The attributes of the collection's modules: what every module shares, the read-only ones, the controller-side ones."""

from __future__ import annotations


class ModuleDocFragment(object):
    """Attribute documentation for llmops.sglang modules; a module's own C(attributes:) entries override these."""

    # Every module: runs on POSIX targets, none supports diff mode. A module names its check mode support
    # (directly, or with READ_ONLY).
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target, if not supported
      the action will be skipped.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: N/A
    platforms: posix
"""

    # Modules that only read (the target, the Proxmox VE API or the hub) and so run the same in check mode.
    READ_ONLY = r"""
options: {}
attributes:
  check_mode:
    support: full
    details: Reads only; runs the same in check mode.
"""

    # Modules whose work is done by the action plugin of the same name, on the controller.
    ACTION = r"""
options: {}
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the
      controller.
    support: full
  async:
    description: Supports being used with the C(async) keyword.
    support: none
  bypass_host_loop:
    description:
      - Forces a 'global' task that does not execute per host, this bypasses per host templating and serial, throttle
        and other loop considerations.
      - Conditionals will work as if C(run_once) is being used, variables used will be from the first available host.
      - This action will not work normally outside of lockstep strategies.
    support: none
"""
