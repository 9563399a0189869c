# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Server-arg validation and argv building against the real flag catalogs."""

import argparse
import json
from pathlib import Path

import pytest

from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_catalog import load_catalog
from ansible_collections.llmops.sglang.plugins.plugin_utils.flag_validator import (
    CONVERTERS,
    FlagValidationError,
    check_server_args,
    sglang_argv,
    validate_server_args,
)

RECORDED = Path(__file__).resolve().parents[3] / "fixtures" / "flag_registration"

# The incident's last launch (incident.md): Qwen3.6-27B on 2x RTX A6000, SGLang 0.5.9.
INCIDENT = {
    "model_path": "/models/Qwen3.6-27B",
    "tp_size": 2,
    "mem_fraction_static": 0.85,
    "context_length": 65536,
    "enable_torch_compile": True,
    "speculative_algorithm": "NEXTN",
    "speculative_num_steps": 3,
    "speculative_eagle_topk": 1,
    "speculative_num_draft_tokens": 4,
    "mamba_full_memory_ratio": 0.5,
}
INCIDENT_ARGV = [
    "--model-path",
    "/models/Qwen3.6-27B",
    "--tp-size",
    "2",
    "--mem-fraction-static",
    "0.85",
    "--context-length",
    "65536",
    "--enable-torch-compile",
    "--speculative-algorithm",
    "NEXTN",
    "--speculative-num-steps",
    "3",
    "--speculative-eagle-topk",
    "1",
    "--speculative-num-draft-tokens",
    "4",
    "--mamba-full-memory-ratio",
    "0.5",
]


def error_of(args, version, **kwargs):
    with pytest.raises(FlagValidationError) as info:
        check_server_args(args, version, **kwargs)
    return info.value


def recorded_parser(version):
    """An argparse parser shaped like the version's real one, rebuilt from the recorded registration
    (types reduced to int/float/str/json; custom actions to plain stores of the same arity)."""
    types = {"int": int, "float": float, "human_readable_int": int, "loads": json.loads, "json_list_type": json.loads}
    parser = argparse.ArgumentParser(prog="sglang serve", add_help=False)
    for action in json.loads((RECORDED / f"sglang-{version}.json").read_text())["actions"]:
        kwargs = {"dest": action["dest"], "default": action["default"]}
        options = action["option_strings"]
        if action["action_class"] == "BooleanOptionalAction":
            kwargs["action"] = argparse.BooleanOptionalAction
            options = [o for o in options if not o.startswith("--no-")]
        elif action["nargs"] == 0:
            kwargs["action"] = "store_true"
        else:
            kwargs.update(nargs=action["nargs"], choices=action["choices"], type=types.get(action["type"], str))
        parser.add_argument(*options, **kwargs)
    return parser


def test_incident_flags_validate_on_0_5_9_and_give_the_expected_argv():
    result = check_server_args(INCIDENT, "0.5.9")
    assert result.argv == INCIDENT_ARGV
    assert result.values == INCIDENT
    assert result.warnings == []
    assert sglang_argv(INCIDENT, "0.5.9") == INCIDENT_ARGV
    assert validate_server_args(INCIDENT, "0.5.9") == INCIDENT


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])
def test_argv_parses_back_to_the_typed_values_with_the_real_option_table(version):
    namespace = recorded_parser(version).parse_args(sglang_argv(INCIDENT, version))
    dest_of = {"tp_size": "tensor_parallel_size"} if version == "0.5.9" else {}
    for field_name, value in validate_server_args(INCIDENT, version).items():
        assert getattr(namespace, dest_of.get(field_name, field_name)) == value


def test_misspelled_flag_suggests_the_real_one():
    error = error_of({**INCIDENT, "mem_fraction_statik": 0.85}, "0.5.9")
    assert "`mem_fraction_statik`" in str(error)
    assert "did you mean mem_fraction_static" in str(error)
    assert "0.5.9" in str(error)


