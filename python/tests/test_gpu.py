"""Conch's GPU paths on a real GPU: DLPack tensors in device memory, CUDA
shared memory registered from another process's cudaIpcGetMemHandle over
HTTP and gRPC, and the GPU metric families.

Skipped where no CUDA device can be used (cupy missing or no device): CI
has none. `make device-bundle` carries this file to a GPU machine, where
scripts/device-check.sh runs it (docs/embedding.md, "GPUs").
"""

from __future__ import annotations

import base64
import os
import pathlib
import re
import time
import urllib.request
from typing import Iterator

import numpy as np
import pytest

from test_serve import GRPC, LISTENING, METRICS, Serve

# Whether a CUDA device can be used: cupy imports, sees a device and runs a
# kernel on it (which also proves its runtime compiler works).
PROBLEM = ""
try:
    import cupy
    if cupy.cuda.runtime.getDeviceCount() == 0:
        PROBLEM = "cupy sees no CUDA device"
    elif int(cupy.arange(4).sum()) != 6:
        PROBLEM = "a cupy kernel gave a wrong answer"
except Exception as e:  # no cupy, no driver, no device
    cupy = None
    PROBLEM = f"cupy cannot use a CUDA device: {type(e).__name__}: {e}"
HAVE_GPU = not PROBLEM

try:
    import torch
    HAVE_TORCH = HAVE_GPU and torch.cuda.is_available()
except Exception:
    torch = None
    HAVE_TORCH = False

# scripts/device-check.sh sets CONCH_REQUIRE_GPU=1 on a machine with an
# NVIDIA GPU: there a device that cannot be used fails the run instead of
# skipping every test.
REQUIRED = os.environ.get("CONCH_REQUIRE_GPU") == "1"
pytestmark = pytest.mark.skipif(not HAVE_GPU and not REQUIRED,
                                reason=PROBLEM or "needs a CUDA device and cupy")

import conch  # noqa: E402

EXAMPLES = str(pathlib.Path(__file__).resolve().parent.parent / "examples"
               / "example_model_repository")
SIMPLE_BYTES = 16 * 4  # simple's inputs and outputs: INT32 [1, 16]


# -- tensors -------------------------------------------------------------------


def test_the_device_can_be_used() -> None:
    assert HAVE_GPU, PROBLEM


def test_a_cupy_array_on_the_gpu_becomes_a_tensor_without_a_copy() -> None:
    x = cupy.arange(16, dtype=cupy.float32)
    t = conch.Tensor.from_dlpack(x)
    assert t.memory_type == conch.MemoryType.GPU
    assert t.memory_type_id == x.device.id
    assert t.data_ptr == x.data.ptr
    assert t.size == x.nbytes
    # And back to cupy: the same memory again.
    y = cupy.from_dlpack(t)
    assert y.data.ptr == x.data.ptr
    assert cupy.array_equal(y, x)


@pytest.mark.skipif(not HAVE_TORCH, reason="needs torch with CUDA")
def test_a_torch_tensor_on_the_gpu_becomes_a_tensor_without_a_copy() -> None:
    x = torch.arange(16, dtype=torch.float32, device="cuda:0")
    t = conch.Tensor.from_dlpack(x)
    assert t.memory_type == conch.MemoryType.GPU
    assert t.data_ptr == x.data_ptr()
    assert t.__dlpack_device__() == x.__dlpack_device__()
    assert torch.equal(torch.from_dlpack(t), x)


def test_tensors_move_between_host_pinned_and_gpu_memory() -> None:
    values = np.arange(16, dtype=np.float32)
    host = conch.Tensor.from_dlpack(values)
    gpu = host.to_device("gpu:0")
    assert (gpu.memory_type, gpu.memory_type_id) == (conch.MemoryType.GPU, 0)
    assert gpu.to_device("gpu:0") is gpu
    np.testing.assert_array_equal(cupy.asnumpy(cupy.from_dlpack(gpu)), values)
    back = gpu.to_host()
    assert back.memory_type == conch.MemoryType.CPU
    np.testing.assert_array_equal(np.from_dlpack(back), values)
    pinned = host.to_device("cpu_pinned")
    assert pinned.memory_type == conch.MemoryType.CPU_PINNED
    np.testing.assert_array_equal(np.from_dlpack(pinned), values)
    # To the host from GPU memory Conch does not own.
    x = cupy.arange(16, dtype=cupy.float32)
    copied = conch.Tensor.from_dlpack(x).to_device(conch.MemoryType.CPU)
    np.testing.assert_array_equal(np.from_dlpack(copied), values)


