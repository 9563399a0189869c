# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run SGLang 0.5.23's own startup sizing for a group of cases on one GPU type.

Usage (inside bench/.venv-oracle-0.5.23):
    python harness_0_5_23.py GROUP.json OUT.jsonl

GROUP.json is a list of cases (see cases.py) that share one GPU type and count.
Real code, in SGLang's own order: argparse + ``publish`` (the whole hook
pipeline), ``ModelConfig.from_server_args``, ``bootstrap.init_layer_runtime``,
``bootstrap.measure_pre_model_load_memory``, the loader's ``_initialize_model``
for the target and the draft (on the meta device), the KV-dtype / SWA / layer /
spec-aux resolution of ``ModelRunner``, then ``KVCacheConfigurator``'s
``_resolve_memory_pool_config`` -> ``_derive_pool_sizes`` -> ``_init_pools``
(pools built on meta) and ``TpModelWorker.alloc_memory_pool``'s two asserts.
What is replaced is listed in README.md.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import fakedev  # noqa: E402  (stubs first, then any sglang import)
import harness_common as hc  # noqa: E402
from cases import GPUS, to_argv, version_args  # noqa: E402

GIB = 1 << 30
VERSION = "0.5.23"


def _setup(gpu_block: dict, pre_gib: float) -> None:
    name, mib, cc, sms = GPUS[gpu_block["name"]]
    fakedev.shim("torchvision", "sgl_kernel")
    fakedev.configure(n_gpus=gpu_block["count"], total_mib=mib, capability=cc,
                      free_bytes=int(pre_gib * GIB), name=name, sm_count=sms)


def _import_sglang():
    import torch  # noqa: F401
    from sglang.srt.runtime_context import override_platform

    override_platform(has_flashinfer=True).install()
    from sglang.srt.mem_cache import memory_pool
    from sglang.srt.configs.model_config import AttentionArch, ModelConfig  # noqa: F401
    from sglang.srt.distributed import bootstrap  # noqa: F401
    from sglang.srt.mem_cache import kv_cache_dtype  # noqa: F401
    from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator  # noqa: F401
    from sglang.srt.model_loader import loader  # noqa: F401
    from sglang.srt.server_args import prepare_server_args  # noqa: F401
    from sglang.srt.speculative import eagle_worker_v2  # noqa: F401
    import sglang.srt.models.registry  # noqa: F401  (imports every model module once, ~2 s)

    # The one SGLang function replaced: a Triton copy-kernel warm-up that runs
    # after a KV pool is allocated.  It sizes nothing; on meta it cannot run.
    orig = memory_pool.MHATokenToKVPool._init_kv_copy_and_warmup

    def _warmup(self):
        if str(getattr(self, "device", "")) == "meta":
            return None
        return orig(self)

    memory_pool.MHATokenToKVPool._init_kv_copy_and_warmup = _warmup


class FakeGroup:
    """A process group of ``size`` identical ranks seen from rank 0."""

    def __init__(self, size: int):
        self.world_size = size
        self.rank_in_group = 0
        self.rank = 0
        self.local_rank = 0
        self.ranks = list(range(size))
        self.first_rank = 0
        self.last_rank = size - 1
        self.is_first_rank = True
        self.is_last_rank = size == 1
        self.unique_name = "oracle"
        self.device_group = SimpleNamespace(rank=lambda: 0, size=lambda: size)
        self.cpu_group = SimpleNamespace(rank=lambda: 0, size=lambda: size)
        self.use_pynccl = False
        self.pynccl_comm = None
        self.ca_comm = None


