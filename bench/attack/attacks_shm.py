"""Shared-memory abuse: objects that shrink or vanish under a registered
region (finding 3), offsets and sizes that overflow, keys that climb out of
/dev/shm, regions unregistered while in use, client shared memory on a
server that did not allow it (finding 8), and CUDA handles that lie about
their size (finding 9).

Modelled on CVE-2024-0088 (shared-memory offset), CVE-2024-0116
(out-of-bounds read) and CVE-2025-23318/23319 (shared-memory out-of-bounds
access)."""

from __future__ import annotations

import base64
import os
import threading
import time

import grpc
import numpy
from tritonclient.grpc import service_pb2

import wire
from harness import UNSUPPORTED, Context, Fail, attack, client_error, grpc_refused, within

INFER = "/v2/models/identity_fp32/infer"


class ShmObject:
    """A POSIX shared-memory object the attack owns (/dev/shm/<key>)."""

    def __init__(self, ctx: Context, size: int = 4096) -> None:
        self.key = f"/conch-attack-{ctx.token()}"
        self.path = f"/dev/shm{self.key}"
        self.fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        os.ftruncate(self.fd, size)

    def write(self, data: bytes, offset: int = 0) -> None:
        os.pwrite(self.fd, data, offset)

    def read(self, n: int, offset: int = 0) -> bytes:
        return os.pread(self.fd, n, offset)

    def close(self) -> None:
        os.close(self.fd)
        if os.path.exists(self.path):
            os.unlink(self.path)

    def __enter__(self) -> "ShmObject":
        return self

    def __exit__(self, *_) -> None:
        self.close()


def register(ctx: Context, name: str, key: str, offset=0, byte_size=4096,
             port: int | None = None) -> wire.Answer:
    return wire.post_json(port or ctx.server.http,
                          f"/v2/systemsharedmemory/region/{name}/register",
                          {"key": key, "offset": offset, "byte_size": byte_size},
                          ctx.server.headers, timeout=ctx.bound(10))


def unregister(ctx: Context, name: str) -> None:
    wire.request(ctx.server.http, "POST", f"/v2/systemsharedmemory/region/{name}/unregister",
                 headers=ctx.server.headers)


def registered(ctx: Context, name: str, key: str, offset=0, byte_size=4096) -> None:
    answer = register(ctx, name, key, offset, byte_size)
    if answer.status != 200:
        raise Fail(f"registering a valid region: {answer.brief()}")


def shm_params(region: str, byte_size, offset=0) -> dict:
    return {"shared_memory_region": region, "shared_memory_byte_size": byte_size,
            "shared_memory_offset": offset}


def infer_shm(ctx: Context, region: str, *, input_at=None, output_at=None) -> wire.Answer:
    """identity_fp32 with its input read from (offset, size) = `input_at`
    and its output written to `output_at` of `region` (None: JSON data)."""
    tensor = {"name": "INPUT0", "shape": [1, 16], "datatype": "FP32"}
    if input_at is None:
        tensor["data"] = [float(i) for i in range(16)]
    else:
        tensor["parameters"] = shm_params(region, input_at[1], input_at[0])
    body: dict = {"inputs": [tensor]}
    if output_at is not None:
        body["outputs"] = [{"name": "OUTPUT0",
                            "parameters": shm_params(region, output_at[1], output_at[0])}]
    return wire.post_json(ctx.server.http, INFER, body, timeout=ctx.bound(10))


def _set_integer(parameter, value: int) -> None:
    # An int64 where it fits, else the uint64 a client may send as well.
    if value > (1 << 63) - 1:
        parameter.uint64_param = value
    else:
        parameter.int64_param = value


def _shm_parameters(parameters, region: str, at: tuple) -> None:
    parameters["shared_memory_region"].string_param = region
    _set_integer(parameters["shared_memory_offset"], at[0])
    _set_integer(parameters["shared_memory_byte_size"], at[1])


def grpc_infer_shm(ctx: Context, region: str, *, input_at=None, output_at=None) -> wire.Reply:
    message = service_pb2.ModelInferRequest(model_name="identity_fp32")
    tensor = message.inputs.add(name="INPUT0", datatype="FP32", shape=[1, 16])
    if input_at is None:
        message.raw_input_contents.append(numpy.arange(16, dtype=numpy.float32).tobytes())
    else:
        _shm_parameters(tensor.parameters, region, input_at)
    if output_at is not None:
        out = message.outputs.add(name="OUTPUT0")
        _shm_parameters(out.parameters, region, output_at)
    return wire.call(ctx.server.grpc, "ModelInfer", message, timeout=ctx.bound(10))


CLASS_SHRINK = "CVE-2025-23318/23319 shm out-of-bounds access (SIGBUS); finding 3"


