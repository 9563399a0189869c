#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: sglang_diagnose
short_description: Name the root cause of a failed SGLang launch from this launch's log tail and journal
version_added: "0.1.0"
description:
  - Reads the log tail and the systemd journal of the current launch on the target with
    M(llmops.sglang.sglang_log_tail) and classifies them on the controller against a closed, versioned
    catalog of SGLang failures (memory pools, CUDA OOM by phase, CUDA graphs, driver, imports, NCCL,
    arguments, model download/load, tokenizer, port, host OOM killer, ...).
  - Only the current launch counts. Lines before the last launch marker, or from a log older than the unit's
    last start, are never used. A launch that wrote nothing is C(silent_death), with evidence from the
    journal, the kernel OOM killer and the exit status; a log that predates a running unit's start is
    C(stale_log). A log with no line and no launch marker, read without O(unit), is C(no_evidence), since nothing
    shows that a launch happened, so no death is claimed.
  - With O(budget) (an earlier M(llmops.sglang.sglang_memory_budget) result) a memory-phase failure takes the
    budget's root cause and computed fix, because SGLang 0.5.9's message names the wrong knob for hybrid
    models.
  - Fails the task with the one-line summary as message unless the launch is healthy or O(fail=false).
  - This is an action plugin; the classification runs on the controller.
author: llmops.sglang maintainers (@llmops-sglang)
options:
  log_path:
    description: The server's log on the target. At least one of O(log_path) and O(unit) is required.
    type: path
  unit:
    description: The systemd unit that runs the server, for example C(sglang.service).
    type: str
  lines:
    description: How many lines of the log (and of the journal) to read at most.
    type: int
    default: 300
  bytes:
    description: How many bytes to read at most from the end of the log.
    type: int
    default: 1048576
  budget:
    description:
      - The registered result of M(llmops.sglang.sglang_memory_budget) for the same launch.
      - "Keys used, all optional: C(verdict), C(root_cause), C(message), C(budget.totals), C(fixes[0].summary),
        C(fixes[0].changes)."
    type: dict
  fail:
    description: Fail the task when the root cause is not C(none).
    type: bool
    default: true
extends_documentation_fragment:
  - llmops.sglang.attributes
  - llmops.sglang.attributes.read_only
  - llmops.sglang.attributes.action
  - llmops.sglang.launch.log
attributes:
  action:
    details: Runs on the controller; only the log tail is read on the target.
notes:
  - The catalog's ids are C(none), C(kv_pool_too_small), C(mamba_pool_too_small), C(cuda_oom_weights),
    C(cuda_oom_cuda_graph), C(cuda_oom_runtime), C(kv_pool_exhausted_runtime), C(req_pool_exhausted_runtime),
    C(host_ram_oom_killed), C(cuda_graph_capture_error), C(unsupported_gpu_arch), C(driver_cuda_mismatch),
    C(dependency_import_error), C(nccl_failure), C(incompatible_feature_combination), C(invalid_argument_value),
    C(unrecognized_argument), C(warmup_failed), C(port_in_use), C(model_not_found), C(model_download_failed),
    C(unsupported_quantization), C(quant_shard_misaligned), C(unsupported_architecture), C(trust_remote_code_required),
    C(context_length_exceeds_model), C(tokenizer_error), C(gpu_busy_other_process), C(tp_memory_imbalance),
    C(no_evidence), C(silent_death), C(stale_log) and C(other).
seealso:
  - module: llmops.sglang.sglang_log_tail
  - module: llmops.sglang.sglang_memory_budget
"""

EXAMPLES = r"""
- name: Diagnose the last start of the SGLang unit
  llmops.sglang.sglang_diagnose:
    unit: sglang.service
    log_path: /var/log/sglang/sglang.log

- name: Diagnose with the preflight budget, report without failing
  llmops.sglang.sglang_diagnose:
    unit: sglang.service
    log_path: /var/log/sglang/sglang.log
    budget: "{{ sglang_budget }}"
    fail: false
  register: sglang_diagnosis

# Ad hoc, on a log written by hand:
# ansible localhost -m llmops.sglang.sglang_diagnose -a '{"log_path": "/root/sglang-serve.log", "since_marker": false, "fail": false}'
"""

RETURN = r"""
root_cause:
  description: The catalog id of the root cause (C(none) for a healthy start).
  returned: always
  type: str
  sample: mamba_pool_too_small
underlying_cause:
  description: For C(silent_death), the cause found in the journal or exit status, when one was.
  returned: always
  type: str
  sample: unrecognized_argument