def test_option_string_spellings_normalize_to_fields():
    args = {"--model-path": "/m", "tp-size": 2, "--mem-fraction-static": "0.8", "tensor_parallel_size": None}
    with pytest.raises(FlagValidationError, match="sets tp_size again"):
        validate_server_args(args, "0.5.9")
    args.pop("tensor_parallel_size")
    assert validate_server_args(args, "0.5.9") == {"model_path": "/m", "tp_size": 2, "mem_fraction_static": 0.8}
    assert sglang_argv(args, "0.5.9") == ["--model-path", "/m", "--tp-size", "2", "--mem-fraction-static", "0.8"]


def test_flag_only_in_0_5_23_fails_on_0_5_9_and_says_so():
    # --cuda-graph-max-bs-decode replaced 0.5.9's --cuda-graph-max-bs (sglang/srt/arg_groups/fields/exec_.py).
    error = error_of({**INCIDENT, "cuda_graph_max_bs_decode": 32}, "0.5.9")
    message = str(error)
    assert "exists in SGLang 0.5.23 but not in 0.5.9 (the pinned version)" in message
    assert "--cuda-graph-max-bs-decode" in message
    assert "cuda_graph_max_bs" in message  # the 0.5.9 name closest to it
    assert sglang_argv({**INCIDENT, "cuda_graph_max_bs_decode": 32}, "0.5.23")[-2:] == ["--cuda-graph-max-bs-decode", "32"]


def test_flag_only_in_0_5_9_fails_on_0_5_23_and_names_the_ambiguity():
    message = str(error_of({**INCIDENT, "--cuda-graph-max-bs": 32}, "0.5.23"))
    assert "exists in SGLang 0.5.19 but not in 0.5.23" in message  # the newest release that has it
    assert "abbreviation of --cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill" in message


@pytest.mark.parametrize("version", ["0.5.9", "0.5.23"])
@pytest.mark.parametrize(
    "key, completions",
    [
        ("--mem-fraction", "--mem-fraction-static"),
        ("mem_fraction", "--mem-fraction-static"),
        ("--speculative-num-draft", "--speculative-num-draft-tokens"),
        ("tp", "--tp-size"),
    ],
)
def test_prefix_only_names_are_rejected_not_passed_through(version, key, completions):
    message = str(error_of({"model_path": "/m", key: 1}, version))
    assert f"`{key}` is not a complete SGLang {version} flag but only an abbreviation of {completions}" in message
    assert "write the full name" in message


def test_ambiguous_prefix_on_0_5_23_is_rejected():
    # No supported version has a flag spelled exactly --cuda-graph-max: a pure prefix ambiguity in 0.5.23.
    message = str(error_of({"model_path": "/m", "--cuda-graph-max": 8}, "0.5.23"))
    assert (
        "`--cuda-graph-max` is not a complete SGLang 0.5.23 flag but an ambiguous abbreviation of "
        "--cuda-graph-max-bs-decode or --cuda-graph-max-bs-prefill or --cuda-graph-max-seq-len-prefill"
    ) in message
    # On 0.5.9 the same prefix is unambiguous, and still rejected rather than silently expanded.
    assert "only an abbreviation of --cuda-graph-max-bs" in str(error_of({"model_path": "/m", "--cuda-graph-max": 8}, "0.5.9"))


@pytest.mark.parametrize(
    "key, value, expected",
    [
        ("tp_size", "two", "expects an integer"),
        ("tp_size", 2.5, "expects an integer"),
        ("tp_size", True, "not a boolean"),
        ("mem_fraction_static", "lots", "expects a number"),
        ("mem_fraction_static", [0.8], "takes a single value, not a list"),
        ("model_path", {"a": 1}, "expects a string"),
    ],
)
def test_wrong_types_are_rejected_with_the_flag_and_the_value(key, value, expected):
    message = str(error_of({**INCIDENT, key: value}, "0.5.9"))
    assert f"`{key}`" in message and expected in message


