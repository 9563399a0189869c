# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run SGLang 0.5.9's own startup sizing for a group of cases on one GPU type.

Usage (inside the release's venv; driver.py picks the adapter from adapters.py):
    python harness_0_5_9.py GROUP.json OUT.jsonl [VERSION]

Real code, in SGLang's own order: ``prepare_server_args`` (argparse and the
whole ``ServerArgs.__post_init__``), ``ModelConfig.from_server_args`` (as
``TpModelWorker._init_model_config``), then the real ``ModelRunner(...)``
constructor: ``model_specific_adjustment``, ``init_torch_distributed`` (the
pre-load baseline, MIN over ranks and the TP-imbalance check),
``initialize`` -> ``load_model`` (its logging, sliding window, RoPE reserve),
``configure_kv_cache_dtype``, ``init_memory_pool`` (profile, the mamba split,
the "Not enough memory" check, all pools built) and the max_running_requests
line.  The run stops where ``initialize`` would call ``init_cublas``; then
``TpModelWorker.__init__``'s asserts are applied.

Replaced (see README.md): the NCCL process-group creation
(``init_distributed_environment`` / ``initialize_model_parallel`` install
rank-0 stand-in groups of the same widths), the checkpoint read inside
``DefaultModelLoader.load_model`` (the model classes are built on meta and
their bytes leave the stubbed free memory), a KV-pool warm-up kernel, and the
torch device queries of fakedev.py.  In 0.5.9 the draft worker is built only
after the target's pools, so it is not part of the target's sizing.

