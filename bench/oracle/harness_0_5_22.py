# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SGLang 0.5.22's startup sizing: harness_0_5_23.py without the draft parallel layout.

Usage (inside the release's venv): ``python harness_0_5_22.py GROUP.json OUT.jsonl [VERSION]``.

0.5.22 has every entry point of 0.5.23 except ``speculative/draft_parallel.py``.
Where 0.5.23 resolves a ``DraftParallelLayout``, 0.5.22's
``EagleDraftWorker.__init__`` computes ``draft_owns_attention`` (a bool,
eagle_worker_v2.py:190-192) and passes it to ``draft_tp_context``
(eagle_worker_v2.py:197); its ``KVCacheConfigurator`` has no
``draft_parallel_layout`` field (model_runner.py:643-680).
"""

from __future__ import annotations

from harness_0_5_23 import Harness0523, main


class Harness0522(Harness0523):
    VERSION = "0.5.22"
    # fp8_utils.py:255 imports flashinfer at module level on CUDA (0.5.23 only when SM90+ has it)
    SHIMS = Harness0523.SHIMS + ("flashinfer",)
    SHIM_VERSIONS = {"flashinfer": "0.7.1"}  # METADATA: flashinfer_python[cu13]==0.7.1
    # tp_worker.py:413 / :418 (0.5.22), TpModelWorker.alloc_memory_pool
    WORKER_CHECKS = {"mrr": "sglang/srt/managers/tp_worker.py:413", "pool": "sglang/srt/managers/tp_worker.py:418"}

    def draft_layout(self, aux, alg):
        from sglang.srt.runtime_context import get_parallel

        return get_parallel().attn_dp_enabled and alg.is_eagle3()

    def configurator_draft_kwargs(self, layout) -> dict:
        return {}


if __name__ == "__main__":
    main(Harness0522)