@attack("shm_object_truncated_under_region", CLASS_SHRINK)
def shm_truncated(ctx: Context) -> None:
    with ShmObject(ctx) as obj:
        name = f"shrink-{ctx.token()}"
        obj.write(numpy.arange(16, dtype=numpy.float32).tobytes())
        registered(ctx, name, obj.key)
        try:
            first = infer_shm(ctx, name, input_at=(0, 64), output_at=(64, 64))
            if first.status != 200:
                raise Fail(f"an inference through a sound region: {first.brief()}")
            if obj.read(64, 64) != numpy.arange(16, dtype=numpy.float32).tobytes():
                raise Fail("the output written into the region is not the input")
            os.ftruncate(obj.fd, 0)
            for label, at in (("input read from", {"input_at": (0, 64)}),
                              ("output written to", {"output_at": (64, 64)}),
                              ("input and output in", {"input_at": (0, 64),
                                                       "output_at": (64, 64)})):
                client_error(infer_shm(ctx, name, **at),
                             f"HTTP inference with its {label} a truncated object")
                grpc_refused(grpc_infer_shm(ctx, name, **at),
                             f"gRPC inference with its {label} a truncated object",
                             (grpc.StatusCode.INVALID_ARGUMENT,))
        finally:
            unregister(ctx, name)
        # The object grown again and registered anew serves again.
        os.ftruncate(obj.fd, 4096)
        obj.write(numpy.arange(16, dtype=numpy.float32).tobytes())
        again = f"regrown-{ctx.token()}"
        registered(ctx, again, obj.key)
        try:
            answer = infer_shm(ctx, again, input_at=(0, 64), output_at=(64, 64))
            if answer.status != 200:
                raise Fail(f"a region registered again after the truncation: {answer.brief()}")
        finally:
            unregister(ctx, again)


@attack("shm_object_unlinked_under_region", CLASS_SHRINK)
def shm_unlinked(ctx: Context) -> None:
    obj = ShmObject(ctx)
    name = f"vanish-{ctx.token()}"
    try:
        obj.write(numpy.arange(16, dtype=numpy.float32).tobytes())
        registered(ctx, name, obj.key)
        os.unlink(obj.path)
        # The mapping outlives the name: the server may serve or refuse.
        for answer in (infer_shm(ctx, name, input_at=(0, 64), output_at=(64, 64)),):
            if answer.status != 200:
                client_error(answer, "an inference through a region whose object was unlinked")
    finally:
        unregister(ctx, name)
        obj.close()


CLASS_KEYS = "CVE-2024-0088 class, shm key traversal (held up: keep it so)"


@attack("shm_key_traversal", CLASS_KEYS)
def shm_keys(ctx: Context) -> None:
    keys = ["../../etc/passwd", "/../../etc/passwd", "/", "", "//", "/dev/shm/../../etc/passwd",
            f"/conch-attack-absent-{ctx.token()}", "/proc/self/mem", "/etc/passwd",
            "/" + "k" * 300, "/a\u0000b", "/.", "/.."]
    for key in keys:
        name = f"key-{ctx.token()}"
        answer = register(ctx, name, key, 0, 64)
        if answer.status == 200:
            unregister(ctx, name)
        # A key no object has is Triton's INTERNAL "Unable to open ...".
        client_error(answer, f"registering key {key[:40]!r}", also=(500,))
        message = service_pb2.SystemSharedMemoryRegisterRequest(name=name, key=key, offset=0,
                                                                byte_size=64)
        reply = wire.call(ctx.server.grpc, "SystemSharedMemoryRegister", message,
                          timeout=ctx.bound(10))
        if reply.code == grpc.StatusCode.OK:
            unregister(ctx, name)
        grpc_refused(reply, f"gRPC registering key {key[:40]!r}")


CLASS_OFFSETS = "CVE-2024-0088/CVE-2024-0116 shm offset and size overflow (held up: keep it so)"
U64 = (1 << 64) - 1
I64 = (1 << 63) - 1


@attack("shm_offset_size_overflow", CLASS_OFFSETS)
def shm_offsets(ctx: Context) -> None:
    with ShmObject(ctx) as obj:
        for offset, size in ((U64, 64), (0, U64), (4096, 1), (-1, 64), (0, -1), (1 << 63, 64),
                             (4000, 200), (U64 - 63, 64), ("x", 64), (0, 1.5e300)):
            name = f"bad-{ctx.token()}"
            answer = register(ctx, name, obj.key, offset, size)
            if answer.status == 200:
                unregister(ctx, name)
            client_error(answer, f"registering offset {offset}, byte_size {size}")
        for offset, size in ((U64, 64), (0, U64), (4000, 200), (1 << 63, 64), (U64 - 63, 64)):
            message = service_pb2.SystemSharedMemoryRegisterRequest(
                name=f"bad-{ctx.token()}", key=obj.key, offset=offset, byte_size=size)
            reply = wire.call(ctx.server.grpc, "SystemSharedMemoryRegister", message)
            if reply.code == grpc.StatusCode.OK:
                unregister(ctx, message.name)
            grpc_refused(reply, f"gRPC registering offset {offset}, byte_size {size}")
        name = f"ok-{ctx.token()}"
        registered(ctx, name, obj.key)
        try:
            for at in ((I64, 64), (U64, 64), (-1, 64), (0, U64), (0, I64), (4032, 128),
                       (64, U64 - 63), (-64, 128), (0, 0)):
                client_error(infer_shm(ctx, name, input_at=at), f"HTTP input at {at}")
                client_error(infer_shm(ctx, name, output_at=at), f"HTTP output at {at}")
                if all(-(1 << 63) <= v <= U64 for v in at):
                    grpc_refused(grpc_infer_shm(ctx, name, input_at=at), f"gRPC input at {at}")
                    grpc_refused(grpc_infer_shm(ctx, name, output_at=at), f"gRPC output at {at}")
        finally:
            unregister(ctx, name)


