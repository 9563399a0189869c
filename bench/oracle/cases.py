# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Deterministic case generator for the SGLang sizing oracle.

A case is the input of one SGLang startup: a model directory (a real
config.json under tests/fixtures/model-configs), a GPU type and count, the free
memory after CUDA context + NCCL (``pre_model_load_gib``), the server flags as
passed on the CLI (``server_args``: dest -> value) and environment variables.

``cases(version)`` returns the same logical grid for 0.5.9 and 0.5.23, and a subset
of it for every other release (every incident row and edge case, the first
generated cases of each model); flags whose name changed between versions are
translated by :func:`version_args`.  Incident rows carry ``expect``: the numbers
the research notes state, which the fixture test checks against what SGLang's own
code produced (for 0.5.9 and 0.5.23, the releases the notes are about).
"""

from __future__ import annotations

import json
import os
import random

CONFIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures", "model-configs")

GPUS = {
    # name: (nvidia-smi name, memory.total MiB, compute capability, SM count)
    "RTX A6000": ("NVIDIA RTX A6000", 49140, (8, 6), 84),
    "RTX 4090": ("NVIDIA GeForce RTX 4090", 24564, (8, 9), 128),
    "L40S": ("NVIDIA L40S", 46068, (8, 9), 142),
    "A100-40GB": ("NVIDIA A100-SXM4-40GB", 40960, (8, 0), 108),
    "A100-80GB": ("NVIDIA A100-SXM4-80GB", 81920, (8, 0), 108),
    "H100-80GB": ("NVIDIA H100 80GB HBM3", 81559, (9, 0), 132),
    "H200": ("NVIDIA H200", 143771, (9, 0), 132),
}

# model dir -> (gpu/tp pairs that are plausible deployments, features)
# features: "mtp" = has an MTP/NEXTN head (speculative variants),
#           "mamba" = hybrid linear-attention/mamba (mamba flag variants).
MODELS = {
    "Qwen__Qwen3.6-27B": (
        [
            ("RTX A6000", 2),
            ("L40S", 2),
            ("A100-80GB", 1),
            ("H100-80GB", 1),
            ("H100-80GB", 2),
            ("H200", 1),
            ("RTX 4090", 4),
            ("A100-40GB", 2),
            ("H100-80GB", 4),
            ("H200", 8),
        ],
        {"mtp", "mamba"},
    ),
    "Qwen__Qwen3.5-27B": ([("RTX A6000", 2), ("H100-80GB", 1), ("A100-80GB", 2), ("L40S", 4), ("H200", 2)], {"mtp", "mamba"}),
    "Qwen__Qwen3.5-35B-A3B": ([("H100-80GB", 1), ("H200", 1), ("RTX A6000", 2), ("A100-80GB", 2), ("L40S", 4), ("H100-80GB", 8)], {"mtp", "mamba"}),
    "Qwen__Qwen3-Next-80B-A3B-Instruct": ([("H100-80GB", 4), ("H200", 2), ("A100-80GB", 4), ("RTX A6000", 8), ("H200", 4)], {"mtp", "mamba"}),
    "meta-llama__Llama-3.1-8B-Instruct": ([("H100-80GB", 1), ("RTX 4090", 1), ("RTX A6000", 1), ("L40S", 1), ("A100-40GB", 1), ("A100-80GB", 2)], set()),
    "meta-llama__Llama-3.1-70B-Instruct": ([("H100-80GB", 2), ("H100-80GB", 4), ("A100-80GB", 4), ("RTX A6000", 4), ("H200", 2), ("H200", 8)], set()),
    "Qwen__Qwen2.5-7B-Instruct": ([("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 1), ("H100-80GB", 2), ("RTX A6000", 4)], set()),
    "Qwen__Qwen2.5-72B-Instruct": ([("H100-80GB", 2), ("A100-80GB", 4), ("RTX A6000", 4), ("H200", 8)], set()),
    "Qwen__Qwen3-8B": ([("RTX 4090", 1), ("RTX A6000", 1), ("H100-80GB", 1), ("L40S", 2)], set()),
    "Qwen__Qwen3-32B": ([("H100-80GB", 1), ("A100-80GB", 1), ("RTX A6000", 2), ("L40S", 4), ("H200", 1)], set()),
    "Qwen__Qwen3-30B-A3B": ([("H100-80GB", 1), ("RTX A6000", 2), ("A100-80GB", 2), ("H200", 1), ("RTX 4090", 4)], set()),
    "Qwen__Qwen3-32B-FP8": ([("H100-80GB", 1), ("L40S", 1), ("RTX A6000", 1), ("H200", 2)], set()),
    "mistralai__Mistral-7B-Instruct-v0.3": ([("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 1), ("H100-80GB", 1)], set()),
    "deepseek-ai__DeepSeek-V3": ([("H200", 8), ("H100-80GB", 8)], {"mtp"}),
    "openai__gpt-oss-20b": ([("H100-80GB", 1), ("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 1)], set()),
    "openai__gpt-oss-120b": ([("H100-80GB", 1), ("H100-80GB", 2), ("H200", 1), ("A100-80GB", 2)], set()),
    "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": ([("H100-80GB", 1), ("H200", 1), ("RTX A6000", 2), ("A100-80GB", 2)], {"mamba"}),
    "nvidia__Nemotron-H-56B-Base-8K": ([("H100-80GB", 2), ("H200", 1), ("A100-80GB", 4)], {"mamba"}),
    "neody__r1-14b-awq": ([("RTX 4090", 1), ("RTX A6000", 1), ("L40S", 2), ("H100-80GB", 1)], set()),
    "nvidia__Llama-3.1-70B-Instruct-FP8": ([("H100-80GB", 1), ("H100-80GB", 2), ("L40S", 4), ("H200", 1)], set()),
    "nvidia__Qwen3.6-27B-NVFP4": ([("H100-80GB", 1), ("RTX A6000", 1), ("H200", 1)], {"mtp", "mamba"}),
    "zai-org__GLM-4.7": ([("H200", 8)], {"mtp"}),
    # DeepSeek Sparse Attention with its MTP head (the draft indexer and KV share)
    "zai-org__GLM-5-FP8": ([("H200", 8)], {"mtp"}),
    "deepseek-ai__DeepSeek-V3.2": ([("H200", 8)], {"mtp"}),
}

# Issue 13's architecture grid: real configs by SGLang class, the first 16 classes among them. Each config gets
# ARCH_CASES_PER_MODEL cases from its own seed (ids ``arch-<model>-NN``), so adding a config never changes another
# config's cases. The grid runs under 0.5.23 and 0.5.9 (the older release the gate names).
# InternLM 2 and 3 are not here: their configs name remote code (auto_map) that SGLang runs only with
# --trust-remote-code and the repository's Python.
ARCH_MODELS = {
    "MixtralForCausalLM": {
        "mistralai__Mixtral-8x7B-v0.1": [("H100-80GB", 2), ("A100-80GB", 2), ("H200", 1), ("RTX A6000", 4)],
        "mistralai__Mixtral-8x22B-v0.1": [("H100-80GB", 4), ("H200", 4), ("A100-80GB", 8)],
        "mistralai__Mixtral-8x7B-Instruct-v0.1": [("H100-80GB", 2), ("H200", 1), ("A100-80GB", 4)],
        "YeungNLP__firefly-mixtral-8x7b": [("A100-80GB", 2), ("RTX A6000", 4)],
    },
    "Qwen2MoeForCausalLM": {
        "ByteResearch__Hermes-Qwen1.5-MoE-A2.7B-Chat-2": [("H100-80GB", 1), ("RTX 4090", 2), ("L40S", 1)],
        "MaziyarPanahi__Qwen1.5-MoE-A2.7B-Wikihow": [("A100-80GB", 1), ("RTX A6000", 1), ("H100-80GB", 2)],
        "jackboot__quill-57b-tokenizer": [("H100-80GB", 2), ("H200", 1), ("A100-80GB", 4)],
    },
    "Phi3ForCausalLM": {
        "ehartford__phi3-4k": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 1)],
        "gaianet__phi-4-GGUF": [("H100-80GB", 1), ("RTX A6000", 1), ("L40S", 2)],
        "Alignment-Lab-AI__idfkphi4kiguess": [("A100-80GB", 1), ("L40S", 1), ("RTX 4090", 2)],
    },
    "CohereForCausalLM": {
        "unsloth__c4ai-command-r-08-2024": [("H100-80GB", 2), ("A100-80GB", 2), ("H200", 1)],
        "TechxGenus__c4ai-command-r-v01-AWQ": [("A100-80GB", 1), ("H100-80GB", 1), ("RTX A6000", 2)],
    },
    "Starcoder2ForCausalLM": {
        "TokenBender__starcoder2_15B_OCI": [("H100-80GB", 1), ("A100-40GB", 1), ("L40S", 2)],
        "uukuguy__starcoder2-15b-fp16": [("RTX A6000", 1), ("H100-80GB", 2), ("A100-80GB", 1)],
        "bigcode__starcoder2-3b": [("RTX 4090", 1), ("L40S", 1)],
        "bigcode__starcoder2-7b": [("RTX A6000", 1), ("A100-40GB", 1)],
    },
    "Gemma2ForCausalLM": {
        "thejaminator__gemma-hook-layer-0-step-2000": [("RTX 4090", 1), ("L40S", 1), ("H100-80GB", 1), ("A100-80GB", 2)],
        "ModelSpace__GemmaX2-28-2B-Pretrain": [("RTX 4090", 1), ("L40S", 1)],
        "kemura__gemma-2b-sql-finetuned": [("RTX 4090", 1), ("A100-40GB", 1)],
    },
    "Olmo2ForCausalLM": {
        "CodeAtCMU__OLMo-2-0425-1B_full_sft_code_data_": [("RTX 4090", 1), ("L40S", 1)],
        "allenai__OLMo-2-1124-13B": [("A100-80GB", 1), ("H100-80GB", 1), ("L40S", 2)],
        "allenai__OLMo-2-1124-7B": [("RTX A6000", 1), ("A100-40GB", 1), ("H100-80GB", 1)],
    },
    "PhiForCausalLM": {
        "microsoft__phi-1": [("RTX 4090", 1), ("L40S", 1)],
        "DUAL-GPO__phi-2-gpo-test-iter-1": [("RTX 4090", 1), ("A100-40GB", 1), ("L40S", 2)],
        "lole25__phi-2-gpo-ultrachat-lora-0.1": [("RTX 4090", 1), ("L40S", 1)],
        "Realluke__phi-2-senator-tweets": [("A100-40GB", 1), ("RTX 4090", 2)],
    },
    "GemmaForCausalLM": {
        "Tizzzzy__kgllm_Gemma": [("RTX 4090", 1), ("L40S", 1)],
        "divyanshshukla1412__DS-temp": [("RTX A6000", 1), ("A100-40GB", 1)],
        "yaswanthchittepu__gemma1-sft-159744": [("RTX 4090", 1), ("H100-80GB", 1)],
    },
    "Glm4ForCausalLM": {
        "Delta-Vector__Austral-GLM4-SFT": [("H100-80GB", 2), ("A100-80GB", 2), ("H200", 1)],
        "Edens-Gate__GLM-v2-lora": [("RTX A6000", 1), ("H100-80GB", 1)],
        "ccui46__hazardworld_per_chunk_act_glm_tokfix_diffPrompt_2000": [("L40S", 1), ("A100-40GB", 1)],
    },
    "GraniteForCausalLM": {
        "ibm-granite__granite-3.0-2b-instruct": [("RTX 4090", 1), ("L40S", 1)],
        "instructlab__granite-3.0-8b-lab-community": [("RTX A6000", 1), ("A100-40GB", 1)],
        "tbmod__granite-3.2-8b-instruct": [("H100-80GB", 1), ("L40S", 2)],
    },
    "GraniteMoeForCausalLM": {
        "ibm-granite__granite-3.0-1b-a400m-base": [("RTX 4090", 1), ("L40S", 1)],
        "ibm-granite__granite-3.0-3b-a800m-instruct": [("RTX 4090", 1), ("A100-40GB", 1)],
        "ibm-granite__granite-3.1-3b-a800m-instruct": [("L40S", 1), ("H100-80GB", 1)],
    },
    "ExaoneForCausalLM": {
        "heegyu__EXAONE-3.0-7.8B-Instruct-bf16": [("RTX A6000", 1), ("A100-40GB", 1)],
        "huihui-ai__EXAONE-3.5-32B-Instruct-abliterated": [("H100-80GB", 1), ("A100-80GB", 2)],
        "Toastmachine__exaone_CSAT_test": [("L40S", 1), ("RTX A6000", 1)],
    },
    "OlmoeForCausalLM": {
        "allenai__OLMoE-1B-7B-0924": [("RTX 4090", 1), ("L40S", 1)],
        "allenai__OLMoE-1B-7B-0924-SFT": [("A100-40GB", 1), ("RTX A6000", 1)],
        "interview-eval__olmoe-math-train-gsm8k-2": [("H100-80GB", 1), ("RTX 4090", 2)],
    },
    "PhiMoEForCausalLM": {
        "Pearush__phi_moe_22_attn": [("H100-80GB", 1), ("A100-80GB", 2)],
        "Pearush__phi_moe_30_attn2": [("H100-80GB", 2), ("RTX A6000", 2)],
        "rkumar1999__phi-tiny-moe-math-lean-sft": [("L40S", 1), ("H100-80GB", 1), ("RTX 4090", 2)],
    },
    "Glm4MoeForCausalLM": {
        "zai-org__GLM-4.5-FP8": [("H200", 4), ("H100-80GB", 8)],
        "zai-org__GLM-4.5-Air": [("H100-80GB", 4), ("H200", 2), ("A100-80GB", 4)],
        "PrimeIntellect__INTELLECT-3-Base": [("H200", 2), ("H100-80GB", 4)],
        "zai-org__GLM-4.5": [("H200", 8)],
    },
    "Qwen3_5MoeForCausalLM": {
        "Qwen__Qwen3.8-2.4T-A95B-FP8": [("H200", 8), ("H200", 16)],
        "Qwen__Qwen3.8-2.4T-A95B": [("H200", 8), ("H200", 16)],
    },
    "StableLmForCausalLM": {
        "stabilityai__stable-code-3b": [("RTX 4090", 1), ("L40S", 1)],
        "stabilityai__stablelm-2-12b": [("RTX A6000", 1), ("A100-40GB", 1)],
        "stabilityai__stablelm-2-1_6b-chat": [("RTX 4090", 1), ("A100-40GB", 1)],
    },
    "Cohere2ForCausalLM": {
        "huihui-ai__c4ai-command-r7b-12-2024-abliterated": [("RTX A6000", 1), ("H100-80GB", 1)],
        "mlx-community__c4ai-command-r7b-12-2024-4bit": [("RTX 4090", 1), ("L40S", 1)],
    },
    "MistralForCausalLM": {
        "stan-hua__Ministral-8B-Instruct-2410-AWQ-W4A16": [("RTX 4090", 1), ("L40S", 1)],
        "rivaon__sydney": [("RTX A6000", 1), ("A100-40GB", 1)],
        "mistralai__Mistral-Nemo-Instruct-2407": [("RTX A6000", 1), ("L40S", 1)],
    },
    "DbrxForCausalLM": {
        "SinclairSchneider__dbrx-instruct-quantization-fixed": [("H100-80GB", 4), ("H200", 2)],
        "LnL-AI__dbrx-base-converted-v2": [("A100-80GB", 4), ("H100-80GB", 8)],
        "amd__dbrx-instruct-FP8-KV": [("H100-80GB", 4), ("H200", 2)],
        # an EXL2 re-quantisation (quant_method exl2, "bits": 4.25): SGLang has no such method
        "ek826__dbrx-instruct-4.25bpw-exl2": [("H100-80GB", 4), ("A100-80GB", 4)],
    },
    "ArceeForCausalLM": {
        "Delta-Vector__Austral-AFM-SFT": [("RTX A6000", 1), ("L40S", 1), ("RTX 4090", 1)],
    },
    "Ernie4_5_ForCausalLM": {
        "baidu__ERNIE-4.5-0.3B-PT": [("RTX 4090", 1), ("L40S", 1)],
    },
    "Gemma3ForCausalLM": {
        "Codingstark__gemma3-270m-leetcode": [("RTX 4090", 1), ("L40S", 1)],
        "Creekside__gemma-3": [("RTX A6000", 1), ("H100-80GB", 1), ("L40S", 2)],
        "mlx-community__gemma-3-1b-pt-6bit": [("RTX 4090", 1), ("L40S", 1)],
    },
    "LlamaForCausalLM": {
        "meta-llama__Llama-2-7b-hf": [("RTX 4090", 1), ("A100-40GB", 1)],
        "01-ai__Yi-34B": [("H100-80GB", 1), ("A100-80GB", 2)],
        "HuggingFaceTB__SmolLM-360M-Instruct": [("RTX 4090", 1), ("L40S", 1)],
    },
    "InternLM2ForCausalLM": {
        "internlm__internlm2-chat-7b-sft": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 1)],
        "internlm__internlm2_5-20b-chat": [("H100-80GB", 1), ("RTX A6000", 2), ("A100-80GB", 1)],
        "CAS-SIAT-XinHai__CPsyCounX": [("RTX 4090", 2), ("L40S", 1)],
    },
    "InternLM3ForCausalLM": {
        "internlm__internlm3-8b-instruct": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 1)],
        "internlm__internlm3-8b-instruct-smoothquant-int8": [("RTX 4090", 1), ("L40S", 1)],
        "ToastyPigeon__intern-rp-lora": [("RTX A6000", 1), ("H100-80GB", 1)],
    },
    "Lfm2ForCausalLM": {
        "LiquidAI__LFM2-350M": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 1)],
        "LiquidAI__LFM2-1.2B": [("RTX 4090", 1), ("H100-80GB", 1), ("L40S", 2)],
        "saranshagarwal2020__p-vector": [("RTX 4090", 1), ("A100-80GB", 1)],
        "Praha-Labs__LFM-TTS-MALAYALAM": [("RTX 4090", 1), ("L40S", 1)],
    },
    "Qwen2ForCausalLM": {
        "Qwen__Qwen2.5-1.5B": [("RTX 4090", 1), ("L40S", 1)],
        "deepseek-ai__DeepSeek-R1-Distill-Qwen-32B": [("H100-80GB", 1), ("A100-80GB", 2)],
    },
    "Qwen3ForCausalLM": {
        "Qwen__Qwen3-0.6B": [("RTX 4090", 1), ("L40S", 1)],
        "Qwen__Qwen3-14B": [("L40S", 1), ("H100-80GB", 1)],
        "Qwen__Qwen3-Embedding-0.6B": [("RTX 4090", 1), ("L40S", 1)],
        "Qwen__Qwen3-Reranker-0.6B": [("RTX 4090", 1), ("A100-40GB", 1)],
    },
    "Qwen3MoeForCausalLM": {
        "Qwen__Qwen3-235B-A22B": [("H200", 8), ("H100-80GB", 8)],
        "Qwen__Qwen3-235B-A22B-FP8": [("H100-80GB", 4), ("H200", 4)],
        "Qwen__Qwen3-Coder-480B-A35B-Instruct": [("H200", 8)],
    },
    "DeepseekV2ForCausalLM": {
        "deepseek-ai__DeepSeek-V2-Lite": [("H100-80GB", 1), ("A100-80GB", 1), ("RTX A6000", 2)],
    },
    "DeepseekV3ForCausalLM": {
        "deepseek-ai__DeepSeek-R1": [("H200", 8)],
        "deepseek-ai__DeepSeek-V3.1": [("H200", 8)],
        "moonshotai__Kimi-K2-Instruct": [("H200", 8)],
    },
    "MiniMaxM2ForCausalLM": {
        "MiniMaxAI__MiniMax-M2.7": [("H200", 4), ("H100-80GB", 8)],
        "nvidia__MiniMax-M2.7-NVFP4": [("H200", 4), ("H200", 2), ("H100-80GB", 4)],
        "nvidia__MiniMax-M2.5-NVFP4": [("H200", 2), ("H100-80GB", 4)],
    },
    "Qwen3NextForCausalLM": {
        "Qwen__Qwen3-Next-80B-A3B-Thinking": [("H200", 2), ("H100-80GB", 4)],
    },
    "Qwen3_5MoeForConditionalGeneration": {
        "Qwen__Qwen3.5-122B-A10B": [("H200", 2), ("H100-80GB", 4)],
        "Qwen__Qwen3.6-35B-A3B": [("H100-80GB", 1), ("RTX A6000", 2)],
    },
    "OlmoForCausalLM": {
        "onnx-community__OLMo-1B-hf": [("RTX 4090", 1), ("L40S", 1)],
        "ssec-uw__OLMo-7B-Instruct-hf": [("RTX A6000", 1), ("A100-40GB", 1), ("H100-80GB", 2)],
        "hamishivi__OLMo-1B-0724-SFT-hf": [("RTX 4090", 1), ("A100-40GB", 1)],
        "ai2-adapt-dev__peteish7-step928646": [("L40S", 1), ("H100-80GB", 1)],
    },
    "GPTJForCausalLM": {
        "PygmalionAI__pygmalion-6b": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 2)],
        "rexwang8__qilin-lit-6b": [("RTX A6000", 1), ("H100-80GB", 1)],
        "adamluc__gptjt": [("A100-40GB", 1), ("RTX 4090", 2)],
    },
    "GPT2LMHeadModel": {
        "microsoft__DialoGPT-large": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 2)],
        "Finnish-NLP__gpt2-large-finnish": [("RTX A6000", 1), ("RTX 4090", 2)],
        "postbot__gpt2-medium-emailgen": [("RTX 4090", 1), ("L40S", 2)],
        "ml6team__gpt-2-medium-conditional-quote-generator": [("A100-40GB", 1), ("RTX 4090", 1)],
    },
    "GPTBigCodeForCausalLM": {
        "bigcode__starcoder-co-format": [("H100-80GB", 1), ("A100-80GB", 1), ("A100-40GB", 2)],
        "Xenova__WizardCoder-1B-V1.0": [("RTX 4090", 1), ("L40S", 1)],
        "alxxtexxr__WizardCoder-15B-V1.0-sharded-8gb": [("H200", 1), ("RTX A6000", 2)],
    },
    "ChatGLMModel": {
        "THUDM__glm-4-9b-chat": [("L40S", 1), ("A100-40GB", 1), ("H100-80GB", 2)],
        "THUDM__chatglm2-6b": [("RTX 4090", 1), ("A100-40GB", 1)],
        "zenlm__zen3-image-text_encoder": [("RTX A6000", 1), ("RTX 4090", 2)],
    },
    "OPTForCausalLM": {
        "AlekseyKorshuk__6.7b-dalio-book-handwritten-io-constant-1e-6-v2": [("RTX 4090", 1), ("A100-40GB", 1), ("L40S", 2)],
        "Manuel030__alpaca-opt-6.7b": [("RTX A6000", 1), ("H100-80GB", 1)],
        "bimabk__instruct_4ef6b15": [("RTX 4090", 1), ("L40S", 1)],
        "seclab-yonsei__amplifying-exposure-opt-13b": [("A100-80GB", 1), ("RTX A6000", 2)],
    },
    "PersimmonForCausalLM": {
        "adept__persimmon-8b-base": [("L40S", 1), ("A100-40GB", 1), ("H100-80GB", 2)],
        "adept__persimmon-8b-chat": [("RTX A6000", 1), ("A100-80GB", 1)],
        "mgoin__persimmon-8b-chat-ds": [("H100-80GB", 1), ("L40S", 2)],
    },
    "NemotronHForCausalLM": {
        "nvidia__NVIDIA-Nemotron-3-Super-120B-A12B-FP8": [("H100-80GB", 2), ("H200", 1)],
    },
    # Qwen3-VL 32B: the large-Hopper rows exercise model_overrides/qwen3_vl.py (0.5.23), the others do not
    "Qwen2_5_VLForConditionalGeneration": {
        "Qwen__Qwen2.5-VL-7B-Instruct": [("RTX 4090", 1), ("H100-80GB", 1), ("A100-80GB", 2), ("L40S", 2)],
        "Qwen__Qwen2.5-VL-3B-Instruct": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 1)],
        "allenai__olmOCR-2-7B-1025-FP8": [("L40S", 1), ("H100-80GB", 1), ("RTX 4090", 1), ("H200", 1)],
    },
    "DeepseekV32ForCausalLM": {
        "deepseek-ai__DeepSeek-V3.2": [("H200", 8), ("H100-80GB", 8)],
        "nvidia__DeepSeek-V3.2-NVFP4": [("H200", 8), ("H200", 4)],
    },
    "GlmMoeDsaForCausalLM": {
        "zai-org__GLM-5-FP8": [("H200", 8)],
        "zai-org__GLM-5.1-FP8": [("H200", 8)],
        "zai-org__GLM-5.2-FP8": [("H200", 8)],
        "nvidia__GLM-5.1-NVFP4": [("H200", 8), ("H200", 4)],
        "nvidia__GLM-5.2-NVFP4": [("H200", 8), ("H200", 4)],
    },
    "KimiK25ForConditionalGeneration": {
        "moonshotai__Kimi-K2.5": [("H200", 8), ("H100-80GB", 8)],
        "nvidia__Kimi-K2.5-NVFP4": [("H200", 4), ("H200", 8), ("H100-80GB", 8)],
        "nvidia__Kimi-K2.6-NVFP4": [("H200", 8), ("H200", 4)],
        "nvidia__Kimi-K2.7-Code-NVFP4": [("H200", 8), ("H100-80GB", 8)],
    },
    "Qwen3VLForConditionalGeneration": {
        "Qwen__Qwen3-VL-32B-Instruct": [("H100-80GB", 1), ("RTX A6000", 2), ("A100-80GB", 2), ("H200", 1)],
        "Qwen__Qwen3-VL-32B-Thinking": [("H100-80GB", 2), ("L40S", 4), ("H200", 2)],
        "Qwen__Qwen3-VL-8B-Instruct": [("RTX 4090", 1), ("H100-80GB", 1), ("L40S", 1), ("A100-40GB", 1)],
    },
    "Qwen3VLMoeForConditionalGeneration": {
        "Qwen__Qwen3-VL-30B-A3B-Instruct": [("H100-80GB", 1), ("RTX A6000", 2), ("A100-80GB", 1), ("L40S", 2)],
        "Qwen__Qwen3-VL-235B-A22B-Instruct": [("H200", 8), ("H100-80GB", 8)],
    },
    "ApertusForCausalLM": {
        "NewEden-Forge__Science-Expert-R1": [("RTX A6000", 1), ("H100-80GB", 1), ("L40S", 2)],
        "Saesara__10text": [("A100-40GB", 1), ("RTX 4090", 2), ("H100-80GB", 1)],
    },
    # Llama 4 (text only: SGLang disables its vision tower unless --enable-multimodal): chunked-attention layers
    # pooled as hybrid SWA, every fourth layer global (NoPE)
    "Llama4ForConditionalGeneration": {
        "meta-llama__Llama-4-Scout-17B-16E-Instruct": [("H100-80GB", 4), ("H200", 2), ("A100-80GB", 4), ("H100-80GB", 8)],
        "RedHatAI__Llama-4-Scout-17B-16E-Instruct-FP8-dynamic": [("H100-80GB", 2), ("H200", 1), ("L40S", 4)],
    },
    "Gemma3ForConditionalGeneration": {
        "google__gemma-3-4b-it": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 2)],
        "google__medgemma-27b-it": [("H100-80GB", 1), ("A100-80GB", 2), ("H200", 1), ("L40S", 4)],
        "mlx-community__gemma-3-4b-pt-4bit": [("RTX 4090", 1), ("L40S", 2)],
        "mlx-community__gemma-3-4b-pt-6bit": [("L40S", 1), ("RTX A6000", 1)],
        "mlx-community__gemma-3-12b-pt-4bit": [("RTX A6000", 1), ("H100-80GB", 1), ("L40S", 2)],
    },
    "Gemma4ForConditionalGeneration": {
        "google__gemma-4-31B-it": [("H100-80GB", 2), ("H200", 1), ("A100-80GB", 2), ("H100-80GB", 4)],
        "google__gemma-4-26B-A4B": [("H100-80GB", 1), ("H200", 1), ("L40S", 2), ("H100-80GB", 2)],
        "nvidia__Gemma-4-31B-IT-NVFP4": [("H100-80GB", 1), ("H200", 1), ("H100-80GB", 2)],
        "nvidia__Gemma-4-26B-A4B-NVFP4": [("H100-80GB", 1), ("L40S", 1), ("H100-80GB", 2)],
    },
    "Glm4vMoeForConditionalGeneration": {
        "zai-org__GLM-4.5V": [("H100-80GB", 4), ("H200", 2), ("A100-80GB", 4), ("H100-80GB", 8)],
    },
    # pooling classes (embedding, reward and classification models)
    "BertModel": {
        "BAAI__bge-base-en-v1.5": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 2)],
        "BAAI__bge-large-zh-v1.5": [("RTX 4090", 1), ("A100-40GB", 1)],
        "sentence-transformers__all-MiniLM-L6-v2": [("RTX 4090", 1), ("L40S", 2)],
    },
    "BertForSequenceClassification": {
        "nlptown__bert-base-multilingual-uncased-sentiment": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 2)],
        "ProsusAI__finbert": [("RTX 4090", 1), ("A100-40GB", 1)],
        "unitary__toxic-bert": [("L40S", 1), ("RTX 4090", 2)],
        "KennethTM__MiniLM-L6-danish-reranker": [("RTX 4090", 1), ("L40S", 1)],
    },
    "XLMRobertaModel": {
        "maidalun1020__bce-embedding-base_v1": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 2)],
        "jaeyong2__bge-m3-Ko": [("RTX 4090", 1), ("A100-40GB", 1), ("H100-80GB", 2)],
        "danfeg__IF-E5-L-M_Finetuned-FR-1000": [("L40S", 1), ("RTX 4090", 1)],
        "d0rj__e5-base-en-ru": [("RTX 4090", 1), ("L40S", 2)],
    },
    "XLMRobertaForSequenceClassification": {
        "BAAI__bge-reranker-v2-m3": [("RTX 4090", 1), ("A100-40GB", 1), ("L40S", 2)],
        "BAAI__bge-reranker-base": [("RTX 4090", 1), ("L40S", 1)],
        "maidalun1020__bce-reranker-base_v1": [("A100-40GB", 1), ("RTX 4090", 2)],
    },
    "MistralModel": {
        "intfloat__e5-mistral-7b-instruct": [("L40S", 1), ("A100-40GB", 1), ("RTX 4090", 2)],
        "Salesforce__SFR-Embedding-Mistral": [("H100-80GB", 1), ("RTX A6000", 1)],
        "zeta-alpha-ai__Zeta-Alpha-E5-Mistral": [("RTX 4090", 1), ("A100-80GB", 1)],
    },
    "LlamaForSequenceClassification": {
        "Skywork__Skywork-Reward-Llama-3.1-8B": [("L40S", 1), ("H100-80GB", 1), ("RTX 4090", 2)],
        "sfairXC__FsfairX-LLaMA3-RM-v0.1": [("RTX 4090", 1), ("A100-40GB", 1)],
        "Ray2333__GRM_Llama3.1_8B_rewardmodel-ft": [("H100-80GB", 1), ("RTX A6000", 2)],
        "reciprocate__rm_beluga-7b_hh-full": [("L40S", 1), ("A100-80GB", 1)],
        "yyqoni__rlhflow-llama-3-sft-8b": [("RTX 4090", 1), ("H100-80GB", 2)],
    },
    "Gemma2ForSequenceClassification": {
        "Skywork__Skywork-Reward-Gemma-2-27B": [("H100-80GB", 1), ("A100-80GB", 2)],
        "Ray2333__GRM-gemma2-2B-rewardmodel-ft": [("RTX 4090", 1), ("L40S", 1)],
        "sfairXC__FsfairX-Gemma2-RM-v0.1": [("L40S", 1), ("H100-80GB", 1), ("RTX A6000", 2)],
        "rawsh__mirrorgemma-2-2b-prm-base": [("RTX 4090", 1), ("A100-40GB", 1)],
        "mahbubhimel__BNGEMMA": [("L40S", 1), ("RTX 4090", 2)],
    },
    "InternLM2ForRewardModel": {
        "internlm__internlm2-1_8b-reward": [("RTX 4090", 1), ("L40S", 1)],
        "internlm__internlm2-7b-reward": [("A100-40GB", 1), ("RTX 4090", 2), ("L40S", 1)],
        "internlm__internlm2-20b-reward": [("H100-80GB", 1), ("A100-80GB", 2)],
        "internlm__POLAR-7B": [("L40S", 1), ("H100-80GB", 1)],
    },
    "Qwen2ForRewardModel": {
        "Qwen__Qwen2.5-Math-RM-72B": [("H200", 2), ("H100-80GB", 4)],
        "WangResearchLab__verification-1.5b": [("RTX 4090", 1), ("L40S", 1)],
        "infly__Universal-PRM-7B": [("L40S", 1), ("A100-40GB", 1), ("RTX 4090", 2)],
    },
    "Qwen2ForSequenceClassification": {
        "merty__attempt3_7b_qwen2.5": [("A100-40GB", 1), ("RTX 4090", 2)],
        "JayHyeon__Qwen2-0.5B-Reward_5e-4": [("RTX 4090", 1), ("L40S", 1)],
        "EndOfLe__fine_tuned_wp": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 1)],
    },
    "Qwen3ForSequenceClassification": {
        "michaelfeil__Qwen3-Reranker-4B-seq": [("RTX 4090", 1), ("L40S", 1), ("A100-40GB", 1)],
        "ruberri__MNLP_M2_mcqa_model": [("RTX 4090", 1), ("L40S", 2)],
    },
}
ARCH_CASES_PER_MODEL = 6


# Classes whose model_type only the checkpoint's own configuration_*.py defines (neither SGLang's config classes nor
# the pinned transformers know it), so SGLang loads them only with --trust-remote-code (harness_common stands in for
# that module).
REMOTE_CODE_ARCHS = frozenset({"InternLM2ForCausalLM", "InternLM3ForCausalLM", "InternLM2ForRewardModel"})


# Extra cases of one model, each with these flags over its first deployment: a class-specific check the random
# grid does not draw (Llama 4 accepts only some attention backends)
ARCH_FLAG_CASES = {
    "meta-llama__Llama-4-Scout-17B-16E-Instruct": ({"attention_backend": "flashinfer"}, {"attention_backend": "triton", "context_length": 65536}),
    # Gemma 4: an FP8 KV cache at a long context, another SWA/full split, one pool for every layer, text only
    "google__gemma-4-31B-it": (
        {"kv_cache_dtype": "fp8_e4m3", "context_length": 131072},
        {"swa_full_tokens_ratio": 0.5, "mem_fraction_static": 0.85},
        {"disable_hybrid_swa_memory": True, "context_length": 65536},
        {"language_model_only": True},
    ),
    "google__gemma-4-26B-A4B": ({"swa_full_tokens_ratio": 0.25, "max_running_requests": 16}, {"language_model_only": True, "context_length": 262144}),
    # Gemma 3: multimodal only with --enable-multimodal (mm_disabled_models); an FP8 KV cache at its full context
    "google__gemma-3-4b-it": ({"enable_multimodal": True}, {"enable_multimodal": True, "mem_fraction_static": 0.8, "max_running_requests": 64}),
    "google__medgemma-27b-it": ({"enable_multimodal": True, "context_length": 32768}, {"kv_cache_dtype": "fp8_e4m3", "context_length": 131072}),
    # --language-model-only: from 0.5.18 only ServerArgs.LANGUAGE_MODEL_ONLY_ARCHITECTURES may run text only
    "Qwen__Qwen3-VL-8B-Instruct": ({"language_model_only": True},),
}

# Decoder checkpoints trained as embedding models: SGLang serves them with --is-embedding (their class alone does
# not say so)
EMBEDDING_CHECKPOINTS = frozenset({"Qwen__Qwen3-Embedding-0.6B"})


def _model_dir(prefix: str) -> str:
    """The fixture folder a (possibly truncated) ARCH_MODELS key names."""
    if os.path.isdir(os.path.join(CONFIGS, prefix)):
        return prefix
    matches = sorted(d for d in os.listdir(CONFIGS) if d.startswith(prefix))
    if len(matches) != 1:
        raise SystemExit(f"ARCH_MODELS: {prefix!r} matches {matches} in {CONFIGS}")
    return matches[0]


def _architecture_cases():
    out = []
    for arch, models in ARCH_MODELS.items():
        for prefix, deploys in models.items():
            model = _model_dir(prefix)
            rng = random.Random(f"arch:{model}")
            contexts = [c for c in CTX if c <= max_context(model)] or [max_context(model)]
            short = model.split("__", 1)[1]
            remote_config = arch in REMOTE_CODE_ARCHS
            for i in range(ARCH_CASES_PER_MODEL):
                gpu, tp = deploys[i % len(deploys)]
                pre = round(GPUS[gpu][1] / 1024 - rng.choice(OVERHEAD_GIB), 2)
                args = {}
                if rng.random() < 0.75:
                    args["mem_fraction_static"] = rng.choice(MFS)
                if rng.random() < 0.7:
                    args["context_length"] = rng.choice(contexts)
                if rng.random() < 0.3:
                    args["max_running_requests"] = rng.choice([8, 16, 32, 48, 64, 128, 256])
                if rng.random() < 0.15:
                    args["kv_cache_dtype"] = "fp8_e4m3"
                if model in EMBEDDING_CHECKPOINTS:
                    args["is_embedding"] = True
                if remote_config and i % 3 != 2:
                    args["trust_remote_code"] = True  # every third case checks the refusal without it
                out.append(_case(f"arch-{short}-{i:02d}", model, gpu, tp, pre, args))
            for k, flags in enumerate(ARCH_FLAG_CASES.get(model, ()), ARCH_CASES_PER_MODEL):
                gpu, tp = deploys[0]
                out.append(_case(f"arch-{short}-{k:02d}", model, gpu, tp, round(GPUS[gpu][1] / 1024 - 0.8, 2), dict(flags)))
    return out


MFS = [0.7, 0.75, 0.8, 0.82, 0.85, 0.88, 0.9, 0.93]
CTX = [4096, 8192, 16384, 32768, 65536, 131072]
OVERHEAD_GIB = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
SPEC = [
    ("NEXTN", 3, 1, 4),
    ("EAGLE", 3, 1, 4),
    ("NEXTN", 1, 1, 2),
    ("EAGLE", 2, 1, 3),
    ("NEXTN", 5, 1, 6),
    ("EAGLE", 3, 2, 6),
    ("NEXTN", 4, 1, 5),
]
CASES_PER_MODEL = 11


def gpu_block(gpu: str, count: int) -> dict:
    name, mib, cc = GPUS[gpu][:3]
    return {"name": gpu, "smi_name": name, "memory_total_mib": mib, "compute_capability": "%d.%d" % cc, "count": count}


# Where SGLang's code disagrees with a research note: the note's number stays in ``expect``,
# what the wheel's code gives is in ``deviation`` with the reason (README.md lists them).
ROPE_RESERVE = (
    "ModelRunner.load_model pre-expands the RoPE caches before sizing "
    "(reserve_rope_cache_for_long_sequences: context + 2*steps*draft + 256, 128-aligned). "
    "For Qwen3.6 the vision tower's cache grows by 8.3 MB, and for Llama-3.1-8B's default "
    "131,072 context the text cache grows by 128 KiB. oracle-0.5.23.md's harness built the "
    "classes without that step"
)


def _case(cid, model, gpu, tp, pre, args, env=None, expect=None, weights_gib=None, deviation=None):
    server_args = {"tp_size": tp}
    server_args.update(args)
    case = {"id": cid, "model": model, "gpu": gpu_block(gpu, tp), "pre_model_load_gib": pre, "server_args": server_args, "env": dict(env or {})}
    if weights_gib is not None:
        case["weights_gib"] = weights_gib  # resident weights given, not counted
    if expect is not None:
        case["expect"] = expect
    if deviation is not None:
        case["deviation"] = deviation
    return case


def _incident_0_5_23():
    """oracle-0.5.23.md §4/§5: Qwen3.6-27B, 2x RTX A6000, TP 2, NEXTN 3/1/4."""
    m, g = "Qwen__Qwen3.6-27B", "RTX A6000"
    base = {
        "mem_fraction_static": 0.85,
        "context_length": 65536,
        "speculative_algorithm": "NEXTN",
        "speculative_num_steps": 3,
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
    }

    def a(**kw):
        d = dict(base)
        for k, v in kw.items():
            if v is None:
                d.pop(k, None)
            else:
                d[k] = v
        return d

    def tok(t, k, r):
        return {"max_total_num_tokens": t, "max_mamba_cache_size": k, "max_running_requests": r}

    def err(cls, text):
        return {"error_type": cls, "error_contains": text}

    w = 28.29  # the weights of sglang-memory.md §5.2 (the notes' W column)
    C = []
    C.append(_case("incident-0523-base", m, g, 2, 47.3, a(), expect=tok(204134, 40, 8), deviation=dict(tok(203881, 40, 8), why=ROPE_RESERVE)))
    C.append(_case("incident-0523-base-w28.29", m, g, 2, 47.3, a(), weights_gib=w, expect=tok(206357, 40, 8)))
    # the "real params" column: target + draft parameter bytes counted by the classes (§3)
    C.append(_case("incident-0523-base-wparams", m, g, 2, 47.3, a(), weights_gib=(27359370352 + 3019951104) / (1 << 30), expect=tok(206261, 40, 8)))
    C.append(
        _case("incident-0523-disable-radix", m, g, 2, 47.3, a(disable_radix_cache=True), expect=err("ValueError", "Raise --mem-fraction-static above 0.600"))
    )
    C.append(
        _case(
            "incident-0523-disable-radix-w28.29",
            m,
            g,
            2,
            47.3,
            a(disable_radix_cache=True),
            weights_gib=w,
            expect=err("ValueError", "Raise --mem-fraction-static above 0.599"),
        )
    )
    C.append(
        _case("incident-0523-mrr16", m, g, 2, 47.3, a(max_running_requests=16), expect=tok(204134, 40, 8), deviation=dict(tok(203881, 40, 8), why=ROPE_RESERVE))
    )
    C.append(_case("incident-0523-mrr16-w28.29", m, g, 2, 47.3, a(max_running_requests=16), weights_gib=w, expect=tok(206357, 40, 8)))
    C.append(
        _case(
            "incident-0523-ssm-bf16",
            m,
            g,
            2,
            47.3,
            a(mamba_ssm_dtype="bfloat16"),
            expect=tok(205457, 81, 16),
            deviation=dict(tok(205204, 81, 16), why=ROPE_RESERVE),
        )
    )
    C.append(_case("incident-0523-ssm-bf16-w28.29", m, g, 2, 47.3, a(mamba_ssm_dtype="bfloat16"), weights_gib=w, expect=tok(206483, 82, 16)))
    # §5, all with W = 28.29
    C.append(_case("incident-0523-pre47.0-w28.29", m, g, 2, 47.0, a(), weights_gib=w, expect=tok(209746, 39, 7)))
    C.append(_case("incident-0523-pre47.6-w28.29", m, g, 2, 47.6, a(), weights_gib=w, expect=tok(212364, 41, 8)))
    C.append(_case("incident-0523-mfr2.0-w28.29", m, g, 2, 47.3, a(mamba_full_memory_ratio=2.0), weights_gib=w, expect=tok(135887, 58, 11)))
    C.append(_case("incident-0523-mfs0.88-w28.29", m, g, 2, 47.3, a(mem_fraction_static=0.88), weights_gib=w, expect=tok(231714, 45, 9)))
    C.append(
        _case(
            "incident-0523-nomfs-w28.29",
            m,
            g,
            2,
            47.3,
            a(mem_fraction_static=None),
            weights_gib=w,
            expect=dict(tok(161268, 29, 5), mem_fraction_static=0.78605),
        )
    )
    C.append(
        _case(
            "incident-0523-mfs0.62-w28.29",
            m,
            g,
            2,
            47.3,
            a(mem_fraction_static=0.62),
            weights_gib=w,
            expect=err("RuntimeError", "Computed max_mamba_cache_size=0"),
        )
    )
    C.append(
        _case(
            "incident-0523-mfs0.64-w28.29",
            m,
            g,
            2,
            47.3,
            a(mem_fraction_static=0.64),
            weights_gib=w,
            expect=err("RuntimeError", "max_mamba_cache_size=4, mamba_ratio=5"),
        )
    )
    C.append(
        _case(
            "incident-0523-norad-mrr16-w28.29",
            m,
            g,
            2,
            47.3,
            a(disable_radix_cache=True, max_running_requests=16),
            weights_gib=w,
            expect={"max_total_num_tokens": 187565, "max_running_requests": 16},
        )
    )
    C.append(
        _case(
            "incident-0523-norad-mrr24-w28.29",
            m,
            g,
            2,
            47.3,
            a(disable_radix_cache=True, max_running_requests=24),
            weights_gib=w,
            expect={"max_total_num_tokens": 93605, "max_running_requests": 24},
        )
    )
    C.append(
        _case(
            "incident-0523-norad-mrr32-w28.29",
            m,
            g,
            2,
            47.3,
            a(disable_radix_cache=True, max_running_requests=32),
            weights_gib=w,
            expect=err("ValueError", "Loaded weights leave no GPU memory for the KV cache"),
        )
    )
    C.append(
        _case(
            "incident-0523-nospec-w25.48", m, g, 2, 47.3, {"mem_fraction_static": 0.85, "context_length": 65536}, weights_gib=25.48, expect=tok(253804, 95, 19)
        )
    )
    # Llama-3.1-8B on H100 (oracle-0.5.23.md §4)
    lm = "meta-llama__Llama-3.1-8B-Instruct"
    C.append(
        _case(
            "oracle-0523-llama8b-w14.96",
            lm,
            "H100-80GB",
            1,
            79.0,
            {"mem_fraction_static": 0.88},
            weights_gib=14.96,
            expect={"max_total_num_tokens": 446955, "max_running_requests": 2048},
        )
    )
    C.append(
        _case(
            "oracle-0523-llama8b",
            lm,
            "H100-80GB",
            1,
            79.0,
            {"mem_fraction_static": 0.88},
            expect={"max_total_num_tokens": 446463, "max_running_requests": 2048},
            deviation={"max_total_num_tokens": 446462, "max_running_requests": 2048, "why": ROPE_RESERVE},
        )
    )
    C.append(
        _case(
            "oracle-0523-llama8b-nomfs-w14.96",
            lm,
            "H100-80GB",
            1,
            79.0,
            {},
            weights_gib=14.96,
            expect={"max_total_num_tokens": 414597, "max_running_requests": 2048, "mem_fraction_static": 0.83},
        )
    )
    return C


# seed-on-0.5.9.md: W = 27,359,368,048 B (target params, delta = 0) as the note assumed.
SEED_W_GIB = 27359368048 / (1 << 30)


def _incident_0_5_9():
    m, g = "Qwen__Qwen3.6-27B", "RTX A6000"
    base = {
        "mem_fraction_static": 0.85,
        "context_length": 65536,
        "speculative_algorithm": "NEXTN",
        "speculative_num_steps": 3,
        "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
    }

    def a(**kw):
        d = dict(base)
        for k, v in kw.items():
            if v is None:
                d.pop(k, None)
            else:
                d[k] = v
        return d

    def tok(t, k, r):
        return {"max_total_num_tokens": t, "max_mamba_cache_size": k, "max_running_requests": r}

    nem = {"error_type": "RuntimeError", "error_contains": "Not enough memory. Please try to increase --mem-fraction-static"}
    C = []
    # §4: the three attempts, with counted weights and with the note's W
    C.append(_case("incident-059-attempt1", m, g, 2, 47.3, a(enable_torch_compile=True), expect=nem))
    C.append(_case("incident-059-attempt1-wseed", m, g, 2, 47.3, a(enable_torch_compile=True), weights_gib=SEED_W_GIB, expect=nem))
    C.append(_case("incident-059-attempt2", m, g, 2, 47.3, a(context_length=32768), expect=nem))
    C.append(_case("incident-059-attempt3", m, g, 2, 47.3, a(mem_fraction_static=0.88, mamba_full_memory_ratio=0.5), expect=nem))
    C.append(_case("incident-059-attempt3-wseed", m, g, 2, 47.3, a(mem_fraction_static=0.88, mamba_full_memory_ratio=0.5), weights_gib=SEED_W_GIB, expect=nem))
    # §5: the fix and its sweep (W of the note)
    sweep = {
        8: (374609, 380179, 388535, 396891),
        16: (280649, 286219, 294575, 302931),
        24: (186689, 192259, 200615, 208971),
        32: (92729, 98299, 106655, 115011),
        35: (57494, 63064, 71420, 79776),
        40: (None, 4339, 12695, 21051),
        41: (None, None, 950, 9306),
        42: (None, None, None, None),
    }
    for r, row in sweep.items():
        for pre, t in zip((46.8, 47.0, 47.3, 47.6), row):
            exp = nem if t is None else tok(t, r, r)
            C.append(_case(f"incident-059-mrr{r}-pre{pre}-wseed", m, g, 2, pre, a(max_running_requests=r), weights_gib=SEED_W_GIB, expect=exp))
    C.append(_case("incident-059-mrr32", m, g, 2, 47.3, a(max_running_requests=32)))
    C.append(_case("incident-059-ssm-bf16-wseed", m, g, 2, 47.3, a(mamba_ssm_dtype="bfloat16"), weights_gib=SEED_W_GIB, expect=tok(195215, 48, 48)))
    C.append(
        _case(
            "incident-059-d2-wseed",
            m,
            g,
            2,
            47.3,
            a(speculative_num_steps=1, speculative_num_draft_tokens=2),
            weights_gib=SEED_W_GIB,
            expect={"max_total_num_tokens": 144239, "max_running_requests": 48},
        )
    )
    C.append(
        _case("incident-059-extra-buffer-wseed", m, g, 2, 47.3, a(mamba_scheduler_strategy="extra_buffer"), weights_gib=SEED_W_GIB, expect=tok(17393, 6, 1))
    )
    C.append(
        _case(
            "incident-059-nospec-wseed",
            m,
            g,
            2,
            47.3,
            {"mem_fraction_static": 0.85, "context_length": 65536},
            weights_gib=SEED_W_GIB,
            expect=tok(254642, 97, 32),
        )
    )
    C.append(_case("incident-059-mfs0.91-wseed", m, g, 2, 47.3, a(mem_fraction_static=0.91), weights_gib=SEED_W_GIB, expect={"max_total_num_tokens": 11731}))
    C.append(_case("incident-059-mfs0.92-wseed", m, g, 2, 47.3, a(mem_fraction_static=0.92), weights_gib=SEED_W_GIB, expect={"max_total_num_tokens": 27230}))
    C.append(_case("incident-059-nomfs", m, g, 2, 47.3, a(mem_fraction_static=None), expect=dict(nem, mem_fraction_static=0.755)))
    return C


def max_context(model: str) -> int:
    """The config's max_position_embeddings (text config for multimodal models; GPT-2 and GPT-J: n_positions)."""
    with open(os.path.join(CONFIGS, model, "config.json")) as fh:
        cfg = json.load(fh)
    text = cfg.get("text_config") or cfg
    return int(text.get("max_position_embeddings") or cfg.get("max_position_embeddings") or text.get("n_positions") or 4096)


