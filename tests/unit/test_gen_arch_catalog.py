# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/gen_arch_catalog.py: the CUDA build's quantization registry, read with ast.

The snippets keep the shape of ``sglang/srt/layers/quantization/__init__.py`` in SGLang 0.5.9 (an ``is_cuda() or
(... and is_hip())`` block adding mxfp4) and 0.5.23 (NPU, CPU and XPU blocks that a CUDA build does not run)."""

from __future__ import annotations

import ast
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import gen_arch_catalog  # noqa: E402

REGISTRY_0_5_9_SHAPE = """
_is_mxfp_supported = mxfp_supported()
BASE_QUANTIZATION_METHODS: Dict[str, Type[QuantizationConfig]] = {"fp8": Fp8Config, "gptq": GPTQConfig, "awq": AWQConfig}
if is_cuda() or (_is_mxfp_supported and is_hip()):
    BASE_QUANTIZATION_METHODS.update({"mxfp4": Mxfp4Config})
QUANTIZATION_METHODS = {**BASE_QUANTIZATION_METHODS}
"""

REGISTRY_0_5_23_SHAPE = """
BASE_QUANTIZATION_METHODS: Dict[str, Type[QuantizationConfig]] = {"fp8": Fp8Config, "gptq_marlin": GPTQMarlinConfig}
if is_cpu() or is_cuda() or _is_gfx95_supported or is_xpu():
    BASE_QUANTIZATION_METHODS.update({"mxfp4": Mxfp4Config})
if is_npu():
    BASE_QUANTIZATION_METHODS.update({"gptq": GPTQAscendConfig, "mxfp4": Mxfp4W4A4Config})
if is_cpu():
    BASE_QUANTIZATION_METHODS.update({"gptq": CPUGPTQConfig})
if not is_hip():
    BASE_QUANTIZATION_METHODS.update({"humming": HummingConfig})
QUANTIZATION_METHODS = {**BASE_QUANTIZATION_METHODS}
"""


def test_cuda_registry_keeps_the_blocks_a_cuda_build_runs_in_order():
    assert gen_arch_catalog.cuda_quantization_methods(ast.parse(REGISTRY_0_5_9_SHAPE)) == ["fp8", "gptq", "awq", "mxfp4"]
    assert gen_arch_catalog.cuda_quantization_methods(ast.parse(REGISTRY_0_5_23_SHAPE)) == ["fp8", "gptq_marlin", "mxfp4", "humming"]


def test_every_committed_catalog_lists_the_cuda_quantization_methods():
    for path in sorted((ROOT / "plugins/plugin_utils/data").glob("sglang-archs-*.json")):
        methods = json.loads(path.read_text(encoding="utf-8"))["quantization_methods"]
        assert {"fp8", "awq", "compressed-tensors"} <= set(methods), path.name
        assert len(methods) == len(set(methods)), path.name


# transformers 4.57's BertConfig takes position_embedding_type in __init__; 5.x declares its defaults as class fields
# and no longer has one (so SGLang's bert.py/roberta.py fail on a config.json without the key)
BERT_CONFIG_4_SHAPE = """
class BertConfig(PretrainedConfig):
    model_type = "bert"
    def __init__(self, vocab_size=30522, position_embedding_type="absolute", use_cache=True, **kwargs):
        super().__init__(**kwargs)
        self.vocab_size = vocab_size
        self.position_embedding_type = position_embedding_type
"""
BERT_CONFIG_5_SHAPE = """
class BertConfig(PreTrainedConfig):
    model_type = "bert"
    vocab_size: int = 30522
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    tie_word_embeddings: bool = True
"""


def test_encoder_config_defaults_are_read_from_the_config_class():
    assert gen_arch_catalog._defines_attribute(ast.parse(BERT_CONFIG_4_SHAPE), "BertConfig", "position_embedding_type")
    assert not gen_arch_catalog._defines_attribute(ast.parse(BERT_CONFIG_5_SHAPE), "BertConfig", "position_embedding_type")
    assert not gen_arch_catalog._defines_attribute(ast.parse(BERT_CONFIG_4_SHAPE), "RobertaConfig", "position_embedding_type")


def test_committed_catalogs_follow_their_pinned_transformers_major():
    for path in sorted((ROOT / "plugins/plugin_utils/data").glob("sglang-archs-*.json")):
        tables = json.loads(path.read_text(encoding="utf-8"))["transformers"]
        missing = tables["configs_without_position_embedding_type"]
        if tables["version"].startswith("4."):
            assert missing == {}, path.name
            assert tables["tie_word_embeddings_defaults"] == {"glm4v_moe": True}, path.name  # PretrainedConfig's
        else:
            assert missing == {"bert": "BertConfig", "xlm-roberta": "XLMRobertaConfig"}, path.name
            assert tables["tie_word_embeddings_defaults"] == {"glm4v_moe": False}, path.name


def test_a_config_class_default_is_its_field_or_its_init_default():
    five = "class Glm4vMoeConfig(PreTrainedConfig):\n    model_type = 'glm4v_moe'\n    tie_word_embeddings: bool = False\n"
    four = "class PretrainedConfig:\n    def __init__(self, *, output_hidden_states=False, tie_word_embeddings=True, **kwargs):\n        pass\n"
    assert gen_arch_catalog._literal_default(ast.parse(five), ("Glm4vMoeConfig",), "tie_word_embeddings") is False
    assert gen_arch_catalog._literal_default(ast.parse(four), ("PretrainedConfig",), "tie_word_embeddings") is True
    assert gen_arch_catalog._literal_default(ast.parse(four), ("Glm4vMoeConfig",), "tie_word_embeddings") is None


def test_the_language_model_only_allowlist_is_read_in_source_order_or_none():
    """server_args.py 0.5.23 keeps the tuple on ServerArgs; a release without it accepts --language-model-only for any
    multimodal class (or has no such flag)."""
    tree = ast.parse(
        'class ServerArgs:\n    LANGUAGE_MODEL_ONLY_ARCHITECTURES = (\n        "DeepseekV4ForCausalLM",\n        "Cosmos3ForConditionalGeneration",\n    )\n'
    )
    assert gen_arch_catalog.language_model_only_archs(tree) == ["DeepseekV4ForCausalLM", "Cosmos3ForConditionalGeneration"]
    assert gen_arch_catalog.language_model_only_archs(ast.parse("class ServerArgs:\n    port = 30000\n")) is None
    committed = {
        p.name: json.loads(p.read_text(encoding="utf-8"))["language_model_only_archs"] for p in (ROOT / "plugins/plugin_utils/data").glob("sglang-archs-*.json")
    }
    assert committed["sglang-archs-0.5.9.json"] is None and "Qwen3VLForConditionalGeneration" not in committed["sglang-archs-0.5.23.json"]
