#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, llmops.sglang maintainers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: sglang_memory_budget
short_description: Predict SGLang's startup memory accounting and fail before launch when it will not start
version_added: 0.1.0
description:
  - Replays the GPU memory accounting that a pinned SGLang release performs at startup, from the model's
    C(config.json) and the GPUs' real free memory, without loading a single weight.
  - Covers target and draft (NEXTN/MTP/EAGLE) weights per GPU under tensor parallelism, the
    C(mem_fraction_static) semantics, KV bytes per token (MHA/GQA, MLA, hybrid SWA, hybrid full+linear
    attention), the Gated-DeltaNet/mamba state pool and its speculative intermediate states, SGLang's argument
    defaults for that release, and the order of its startup checks with their exact messages.
  - Returns a verdict (V(fits), V(degraded), V(fails)), a stable root cause id, a one-line message with the
    numbers, and fixes, each a concrete flag change whose outcome the same engine re-computed, ranked by
    least capacity lost.
  - This is an action plugin; the computation runs on the controller. Model files may be read on the target.
author:
  - llmops.sglang maintainers (@llmops-sglang)
options:
  model:
    description:
      - The model. A model directory or a C(config.json) path (read on the controller or the target, see
        O(model_location)), or an inline C(config.json) dict, or a dict with the keys C(config),
        C(hf_quant_config) and C(safetensors_index) (the parsed files; the RV(llmops.sglang.model_download_plan#module:metadata)
        of M(llmops.sglang.model_download_plan) with O(llmops.sglang.model_download_plan#module:metadata=true) is that dict,
        read from the hub before any weight is downloaded).
      - When the directory holds C(model.safetensors.index.json), its C(metadata.total_size) is used for the
        weight bytes; otherwise they come from the architecture's shapes.
      - "Architectures verified against SGLang's own sizing code: V(ApertusForCausalLM), V(ArceeForCausalLM),
        V(BertForSequenceClassification), V(BertModel), V(ChatGLMModel), V(Cohere2ForCausalLM), V(CohereForCausalLM),
        V(DbrxForCausalLM), V(DeepseekV2ForCausalLM), V(DeepseekV32ForCausalLM), V(DeepseekV3ForCausalLM),
        V(Ernie4_5_ForCausalLM), V(ExaoneForCausalLM), V(GPT2LMHeadModel), V(GPTBigCodeForCausalLM),
        V(GPTJForCausalLM), V(Gemma2ForCausalLM), V(Gemma2ForSequenceClassification), V(Gemma3ForCausalLM),
        V(Gemma3ForConditionalGeneration), V(Gemma4ForConditionalGeneration), V(GemmaForCausalLM), V(Glm4ForCausalLM),
        V(Glm4MoeForCausalLM), V(Glm4vMoeForConditionalGeneration), V(GlmMoeDsaForCausalLM), V(GptOssForCausalLM),
        V(GraniteForCausalLM), V(GraniteMoeForCausalLM), V(InternLM2ForCausalLM), V(InternLM2ForRewardModel),
        V(InternLM3ForCausalLM), V(KimiK25ForConditionalGeneration), V(Lfm2ForCausalLM),
        V(Llama4ForConditionalGeneration), V(LlamaForCausalLM), V(LlamaForSequenceClassification),
        V(MiniMaxM2ForCausalLM), V(MistralForCausalLM), V(MistralModel), V(MixtralForCausalLM),
        V(NemotronHForCausalLM), V(OPTForCausalLM), V(Olmo2ForCausalLM), V(OlmoForCausalLM), V(OlmoeForCausalLM),
        V(PersimmonForCausalLM), V(Phi3ForCausalLM), V(PhiForCausalLM), V(PhiMoEForCausalLM), V(Qwen2ForCausalLM),
        V(Qwen2ForRewardModel), V(Qwen2ForSequenceClassification), V(Qwen2MoeForCausalLM),
        V(Qwen2_5_VLForConditionalGeneration), V(Qwen3ForCausalLM), V(Qwen3ForSequenceClassification),
        V(Qwen3MoeForCausalLM), V(Qwen3NextForCausalLM), V(Qwen3VLForConditionalGeneration),
        V(Qwen3VLMoeForConditionalGeneration), V(Qwen3_5ForCausalLM), V(Qwen3_5ForConditionalGeneration),
        V(Qwen3_5MoeForCausalLM), V(Qwen3_5MoeForConditionalGeneration), V(StableLmForCausalLM),
        V(Starcoder2ForCausalLM), V(XLMRobertaForSequenceClassification), V(XLMRobertaModel)."
      - Another class that the pinned release registers and special-cases nowhere is sized with the standard
        attention layout from its C(config.json) fields (RV(confidence) is then V(generic), RV(architecture)
        names the fields). A class the release lacks, or special-cases without a verified layout here, is
        refused by name.
    type: raw
    required: true
  model_location:
    description:
      - Where a model path is read. V(auto) reads it on the controller when the path exists there, and on the
        target otherwise.
    type: str
    default: auto
    choices: [auto, controller, target]
  gpus:
    description:
      - The GPUs, either the registered result of M(llmops.sglang.nvidia_gpu_info) (real free memory and the
        processes holding memory), or a declared list of dicts with the same keys for planning without
        hardware (C(name) and C(memory_total_mib) are enough; free memory then defaults to the total less
        SGLang's CUDA context and NCCL overhead, and the result says so).
    type: raw
    required: true
  server_args:
    description:
      - SGLang server arguments keyed by flag dest, as for the C(llmops.sglang.sglang_argv) filter, for
        example C(tp_size), C(mem_fraction_static), C(context_length), C(speculative_algorithm).
      - They are validated against the flag catalog of O(sglang_version).
    type: dict
    default: {}
  sglang_version:
    description:
      - The SGLang release whose accounting is replayed.
      - "Releases whose startup sizing is modelled: V(0.5.9), V(0.5.10), V(0.5.10.post1), V(0.5.11), V(0.5.12),
        V(0.5.12.post1), V(0.5.13), V(0.5.13.post1), V(0.5.14), V(0.5.15), V(0.5.15.post1), V(0.5.16), V(0.5.17),
        V(0.5.18), V(0.5.19), V(0.5.20), V(0.5.21), V(0.5.22), V(0.5.23)."
      - The collection knows the flags and install pins of every release from V(0.5.9) to V(0.5.23); a release
        whose sizing is not modelled yet is refused by name unless O(allow_nearest_profile) is set.
    type: str
    required: true
  allow_nearest_profile:
    description:
      - Use the nearest release whose sizing is modelled when O(sglang_version) has none. The result's
        RV(confidence) is then V(nearest).
    type: bool
    default: false
  compare_releases:
    description:
      - Also evaluate the same model, GPUs and flags under every release of the registry, oldest first, and
        return RV(releases) and RV(first_release_that_starts). The verdict, fail decision and fixes stay those of
        O(sglang_version).
    type: bool
    default: false
  env:
    description: C(SGLANG_*) environment variables that change sizing (for example C(SGLANG_MAMBA_SSM_DTYPE)).
    type: dict
    default: {}
  fail_on:
    description:
      - V(error) fails the task when SGLang is predicted to fail, V(warning) also when it would start degraded
        (for example with C(max_running_requests) capped), V(never) only reports.
    type: str
    default: error
    choices: [error, warning, never]
  calibration_store:
    description:
      - A calibration store on the controller (a directory of JSON files that M(llmops.sglang.sglang_startup_report)
        fills after each real start; the schema is in the C(sglang_service) role's README).
      - For a stored start with the same key (release, GPU name, driver version, O(model_id) and O(model_revision),
        TP/PP, and a hash of every server argument that can change sizing), the measured pre-load free memory and
        weight bytes replace the estimates, RV(confidence) is V(calibrated) and RV(calibration) carries the
        observations' spread.
      - For a near key (same release, GPU, driver and layout, another model or flags) only the measured CUDA
        context and NCCL overhead is used, and RV(calibration) says so. Without a match the estimates stand.
    type: path
  model_id:
    description:
      - The model's id in the calibration key (for example its hub id). Defaults to O(model) when that is a path.
    type: str
extends_documentation_fragment:
  - llmops.sglang.action_groups.sglang
  - llmops.sglang.attributes
  - llmops.sglang.attributes.read_only
  - llmops.sglang.attributes.action
  - llmops.sglang.launch
notes:
  - A bad input (malformed C(config.json), unknown architecture, a TP size that does not divide the heads,
    fewer GPUs than TP, a fraction outside (0, 1), a GPU without memory) fails with a message that names the
    input and the fix.
seealso:
  - module: llmops.sglang.nvidia_gpu_info
  - module: llmops.sglang.sglang_diagnose
"""

EXAMPLES = r"""
- name: Preflight the incident on declared GPUs (no hardware needed)
  llmops.sglang.sglang_memory_budget:
    model: /models/Qwen3.6-27B
    gpus:
      - {name: NVIDIA RTX A6000, memory_total_mib: 49140}
      - {name: NVIDIA RTX A6000, memory_total_mib: 49140}
    sglang_version: "0.5.9"
    server_args:
      tp_size: 2
      mem_fraction_static: 0.85
      context_length: 65536
      speculative_algorithm: NEXTN
      speculative_num_steps: 3
      speculative_eagle_topk: 1
      speculative_num_draft_tokens: 4

- name: Budget against the real free memory inside the container
  block:
    - name: Read the GPUs
      llmops.sglang.nvidia_gpu_info:
      register: gpu_info
    - name: Budget
      llmops.sglang.sglang_memory_budget:
        model: /models/Qwen3.6-27B
        model_location: target
        gpus: "{{ gpu_info }}"
        sglang_version: "0.5.23"
        server_args: {tp_size: 2, context_length: 65536}
        fail_on: warning

- name: Budget with what earlier starts of this launch measured (confidence calibrated when the key matches)
  llmops.sglang.sglang_memory_budget:
    model: /models/Qwen3.6-27B
    model_location: target
    gpus: "{{ gpu_info }}"
    sglang_version: "0.5.23"
    server_args: {tp_size: 2, context_length: 65536}
    calibration_store: "{{ playbook_dir }}/calibration"
    model_id: Qwen/Qwen3.6-27B
    model_revision: 6c5b2d0e8f4a1b3c9d7e5f2a0b8c6d4e2f1a3b5c
"""

RETURN = r"""
verdict:
  description: V(fits), V(degraded) (starts, but with a warning that quietly limits service) or V(fails).
  returned: always
  type: str
root_cause:
  description: Stable id of the decisive condition, shared with M(llmops.sglang.sglang_diagnose) (V(none) when it fits).
  returned: always
  type: str
  sample: mamba_pool_too_small
message:
  description: One line with the numbers.
  returned: always
  type: str
error:
  description: The exception SGLang itself raises for this configuration, with that release's exact message, or null.
  returned: always
  type: dict
warnings:
  description:
    - Startup warnings that quietly degrade service, as text (capped max_running_requests, KV pool below one
      context, TP imbalance, low headroom). The structured list is RV(sglang_warnings).
  returned: always
  type: list
  elements: str
budget:
  description:
    - Per GPU, in GiB, total, free at start, weights, draft, mamba pool, KV pool and headroom.
    - Totals, C(max_total_num_tokens), C(max_running_requests), C(mamba_slots), C(context_len),
      C(mem_fraction_static), C(min_viable_mem_fraction_static).
  returned: always
  type: dict
fixes:
  description:
    - Concrete flag changes with their re-computed outcome, ranked by least capacity lost.
    - Each has C(changes) (flag dest to new value, V(null) drops the flag), C(verdict), C(max_total_num_tokens),
      C(max_running_requests), C(summary) and C(side_effect), V(none) (only concurrency, pool split or
      parallelism change), V(quality) (shorter context or lower precision) or V(speed) (less speculative decoding).
  returned: always
  type: list
  elements: dict
sglang_warnings:
  description: The warnings with their stable ids (C(id), C(message)), including the engine's stated assumptions.
  returned: always
  type: list
  elements: dict
assumptions:
  description: What the engine assumed for inputs it was not given (for example free memory of declared GPUs).
  returned: always
  type: list
  elements: str
fixes_cli:
  description: RV(fixes) as command-line flag changes with their outcome, one line each.
  returned: always
  type: list
  elements: str
resolved_args:
  description: The server arguments as that SGLang release resolves them (defaults filled in).
  returned: always
  type: dict
sglang_version:
  description: The requested release.
  returned: always
  type: str
profile:
  description: The registry release whose sizing was replayed.
  returned: always
  type: str
confidence:
  description:
    - V(exact) when the requested release's sizing is modelled and the architecture is verified, V(nearest) when
      another release stood in, V(generic) when the architecture is off the verified list and was sized with the
      standard attention layout (see RV(architecture)), V(calibrated) when a stored start of the same launch
      supplied the measured pre-load free memory and weights (see RV(calibration)).
  returned: always
  type: str
calibration:
  description:
    - With O(calibration_store) - C(match) (V(exact), V(near) or V(none)), C(observations), C(files), the measured
      C(pre_load_gib) per GPU and C(weight_gib) (exact), C(context_overhead_gib) (near), C(note) (one line saying
      what was used), and C(observed) (per component, the C(count), C(median), C(minimum) and C(maximum) over the
      stored starts).
  returned: when O(calibration_store) is set
  type: dict
architecture:
  description:
    - How the model class was sized - C(name), C(support) (V(verified), V(generic), or V(unloadable) when the
      release cannot load the checkpoint's C(config.json) at all, which the error then says), C(sglang_module) (the
      release's module that builds it) and C(fields_used) (for V(generic), the C(config.json) fields read).
  returned: always
  type: dict
verified_by:
  description:
    - How the replayed release's sizing was checked - V(oracle) (the engine agrees with that release's own sizing
      code run on a case grid, C(tests/fixtures/oracle/)) or V(source) (read from its source, not yet run).
  returned: always
  type: str
releases:
  description:
    - One entry per registry release, oldest first - C(version), C(verdict) (V(fits), V(degraded), V(fails), or
      V(not_modelled), or V(rejected) when that release's flag list or input checks refuse the launch),
      C(root_cause), C(max_total_num_tokens), C(max_running_requests), C(mamba_slots), C(verified_by) and
      C(message).
  returned: when O(compare_releases) is set
  type: list
  elements: dict
first_release_that_starts:
  description: The oldest release whose startup goes through (V(fits) or V(degraded)), or null.
  returned: when O(compare_releases) is set
  type: str
  sample: "0.5.23"
"""