def _generated(seed: int):
    rng = random.Random(seed)
    out = []
    for model, (deploys, feats) in MODELS.items():
        short = model.split("__", 1)[1]
        contexts = [c for c in CTX if c <= max_context(model)]
        for i in range(CASES_PER_MODEL):
            gpu, tp = deploys[i % len(deploys)]
            total_gib = GPUS[gpu][1] / 1024
            pre = round(total_gib - rng.choice(OVERHEAD_GIB), 2)
            args = {}
            if rng.random() < 0.75:
                args["mem_fraction_static"] = rng.choice(MFS)
            if rng.random() < 0.7:
                args["context_length"] = rng.choice(contexts)
            if "mtp" in feats and rng.random() < 0.55:
                alg, steps, topk, draft = rng.choice(SPEC)
                args.update(speculative_algorithm=alg, speculative_num_steps=steps, speculative_eagle_topk=topk, speculative_num_draft_tokens=draft)
            if "mamba" in feats:
                r = rng.random()
                if r < 0.2:
                    args["mamba_full_memory_ratio"] = rng.choice([0.5, 1.5, 2.0, 3.0])
                elif r < 0.3:
                    args["max_mamba_cache_size"] = rng.choice([16, 32, 64, 128])
                if rng.random() < 0.25:
                    args["mamba_ssm_dtype"] = rng.choice(["bfloat16", "float32"])
                if rng.random() < 0.2:
                    args["disable_radix_cache"] = True
            if rng.random() < 0.3:
                args["max_running_requests"] = rng.choice([8, 16, 32, 48, 64, 128, 256])
            if rng.random() < 0.08:
                args["kv_cache_dtype"] = "fp8_e4m3"
            out.append(_case(f"gen-{short}-{i:02d}", model, gpu, tp, pre, args))
    return out