@attack("shm_unregister_during_use", "shm unregister while in use (held up: keep it so)")
def shm_unregister_race(ctx: Context) -> None:
    with ShmObject(ctx) as obj:
        obj.write(numpy.arange(16, dtype=numpy.float32).tobytes())
        name = f"race-{ctx.token()}"
        registered(ctx, name, obj.key)
        stop = threading.Event()
        bad: list[str] = []

        def use() -> None:
            while not stop.is_set():
                answer = infer_shm(ctx, name, input_at=(0, 64), output_at=(64, 64))
                if answer.status != 200 and not 400 <= answer.status < 500:
                    bad.append(answer.brief())

        threads = [threading.Thread(target=use, daemon=True) for _ in range(6)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            unregister(ctx, name)
            register(ctx, name, obj.key)
        stop.set()
        for t in threads:
            t.join(15)
        unregister(ctx, name)
        if bad:
            raise Fail(f"{len(bad)} inferences answered neither 200 nor 4xx, e.g. {bad[0]}")


@attack("client_shm_off_by_default", "finding 8: any client could map any /dev/shm object",
        server="none")
def client_shm_default(ctx: Context) -> None:
    ctx.need_flag("--allow-client-shm")
    with ShmObject(ctx) as obj:
        name = f"nope-{ctx.token()}"
        answer = register(ctx, name, obj.key)
        if answer.status == 200:
            unregister(ctx, name)
        client_error(answer, "registering a system region without --allow-client-shm",
                     also=(UNSUPPORTED,))
        message = service_pb2.SystemSharedMemoryRegisterRequest(name=name, key=obj.key,
                                                                offset=0, byte_size=64)
        reply = wire.call(ctx.server.grpc, "SystemSharedMemoryRegister", message)
        if reply.code == grpc.StatusCode.OK:
            unregister(ctx, name)
        grpc_refused(reply, "gRPC registering a system region without --allow-client-shm")
        cuda = wire.post_json(ctx.server.http, f"/v2/cudasharedmemory/region/{name}/register",
                              {"raw_handle": {"b64": base64.b64encode(bytes(64)).decode()},
                               "device_id": 0, "byte_size": 64})
        client_error(cuda, "registering a CUDA region without --allow-client-shm",
                     also=(UNSUPPORTED,))


@attack("cuda_shm_handle_lies", "CVE-2025-23319 class: a CUDA handle whose byte_size is not its "
        "allocation's; finding 9")
def cuda_handle(ctx: Context) -> None:
    handle = base64.b64encode(bytes(64)).decode()
    for label, body in (("byte_size 2^62", {"raw_handle": {"b64": handle}, "device_id": 0,
                                            "byte_size": 1 << 62}),
                        ("device_id -1", {"raw_handle": {"b64": handle}, "device_id": -1,
                                          "byte_size": 64}),
                        ("device_id 2^31", {"raw_handle": {"b64": handle}, "device_id": 1 << 31,
                                            "byte_size": 64}),
                        ("a 1 MiB handle", {"raw_handle": {"b64": "A" * (1 << 20)},
                                            "device_id": 0, "byte_size": 64}),
                        ("byte_size 2^64-1", {"raw_handle": {"b64": handle}, "device_id": 0,
                                              "byte_size": U64})):
        name = f"cuda-{ctx.token()}"
        answer = wire.post_json(ctx.server.http, f"/v2/cudasharedmemory/region/{name}/register",
                                body, timeout=ctx.bound(10))
        if answer.status == 200:
            wire.request(ctx.server.http, "POST",
                         f"/v2/cudasharedmemory/region/{name}/unregister")
        client_error(answer, f"registering a CUDA region with {label}")
        within(answer.seconds, ctx.bound(2), f"registering a CUDA region with {label}")
    message = service_pb2.CudaSharedMemoryRegisterRequest(name="cuda-lie", raw_handle=bytes(64),
                                                          device_id=0, byte_size=1 << 62)
    grpc_refused(wire.call(ctx.server.grpc, "CudaSharedMemoryRegister", message),
                 "gRPC registering a CUDA region with byte_size 2^62")
