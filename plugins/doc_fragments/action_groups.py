# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action groups of meta/runtime.yml, as the C(action_group) attribute of their modules."""

from __future__ import annotations


class ModuleDocFragment(object):
    """One section per action group: the modules of a group share the options that its module_defaults set."""

    # sglang_version, server_args, gpus, gpu_indices, model_id, model_revision, calibration_store.
    SGLANG = r"""
options: {}
attributes:
  action_group:
    description: Use C(group/llmops.sglang.sglang) in C(module_defaults) to set the release, the launch and the GPUs
      once for this module and the others of the group.
    support: full
    membership:
      - llmops.sglang.sglang
"""

    # The Proxmox VE API options; the group also holds community.proxmox's modules (group/community.proxmox.proxmox).
    PROXMOX = r"""
options: {}
attributes:
  action_group:
    description: Use C(group/llmops.sglang.proxmox) in C(module_defaults) to set the Proxmox VE API options once for
      this module, the others of the group and community.proxmox's modules.
    support: full
    membership:
      - llmops.sglang.proxmox
"""
