# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SGLang 0.5.19 / 0.5.20's startup sizing: harness_0_5_21.py with the older distributed bootstrap.

Usage (inside the release's venv): ``python harness_0_5_19.py GROUP.json OUT.jsonl VERSION``.

What differs from 0.5.22, from 0.5.19's source:

- ``publish(server_args, role="scheduler")`` takes no ranks (scheduler.py:5551).
- The scheduler builds a ``ParallelState`` (scheduler.py:491-520), which ``ModelRunner``
  and ``KVCacheConfigurator`` take as ``ps`` (model_runner.py:317; the configurator has
  ``ps`` instead of ``attn_dp_size`` / ``pp_size``).
- The pre-load baseline is the ``pre_model_load_memory`` of
  ``bootstrap.init_torch_distributed`` (bootstrap.py:71-170, called by
  ``ModelRunner.init_torch_distributed``, model_runner.py:1106-1119), which also creates
  the process groups, initialises DP attention and layernorm SP, and checks TP balance.
  It runs for real; only the NCCL groups are stand-ins (below).
- ``EagleDraftWorker.__init__`` enters ``draft_tp_context(attn_tp_group)`` (no ``owns_attention``)
  only with DP attention and EAGLE3, else ``empty_context()`` (eagle_worker_v2.py:164-173).
- ``is_post_capture_kv_active(server_args, is_draft_worker)`` and
  ``resolve_layer_indices(..., spec_algorithm)`` have their older signatures.
- 0.5.20 only: ``models/deepseek_v2.py`` imports ``deep_gemm`` through
  ``layers/attention/dsa_backend.py:97-98`` (see ``Harness0523.SHIM_DEEP_GEMM``).

Process groups: ``parallel_state.initialize_model_parallel`` and
``init_distributed_environment`` run for real, so the group widths are SGLang's own
arithmetic. Replaced are the two constructors of a ``GroupCoordinator``
(``init_world_group`` / ``init_model_parallel_group``), which return a rank-0 stand-in as
wide as the rank list that holds rank 0, and ``torch.distributed``'s world size / rank /
backend queries (the case's GPU count, 0, nccl): the NCCL world is never created.
"""

from __future__ import annotations


import fakedev
import harness_common as hc
from harness_0_5_21 import Harness0521
from harness_0_5_23 import main


def _group_of_rank0(group_ranks) -> list:
    return next(ranks for ranks in group_ranks if 0 in ranks)


class Harness0519(Harness0521):
    VERSION = "0.5.19"
    # TpModelWorker.alloc_memory_pool (tp_worker.py:427 / :433 in 0.5.19 and 0.5.20)
    WORKER_CHECKS = {"mrr": "sglang/srt/managers/tp_worker.py:427", "pool": "sglang/srt/managers/tp_worker.py:433"}
    SHIM_VERSIONS = {"flashinfer": "0.6.18"}  # METADATA: flashinfer_python[cu13]==0.6.18 (both)
    DRAFT_TP_CONTEXT_KWARGS: dict = {}  # draft_tp_context(group) only

    def __init__(self, version: str | None = None):
        super().__init__(version)
        # 0.5.20's models/deepseek_v2.py reaches dsa_backend.py:98 (import deep_gemm on CUDA) at
        # import; 0.5.19 imports every model module of the grid without it (its run log)
        self.SHIM_DEEP_GEMM = self.version == "0.5.20"

    def import_sglang(self) -> None:
        super().import_sglang()
        import torch
        from sglang.srt.distributed import parallel_state

        parallel_state.init_world_group = lambda ranks, *a, **k: hc.FakeGroup(len(ranks))
        parallel_state.init_model_parallel_group = lambda group_ranks, *a, **k: hc.FakeGroup(len(_group_of_rank0(group_ranks)))
        torch.distributed.get_world_size = lambda group=None: fakedev.STATE["n_gpus"]
        torch.distributed.get_rank = lambda group=None: 0
        torch.distributed.get_backend = lambda group=None: "nccl"

    def publish(self, sa) -> None:
        from sglang.srt.runtime_context import publish

        publish(sa, role="scheduler")

    def override_groups(self):
        """The scheduler's ParallelState for rank 0 (scheduler.py:491-520); the groups come later."""
        from sglang.srt.distributed.parallel_state_wrapper import ParallelState
        from sglang.srt.layers.dp_attention import compute_dp_attention_world_info
        from sglang.srt.runtime_context import get_parallel

        par = get_parallel()
        tp_rank = 0
        attn_tp_rank, attn_tp_size, attn_dp_rank, attn_dp_size = compute_dp_attention_world_info(
            par.enable_dp_attention, tp_rank, par.tp_size, par.dp_size, par.attn_cp_size
        )
        self.ps = ParallelState(
            tp_rank=tp_rank,
            tp_size=par.tp_size,
            pp_rank=0,
            pp_size=par.pp_size,
            dp_rank=None,
            dp_size=par.dp_size,
            attn_tp_rank=attn_tp_rank,
            attn_tp_size=attn_tp_size,
            attn_cp_rank=0,
            attn_cp_size=par.attn_cp_size,
            attn_dcp_rank=tp_rank % par.dcp_size,
            attn_dcp_size=par.dcp_size,
            attn_dp_rank=attn_dp_rank,
            attn_dp_size=attn_dp_size,
            moe_ep_rank=0,
            moe_ep_size=par.ep_size,
            moe_dp_rank=0,
            moe_dp_size=par.moe_dp_size,
            gpu_id=0,
        )
        return par

    def measure_pre_model_load(self, sa, mc) -> float:
        from sglang.srt.distributed import bootstrap

        result = bootstrap.init_torch_distributed(
            server_args=sa, model_config=mc, device="cuda", ps=self.ps, dist_port=0, is_draft_worker=False, local_omp_cpuid=None
        )
        return result.pre_model_load_memory

    def layer_info(self, model, mc, alg):
        from sglang.srt.model_executor.model_runner_components.layer_setup import resolve_layer_indices

        return resolve_layer_indices(model=model, model_config=mc, is_draft_worker=False, spec_algorithm=alg)

    def configurator_parallel_kwargs(self, par) -> dict:
        return dict(ps=self.ps)

    def pool_build_scope(self):
        """The mamba pool allocates its speculative scratch with ``device="cuda"`` (memory_pool.py:740)."""
        return fakedev.CudaToMeta()


if __name__ == "__main__":
    main(Harness0519)
