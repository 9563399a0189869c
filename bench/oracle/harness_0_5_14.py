# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SGLang 0.5.14 - 0.5.15.post1's startup sizing: harness_0_5_10.py with the pools allocated later.

Usage (inside the release's venv): ``python harness_0_5_14.py GROUP.json OUT.jsonl VERSION``.

From 0.5.14 the target ``ModelRunner`` constructor stops after ``configure_kv_cache_dtype``;
the scheduler then builds the draft worker and only afterwards calls
``tp_worker.alloc_memory_pool()`` (0.5.14 scheduler.py:812 then :834), which runs
``ModelRunner.alloc_memory_pool`` -> ``init_memory_pool(pre_model_load_memory)`` (the same
mixin as 0.5.9) and then the two asserts (tp_worker.py:336 / :341). So the draft's weights are
resident when the target's pools are sized.  Here:

1. the real target ``ModelRunner`` constructor, as in harness_0_5_9.py (checkpoint read on meta);
2. the draft model, built as ``EAGLEWorkerV2`` / ``EagleDraftWorker`` do: ``context_length``
   set to the target's (eagle_worker_v2.py:965), then ``ModelConfig.from_server_args`` for the
   draft path inside ``draft_tp_context`` (DP attention and EAGLE3 only, else ``empty_context``),
   ``speculative_moe_backend_context`` and ``speculative_moe_a2a_backend_context``
   (eagle_worker_v2.py:168-175), built with the loader's ``_initialize_model`` on meta plus
   ``reserve_rope_cache_for_long_sequences`` as ``ModelRunner.load_model`` does (as in
   harness_0_5_23.py; the draft's own ModelRunner is not constructed);
3. the real ``ModelRunner.alloc_memory_pool`` (pools on meta), then ``TpModelWorker.alloc_memory_pool``'s
   asserts, which check ``max_req_len`` only.
"""

from __future__ import annotations

from types import SimpleNamespace

import fakedev
import harness_common as hc
from harness_0_5_9 import STATE, main
from harness_0_5_10 import Harness0510

# release -> (tp_worker.py line of "max_running_request is zero", of "Memory pool size is too small",
#             METADATA pin of flashinfer_python)
RELEASE_LINES = {
    "0.5.14": (336, 341, "0.6.12"),
    "0.5.15": (342, 347, "0.6.12"),
    "0.5.15.post1": (342, 347, "0.6.12"),
}


class Harness0514(Harness0510):
    VERSION = "0.5.14"
    RELEASE_LINES = RELEASE_LINES

    def size_target(self, sa, mc):
        mr = self.new_target_runner(sa, mc)
        if sa.speculative_algorithm is not None:
            self.build_draft(sa, mc, mr)
        with fakedev.CudaToMeta():
            mr.alloc_memory_pool()
        return mr

    def build_draft(self, sa, mc, mr) -> None:
        import torch
        from sglang.srt.configs.model_config import ModelConfig
        from sglang.srt.layers.dp_attention import get_attention_tp_group
        from sglang.srt.layers.moe.utils import speculative_moe_a2a_backend_context, speculative_moe_backend_context
        from sglang.srt.model_loader import loader
        from sglang.srt.model_loader.utils import set_default_torch_dtype
        from sglang.srt.speculative import eagle_worker_v2 as ew
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
        from sglang.srt.utils.common import reserve_rope_cache_for_long_sequences

        sa.context_length = mc.context_len
        alg = SpeculativeAlgorithm.from_string(sa.speculative_algorithm)
        tp_scope = ew.draft_tp_context(get_attention_tp_group()) if sa.enable_dp_attention and alg.is_eagle3() else ew.empty_context()
        lc = SimpleNamespace(draft_model_idx=None)
        with tp_scope, speculative_moe_backend_context(), speculative_moe_a2a_backend_context():
            dmc = ModelConfig.from_server_args(
                sa, model_path=sa.speculative_draft_model_path, model_revision=sa.speculative_draft_model_revision, is_draft_model=True
            )
            with set_default_torch_dtype(dmc.dtype), torch.device("meta"), fakedev.CudaToMeta():
                draft = loader._initialize_model(dmc, lc, loader._get_quantization_config(dmc, lc))
                reserve_rope_cache_for_long_sequences(draft, sa, dmc, None)
        seen = hc.tensor_bytes([mr.model])[2]
        STATE["draft_params"], STATE["draft_buffers"] = hc.tensor_bytes_excluding(draft, seen)
        if STATE.get("given") is None:
            STATE["resident"] = STATE["params"] + STATE["buffers"] + STATE["draft_params"] + STATE["draft_buffers"]
        fakedev.set_free_bytes(STATE["pre_bytes"] - STATE["resident"])

    def worker_checks(self, mr, mc) -> tuple[int, int]:
        if not mr.max_running_requests > 0:
            raise hc.WorkerCheckFailed("max_running_request is zero", self.WORKER_CHECKS["mrr"])
        max_req_len = min(mc.context_len - 1, mr.max_token_pool_size - 1)
        if not max_req_len > 0:
            raise hc.WorkerCheckFailed("Memory pool size is too small", self.WORKER_CHECKS["pool"])
        return max_req_len, max_req_len - 5  # tp_worker.get_worker_info (no dLLM)


if __name__ == "__main__":
    main(Harness0514)
