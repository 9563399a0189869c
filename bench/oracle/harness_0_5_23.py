# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run SGLang 0.5.23's own startup sizing for a group of cases on one GPU type.

Usage (inside the release's venv; driver.py picks the adapter from adapters.py):
    python harness_0_5_23.py GROUP.json OUT.jsonl [VERSION]

GROUP.json is a list of cases (see cases.py) that share one GPU type and count.
Real code, in SGLang's own order: argparse + ``publish`` (the whole hook
pipeline), ``ModelConfig.from_server_args``, ``bootstrap.init_layer_runtime``,
``bootstrap.measure_pre_model_load_memory``, the loader's ``_initialize_model``
for the target and the draft (on the meta device), the KV-dtype / SWA / layer /
spec-aux resolution of ``ModelRunner``, then ``KVCacheConfigurator``'s
``_resolve_memory_pool_config`` -> ``_derive_pool_sizes`` -> ``_init_pools``
(pools built on meta) and ``TpModelWorker.alloc_memory_pool``'s two asserts.
What is replaced is listed in README.md.

:class:`Harness0523` is also the base of the adapters for the earlier
``KVCacheConfigurator`` releases (harness_0_5_21.py, harness_0_5_16.py): each
step whose signature differs between releases is one method.
"""

from __future__ import annotations

import importlib
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
from harness_common import main  # noqa: E402,F401  (the adapter modules' entry point)
from cases import GPUS, to_argv, version_args  # noqa: E402

GIB = 1 << 30
FakeGroup = hc.FakeGroup


class Harness0523(hc.GroupRunner):
    """SGLang 0.5.23: the sizing steps of ModelRunner / KVCacheConfigurator, called one by one."""

    VERSION = "0.5.23"
    SHIMS = ("torchvision", "sgl_kernel")  # CUDA-only packages imported at module level
    SHIM_VERSIONS: dict = {}  # their __version__, where the release reads it (fakedev.SHIM_VERSIONS)

    def __init__(self, version: str | None = None):
        self.version = version or self.VERSION

    # ---- process setup -------------------------------------------------
    # Releases whose model modules import the CUDA-only deep_gemm on CUDA, unguarded, on the way to
    # DeepSeek / GLM (layers/attention/dsa_backend.py): it is shimmed, and DeepGEMM is switched off
    # with SGLang's own SGLANG_ENABLE_JIT_DEEPGEMM=0, the answer its probe
    # (deep_gemm_wrapper/configurer.py) gives in every other venv, where deep_gemm is absent.
    SHIM_DEEP_GEMM = False
    # The DSA indexer (DeepSeek-V3.2, GLM-5) shapes its schedule metadata with resolve_num_sms(), which calls the
    # CUDA-only deep_gemm.get_num_sms() unguarded (layers/attention/dsa/utils.py): these modules' binding is
    # replaced by the device's SM count, which SGLang's own torch path reads instead.
    DSA_NUM_SMS_MODULES = ("sglang.srt.layers.attention.dsa.dsa_indexer", "sglang.srt.layers.attention.dsa_backend")

    def setup(self, gpu_block: dict, pre_gib: float) -> None:
        name, mib, cc, sms = GPUS[gpu_block["name"]]
        self.sm_count = sms
        shims = self.SHIMS
        if self.SHIM_DEEP_GEMM:
            shims += ("deep_gemm",)
            os.environ["SGLANG_ENABLE_JIT_DEEPGEMM"] = "0"
        fakedev.shim(*shims, versions=self.SHIM_VERSIONS)
        fakedev.configure(n_gpus=gpu_block["count"], total_mib=mib, capability=cc, free_bytes=int(pre_gib * GIB), name=name, sm_count=sms)

    def install_platform(self) -> None:
        """The sanctioned runtime_context seam: flashinfer is a CUDA-only wheel sglang always has."""
        from sglang.srt.runtime_context import override_platform

        override_platform(has_flashinfer=True).install()

    def import_sglang(self) -> None:
        import torch  # noqa: F401

        self.install_platform()
        from sglang.srt.mem_cache import memory_pool
        from sglang.srt.configs.model_config import AttentionArch, ModelConfig  # noqa: F401
        from sglang.srt.distributed import bootstrap  # noqa: F401
        from sglang.srt.mem_cache import kv_cache_dtype  # noqa: F401
        from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator  # noqa: F401
        from sglang.srt.model_loader import loader  # noqa: F401
        from sglang.srt.server_args import prepare_server_args  # noqa: F401
        from sglang.srt.speculative import eagle_worker_v2  # noqa: F401
        import sglang.srt.models.registry  # noqa: F401  (imports every model module once, ~2 s)

        for module in self.DSA_NUM_SMS_MODULES:
            importlib.import_module(module).resolve_num_sms = lambda sms=self.sm_count: sms

        # The one SGLang function replaced: a Triton copy-kernel warm-up that runs
        # after a KV pool is allocated.  It sizes nothing; on meta it cannot run.
        orig = memory_pool.MHATokenToKVPool._init_kv_copy_and_warmup

        def _warmup(self):
            if str(getattr(self, "device", "")) == "meta":
                return None
            return orig(self)

        memory_pool.MHATokenToKVPool._init_kv_copy_and_warmup = _warmup

    # ---- steps whose signature differs between releases ----------------
    def publish(self, sa) -> None:
        from sglang.srt.runtime_context import SpawnRanks, publish

        publish(sa, role="scheduler", ranks=SpawnRanks(world_rank=0, dp_rank=None, gpu_id=0))

    def override_groups(self):
        from sglang.srt.runtime_context import get_parallel

        par = get_parallel()
        groups = dict(
            world_group=FakeGroup(par.launch_world_size),
            tp_group=FakeGroup(par.tp_size),
            pp_group=FakeGroup(par.pp_size),
            attn_tp_group=FakeGroup(par.attn_tp_size),
            attn_cp_group=FakeGroup(par.attn_cp_size),
            moe_ep_group=FakeGroup(par.moe_ep_size),
            moe_tp_group=FakeGroup(par.moe_tp_size),
            moe_dp_group=FakeGroup(par.moe_dp_size),
        )
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

    def measure_pre_model_load(self, sa, mc) -> float:
        from sglang.srt.distributed import bootstrap

        bootstrap.init_layer_runtime(model_config=mc)
        return bootstrap.measure_pre_model_load_memory(device="cuda", is_draft_worker=False)

    def reserve_rope(self, model, mc, sa) -> None:
        """ModelRunner.load_model's RoPE pre-expansion (model_runner.py:1398), before sizing."""
        from sglang.srt.utils.common import reserve_rope_cache_for_long_sequences

        reserve_rope_cache_for_long_sequences(model, mc, None)

    def draft_layout(self, aux, alg):
        """What EagleDraftWorker.__init__ hands to draft_tp_context (eagle_worker_v2.py:207)."""
        from sglang.srt.speculative.draft_parallel import model_draft_parallel_spec, resolve_draft_parallel_layout

        return resolve_draft_parallel_layout(model_draft_parallel_spec(aux.draft_model_config, spec_algorithm=alg))

    def before_draft_build(self, sa, mc) -> None:
        """What the speculative worker changes before it builds the draft (nothing in 0.5.23)."""

    def draft_build_contexts(self, sa, layout) -> list:
        """The scopes EagleDraftWorker.__init__ builds the draft TpModelWorker in, outermost first
        (eagle_worker_v2.py:216-221), as factories: each is created only when the previous one is entered."""
        from sglang.srt.layers.moe.utils import draft_model_build_scope, speculative_moe_a2a_backend_context, speculative_moe_backend_context
        from sglang.srt.speculative import eagle_worker_v2 as ew

        return [
            lambda: ew.draft_tp_context(layout),
            ew.draft_pp_context,
            speculative_moe_backend_context,
            speculative_moe_a2a_backend_context,
            draft_model_build_scope,
        ]

    def configure_kv_cache_dtype(self, sa, model, mc, alg):
        from sglang.srt.mem_cache import kv_cache_dtype as kvd
        from sglang.srt.runtime_context import get_model, get_spec

        return kvd.configure_kv_cache_dtype(
            server_args_kv_cache_dtype=get_model().kv_cache_dtype,
            model=model,
            model_dtype=mc.dtype,
            is_draft_worker=False,
            is_dflash=alg.is_dflash_family(),
            speculative_draft_attention_backend=None,
            speculative_draft_kv_cache_dtype=get_spec().speculative_draft_kv_cache_dtype,
        )

    def post_capture_kv_active(self, sa, alg) -> bool:
        from sglang.srt.model_executor.model_runner_components.kv_pool_runtime import is_post_capture_kv_active

        return is_post_capture_kv_active(server_args=sa, is_draft_worker=False, spec_algorithm=alg, token_to_kv_pool_allocator=None)

    def layer_info(self, model, mc, alg):
        from sglang.srt.model_executor.model_runner_components.layer_setup import resolve_layer_indices

        return resolve_layer_indices(model=model, model_config=mc, is_draft_worker=False, draft_model_idx=None)

    def pool_build_scope(self):
        """Around ``_init_pools``: 0.5.23's pools take the configurator's device (set to meta)."""
        import contextlib

        return contextlib.nullcontext()

    def configurator_dtype_kwargs(self, kv_dtype, kv_str) -> dict:
        return dict(kv_cache_dtype=kv_dtype, kv_cache_dtype_str=kv_str)

    def configurator_parallel_kwargs(self, par) -> dict:
        """The parallel fields of ModelRunner.init_kv_cache_configurator."""
        return dict(attn_dp_size=par.attn_dp_size, pp_size=par.pp_group.world_size)

    def configurator_draft_kwargs(self, layout) -> dict:
        return dict(draft_parallel_layout=layout)

    def resolved(self, sa, mc) -> dict:
        from sglang.srt.runtime_context import get_exec, get_schedule, get_spec

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

    def max_mamba_cache_size(self, sa, kvc):
        from sglang.srt.runtime_context import get_schedule

        return getattr(get_schedule(), "max_mamba_cache_size", None) if kvc.mambaish_config is not None else None

    def model_path(self, sa) -> str:
        from sglang.srt.runtime_context import get_model

        return get_model().model_path

    def draft_model_path(self, sa) -> str:
        from sglang.srt.runtime_context import get_spec

        return get_spec().speculative_draft_model_path

    def kv_cache_dtype_arg(self, sa) -> str:
        from sglang.srt.runtime_context import get_model

        return get_model().kv_cache_dtype

    def page_size(self, sa) -> int:
        from sglang.srt.runtime_context import get_schedule

        return get_schedule().page_size

    def speculative_algorithm(self, sa) -> str | None:
        from sglang.srt.runtime_context import get_spec

        return get_spec().speculative_algorithm

    # ---- one case --------------------------------------------------------
    def run_case(self, case: dict) -> dict:
        import contextlib

        import torch
        from sglang.srt.configs.model_config import AttentionArch, ModelConfig
        from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator
        from sglang.srt.model_executor.model_runner_components.load_model_utils import resolve_sliding_window_size
        from sglang.srt.model_executor.model_runner_components.spec_aux_hidden_state import resolve_spec_aux_hidden_state_config
        from sglang.srt.model_loader import loader
        from sglang.srt.model_loader.utils import set_default_torch_dtype
        from sglang.srt.server_args import prepare_server_args
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        for k, v in case.get("env", {}).items():
            os.environ[k] = str(v)
        fakedev.set_free_bytes(int(case["pre_model_load_gib"] * GIB))
        handler = hc.ListHandler()
        rec = {"id": case["id"], "resolved": None, "weights": None, "result": None, "error": None}
        model_dir = hc.make_model_dir(case["model"])
        argv = ["--model-path", model_dir] + to_argv(version_args(self.version, case["server_args"]))
        sa = mc = None
        try:
            sa = prepare_server_args(argv)
            logging.getLogger().addHandler(handler)  # prepare_server_args re-runs basicConfig(force=True)
            self.publish(sa)
            par = self.override_groups()
            mc = ModelConfig.from_server_args(sa, model_path=self.model_path(sa))
            rec["resolved"] = self.resolved(sa, mc)
            pre = self.measure_pre_model_load(sa, mc)

            # Weights: the model classes built on meta (the checkpoint is never read).
            lc = SimpleNamespace(draft_model_idx=None)
            with set_default_torch_dtype(mc.dtype), torch.device("meta"), fakedev.CudaToMeta():
                model = loader._initialize_model(mc, lc, loader._get_quantization_config(mc, lc))
                self.reserve_rope(model, mc, sa)
            tp_p, tp_b, seen = hc.tensor_bytes([model])
            alg = SpeculativeAlgorithm.from_string(self.speculative_algorithm(sa))
            aux = resolve_spec_aux_hidden_state_config(server_args=sa, model_config=mc, spec_algorithm=alg, is_draft_worker=False)
            dr_p = dr_b = 0
            layout = None
            if not alg.is_none():
                layout = self.draft_layout(aux, alg)
                self.before_draft_build(sa, mc)
                dmc = ModelConfig.from_server_args(sa, model_path=self.draft_model_path(sa), is_draft_model=True, context_length=mc.context_len)
                with contextlib.ExitStack() as scopes:
                    for make_scope in self.draft_build_contexts(sa, layout):
                        scopes.enter_context(make_scope())
                    with set_default_torch_dtype(dmc.dtype), torch.device("meta"), fakedev.CudaToMeta():
                        draft = loader._initialize_model(dmc, lc, loader._get_quantization_config(dmc, lc))
                        self.reserve_rope(draft, dmc, sa)
                dr_p, dr_b = hc.tensor_bytes_excluding(draft, seen)
            if "weights_gib" in case:
                resident = int(round(case["weights_gib"] * GIB))
                source = "given"
            else:
                resident = tp_p + tp_b + dr_p + dr_b
                source = "meta-build"
            rec["weights"] = {
                "target_param_bytes": tp_p,
                "target_buffer_bytes": tp_b,
                "draft_param_bytes": dr_p,
                "draft_buffer_bytes": dr_b,
                "resident_bytes": resident,
                "source": source,
            }
            fakedev.set_free_bytes(int(case["pre_model_load_gib"] * GIB) - resident)

            kv_str_resolved, kv_dtype = self.configure_kv_cache_dtype(sa, model, mc, alg)
            kv_str = kv_str_resolved if kv_str_resolved is not None else self.kv_cache_dtype_arg(sa)
            kvc = KVCacheConfigurator(
                device="cuda",
                gpu_id=0,
                **self.configurator_parallel_kwargs(par),
                pp_group=par.pp_group,
                model=model,
                model_config=mc,
                server_args=sa,
                **self.configurator_dtype_kwargs(kv_dtype, kv_str),
                model_dtype=mc.dtype,
                page_size=self.page_size(sa),
                sliding_window_size=resolve_sliding_window_size(model, mc),
                spec_algorithm=alg,
                is_draft_worker=False,
                post_capture_kv_active=self.post_capture_kv_active(sa, alg),
                spec_aux_config=aux,
                **self.configurator_draft_kwargs(layout),
                is_hybrid_swa=mc.is_hybrid_swa,
                is_hybrid_swa_compress=mc.is_hybrid_swa_compress,
                use_mla_backend=mc.attention_arch == AttentionArch.MLA,
                layer_info=self.layer_info(model, mc, alg),
                forward_stream=None,
                req_to_token_pool=None,
                token_to_kv_pool_allocator=None,
                memory_pool_config=None,
                draft_model_idx=None,
            )
            cfg = kvc._resolve_memory_pool_config(pre)
            sizes = kvc._derive_pool_sizes(config=cfg)
            kvc.device = "meta"
            with self.pool_build_scope():
                kvc._init_pools(sizes=sizes, req_to_token_pool=None, token_to_kv_pool_allocator=None)
            # TpModelWorker.alloc_memory_pool's own checks (tp_worker.py:420-425), in its order
            if not sizes.max_running_requests > 0:
                raise hc.WorkerCheckFailed("max_running_request is zero", self.worker_check_at("mrr"))
            max_req_len = min(mc.context_len - 1, sizes.max_total_num_tokens - 1)
            if not max_req_len > 0:
                raise hc.WorkerCheckFailed("Memory pool size is too small", self.worker_check_at("pool"))
            result = {
                "max_total_num_tokens": sizes.max_total_num_tokens,
                "max_running_requests": sizes.max_running_requests,
                "max_mamba_cache_size": self.max_mamba_cache_size(sa, kvc),
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
            rec["resolved"] = self.resolved(sa, mc)
        except Exception as exc:  # SGLang's own exception: the expected outcome of failing cases
            rec["error"] = hc.error_record(exc)
            if sa is not None and rec["resolved"] is None:
                try:
                    rec["resolved"] = self.resolved(sa, mc)
                except Exception:
                    pass
        rec["log_lines"] = hc.trimmed(handler.lines)
        rec["shim_calls"] = list(fakedev.SHIM_CALLS)
        return rec

    # tp_worker.py lines of TpModelWorker.alloc_memory_pool's two asserts, per release
    WORKER_CHECKS = {"mrr": "sglang/srt/managers/tp_worker.py:420", "pool": "sglang/srt/managers/tp_worker.py:425"}

    def worker_check_at(self, which: str) -> str:
        return self.WORKER_CHECKS[which]


if __name__ == "__main__":
    main(Harness0523)
