# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Options that describe one SGLang launch, shared by the preflight, the startup report and the log readers."""

from __future__ import annotations


class ModuleDocFragment(object):
    """Launch options with one meaning wherever they appear."""

    # The GPU selection and model revision of a launch (sglang_memory_budget, sglang_startup_report).
    DOCUMENTATION = r"""
options:
  gpu_indices:
    description: Use only these GPUs of O(gpus) (by index or UUID), in this order, as C(CUDA_VISIBLE_DEVICES) would.
    type: list
    elements: str
  model_revision:
    description: The model's revision (commit) in the calibration key.
    type: str
    default: ''
"""

    # The launch marker the sglang_service unit writes before each start (sglang_log_tail and its callers).
    LOG = r"""
options:
  since_marker:
    description:
      - Read only the lines written after the last launch marker (C(=== llmops.sglang launch <time> invocation=<id> ===)),
        that is this launch's.
      - Set to V(false) for logs written without the collection's unit (ad hoc use).
    type: bool
    default: true
"""
