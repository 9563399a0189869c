# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SGLang 0.5.21's startup sizing: harness_0_5_22.py with 0.5.21's draft scope and KV check.

Usage (inside the release's venv): ``python harness_0_5_21.py GROUP.json OUT.jsonl [VERSION]``.

What differs from 0.5.22, from 0.5.21's source:

- ``EagleDraftWorker.__init__`` enters ``draft_tp_context(attn_tp_group, owns_attention=True)``
  only with DP attention and EAGLE3, else ``empty_context()`` (eagle_worker_v2.py:188-203).
- ``is_post_capture_kv_active(server_args, is_draft_worker)`` has its older signature
  (kv_pool_runtime.py:31).
- ``layers/attention/dsa_backend.py:99-100`` imports ``deep_gemm`` on CUDA, and
  ``models/deepseek_v2.py`` (DeepSeek-V3, and GLM-4.7 through glm4_moe) imports it at module
  level: see ``SHIM_DEEP_GEMM``.
"""

from __future__ import annotations

import functools

from harness_0_5_22 import Harness0522
from harness_0_5_23 import main


class Harness0521(Harness0522):
    VERSION = "0.5.21"
    # TpModelWorker.alloc_memory_pool (tp_worker.py:410 / :415)
    WORKER_CHECKS = {"mrr": "sglang/srt/managers/tp_worker.py:410", "pool": "sglang/srt/managers/tp_worker.py:415"}
    SHIM_VERSIONS = {"flashinfer": "0.6.18"}  # METADATA: flashinfer_python[cu13]==0.6.18
    SHIM_DEEP_GEMM = True  # dsa_backend.py:99-100, reached from models/deepseek_v2.py at import
    DSA_NUM_SMS_MODULES = ()  # no resolve_num_sms yet (new in 0.5.22)
    # eagle_worker_v2.draft_tp_context's keyword for an attention-DP EAGLE3 draft (0.5.19/0.5.20 have none)
    DRAFT_TP_CONTEXT_KWARGS = {"owns_attention": True}

    def draft_layout(self, aux, alg):
        return None

    def draft_build_contexts(self, sa, layout) -> list:
        from sglang.srt.layers.moe.utils import draft_model_build_scope, speculative_moe_a2a_backend_context, speculative_moe_backend_context
        from sglang.srt.runtime_context import get_parallel, get_spec
        from sglang.srt.speculative import eagle_worker_v2 as ew
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        par = get_parallel()
        alg = SpeculativeAlgorithm.from_string(get_spec().speculative_algorithm)
        if par.enable_dp_attention and alg.is_eagle3():
            tp_scope = functools.partial(ew.draft_tp_context, par.attn_tp_group, **self.DRAFT_TP_CONTEXT_KWARGS)
        else:
            tp_scope = ew.empty_context
        return [tp_scope, ew.draft_pp_context, speculative_moe_backend_context, speculative_moe_a2a_backend_context, draft_model_build_scope]

    def post_capture_kv_active(self, sa, alg) -> bool:
        from sglang.srt.model_executor.model_runner_components.kv_pool_runtime import is_post_capture_kv_active

        return is_post_capture_kv_active(server_args=sa, is_draft_worker=False)


if __name__ == "__main__":
    main(Harness0521)