def test_context_length_follows_each_version_s_type_function():
    assert validate_server_args({**INCIDENT, "context_length": "64Ki"}, "0.5.23")["context_length"] == 65536
    assert validate_server_args({**INCIDENT, "context_length": "25.6k"}, "0.5.23")["context_length"] == 25600
    assert validate_server_args({**INCIDENT, "context_length": "65536"}, "0.5.9")["context_length"] == 65536
    message = str(error_of({**INCIDENT, "context_length": "64Ki"}, "0.5.9"))
    assert "SGLang 0.5.23 would accept it (type human_readable_int), 0.5.9 needs int" in message
    assert "Decimals" not in message
    assert "IEC suffix Ki" in str(error_of({**INCIDENT, "context_length": "1.5Ki"}, "0.5.23"))
    assert "case-sensitive" in str(error_of({**INCIDENT, "context_length": "64ki"}, "0.5.23"))


def test_value_outside_choices_lists_them():
    message = str(error_of({**INCIDENT, "speculative_algorithm": "MTP"}, "0.5.9"))
    assert "`speculative_algorithm` (--speculative-algorithm) got 'MTP'" in message
    assert "EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM" in message
    assert "fp8_e4m3" in str(error_of({**INCIDENT, "kv_cache_dtype": "fp8"}, "0.5.23"))


@pytest.mark.parametrize("value", ["yes please", 1, 0, [True], "on"])
def test_value_given_to_store_true_flag_is_rejected(value):
    message = str(error_of({**INCIDENT, "enable_torch_compile": value}, "0.5.9"))
    assert "`enable_torch_compile` (--enable-torch-compile) is an on/off switch (argparse store_true)" in message
    assert "set it to true to pass the flag or false to leave it out" in message


def test_store_true_false_and_null_leave_the_flag_out():
    argv = sglang_argv({**INCIDENT, "enable_torch_compile": False, "speculative_algorithm": None}, "0.5.9")
    assert "--enable-torch-compile" not in argv and "--speculative-algorithm" not in argv
    assert sglang_argv({**INCIDENT, "enable_torch_compile": "true"}, "0.5.9").count("--enable-torch-compile") == 1


def test_all_errors_are_reported_together():
    error = error_of({"mem_fraction_statik": 1, "tp_size": "x", "speculative_algorithm": "MTP"}, "0.5.9")
    assert len(error.errors) == 4  # the three above plus the missing required model_path
    assert str(error).startswith("4 problems with the SGLang 0.5.9 server args: (1)")
    assert "`model_path` (--model-path) is required" in str(error)
    assert "\n" not in str(error)


def test_required_check_can_be_skipped_for_partial_args():
    assert validate_server_args({"tp_size": 2}, "0.5.23", check_required=False) == {"tp_size": 2}


def test_list_flags_take_lists_and_json_flags_take_mappings():
    argv = sglang_argv({"model_path": "/m", "cuda_graph_bs": [1, 2, 4], "json_model_override_args": {"a": {"b": 1}}}, "0.5.9")
    assert argv[2:] == ["--cuda-graph-bs", "1", "2", "4", "--json-model-override-args", '{"a":{"b":1}}']
    message = str(error_of({"model_path": "/m", "cuda_graph_bs": [1, "x"]}, "0.5.9"))
    assert "`cuda_graph_bs` (--cuda-graph-bs) expects an integer" in message
    values = validate_server_args({"model_path": "/m", "cuda_graph_config": '{"decode": {"max_bs": 64}}'}, "0.5.23")
    assert values["cuda_graph_config"] == {"decode": {"max_bs": 64}}


def test_negative_scalar_uses_the_equals_form():
    assert sglang_argv({"model_path": "/m", "random_seed": -1}, "0.5.9")[-1] == "--random-seed=-1"