def test_outputs_come_in_the_memory_type_asked_for() -> None:
    server = conch.Server(model_repository=EXAMPLES,
                          model_control_mode=conch.ModelControlMode.EXPLICIT,
                          startup_models=["identity_fp32"]).start(wait_until_ready=True)
    try:
        values = np.arange(16, dtype=np.float32).reshape(1, 16)
        for spec, memory in (("gpu:0", conch.MemoryType.GPU),
                             ("cpu_pinned", conch.MemoryType.CPU_PINNED),
                             ("cpu", conch.MemoryType.CPU)):
            (response,) = list(server.model("identity_fp32").infer(
                inputs={"INPUT0": values}, output_memory_type=spec))
            out = response.outputs["OUTPUT0"]
            assert out.memory_type == memory
            got = (cupy.asnumpy(cupy.from_dlpack(out)) if memory == conch.MemoryType.GPU
                   else np.from_dlpack(out))
            np.testing.assert_array_equal(got, values)
    finally:
        server.stop()


# A process of its own: the pools belong to the process, and the first
# server it starts sizes them.
POOLS_SCRIPT = """
import time, conch
server = conch.Server(model_repository=%r, model_control_mode=conch.ModelControlMode.EXPLICIT,
                      pinned_memory_pool_size=1 << 20, cuda_memory_pool_sizes={0: 2 << 20},
                      metrics_interval=50).start(wait_until_ready=True)
pools = conch._conch.memory_pools()
assert pools["pinned"] == (1 << 20, 0), pools
assert pools["gpu"][0] == (2 << 20, 0), pools
for device in range(1, conch._conch.cuda_device_count()):
    assert pools["gpu"][device] == (64 << 20, 0), pools
pinned = conch._conch.Buffer.allocate(1, 0, 1000)
on_gpu = conch._conch.Buffer.allocate(2, 0, 5000)
big = conch._conch.Buffer.allocate(2, 0, 4 << 20)  # larger than the pool: from CUDA
pools = conch._conch.memory_pools()
assert pools["pinned"] == (1 << 20, 1024), pools
assert pools["gpu"][0] == (2 << 20, 5120), pools
time.sleep(0.3)
assert "nv_pinned_memory_pool_used_bytes 1024" in server.metrics()
assert "nv_pinned_memory_pool_total_bytes 1048576" in server.metrics()
del pinned, on_gpu, big
assert conch._conch.memory_pools()["gpu"][0] == (2 << 20, 0)
second = conch.Server(model_repository=%r, model_control_mode=conch.ModelControlMode.EXPLICIT,
                      pinned_memory_pool_size=0).start(wait_until_ready=True)
assert conch._conch.memory_pools()["pinned"] == (1 << 20, 0)  # shared, as sized first
second.stop()
server.stop()
print("pools ok")
"""


def test_the_memory_pools_serve_pinned_and_gpu_buffers(tmp_path) -> None:
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", POOLS_SCRIPT % (EXAMPLES, EXAMPLES)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "pools ok" in done.stdout, done.stdout + done.stderr


def test_gpu_input_buffers_in_the_triton_c_api() -> None:
    import concurrent.futures
    import ctypes

    from tritonserver import _c as b
    options = b.TRITONSERVER_ServerOptions()
    options.set_model_repository_path(EXAMPLES)
    options.set_model_control_mode(b.TRITONSERVER_ModelControlMode.EXPLICIT)
    options.set_startup_model("identity_fp32")
    options.set_exit_timeout(5)
    server = b.TRITONSERVER_Server(options)
    try:
        values = np.arange(16, dtype=np.float32)
        x = cupy.asarray(values)
        request = b.TRITONSERVER_InferenceRequest(server, "identity_fp32", -1)
        request.add_input("INPUT0", b.TRITONSERVER_DataType.FP32, [1, 16])
        request.append_input_data("INPUT0", x.data.ptr, x.nbytes, b.TRITONSERVER_MemoryType.GPU,
                                  x.device.id)
        # The bytes were read when appended: changing them now changes nothing.
        x.fill(0)
        cupy.cuda.runtime.deviceSynchronize()
        server.infer_async(request)
        future: concurrent.futures.Future = concurrent.futures.Future()
        request.get_next_response(future)
        response, _ = future.result(timeout=30)
        response.throw_if_response_error()
        name, _, shape, address, size, memory, _ = response.output(0)
        assert (name, list(shape), memory) == ("OUTPUT0", [1, 16], b.TRITONSERVER_MemoryType.CPU)
        np.testing.assert_array_equal(
            np.frombuffer(ctypes.string_at(address, size), dtype=np.float32), values)
    finally:
        server.stop()