def _override_groups():
    from sglang.srt.runtime_context import get_parallel

    par = get_parallel()
    groups = dict(world_group=FakeGroup(par.launch_world_size), tp_group=FakeGroup(par.tp_size),
                  pp_group=FakeGroup(par.pp_size), attn_tp_group=FakeGroup(par.attn_tp_size),
                  attn_cp_group=FakeGroup(par.attn_cp_size), moe_ep_group=FakeGroup(par.moe_ep_size),
                  moe_tp_group=FakeGroup(par.moe_tp_size), moe_dp_group=FakeGroup(par.moe_dp_size))
    try:
        groups["dcp_group"] = FakeGroup(par.attn_dcp_size)
    except Exception:
        groups["dcp_group"] = FakeGroup(1)
    try:
        groups["shared_experts_tp_group"] = FakeGroup(par.tp_size)
        par.override_permanently(**groups)
    except Exception:
        groups.pop("shared_experts_tp_group")
        par.override_permanently(**groups)
    # draft_pp_context() swaps in the "self" pipeline group (this rank alone)
    from sglang.srt.distributed import parallel_state

    parallel_state._SELF_PP = FakeGroup(1)
    return par


def _resolved(sa, mc) -> dict:
    from sglang.srt.runtime_context import get_schedule, get_spec

    from sglang.srt.runtime_context import get_exec

    sched, spec = get_schedule(), get_spec()
    rd = sa.resolved_dict()
    cg = get_exec().graph.cuda_graph_config

    def pick(*names):
        for n in names:
            if n in rd:
                return rd[n]
        return None

    return {
        "mem_fraction_static": sched.mem_fraction_static,
        "chunked_prefill_size": pick("chunked_prefill_size"),
        "max_prefill_tokens": pick("max_prefill_tokens"),
        "max_running_requests": pick("max_running_requests"),
        "page_size": sched.page_size,
        "attention_backend": pick("attention_backend"),
        "prefill_attention_backend": pick("prefill_attention_backend"),
        "decode_attention_backend": pick("decode_attention_backend"),
        "speculative_algorithm": spec.speculative_algorithm,
        "speculative_num_steps": spec.speculative_num_steps,
        "speculative_eagle_topk": spec.speculative_eagle_topk,
        "speculative_num_draft_tokens": spec.speculative_num_draft_tokens,
        "disable_radix_cache": pick("disable_radix_cache"),
        "disable_overlap_schedule": pick("disable_overlap_schedule"),
        "mamba_radix_cache_strategy": pick("mamba_radix_cache_strategy"),
        "mamba_full_memory_ratio": pick("mamba_full_memory_ratio"),
        "max_mamba_cache_size": pick("max_mamba_cache_size"),
        "mamba_ssm_dtype": pick("mamba_ssm_dtype"),
        "kv_cache_dtype": pick("kv_cache_dtype"),
        "cuda_graph_max_bs_decode": cg.decode.max_bs,
        "cuda_graph_max_bs_prefill": cg.prefill.max_bs,
        "cuda_graph_backend_decode": str(cg.decode.backend),
        "cuda_graph_backend_prefill": str(cg.prefill.backend),
        "context_length": mc.context_len if mc is not None else pick("context_length"),
        "max_total_tokens": pick("max_total_tokens"),
    }


