# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SGLang 0.5.16's startup sizing: harness_0_5_19.py before the runtime-context config bags.

Usage (inside the release's venv): ``python harness_0_5_16.py GROUP.json OUT.jsonl VERSION``.

What differs from 0.5.19, from 0.5.16's source:

- No ``publish``: ``ModelRunner.__init__`` hands the target's ``ServerArgs`` to
  ``set_global_server_args_for_scheduler`` (model_runner.py:310-311), and every reader
  takes its values from ``ServerArgs`` itself (no ``get_model`` / ``get_spec`` /
  ``get_schedule`` / ``resolved_dict``).
- ``ParallelState`` is built from ``ServerArgs`` and has one ``dcp_size`` field
  (scheduler.py:370-397).
- No ``override_platform``: ``is_flashinfer_available`` is ``find_spec("flashinfer")``
  on CUDA (utils/common.py:341-348), which the flashinfer shim answers.
- ``EAGLEWorkerV2.__init__`` overrides ``context_length`` with the target's before it
  builds the draft (eagle_worker_v2.py:1044-1048); the draft is built under
  ``draft_tp_context`` (DP attention and EAGLE3 only, else ``empty_context``),
  ``speculative_moe_backend_context`` and ``speculative_moe_a2a_backend_context``
  (eagle_worker_v2.py:150-159): no ``draft_pp_context`` or ``draft_model_build_scope``.
- ``configure_kv_cache_dtype`` has no ``speculative_draft_kv_cache_dtype`` and is called
  with ``is_dflash()`` and the server's ``speculative_draft_attention_backend``
  (model_runner.py:1082-1097); ``KVCacheConfigurator`` has no ``kv_cache_dtype_str``
  (model_runner.py:509-545); ``reserve_rope_cache_for_long_sequences`` takes the
  server args (model_runner.py:1004-1009).
"""

from __future__ import annotations

import functools

import harness_common as hc
from harness_0_5_19 import Harness0519
from harness_0_5_23 import main


class Harness0516(Harness0519):
    VERSION = "0.5.16"
    # TpModelWorker.alloc_memory_pool (tp_worker.py:381 / :386)
    WORKER_CHECKS = {"mrr": "sglang/srt/managers/tp_worker.py:381", "pool": "sglang/srt/managers/tp_worker.py:386"}
    SHIM_VERSIONS = {"flashinfer": "0.6.14"}  # METADATA: flashinfer_python[cu13]==0.6.14

    def install_platform(self) -> None:
        """Nothing to install: the flashinfer shim is what ``is_flashinfer_available`` finds."""

    def publish(self, sa) -> None:
        from sglang.srt.server_args import set_global_server_args_for_scheduler

        set_global_server_args_for_scheduler(sa)

    def override_groups(self):
        """The scheduler's ParallelState for rank 0, from the server args (scheduler.py:370-397)."""
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
            attn_dp_rank=attn_dp_rank,
            attn_dp_size=attn_dp_size,
            moe_ep_rank=0,
            moe_ep_size=sa.ep_size,
            moe_dp_rank=0,
            moe_dp_size=sa.moe_dp_size,
            dcp_size=sa.dcp_size,
            gpu_id=0,
        )
        return get_parallel()

    def before_draft_build(self, sa, mc) -> None:
        sa.override("spec_worker.match_target_context_length", context_length=mc.context_len)

    def draft_build_contexts(self, sa, layout) -> list:
        from sglang.srt.layers.moe.utils import speculative_moe_a2a_backend_context, speculative_moe_backend_context
        from sglang.srt.runtime_context import get_parallel
        from sglang.srt.speculative import eagle_worker_v2 as ew
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        alg = SpeculativeAlgorithm.from_string(sa.speculative_algorithm)
        if sa.enable_dp_attention and alg.is_eagle3():
            tp_scope = functools.partial(ew.draft_tp_context, get_parallel().attn_tp_group)
        else:
            tp_scope = ew.empty_context
        return [tp_scope, speculative_moe_backend_context, speculative_moe_a2a_backend_context]

    def reserve_rope(self, model, mc, sa) -> None:
        from sglang.srt.utils.common import reserve_rope_cache_for_long_sequences

        reserve_rope_cache_for_long_sequences(model, sa, mc, None)

    def configure_kv_cache_dtype(self, sa, model, mc, alg):
        """ModelRunner.configure_kv_cache_dtype (model_runner.py:1082-1099), including its
        ``_record_kv_cache_dtype``: the configurator reads the resolved string back from the
        server args, as it has no ``kv_cache_dtype_str`` field in this release."""
        from types import SimpleNamespace

        from sglang.srt.mem_cache import kv_cache_dtype as kvd
        from sglang.srt.model_executor.model_runner import ModelRunner

        resolved, kv_dtype = kvd.configure_kv_cache_dtype(
            server_args_kv_cache_dtype=sa.kv_cache_dtype,
            model=model,
            model_dtype=mc.dtype,
            is_draft_worker=False,
            is_dflash=alg.is_dflash(),
            speculative_draft_attention_backend=getattr(sa, "speculative_draft_attention_backend", None),
        )
        if resolved is not None:
            ModelRunner._record_kv_cache_dtype(SimpleNamespace(server_args=sa), resolved)
        return resolved, kv_dtype

    def configurator_dtype_kwargs(self, kv_dtype, kv_str) -> dict:
        return dict(kv_cache_dtype=kv_dtype)

    def model_path(self, sa) -> str:
        return sa.model_path

    def draft_model_path(self, sa) -> str:
        return sa.speculative_draft_model_path

    def kv_cache_dtype_arg(self, sa) -> str:
        return sa.kv_cache_dtype

    def page_size(self, sa) -> int:
        return sa.page_size

    def speculative_algorithm(self, sa) -> str | None:
        return sa.speculative_algorithm

    def max_mamba_cache_size(self, sa, kvc):
        return sa.max_mamba_cache_size if kvc.mambaish_config is not None else None

    # 0.5.23's fields, read from the ServerArgs itself (no runtime_context before 0.5.17)
    RESOLVED_FIELDS = (
        "mem_fraction_static",
        "chunked_prefill_size",
        "max_prefill_tokens",
        "max_running_requests",
        "page_size",
        "attention_backend",
        "prefill_attention_backend",
        "decode_attention_backend",
        "speculative_algorithm",
        "speculative_num_steps",
        "speculative_eagle_topk",
        "speculative_num_draft_tokens",
        "disable_radix_cache",
        "disable_overlap_schedule",
        "mamba_radix_cache_strategy",
        "mamba_full_memory_ratio",
        "max_mamba_cache_size",
        "mamba_ssm_dtype",
        "kv_cache_dtype",
        "cuda_graph_max_bs_decode",
        "cuda_graph_max_bs_prefill",
        "cuda_graph_backend_decode",
        "cuda_graph_backend_prefill",
        "context_length",
        "max_total_tokens",
    )

    def resolved(self, sa, mc) -> dict:
        return hc.resolved_args(sa, mc, self.RESOLVED_FIELDS, as_text=("cuda_graph_backend_decode", "cuda_graph_backend_prefill"))


if __name__ == "__main__":
    main(Harness0516)