def test_python_models_see_gpu_inputs_on_the_host_unless_told_otherwise(tmp_path) -> None:
    from test_python_backend import info_of, only, placement_model
    placement_model(tmp_path, "yes_model", "yes")
    placement_model(tmp_path, "no_model", "no")
    server = conch.Server(model_repository=str(tmp_path),
                          model_control_mode=conch.ModelControlMode.EXPLICIT,
                          startup_models=["yes_model", "no_model"]).start(wait_until_ready=True)
    try:
        x = cupy.arange(4, dtype=cupy.float32)
        for name, on_cpu in (("yes_model", True), ("no_model", False)):
            response = only(server.model(name).infer(inputs={"INPUT0": x}))
            assert info_of(response) == {"is_cpu": on_cpu}
            # The model answered with its input through DLPack, where it was;
            # without an output memory type asked for, the answer is on the
            # host, as Triton's default allocator puts it.
            out = response.outputs["OUTPUT0"]
            assert out.memory_type == conch.MemoryType.CPU
            np.testing.assert_array_equal(np.from_dlpack(out), cupy.asnumpy(x))
            response = only(server.model(name).infer(inputs={"INPUT0": x},
                                                     output_memory_type="gpu:0"))
            out = response.outputs["OUTPUT0"]
            assert out.memory_type == conch.MemoryType.GPU
            np.testing.assert_array_equal(cupy.asnumpy(cupy.from_dlpack(out)), cupy.asnumpy(x))
    finally:
        server.stop()


INSTANCE_MODEL = b"""
import json
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.args = {k: args[k] for k in ("model_instance_kind", "model_instance_device_id",
                                          "model_instance_name")}

    def execute(self, requests):
        info = np.array([json.dumps(self.args).encode()], dtype=np.object_)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("INFO", info)]) for _ in requests]
"""


def _instance_model(repository: pathlib.Path, name: str, group: str) -> None:
    """A python model that answers with the instance arguments it got."""
    (repository / name / "1").mkdir(parents=True)
    (repository / name / "1" / "model.py").write_bytes(INSTANCE_MODEL)
    (repository / name / "config.pbtxt").write_text(
        f'name: "{name}"\nbackend: "python"\nmax_batch_size: 0\n'
        'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
        'output [ { name: "INFO" data_type: TYPE_STRING dims: [ 1 ] } ]\n'
        f"instance_group [ {group} ]\n")


def test_kind_gpu_instance_groups_get_their_devices(tmp_path) -> None:
    from test_python_backend import info_of, only
    devices = cupy.cuda.runtime.getDeviceCount()
    _instance_model(tmp_path, "every_gpu", "{ kind: KIND_GPU count: 2 }")
    _instance_model(tmp_path, "gpu_zero", "{ kind: KIND_GPU count: 1 gpus: [ 0 ] }")
    _instance_model(tmp_path, "auto", "{ kind: KIND_AUTO }")
    _instance_model(tmp_path, "bad_gpu", f"{{ kind: KIND_GPU gpus: [ {devices} ] }}")
    server = conch.Server(model_repository=str(tmp_path),
                          model_control_mode=conch.ModelControlMode.EXPLICIT,
                          startup_models=["every_gpu", "gpu_zero", "auto"]).start(
                              wait_until_ready=True)
    try:
        config = server.model("every_gpu").config()
        (group,) = config["instance_group"]
        assert group["kind"] == "KIND_GPU"
        assert group["gpus"] == list(range(devices))
        assert server.model("auto").config()["instance_group"][0]["kind"] == "KIND_GPU"
        seen = set()
        for _ in range(32):
            info = info_of(only(server.model("every_gpu").infer(
                inputs={"INPUT0": np.zeros(1, dtype=np.float32)})))
            assert info["model_instance_kind"] == "GPU"
            seen.add(int(info["model_instance_device_id"]))
        assert seen <= set(range(devices)) and seen
        info = info_of(only(server.model("gpu_zero").infer(
            inputs={"INPUT0": np.zeros(1, dtype=np.float32)})))
        assert (info["model_instance_kind"], info["model_instance_device_id"]) == ("GPU", "0")
        with pytest.raises(conch.TritonError, match=f"specifies GPU {devices}"):
            server.load("bad_gpu")
    finally:
        server.stop()


# -- CUDA shared memory --------------------------------------------------------