def run_case(case: dict) -> dict:
    import torch
    from sglang.srt.configs.model_config import AttentionArch, ModelConfig
    from sglang.srt.distributed import bootstrap
    from sglang.srt.layers.moe.utils import (draft_model_build_scope,
                                             speculative_moe_a2a_backend_context,
                                             speculative_moe_backend_context)
    from sglang.srt.mem_cache import kv_cache_dtype as kvd
    from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator
    from sglang.srt.model_executor.model_runner_components.kv_pool_runtime import is_post_capture_kv_active
    from sglang.srt.model_executor.model_runner_components.layer_setup import resolve_layer_indices
    from sglang.srt.model_executor.model_runner_components.load_model_utils import resolve_sliding_window_size
    from sglang.srt.model_executor.model_runner_components.spec_aux_hidden_state import \
        resolve_spec_aux_hidden_state_config
    from sglang.srt.model_loader import loader
    from sglang.srt.model_loader.utils import set_default_torch_dtype
    from sglang.srt.runtime_context import SpawnRanks, get_model, get_schedule, get_spec, publish
    from sglang.srt.server_args import prepare_server_args
    from sglang.srt.speculative.draft_parallel import model_draft_parallel_spec, resolve_draft_parallel_layout
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    from sglang.srt.speculative import eagle_worker_v2 as ew
    from sglang.srt.utils.common import reserve_rope_cache_for_long_sequences

    for k, v in case.get("env", {}).items():
        os.environ[k] = str(v)
    fakedev.set_free_bytes(int(case["pre_model_load_gib"] * GIB))
    handler = hc.ListHandler()
    rec = {"id": case["id"], "resolved": None, "weights": None, "result": None, "error": None}
    model_dir = hc.make_model_dir(case["model"])
    argv = ["--model-path", model_dir] + to_argv(version_args(VERSION, case["server_args"]))
    sa = mc = None
    try:
        sa = prepare_server_args(argv)
        logging.getLogger().addHandler(handler)  # prepare_server_args re-runs basicConfig(force=True)
        publish(sa, role="scheduler", ranks=SpawnRanks(world_rank=0, dp_rank=None, gpu_id=0))
        par = _override_groups()
        mc = ModelConfig.from_server_args(sa, model_path=get_model().model_path)
        rec["resolved"] = _resolved(sa, mc)
        bootstrap.init_layer_runtime(model_config=mc)
        pre = bootstrap.measure_pre_model_load_memory(device="cuda", is_draft_worker=False)

        # Weights: the model classes built on meta (the checkpoint is never read).
        lc = SimpleNamespace(draft_model_idx=None)
        with set_default_torch_dtype(mc.dtype), torch.device("meta"), fakedev.CudaToMeta():
            model = loader._initialize_model(mc, lc, loader._get_quantization_config(mc, lc))
            # ModelRunner.load_model's RoPE pre-expansion (model_runner.py:1398), before sizing
            reserve_rope_cache_for_long_sequences(model, mc, None)
        tp_p, tp_b, seen = hc.tensor_bytes([model])
        alg = SpeculativeAlgorithm.from_string(get_spec().speculative_algorithm)
        aux = resolve_spec_aux_hidden_state_config(server_args=sa, model_config=mc, spec_algorithm=alg,
                                                   is_draft_worker=False)
        dr_p = dr_b = 0
        layout = None
        if not alg.is_none():
            layout = resolve_draft_parallel_layout(model_draft_parallel_spec(aux.draft_model_config,
                                                                             spec_algorithm=alg))
            dmc = ModelConfig.from_server_args(sa, model_path=get_spec().speculative_draft_model_path,
                                               is_draft_model=True, context_length=mc.context_len)
            with (ew.draft_tp_context(layout), ew.draft_pp_context(), speculative_moe_backend_context(),
                  speculative_moe_a2a_backend_context(), draft_model_build_scope()):
                with set_default_torch_dtype(dmc.dtype), torch.device("meta"), fakedev.CudaToMeta():
                    draft = loader._initialize_model(dmc, lc, loader._get_quantization_config(dmc, lc))
                    reserve_rope_cache_for_long_sequences(draft, dmc, None)
            dr_p, dr_b = hc.tensor_bytes_excluding(draft, seen)
        if "weights_gib" in case:
            resident = int(round(case["weights_gib"] * GIB))
            source = "given"
        else:
            resident = tp_p + tp_b + dr_p + dr_b
            source = "meta-build"
        rec["weights"] = {"target_param_bytes": tp_p, "target_buffer_bytes": tp_b,
                          "draft_param_bytes": dr_p, "draft_buffer_bytes": dr_b,
                          "resident_bytes": resident, "source": source}
        fakedev.set_free_bytes(int(case["pre_model_load_gib"] * GIB) - resident)

        kv_str_resolved, kv_dtype = kvd.configure_kv_cache_dtype(
            server_args_kv_cache_dtype=get_model().kv_cache_dtype, model=model, model_dtype=mc.dtype,
            is_draft_worker=False, is_dflash=alg.is_dflash_family(),
            speculative_draft_attention_backend=None,
            speculative_draft_kv_cache_dtype=get_spec().speculative_draft_kv_cache_dtype)
        kv_str = kv_str_resolved if kv_str_resolved is not None else get_model().kv_cache_dtype
        kvc = KVCacheConfigurator(
            device="cuda", gpu_id=0, attn_dp_size=par.attn_dp_size, pp_size=par.pp_group.world_size,
            pp_group=par.pp_group, model=model, model_config=mc, server_args=sa, kv_cache_dtype=kv_dtype,
            kv_cache_dtype_str=kv_str, model_dtype=mc.dtype, page_size=get_schedule().page_size,
            sliding_window_size=resolve_sliding_window_size(model, mc), spec_algorithm=alg,
            is_draft_worker=False,
            post_capture_kv_active=is_post_capture_kv_active(server_args=sa, is_draft_worker=False,
                                                             spec_algorithm=alg,
                                                             token_to_kv_pool_allocator=None),
            spec_aux_config=aux, draft_parallel_layout=layout, is_hybrid_swa=mc.is_hybrid_swa,
            is_hybrid_swa_compress=mc.is_hybrid_swa_compress,
            use_mla_backend=mc.attention_arch == AttentionArch.MLA,
            layer_info=resolve_layer_indices(model=model, model_config=mc, is_draft_worker=False,
                                             draft_model_idx=None),
            forward_stream=None, req_to_token_pool=None, token_to_kv_pool_allocator=None,
            memory_pool_config=None, draft_model_idx=None)
        cfg = kvc._resolve_memory_pool_config(pre)
        sizes = kvc._derive_pool_sizes(config=cfg)
        kvc.device = "meta"
        kvc._init_pools(sizes=sizes, req_to_token_pool=None, token_to_kv_pool_allocator=None)
        # TpModelWorker.alloc_memory_pool's own checks (tp_worker.py:420-425), in its order
        if not sizes.max_running_requests > 0:
            raise hc.WorkerCheckFailed("max_running_request is zero", "sglang/srt/managers/tp_worker.py:420")
        max_req_len = min(mc.context_len - 1, sizes.max_total_num_tokens - 1)
        if not max_req_len > 0:
            raise hc.WorkerCheckFailed("Memory pool size is too small", "sglang/srt/managers/tp_worker.py:425")
        result = {
            "max_total_num_tokens": sizes.max_total_num_tokens,
            "max_running_requests": sizes.max_running_requests,
            "max_mamba_cache_size": getattr(get_schedule(), "max_mamba_cache_size", None)
            if kvc.mambaish_config is not None else None,
            "context_len": mc.context_len,
            "max_req_len": max_req_len,
            "max_req_input_len": max_req_len - 5,  # tp_worker.get_worker_info (no dLLM)
            "pre_model_load_memory_gib": pre,
            "kv_cache_dtype": str(kv_dtype),
        }
        if mc.is_hybrid_swa:
            result["full_max_total_num_tokens"] = sizes.full_max_total_num_tokens
            result["swa_max_total_num_tokens"] = sizes.swa_max_total_num_tokens
        rec["result"] = result
        rec["resolved"] = _resolved(sa, mc)
    except Exception as exc:  # SGLang's own exception: the expected outcome of failing cases
        rec["error"] = hc.error_record(exc)
        if sa is not None and rec["resolved"] is None:
            try:
                rec["resolved"] = _resolved(sa, mc)
            except Exception:
                pass
    rec["log_lines"] = hc.trimmed(handler.lines)
    rec["shim_calls"] = list(fakedev.SHIM_CALLS)
    return rec


def main(group_path: str, out_path: str) -> None:
    group = json.load(open(group_path))
    _setup(group[0]["gpu"], group[0]["pre_model_load_gib"])
    _import_sglang()
    hc.run_group(group, run_case, out_path)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
