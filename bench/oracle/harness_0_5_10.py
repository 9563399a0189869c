# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""SGLang 0.5.10 - 0.5.13.post1's startup sizing: harness_0_5_9.py with each release's lines.

Usage (inside the release's venv): ``python harness_0_5_10.py GROUP.json OUT.jsonl VERSION``.

These releases still size the KV pool inside the target ``ModelRunner`` constructor
(``initialize`` -> ``init_memory_pool(pre_model_load_memory)`` -> ... -> ``init_cublas``),
before the scheduler builds the draft worker, so 0.5.9's harness runs them unchanged apart
from what is set here: where ``TpModelWorker.__init__``'s two asserts sit, the flashinfer
version the release pins (the shim's ``__version__``), a real logger as flashinfer's JIT
logger (``configure_logger`` sets its level), and ``torch.distributed.get_rank()`` answering
0 (``log_info_on_rank0``).  The keywords that 0.5.12 adds to ``initialize_model_parallel``
(``enable_symm_mem``, ``recovered_rank``) change no group width and are accepted by the base
harness's stand-in.
"""

from __future__ import annotations

import logging

from harness_0_5_9 import Harness059, main

# release -> (tp_worker.py line of "max_running_request is zero", of "Memory pool size is too small",
#             METADATA pin of flashinfer_python)
RELEASE_LINES = {
    "0.5.10": (296, 306, "0.6.7.post2"),
    "0.5.10.post1": (296, 306, "0.6.7.post3"),
    "0.5.11": (297, 307, "0.6.8.post1"),
    "0.5.12": (299, 309, "0.6.11.post1"),
    "0.5.12.post1": (299, 309, "0.6.11.post1"),
    "0.5.13": (299, 309, "0.6.12"),
    "0.5.13.post1": (299, 309, "0.6.12"),
}


class Harness0510(Harness059):
    VERSION = "0.5.10"
    RELEASE_LINES = RELEASE_LINES
    # configure_logger sets flashinfer's JIT logger to ERROR when flashinfer is importable
    # (0.5.12 utils/common.py:1279-1282): the shim holds a real logger there.
    SHIM_ATTRS = {"flashinfer.jit.core": {"logger": logging.getLogger("flashinfer.jit")}}

    def __init__(self, version: str | None = None):
        super().__init__(version)
        mrr_line, pool_line, flashinfer = self.RELEASE_LINES[self.version]
        self.WORKER_CHECKS = {"mrr": f"sglang/srt/managers/tp_worker.py:{mrr_line}", "pool": f"sglang/srt/managers/tp_worker.py:{pool_line}"}
        self.SHIM_VERSIONS = {"flashinfer": flashinfer}

    def import_sglang(self) -> None:
        super().import_sglang()
        import torch

        # rank 0 of identical ranks: log_info_on_rank0 asks torch.distributed (0.5.14
        # utils/common.py:3067, reached from ModelRunner.model_specific_adjustment for MLA models)
        torch.distributed.get_rank = lambda group=None: 0


if __name__ == "__main__":
    main(Harness0510)