@pytest.fixture
def server() -> Iterator[tuple[int, int, Serve]]:
    """`conch serve` over the example repository, taking client shared memory."""
    process = Serve("--model-repository", EXAMPLES, "--model-control-mode", "explicit",
                    "--load-model", "simple", "--http-port", "0", "--allow-client-shm", "true",
                    "--metrics-port", "0")
    try:
        http = int(process.wait_for(LISTENING).group(1))
        grpc = int(process.wait_for(GRPC).group(1))
        yield http, grpc, process
    finally:
        process.kill()


def _clients(kind: str, port: int):
    if kind == "http":
        import tritonclient.http as client
    else:
        import tritonclient.grpc as client
    return client, client.InferenceServerClient(f"localhost:{port}")


@pytest.mark.parametrize("kind", ["http", "grpc"])
def test_inputs_and_outputs_in_cuda_shared_memory(server, kind: str) -> None:
    import tritonclient.utils.cuda_shared_memory as cudashm
    http, grpc, _ = server
    client, triton = _clients(kind, http if kind == "http" else grpc)
    in0 = np.arange(16, dtype=np.int32)
    in1 = np.full(16, 3, dtype=np.int32)
    regions = {name: cudashm.create_shared_memory_region(name, SIMPLE_BYTES, 0)
               for name in ("in0", "in1", "out0", "out1")}
    try:
        cudashm.set_shared_memory_region(regions["in0"], [in0])
        cudashm.set_shared_memory_region(regions["in1"], [in1])
        for name, handle in regions.items():
            triton.register_cuda_shared_memory(name, cudashm.get_raw_handle(handle), 0,
                                               SIMPLE_BYTES)
        inputs = [client.InferInput("INPUT0", [1, 16], "INT32"),
                  client.InferInput("INPUT1", [1, 16], "INT32")]
        inputs[0].set_shared_memory("in0", SIMPLE_BYTES)
        inputs[1].set_shared_memory("in1", SIMPLE_BYTES)
        outputs = [client.InferRequestedOutput("OUTPUT0"), client.InferRequestedOutput("OUTPUT1")]
        outputs[0].set_shared_memory("out0", SIMPLE_BYTES)
        outputs[1].set_shared_memory("out1", SIMPLE_BYTES)
        triton.infer("simple", inputs, outputs=outputs)
        total = cudashm.get_contents_as_numpy(regions["out0"], np.int32, [1, 16])
        difference = cudashm.get_contents_as_numpy(regions["out1"], np.int32, [1, 16])
        np.testing.assert_array_equal(total[0], in0 + in1)
        np.testing.assert_array_equal(difference[0], in0 - in1)
        status = triton.get_cuda_shared_memory_status()
        assert len(status if kind == "http" else status.regions) == 4
    finally:
        triton.unregister_cuda_shared_memory()
        for handle in regions.values():
            cudashm.destroy_shared_memory_region(handle)


@pytest.mark.parametrize("kind", ["http", "grpc"])
def test_a_region_larger_than_its_allocation_is_refused(server, kind: str) -> None:
    import tritonclient.utils.cuda_shared_memory as cudashm
    from tritonclient.utils import InferenceServerException
    http, grpc, _ = server
    _, triton = _clients(kind, http if kind == "http" else grpc)
    handle = cudashm.create_shared_memory_region("small", SIMPLE_BYTES, 0)
    try:
        with pytest.raises(InferenceServerException):
            triton.register_cuda_shared_memory("small", cudashm.get_raw_handle(handle), 0,
                                               1 << 30)
        # Its real size is taken.
        triton.register_cuda_shared_memory("small", cudashm.get_raw_handle(handle), 0,
                                           SIMPLE_BYTES)
        triton.unregister_cuda_shared_memory("small")
    finally:
        cudashm.destroy_shared_memory_region(handle)


@pytest.mark.parametrize("kind", ["http", "grpc"])
def test_bad_handles_are_refused_and_the_server_serves_on(server, kind: str) -> None:
    from tritonclient.utils import InferenceServerException
    http, grpc, _ = server
    _, triton = _clients(kind, http if kind == "http" else grpc)
    for raw in (b"", base64.b64encode(b"\0" * 64), base64.b64encode(bytes(range(64))),
                base64.b64encode(b"short")):
        with pytest.raises(InferenceServerException):
            triton.register_cuda_shared_memory("bad", raw, 0, SIMPLE_BYTES)
    assert triton.is_server_live() and triton.is_server_ready()