def _edge_cases():
    """Fatal error classes that the random grid rarely reaches."""
    C = []
    # context longer than the model's derived context (ValueError at ModelConfig)
    C.append(_case("edge-ctx-too-long-qwen2.5-7b", "Qwen__Qwen2.5-7B-Instruct", "H100-80GB", 1, 78.9, {"context_length": 131072}))
    # weights do not fit at all
    C.append(_case("edge-70b-on-one-a6000", "meta-llama__Llama-3.1-70B-Instruct", "RTX A6000", 1, 47.3, {"mem_fraction_static": 0.9}))
    C.append(_case("edge-27b-on-one-4090", "Qwen__Qwen3.6-27B", "RTX 4090", 1, 23.3, {}))
    # weights fit but leave no KV
    C.append(_case("edge-qwen3-32b-a100-40-mfs0.8", "Qwen__Qwen3-32B", "A100-40GB", 2, 39.3, {"mem_fraction_static": 0.8, "context_length": 32768}))
    C.append(_case("edge-llama8b-4090-mfs0.6", "meta-llama__Llama-3.1-8B-Instruct", "RTX 4090", 1, 23.4, {"mem_fraction_static": 0.6}))
    # tiny --max-total-tokens and page sizes
    C.append(
        _case(
            "edge-llama8b-max-total-tokens", "meta-llama__Llama-3.1-8B-Instruct", "H100-80GB", 1, 78.8, {"mem_fraction_static": 0.85, "max_total_tokens": 50000}
        )
    )
    C.append(_case("edge-llama8b-page16", "meta-llama__Llama-3.1-8B-Instruct", "H100-80GB", 1, 78.8, {"mem_fraction_static": 0.85, "page_size": 16}))
    # mamba pool errors
    C.append(_case("edge-qwen3.6-mmcs0", "Qwen__Qwen3.6-27B", "H100-80GB", 1, 78.8, {"max_mamba_cache_size": 0}))
    C.append(_case("edge-qwen3.6-a6000x2-mfs0.6", "Qwen__Qwen3.6-27B", "RTX A6000", 2, 47.3, {"mem_fraction_static": 0.6, "context_length": 32768}))
    C.append(_case("edge-qwen3-next-h100x2-mfs0.95", "Qwen__Qwen3-Next-80B-A3B-Instruct", "H100-80GB", 2, 78.9, {"mem_fraction_static": 0.95}))
    C.append(_case("edge-nemotron-nano-a6000", "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "RTX A6000", 1, 47.2, {"mem_fraction_static": 0.9}))
    # gpt-oss hybrid SWA with a request cap and radix off
    C.append(
        _case(
            "edge-gptoss20b-swa-cap",
            "openai__gpt-oss-20b",
            "H100-80GB",
            1,
            78.8,
            {"mem_fraction_static": 0.85, "disable_radix_cache": True, "max_running_requests": 64},
        )
    )
    C.append(_case("edge-gptoss120b-a6000x2", "openai__gpt-oss-120b", "RTX A6000", 2, 47.2, {"mem_fraction_static": 0.88}))
    # the remaining fatal classes: a KV pool smaller than one page, no request slot,
    # a hybrid-SWA pool below the admission floor, and the SWA request cap
    C.append(
        _case("edge-llama8b-max-total-tokens-below-page", "meta-llama__Llama-3.1-8B-Instruct", "H100-80GB", 1, 78.8, {"max_total_tokens": 8, "page_size": 16})
    )
    C.append(_case("edge-llama8b-max-total-tokens-1", "meta-llama__Llama-3.1-8B-Instruct", "H100-80GB", 1, 78.8, {"max_total_tokens": 1}))
    C.append(_case("edge-llama8b-max-total-tokens-3", "meta-llama__Llama-3.1-8B-Instruct", "H100-80GB", 1, 78.8, {"max_total_tokens": 3}))
    C.append(_case("edge-gptoss20b-swa-ratio-tiny", "openai__gpt-oss-20b", "H100-80GB", 1, 78.8, {"swa_full_tokens_ratio": 0.00005}))
    C.append(
        _case(
            "edge-gptoss120b-swa-cap-4096",
            "openai__gpt-oss-120b",
            "H100-80GB",
            1,
            78.8,
            {"disable_radix_cache": True, "max_running_requests": 4096, "mem_fraction_static": 0.88},
        )
    )
    C.append(
        _case(
            "edge-qwen3.6-mrr1-norad",
            "Qwen__Qwen3.6-27B",
            "H100-80GB",
            1,
            78.8,
            {"disable_radix_cache": True, "max_running_requests": 1, "context_length": 131072},
        )
    )
    return C


# The releases whose research notes the incident rows reproduce: they run the whole grid.
NOTED_RELEASES = ("0.5.9", "0.5.23")
# Every other release runs the incident rows (without the notes' numbers, which are for
# another release), every edge case, and the first generated cases of each model.
GENERATED_PER_MODEL_OTHER = 6


def _multinode_cases():
    """DeepSeek-V3 on 2 nodes x 8 H100 (issue 16): TP 16 over both nodes, and TP 8 x PP 2 (the oracle runs rank 0)."""
    pre = round(GPUS["H100-80GB"][1] / 1024 - 1.0, 2)
    args = {"mem_fraction_static": 0.85, "context_length": 32768}
    tp16 = _case("multinode-dsv3-h100-2x8-tp16", "deepseek-ai__DeepSeek-V3", "H100-80GB", 16, pre, args)
    pp2 = _case("multinode-dsv3-h100-2x8-tp8-pp2", "deepseek-ai__DeepSeek-V3", "H100-80GB", 8, pre, dict(args, pp_size=2))
    pp2["gpu"] = gpu_block("H100-80GB", 16)
    return [tp16, pp2]


def release_key(version: str) -> tuple:
    """``0.5.12.post1`` -> (0, 5, 12, 1); a plain release sorts before its posts."""
    base, post = version.partition(".post")[::2]
    return tuple(int(p) for p in base.split(".")) + (int(post or 0),)


def draft_resident_at_sizing(version: str) -> bool:
    """From 0.5.14 the scheduler builds the draft worker before the target's pools are sized
    (0.5.14 scheduler.py:812 then :834, tp_worker.alloc_memory_pool); up to 0.5.13.post1 the
    pools are sized inside the target ModelRunner's constructor, before the draft exists."""
    return release_key(version) >= (0, 5, 14, 0)


def _unnoted(rows: list[dict]) -> list[dict]:
    for row in rows:
        row.pop("expect", None)
        row.pop("deviation", None)
    return rows


def _release_flags(version: str) -> set:
    """The server arguments ``version`` parses, as the keys ``to_argv`` turns into its options (the collection's
    flag catalog of the wheel)."""
    path = os.path.join(os.path.dirname(CONFIGS), "..", "..", "plugins", "plugin_utils", "data", f"sglang-flags-{version}.json")
    with open(path) as f:
        return {opt[2:].replace("-", "_") for flag in json.load(f)["flags"] for opt in flag["option_strings"] if opt.startswith("--")}


def cases(version: str) -> list[dict]:
    """All cases for one SGLang version, in a fixed order."""
    if version in NOTED_RELEASES:
        incident = _incident_0_5_23() if version == "0.5.23" else _incident_0_5_9()
        flags = _release_flags(version)
        # a flag case for a flag the release lacks is an argparse error, not a sizing: left out there
        arch = [c for c in _architecture_cases() if not set(c["server_args"]) - flags]
        return incident + _edge_cases() + _generated(seed=20261129) + arch + _multinode_cases()
    # the incident as the release's own startup order shapes it (draft resident or not)
    incident = _unnoted(_incident_0_5_23() if draft_resident_at_sizing(version) else _incident_0_5_9())
    generated = [c for c in _generated(seed=20261129) if int(c["id"].rsplit("-", 1)[1]) < GENERATED_PER_MODEL_OTHER]
    return incident + _edge_cases() + generated


def version_args(version: str, server_args: dict) -> dict:
    """Translate flag dests whose names differ between versions: ``--mamba-scheduler-strategy``
    writes ``mamba_radix_cache_strategy`` from 0.5.14 (0.5.14 server_args.py:6350-6351)."""
    args = dict(server_args)
    if release_key(version) >= (0, 5, 14, 0) and "mamba_scheduler_strategy" in args:
        args["mamba_radix_cache_strategy"] = args.pop("mamba_scheduler_strategy")
    return args


def to_argv(server_args: dict) -> list[str]:
    argv = []
    for dest, value in server_args.items():
        flag = "--" + dest.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is False or value is None:
            continue
        else:
            argv += [flag, str(value)]
    return argv