:class:`Harness059` is also the base of the adapters for the releases that
still size inside the ``ModelRunner`` constructor (harness_0_5_10.py).
"""

from __future__ import annotations

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
STATE: dict = {}
FakeGroup = hc.FakeGroup


class SizingDone(Exception):
    """Raised where ModelRunner.initialize would start cuBLAS / attention / graphs."""


def _fake_init_distributed_environment(**kwargs):
    from sglang.srt.distributed import parallel_state as ps

    ps._WORLD = FakeGroup(kwargs.get("world_size", 1))


def _fake_initialize_model_parallel(
    tensor_model_parallel_size=1,
    expert_model_parallel_size=1,
    pipeline_model_parallel_size=1,
    attention_data_parallel_size=1,
    attention_context_model_parallel_size=1,
    moe_data_model_parallel_size=1,
    backend=None,
    duplicate_tp_group=False,
    **flags,
):
    """The group widths of parallel_state.initialize_model_parallel, without NCCL.

    ``flags``: the later releases' extra keywords that change no width (enable_symm_mem,
    recovered_rank from 0.5.12, model_runner.py initialize_model_parallel call)."""
    from sglang.srt.distributed import parallel_state as ps

    tp = tensor_model_parallel_size
    attn_tp = tp // attention_context_model_parallel_size // attention_data_parallel_size
    moe_tp = tp // expert_model_parallel_size // moe_data_model_parallel_size
    ps._TP = FakeGroup(tp)
    ps._ATTN_TP = FakeGroup(attn_tp)
    ps._ATTN_CP = FakeGroup(attention_context_model_parallel_size)
    ps._MOE_DP = FakeGroup(moe_data_model_parallel_size)
    ps._MOE_EP = FakeGroup(expert_model_parallel_size)
    ps._MOE_TP = FakeGroup(moe_tp)
    ps._PP = FakeGroup(pipeline_model_parallel_size)


def _meta_load_model(self, *, model_config, device_config):
    """DefaultModelLoader.load_model without reading the checkpoint: build on meta."""
    import torch
    from sglang.srt.model_loader.loader import _get_quantization_config, _initialize_model
    from sglang.srt.model_loader.utils import set_default_torch_dtype

    # the construction lines of the real DefaultModelLoader.load_model (loader.py:667-675)
    quant_config = _get_quantization_config(model_config, self.load_config)
    with set_default_torch_dtype(model_config.dtype), torch.device("meta"), fakedev.CudaToMeta():
        model = _initialize_model(model_config, self.load_config, quant_config)
    params, buffers, seen = hc.tensor_bytes([model])
    STATE.update(params=params, buffers=buffers, seen=seen)
    resident = STATE["given"] if STATE.get("given") is not None else params + buffers
    STATE["resident"] = resident
    fakedev.set_free_bytes(STATE["pre_bytes"] - resident)
    return model.eval()


def _xielu_scalars_on_cpu():
    """0.5.9's XIELU (layers/activation.py:190-215, Apertus) reads its beta and eps back with ``.item()``, which a
    tensor on meta cannot do (0.5.23 computes them on the CPU first). Build its two parameters and two buffers on the
    CPU instead: the same four scalars, the same bytes, counted like every other tensor of the model."""
    import torch
    from sglang.srt.layers import activation

    orig_init = activation.XIELU.__init__

    def _init(self, *args, **kwargs):
        with torch.device("cpu"):
            orig_init(self, *args, **kwargs)

    activation.XIELU.__init__ = _init


class Harness059(hc.GroupRunner):
    """SGLang 0.5.9: the real ModelRunner constructor, cut where it would start cuBLAS."""

    VERSION = "0.5.9"
    # flashinfer is a CUDA-only wheel that 0.5.9 requires and imports at module level
    SHIMS = ("torchvision", "sgl_kernel", "flashinfer")
    SHIM_VERSIONS: dict = {}  # fakedev.SHIM_VERSIONS holds 0.5.9's flashinfer pin
    SHIM_ATTRS: dict = {}  # fakedev.SHIM_ATTRS
    # TpModelWorker.__init__'s asserts on the sized pool (tp_worker.py:282 and :292-294)
    WORKER_CHECKS = {"mrr": "sglang/srt/managers/tp_worker.py:282", "pool": "sglang/srt/managers/tp_worker.py:292"}

    def __init__(self, version: str | None = None):
        self.version = version or self.VERSION

    def setup(self, gpu_block: dict, pre_gib: float) -> None:
        name, mib, cc, sms = GPUS[gpu_block["name"]]
        self.sm_count = sms
        fakedev.shim(*self.SHIMS, versions=self.SHIM_VERSIONS, attrs=self.SHIM_ATTRS)
        fakedev.configure(n_gpus=gpu_block["count"], total_mib=mib, capability=cc, free_bytes=int(pre_gib * GIB), name=name, sm_count=sms)

    def import_sglang(self) -> None:
        import torch  # noqa: F401
        from sglang.srt.mem_cache import memory_pool
        from sglang.srt.model_executor import model_runner
        from sglang.srt.model_loader import loader
        from sglang.srt.server_args import prepare_server_args  # noqa: F401
        from sglang.srt.configs.model_config import ModelConfig  # noqa: F401
        import sglang.srt.models.registry  # noqa: F401  (imports every model module once)
        from sglang.srt.layers.attention.nsa import nsa_indexer

        # The NSA indexer (DeepSeek-V3.2) reads the CUDA-only deep_gemm.get_num_sms() at construction
        # (nsa_indexer.py:174), its failed import bound to the module: a stand-in answers the device's SM count.
        nsa_indexer.deep_gemm = SimpleNamespace(get_num_sms=lambda sms=self.sm_count: sms)

        model_runner.init_distributed_environment = _fake_init_distributed_environment
        model_runner.initialize_model_parallel = _fake_initialize_model_parallel
        loader.DefaultModelLoader.load_model = _meta_load_model

        def _stop(self):
            STATE["runner"] = self
            raise SizingDone()

        model_runner.ModelRunner.init_cublas = _stop
        _xielu_scalars_on_cpu()

        orig_dist = model_runner.ModelRunner.init_torch_distributed

        def _init_torch_distributed(self):
            STATE["pre"] = orig_dist(self)
            return STATE["pre"]

        model_runner.ModelRunner.init_torch_distributed = _init_torch_distributed

        orig_load = model_runner.ModelRunner.load_model

        def _load_model(self):
            orig_load(self)
            # load_model's own RoPE pre-expansion (reserve_rope_cache_for_long_sequences) may
            # replace a cos/sin cache by a longer one; the old one is freed, so recount from scratch
            params, buffers = hc.tensor_bytes([self.model])[:2]
            STATE.update(params=params, buffers=buffers)
            if STATE.get("given") is None:
                STATE["resident"] = params + buffers
            fakedev.set_free_bytes(STATE["pre_bytes"] - STATE["resident"])

        model_runner.ModelRunner.load_model = _load_model

        orig_pool = model_runner.ModelRunner.init_memory_pool

        def _init_memory_pool(self, total_gpu_memory):
            # the real sizing and pool constructors; their cuda tensors are created on meta
            with fakedev.CudaToMeta():
                return orig_pool(self, total_gpu_memory)

        model_runner.ModelRunner.init_memory_pool = _init_memory_pool

        orig_eplb = model_runner.compute_initial_expert_location_metadata

        def _expert_location(*args, **kwargs):
            # a few KB of MoE expert-location maps whose values are read: built on the CPU
            with fakedev.CudaToCpu():
                return orig_eplb(*args, **kwargs)

        model_runner.compute_initial_expert_location_metadata = _expert_location
        # A KV-pool warm-up kernel run after allocation (reads .item()); sizes nothing.
        if hasattr(memory_pool.MHATokenToKVPool, "_init_kv_copy_and_warmup"):
            memory_pool.MHATokenToKVPool._init_kv_copy_and_warmup = lambda self: None

    # The resolved server args a fixture records (harness_common.resolved_args), in this order
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
        "mamba_scheduler_strategy",
        "mamba_full_memory_ratio",
        "max_mamba_cache_size",
        "mamba_ssm_dtype",
        "kv_cache_dtype",
        "cuda_graph_max_bs",
        "cuda_graph_bs",
        "context_length",
        "max_total_tokens",
    )

    def resolved(self, sa, mc) -> dict:
        return hc.resolved_args(sa, mc, self.RESOLVED_FIELDS)

    def run_case(self, case: dict) -> dict:
        from sglang.srt.configs.model_config import ModelConfig
        from sglang.srt.server_args import prepare_server_args
        from sglang.srt.utils.common import configure_logger

        for k, v in case.get("env", {}).items():
            os.environ[k] = str(v)
        pre_bytes = int(case["pre_model_load_gib"] * GIB)
        fakedev.set_free_bytes(pre_bytes)
        STATE.clear()
        STATE["pre_bytes"] = pre_bytes
        STATE["given"] = int(round(case["weights_gib"] * GIB)) if "weights_gib" in case else None
        handler = hc.ListHandler()
        rec = {"id": case["id"], "resolved": None, "weights": None, "result": None, "error": None}
        model_dir = hc.make_model_dir(case["model"])
        argv = ["--model-path", model_dir] + to_argv(version_args(self.version, case["server_args"]))
        sa = mc = None
        try:
            # __post_init__ logs its decisions (e.g. "Disabling radix cache ...") at INFO/WARNING
            root = logging.getLogger()
            root.setLevel(logging.INFO)
            root.addHandler(handler)
            sa = prepare_server_args(argv)
            configure_logger(sa)  # what the scheduler process does first (basicConfig force=True)
            root.addHandler(handler)
            sa_before = self.resolved(sa, None)
            mc = ModelConfig.from_server_args(sa, model_path=sa.model_path, model_revision=sa.revision, is_draft_model=False)
            rec["resolved"] = dict(sa_before, context_length=mc.context_len)
            try:
                mr = self.size_target(sa, mc)
            finally:
                if "params" in STATE:
                    rec["weights"] = {
                        "target_param_bytes": STATE["params"],
                        "target_buffer_bytes": STATE["buffers"],
                        "draft_param_bytes": STATE.get("draft_params", 0),
                        "draft_buffer_bytes": STATE.get("draft_buffers", 0),
                        "resident_bytes": STATE["resident"],
                        "source": "given" if STATE["given"] is not None else "meta-build",
                    }
            max_req_len, max_req_input_len = self.worker_checks(mr, mc)
            result = {
                "max_total_num_tokens": mr.max_total_num_tokens,
                "max_running_requests": mr.max_running_requests,
                "max_mamba_cache_size": sa.max_mamba_cache_size if mr.mambaish_config is not None else None,
                "context_len": mc.context_len,
                "max_req_len": max_req_len,
                "max_req_input_len": max_req_input_len,
                "pre_model_load_memory_gib": STATE.get("pre"),
                "kv_cache_dtype": str(mr.kv_cache_dtype),
            }
            if mr.is_hybrid_swa:
                result["full_max_total_num_tokens"] = mr.full_max_total_num_tokens
                result["swa_max_total_num_tokens"] = mr.swa_max_total_num_tokens
            rec["result"] = result
            rec["resolved"] = self.resolved(sa, mc)
            # the values as __post_init__ left them (init_memory_pool writes max_mamba_cache_size back)
            rec["resolved"]["max_mamba_cache_size"] = sa_before["max_mamba_cache_size"]
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

    def new_target_runner(self, sa, mc):
        """The target ModelRunner, constructed as TpModelWorker does (the cut may end it early)."""
        from sglang.srt.model_executor.model_runner import ModelRunner

        # every tensor the runner creates on "cuda" lands on meta
        # (model, pools, and small metadata such as the MoE expert-location maps)
        with fakedev.CudaToMeta():
            return ModelRunner(
                model_config=mc,
                mem_fraction_static=sa.mem_fraction_static,
                gpu_id=0,
                tp_rank=0,
                tp_size=sa.tp_size,
                moe_ep_rank=0,
                moe_ep_size=sa.ep_size,
                pp_rank=0,
                pp_size=sa.pp_size,
                nccl_port=0,
                server_args=sa,
                dp_rank=None,
                attn_cp_rank=0,
                moe_dp_rank=0,
                is_draft_worker=False,
            )

    def size_target(self, sa, mc):
        """Run the target's sizing; return its ModelRunner. 0.5.9 sizes inside the constructor,
        which the harness ends where ``initialize`` would call ``init_cublas``."""
        try:
            self.new_target_runner(sa, mc)
            raise RuntimeError("oracle: ModelRunner returned without reaching init_cublas")
        except SizingDone:
            pass
        return STATE["runner"]

    def worker_checks(self, mr, mc) -> tuple[int, int]:
        """TpModelWorker.__init__'s own checks (WORKER_CHECKS), in its order; (max_req_len, max_req_input_len)."""
        max_req_len = min(mc.context_len - 1, mr.max_token_pool_size - 1)
        max_req_input_len = max_req_len - 5
        if not mr.max_running_requests > 0:
            raise hc.WorkerCheckFailed("max_running_request is zero", self.WORKER_CHECKS["mrr"])
        if not (max_req_len > 0 and max_req_input_len > 0):
            raise hc.WorkerCheckFailed("Memory pool size is too small", self.WORKER_CHECKS["pool"])
        return max_req_len, max_req_input_len


if __name__ == "__main__":
    main(Harness059)