phase:
  description:
    - Where it failed (args, import, driver, model_download, model_load, weight_load, memory_pool, cuda_graph,
      warmup, serving, network, multi_gpu, host, unknown), from the start-up timeline where the log shows one
      (the phase the failing rank was in when it printed the failure line), else the root cause's own phase
      (C(cause_phase)). For C(none), the phase the launch reached.
    - They differ for example for an NCCL error raised while loading weights (C(weight_load), not
      C(multi_gpu)), or an OOM while allocating the pools (C(memory_pool), root cause C(cuda_oom_cuda_graph)).
  returned: always
  type: str
  sample: memory_pool
cause_phase:
  description: The catalog's phase of the root cause (where that failure usually happens).
  returned: always
  type: str
  sample: cuda_graph
reached:
  description:
    - How far the launch got; C(starting) (the log ends before the ready line), C(ready) (it shows
      "The server is fired up and ready to roll!"), C(serving) (batch lines or answered requests).
    - A log without failure evidence is C(none) with C(reached), never C(other).
  returned: always
  type: str
  sample: starting
timeline:
  description:
    - The start-up milestones the log shows (server args, model config, torch distributed, Load weight
      begin/end, KV and mamba pools, Memory pool end, CUDA graph capture begin/end, the scheduler's
      max_total_num_tokens line, Uvicorn up, warm-up, ready, serving), in the wording of each SGLang release from 0.4.6 on.
    - 'Keys C(reached), C(phase), C(last_milestone), C(summary) (for example V(starting: memory_pool (KV cache
      allocated\))), C(milestones) (name to the first line index, in the last launch of the log) and C(ranks)
      (per rank, C(main) for the main process, its furthest milestone, phase and line).'
  returned: always
  type: dict
  sample: {"reached": "starting", "phase": "memory_pool", "last_milestone": "kv_pool", "summary": "starting: memory_pool (KV cache allocated)"}
failed_rank:
  description:
    - In a log with rank prefixes (C(TP1), C(DP0 TP1), torch's C([rank1]:)), the rank whose first failure line
      comes first; the root cause is that rank's. A rank that only waited on its peers (rank 0's "other ranks
      didn't finish loading", monitoredBarrier, a collective timeout) yields to the ranks it names and to any
      rank with a failure of its own; when only the waiting rank is in the log, C(notes) says which ranks to
      read. V(null) for a log without ranks or without a failure. In a multi-node launch C(numbers.node_rank)
      says which node wrote the log.
  returned: always
  type: str
  sample: TP3
ranks_seen:
  description: The rank prefixes seen in the log, sorted.
  returned: always
  type: list
  elements: str
  sample: ["TP0", "TP1", "TP2", "TP3"]
confidence:
  description: high, medium or low.
  returned: always
  type: str
  sample: high
evidence:
  description: The exact lines that support the diagnosis (ANSI colours and quoting removed).
  returned: always
  type: list
  elements: str
  sample: ["RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.85"]
summary:
  description: One line with root cause, key numbers and fix; also the failure message.
  returned: always
  type: str
  sample: "mamba_pool_too_small: the mamba / linear-attention state pool does not fit [mem_fraction_static=0.85]; fix: set --max-running-requests 32"
explanation:
  description: What the root cause means.
  returned: always
  type: str
fix:
  description: What to change; from the budget's top fix when O(budget) applied.
  returned: always
  type: str
verify:
  description: How to check the fix worked.
  returned: always
  type: str
numbers:
  description:
    - Numbers parsed from the log, for example C(mem_fraction_static), C(min_viable_mem_fraction_static),
      C(max_total_num_tokens), C(available_gpu_mem_gb), C(capture_bs), C(failed_alloc), C(failed_alloc_bytes),
      C(max_mamba_cache_size), C(exit_code), C(port); C(budget_*) from O(budget); C(unit_*) from the unit.
  returned: always
  type: dict
  sample: {"mem_fraction_static": 0.85, "available_gpu_mem_gb": 21.8}
freshness:
  description: How the lines were chosen (status fresh, stale, unverified or absent; marker; invocation id; times).
  returned: always
  type: dict
progress:
  description: The phase of the furthest start-up milestone the log reached (C(timeline.phase)), C(start) when it shows none.
  returned: always
  type: str
  sample: memory_pool
notes:
  description: Caveats about the diagnosis.
  returned: always
  type: list
  elements: str
ranking:
  description: The best-scoring catalog entries (id and score), strongest first.
  returned: always
  type: list
  elements: dict
budget_used:
  description: Whether root cause and fix came from O(budget).
  returned: always
  type: bool
retunable:
  description:
    - Whether a fix of the budget engine (fewer running requests, another fraction or pool split) may cure the
      root cause; the catalog says so per cause, and C(llmops.sglang.sglang_service)'s auto-retune acts only then.
  returned: always
  type: bool
catalog_version:
  description: Version of the diagnosis catalog.
  returned: always
  type: str
  sample: "2026.11.5"
log:
  description: The log's path, existence, size, mtime, inode and whether it was rotated.
  returned: when O(log_path) was given
  type: dict
"""