SLOW_ADD_MODEL = b"""
import os
import time
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.started = os.path.join(args["model_repository"], "started")

    def execute(self, requests):
        open(self.started, "w").close()  # the test unregisters now
        time.sleep(1.0)
        out = []
        for request in requests:
            a = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            b = pb_utils.get_input_tensor_by_name(request, "INPUT1").as_numpy()
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", a + b)]))
        return out
"""


@pytest.mark.parametrize("kind", ["http", "grpc"])
def test_a_region_unregistered_while_a_request_uses_it_lasts_until_it_is_done(
        tmp_path, kind: str) -> None:
    import concurrent.futures
    import tritonclient.utils.cuda_shared_memory as cudashm
    (tmp_path / "slow_add" / "1").mkdir(parents=True)
    (tmp_path / "slow_add" / "1" / "model.py").write_bytes(SLOW_ADD_MODEL)
    (tmp_path / "slow_add" / "config.pbtxt").write_text(
        'name: "slow_add"\nbackend: "python"\nmax_batch_size: 0\n'
        'input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 1, 16 ] },\n'
        '        { name: "INPUT1" data_type: TYPE_INT32 dims: [ 1, 16 ] } ]\n'
        'output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 1, 16 ] } ]\n')
    process = Serve("--model-repository", str(tmp_path), "--http-port", "0",
                    "--allow-client-shm", "true", "--metrics-port", "0")
    try:
        http = int(process.wait_for(LISTENING).group(1))
        grpc = int(process.wait_for(GRPC).group(1))
        port = http if kind == "http" else grpc
        client, triton = _clients(kind, port)
        in0 = np.arange(16, dtype=np.int32)
        regions = {name: cudashm.create_shared_memory_region(name, SIMPLE_BYTES, 0)
                   for name in ("in0", "out0")}
        try:
            cudashm.set_shared_memory_region(regions["in0"], [in0])
            for name, handle in regions.items():
                triton.register_cuda_shared_memory(name, cudashm.get_raw_handle(handle), 0,
                                                   SIMPLE_BYTES)

            def infer():
                _, own = _clients(kind, port)  # a client per thread
                inputs = [client.InferInput("INPUT0", [1, 16], "INT32"),
                          client.InferInput("INPUT1", [1, 16], "INT32")]
                inputs[0].set_shared_memory("in0", SIMPLE_BYTES)
                inputs[1].set_data_from_numpy(np.full((1, 16), 5, dtype=np.int32))
                output = client.InferRequestedOutput("OUTPUT0")
                output.set_shared_memory("out0", SIMPLE_BYTES)
                return own.infer("slow_add", inputs, outputs=[output])

            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                pending = pool.submit(infer)
                started = tmp_path / "slow_add" / "started"
                deadline = time.monotonic() + 30
                while not started.exists() and time.monotonic() < deadline:
                    time.sleep(0.01)
                assert started.exists(), "the request never reached the model"
                triton.unregister_cuda_shared_memory()
                # Listed (and its name taken) until the request is done.
                status = triton.get_cuda_shared_memory_status()
                assert len(status if kind == "http" else status.regions) == 2
                pending.result(timeout=60)
            got = cudashm.get_contents_as_numpy(regions["out0"], np.int32, [1, 16])
            np.testing.assert_array_equal(got[0], in0 + 5)
            status = triton.get_cuda_shared_memory_status()
            assert len(status if kind == "http" else status.regions) == 0
            assert triton.is_server_live()
        finally:
            for handle in regions.values():
                cudashm.destroy_shared_memory_region(handle)
    finally:
        process.kill()


# -- metrics -------------------------------------------------------------------


def test_the_gpu_metric_families_carry_the_devices_values(server) -> None:
    _, _, process = server
    port = int(process.wait_for(METRICS).group(1))
    text = urllib.request.urlopen(f"http://localhost:{port}/metrics", timeout=30).read().decode()

    def values(family: str) -> list[float]:
        found = re.findall(rf'^{family}{{gpu_uuid="GPU-[^"]+"}} (\S+)$', text, re.M)
        assert found, f"no {family} sample with a gpu_uuid label"
        return [float(v) for v in found]

    free, total = cupy.cuda.runtime.memGetInfo()
    (reported_total, *_) = values("nv_gpu_memory_total_bytes")
    assert abs(reported_total - total) <= 0.02 * total
    assert all(0 < used <= reported_total for used in values("nv_gpu_memory_used_bytes"))
    assert all(0.0 <= u <= 1.0 for u in values("nv_gpu_utilization"))
    assert all(p > 0 for p in values("nv_gpu_power_usage"))
    assert all(p > 0 for p in values("nv_gpu_power_limit"))
