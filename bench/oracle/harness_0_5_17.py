# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SGLang 0.5.17 / 0.5.18's startup sizing: harness_0_5_16.py with the first ``publish``.

Usage (inside the release's venv): ``python harness_0_5_17.py GROUP.json OUT.jsonl VERSION``.

What differs from 0.5.16, from each release's source:

- The scheduler process calls ``publish(server_args, role="scheduler")`` first
  (0.5.17 scheduler.py:4911, 0.5.18 :5015).
- ``EAGLEWorkerV2`` no longer overrides ``context_length`` before building the draft.
- The configurator keeps ``max_mamba_cache_size`` in ``get_schedule()``.
- ``KVCacheConfigurator`` has a ``kv_cache_dtype_str`` field again, which
  ``ModelRunner.configure_kv_cache_dtype`` fills; the resolved dtype is no longer recorded
  into the server args (0.5.17 model_runner.py:1198-1224, 0.5.18 :1314-1340).
- 0.5.18 only: ``configure_kv_cache_dtype`` takes ``speculative_draft_kv_cache_dtype`` and
  the runner's own draft attention backend (None for a target runner, model_runner.py:266-278);
  ``ParallelState`` has ``attn_dcp_rank`` / ``attn_dcp_size`` (scheduler.py:465-485); the
  draft is built under ``draft_model_build_scope`` too (eagle_worker_v2.py:168-170).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness_0_5_16 import Harness0516
from harness_0_5_23 import Harness0523, main


@dataclass(frozen=True)
class ReleaseLines:
    """Where each release puts the pieces that differ between 0.5.17 and 0.5.18."""

    mrr_line: int  # tp_worker.py: assert ... "max_running_request is zero"
    pool_line: int  # tp_worker.py: assert max_req_len > 0, "Memory pool size is too small"
    flashinfer: str  # METADATA pin of flashinfer_python
    attn_dcp_fields: bool  # ParallelState has attn_dcp_rank / attn_dcp_size (else dcp_size)
    draft_kv_dtype_kwarg: bool  # configure_kv_cache_dtype(speculative_draft_kv_cache_dtype=...)
    draft_build_scope: bool  # the draft is built inside draft_model_build_scope()


RELEASES = {
    "0.5.17": ReleaseLines(406, 413, "0.6.15.post1", False, False, False),
    "0.5.18": ReleaseLines(410, 416, "0.6.17", True, True, True),
}


class Harness0517(Harness0516):
    VERSION = "0.5.17"

    def __init__(self, version: str | None = None):
        super().__init__(version)
        self.lines = RELEASES[self.version]
        self.WORKER_CHECKS = {
            "mrr": f"sglang/srt/managers/tp_worker.py:{self.lines.mrr_line}",
            "pool": f"sglang/srt/managers/tp_worker.py:{self.lines.pool_line}",
        }
        self.SHIM_VERSIONS = {"flashinfer": self.lines.flashinfer}

    def publish(self, sa) -> None:
        from sglang.srt.runtime_context import publish

        publish(sa, role="scheduler")

    def override_groups(self):
        if not self.lines.attn_dcp_fields:
            return super().override_groups()
        from sglang.srt.distributed.parallel_state_wrapper import ParallelState
        from sglang.srt.layers.dp_attention import compute_dp_attention_world_info
        from sglang.srt.runtime_context import get_context, get_parallel

        sa = get_context().server_args
        tp_rank = 0
        attn_tp_rank, attn_tp_size, attn_dp_rank, attn_dp_size = compute_dp_attention_world_info(
            sa.enable_dp_attention, tp_rank, sa.tp_size, sa.dp_size, sa.attn_cp_size
        )
        self.ps = ParallelState(
            tp_rank=tp_rank,
            tp_size=sa.tp_size,
            pp_rank=0,
            pp_size=sa.pp_size,
            dp_rank=None,
            dp_size=sa.dp_size,
            attn_tp_rank=attn_tp_rank,
            attn_tp_size=attn_tp_size,
            attn_cp_rank=0,
            attn_cp_size=sa.attn_cp_size,
            attn_dcp_rank=tp_rank % sa.dcp_size,
            attn_dcp_size=sa.dcp_size,
            attn_dp_rank=attn_dp_rank,
            attn_dp_size=attn_dp_size,
            moe_ep_rank=0,
            moe_ep_size=sa.ep_size,
            moe_dp_rank=0,
            moe_dp_size=sa.moe_dp_size,
            gpu_id=0,
        )
        return get_parallel()

    def before_draft_build(self, sa, mc) -> None:
        """No context-length override before the draft from 0.5.17."""

    def draft_build_contexts(self, sa, layout) -> list:
        scopes = super().draft_build_contexts(sa, layout)
        if self.lines.draft_build_scope:
            from sglang.srt.layers.moe.utils import draft_model_build_scope

            scopes.append(draft_model_build_scope)
        return scopes

    def configure_kv_cache_dtype(self, sa, model, mc, alg):
        from sglang.srt.mem_cache import kv_cache_dtype as kvd

        kwargs = dict(server_args_kv_cache_dtype=sa.kv_cache_dtype, model=model, model_dtype=mc.dtype, is_draft_worker=False, is_dflash=alg.is_dflash_family())
        if self.lines.draft_kv_dtype_kwarg:
            kwargs.update(speculative_draft_attention_backend=None, speculative_draft_kv_cache_dtype=sa.speculative_draft_kv_cache_dtype)
        else:
            kwargs.update(speculative_draft_attention_backend=getattr(sa, "speculative_draft_attention_backend", None))
        return kvd.configure_kv_cache_dtype(**kwargs)

    def configurator_dtype_kwargs(self, kv_dtype, kv_str) -> dict:
        return dict(kv_cache_dtype=kv_dtype, kv_cache_dtype_str=kv_str)

    def max_mamba_cache_size(self, sa, kvc):
        """The configurator reads and writes it in ``get_schedule()`` from 0.5.17
        (0.5.17 kv_cache_configurator.py:1874-1880, get_context().override), not in the server args."""
        return Harness0523.max_mamba_cache_size(self, sa, kvc)


if __name__ == "__main__":
    main(Harness0517)