def test_deprecated_spellings_follow_the_source():
    # 0.5.23 --monokernel-backend amd: DeprecatedStoreConstAction writes True onto enable_amd_monokernel and warns.
    result = check_server_args({"model_path": "/m", "--monokernel-backend": "amd"}, "0.5.23")
    assert result.values["enable_amd_monokernel"] is True
    assert "use --enable-amd-monokernel instead" in result.warnings[0]
    # 0.5.23 --disable-cuda-graph: DeprecatedStoreTrueAction still stores True, with a warning.
    result = check_server_args({"model_path": "/m", "disable_cuda_graph": True}, "0.5.23")
    assert result.argv[-1] == "--disable-cuda-graph" and "deprecated" in result.warnings[0]
    assert "choices: amd" in str(error_of({"model_path": "/m", "--monokernel-backend": "nvidia"}, "0.5.23"))


def test_unknown_flag_without_neighbours_and_bad_inputs():
    assert "is not an SGLang 0.5.9 flag" in str(error_of({"model_path": "/m", "zzz_qqq": 1}, "0.5.9"))
    assert "must be a mapping" in str(error_of(["--tp-size", "2"], "0.5.9"))
    message = str(error_of(INCIDENT, "0.4.0"))
    assert "is not a release llmops.sglang knows" in message and "0.5.9" in message
    assert validate_server_args(INCIDENT, "0.5.10", allow_nearest=True) == INCIDENT


def test_boolean_optional_flags_say_false_out_loud():
    # 0.5.23 --enable-tf32-matmul is argparse.BooleanOptionalAction with default None (SGLang decides).
    assert sglang_argv({"model_path": "/m", "enable_tf32_matmul": True}, "0.5.23")[-1] == "--enable-tf32-matmul"
    result = check_server_args({"model_path": "/m", "enable_tf32_matmul": False}, "0.5.23")
    assert result.argv[-1] == "--no-enable-tf32-matmul" and result.values["enable_tf32_matmul"] is False
    result = check_server_args({"model_path": "/m", "--no-enable-tf32-matmul": True}, "0.5.23")
    assert result.argv[-1] == "--no-enable-tf32-matmul" and result.values["enable_tf32_matmul"] is False
    namespace = recorded_parser("0.5.23").parse_args(result.argv)
    assert namespace.enable_tf32_matmul is False


def test_optional_value_flag_takes_true_or_a_value():
    # 0.5.9 --model-checksum: nargs='?', const ''.
    assert sglang_argv({"model_path": "/m", "model_checksum": True}, "0.5.9")[-1] == "--model-checksum"
    assert sglang_argv({"model_path": "/m", "model_checksum": "abc"}, "0.5.9")[-2:] == ["--model-checksum", "abc"]
    assert "--model-checksum" not in sglang_argv({"model_path": "/m", "model_checksum": False}, "0.5.9")


def test_retired_no_op_flag_warns_and_a_value_for_it_fails():
    # 0.5.9 --hybrid-kvcache-ratio: DeprecatedAction (nargs=0) that only warns.
    result = check_server_args({"model_path": "/m", "hybrid_kvcache_ratio": True}, "0.5.9")
    assert result.argv[-1] == "--hybrid-kvcache-ratio" and "SGLang ignores it" in result.warnings[0]
    assert result.values["hybrid_kvcache_ratio"] is None
    message = str(error_of({"model_path": "/m", "hybrid_kvcache_ratio": 0.5}, "0.5.9"))
    assert "is deprecated in SGLang 0.5.9 and takes no value" in message and "--swa-full-tokens-ratio" in message


def test_every_catalog_type_has_a_converter():
    """A regenerated catalog naming a new SGLang type function must get a converter, not fall back silently."""
    for version in ("0.5.9", "0.5.23"):
        assert {f.type for f in load_catalog(version).flags} <= set(CONVERTERS), version
