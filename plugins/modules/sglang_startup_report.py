#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: sglang_startup_report
short_description: Report what a started SGLang really did with GPU memory, beside its preflight, and keep it
version_added: "0.1.0"
description:
  - Reads this launch's log lines on the target (after the launch marker, with M(llmops.sglang.sglang_log_tail))
    and parses SGLang's own startup lines per rank - free memory before the weights (C(Load weight begin)), the
    weights' memory, the KV, mamba and sliding-window pools with their tokens and GiB, C(max_total_num_tokens),
    C(max_running_requests), the memory after CUDA graph capture and C(available_gpu_mem).
  - With O(budget) (the launch's M(llmops.sglang.sglang_memory_budget) result) each component is put beside its
    prediction, with the residual.
  - With O(calibration_store), the start is appended to the store under its key (nothing is overwritten; writers
    lock the store and replace files atomically), and a component outside the spread of the stored starts is a
    warning naming it (drift - a driver update, another tenant on the GPU, a changed checkpoint).
  - A start that did not get as far as the scheduler's totals is reported but not stored.
  - This is an action plugin; the parsing and the store are on the controller.
author: llmops.sglang maintainers (@llmops-sglang)
options:
  log_path:
    description: The server's log on the target.
    type: path
    required: true
  lines:
    description: How many lines after the marker to read at most (the startup lines come first).
    type: int
    default: 5000
  bytes:
    description: How many bytes to read at most from the end of the log.
    type: int
    default: 4194304
  budget:
    description: The registered result of M(llmops.sglang.sglang_memory_budget) for this launch.
    type: dict
  calibration_store:
    description:
      - The calibration store, a directory on the controller (created 0700). The key of this launch is built from
        O(sglang_version), the first GPU's name and driver in O(gpus), O(model_id), O(model_revision), the TP/PP
        sizes and a hash of the sizing server arguments in O(server_args).
      - Requires O(sglang_version), O(gpus) and O(model_id).
    type: path
  sglang_version:
    description: The SGLang release that was started.
    type: str
  gpus:
    description:
      - The GPUs the preflight used - the registered result of M(llmops.sglang.nvidia_gpu_info) or a declared list
        (C(name) and C(memory_total_mib)).
    type: raw
  server_args:
    description: The launch's server arguments keyed by flag dest (their sizing part is hashed into the key).
    type: dict
    default: {}
  model_id:
    description: The model's id in the key (its hub id, or its path).
    type: str
extends_documentation_fragment:
  - llmops.sglang.action_groups.sglang
  - llmops.sglang.attributes
  - llmops.sglang.attributes.action
  - llmops.sglang.launch
  - llmops.sglang.launch.log
attributes:
  check_mode:
    support: none
    details: A report of a start that check mode did not make would be of another start.
  action:
    details: Runs on the controller; only the log is read on the target.
notes:
  - SGLang prints C(GB) for GiB (its C(get_available_gpu_memory) divides by 2**30); the report keeps its numbers.
  - The lines it reads are SGLang's own f-strings of releases 0.4 to 0.5.23 (C(plugins/plugin_utils/calibration/startup.py)
    names the source file and line of each).
seealso:
  - module: llmops.sglang.sglang_memory_budget
  - module: llmops.sglang.sglang_log_tail
"""

EXAMPLES = r"""
- name: Report the start beside its preflight and keep it in the store
  llmops.sglang.sglang_startup_report:
    log_path: /var/log/sglang/sglang.log
    budget: "{{ sglang_budget }}"
    calibration_store: "{{ playbook_dir }}/calibration"
    sglang_version: "0.5.9"
    gpus: "{{ gpu_info }}"
    server_args: {tp_size: 2, context_length: 65536}
    model_id: Qwen/Qwen3.6-27B
    model_revision: 6c5b2d0e8f4a1b3c9d7e5f2a0b8c6d4e2f1a3b5c
  register: startup

- name: Show it
  ansible.builtin.debug:
    var: startup.recap
"""

RETURN = r"""
startup:
  description:
    - C(complete) (the start reached the scheduler's totals) and C(ranks), one dict per rank (C(rank) such as C(TP0)
      or C(DP1 TP1 EP1)) with C(pre_load_avail_gib), C(post_load_avail_gib), C(weight_gib), C(kv_tokens),
      C(k_gib), C(v_gib), C(kv_gib), C(mamba_slots), C(mamba_conv_gib), C(mamba_ssm_gib), C(full_tokens),
      C(swa_tokens), C(pool_end_avail_gib), C(graph_gib), C(post_graph_avail_gib), C(max_total_num_tokens),
      C(max_running_requests), C(context_len), C(available_gpu_mem_gib), and the derived C(kv_pool_gib),
      C(pre_load_gib) and C(weight_load_gib); null where the start did not print the line.
  returned: always
  type: dict
residuals:
  description:
    - Per component (C(pre_load_gib), C(weights_gib), C(kv_pool_gib), C(max_total_num_tokens), C(swa_tokens),
      C(mamba_slots), C(max_running_requests)) of rank 0 - C(predicted), C(observed), C(delta) (observed minus
      predicted) and C(relative) (delta over observed).
  returned: always
  type: list
  elements: dict
recap:
  description: One line per component, predicted beside observed.
  returned: always
  type: list
  elements: str
  sample: ["pre_load_gib: predicted 77.41, observed 78.81 GiB (+1.78 %)", "max_total_num_tokens: predicted 436000, observed 444500 tokens (+1.91 %)"]
drift:
  description: The components outside the spread of the stored starts, each with its C(message); also in C(warnings).
  returned: always
  type: list
  elements: dict
calibration_file:
  description: The store file the start was appended to; null when it was not stored.
  returned: always
  type: str
observations:
  description: How many starts the key now holds.
  returned: always
  type: int
"""
