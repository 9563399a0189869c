# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Property-based fuzz of the budget engine with hostile input (issue 15, item 9).

A config.json can come from a hub repository that an AWX survey names, and server args and GPU facts from a
survey too. Starting from real configs (tests/fixtures/model-configs), any field the engine reads, or any server
arg or GPU figure, is replaced by random JSON: huge, negative, zero, fractional, non-finite numbers, strings,
lists, objects, null. Every evaluation must either return a result or raise BudgetInputError naming the field
(never another exception), and stay under 1 s of CPU and 200 MB. Examples are derandomized so that CI is
repeatable.
"""

import json
import math
import pathlib
import time
import tracemalloc

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.engine import BudgetInputError, evaluate
from ansible_collections.llmops.sglang.plugins.plugin_utils.budget.model_spec import _COUNT_BOUNDS

CONFIGS = pathlib.Path(__file__).resolve().parents[3] / "fixtures" / "model-configs"
BASES = {
    name: json.loads((CONFIGS / name / "config.json").read_text())
    for name in (
        "meta-llama__Llama-3.1-8B-Instruct",
        "Qwen__Qwen3.6-27B",
        "deepseek-ai__DeepSeek-V3",
        "openai__gpt-oss-20b",
        "nvidia__Nemotron-H-56B-Base-8K",
        "Qwen__Qwen3-30B-A3B",
    )
}
CONFIG_KEYS = sorted(
    set(_COUNT_BOUNDS)
    | {
        "rope_scaling",
        "quantization_config",
        "text_config",
        "vision_config",
        "layer_types",
        "torch_dtype",
        "architectures",
        "tie_word_embeddings",
        "partial_rotary_factor",
        "sliding_window",
        "mlp_only_layers",
    }
)
SERVER_KEYS = (
    "tp_size",
    "mem_fraction_static",
    "context_length",
    "chunked_prefill_size",
    "max_running_requests",
    "page_size",
    "speculative_algorithm",
    "speculative_num_steps",
    "speculative_num_draft_tokens",
    "mamba_full_memory_ratio",
    "max_total_tokens",
    "cuda_graph_max_bs_decode",
    "kv_cache_dtype",
    "max_mamba_cache_size",
    "dtype",
    "quantization",
    "cpu_offload_gb",
    "disable_radix_cache",
)
GPU_KEYS = ("memory_total_mib", "memory_free_mib", "memory_used_mib", "pre_model_load_gib", "name", "compute_capability")
H100 = {"name": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559, "compute_capability": "9.0"}

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2**31, 2**63, 10**7, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e30, -1e30, 0.5, 1e-300]),
    st.text(max_size=12),
    st.sampled_from(["yarn", "fp8", "x", "", "auto", "EAGLE", "NGRAM", "DFLASH", "fp8_e4m3"]),
)
json_values = st.recursive(
    json_scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=8
)


def _run(model, gpus, args, with_fixes):
    tracemalloc.start()
    start = time.process_time()  # CPU time: other processes on the machine do not count
    try:
        return evaluate(model, gpus, args, "0.5.23", with_fixes=with_fixes)
    except BudgetInputError as exc:
        assert exc.field and exc.field in str(exc), str(exc)
        return exc
    finally:
        elapsed = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert elapsed < 1.0, f"took {elapsed:.2f} s"
        assert peak < 200 << 20, f"peak {peak >> 20} MiB"


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(sorted(BASES)), changes=st.dictionaries(st.sampled_from(CONFIG_KEYS), json_values, min_size=1, max_size=3), in_text=st.booleans())
def test_hostile_config_fields_give_a_result_or_a_named_error(base, changes, in_text):
    config = json.loads(json.dumps(BASES[base]))
    target = config["text_config"] if in_text and isinstance(config.get("text_config"), dict) else config
    target.update(changes)
    _run({"config": config}, [dict(H100, index=0)], {}, with_fixes=False)


@settings(max_examples=250, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    base=st.sampled_from(sorted(BASES)),
    args=st.dictionaries(st.sampled_from(SERVER_KEYS), json_values, min_size=1, max_size=3),
    gpu=st.dictionaries(st.sampled_from(GPU_KEYS), json_values, max_size=2),
    count=st.integers(1, 8),
)
def test_hostile_server_args_and_gpu_facts_give_a_result_or_a_named_error(base, args, gpu, count):
    gpus = [dict(H100, index=i, **gpu) for i in range(count)]
    _run({"config": BASES[base]}, gpus, args, with_fixes=True)


def test_the_fuzz_reaches_both_outcomes():
    """The two properties above would pass vacuously if every input were refused: a plain launch still fits."""
    result = _run({"config": BASES["meta-llama__Llama-3.1-8B-Instruct"]}, [dict(H100, index=0)], {}, with_fixes=True)
    assert isinstance(result, dict) and result["verdict"] == "fits"
    assert math.isfinite(result["budget"]["totals"]["mem_fraction_static"])
