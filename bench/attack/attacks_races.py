"""Clients that leave: requests dropped mid-body and mid-response, gRPC
calls and streams cancelled in flight, headers dribbled (slow loris), and a
stop while a slow client is mid-request (finding 9).

Modelled on CVE-2025-23322 (memory corruption when requests are cancelled)
and the slow-client class of CWE-400."""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import numpy
from tritonclient.grpc import service_pb2

import wire
from harness import Context, Fail, attack, within

CLASS_CANCEL = "CVE-2025-23322 cancellation races (memory corruption)"
SLOW_INFER = "/v2/models/identity_slow/infer"
BODY = json.dumps(wire.infer_json(range(16))).encode()


def _reset(sock: socket.socket) -> None:
    """Closes with RST instead of FIN."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _drop(port: int, raw: bytes, rst: bool, wait: float = 0.0) -> None:
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(raw)
        if wait:
            time.sleep(wait)
        _reset(sock) if rst else sock.close()
    except OSError:
        pass


def _slow_model_serves(ctx: Context) -> None:
    answer = wire.post_json(ctx.server.http, SLOW_INFER, wire.infer_json(range(16)),
                            timeout=ctx.bound(10))
    if answer.status != 200:
        raise Fail(f"identity_slow after the attack: {answer.brief()}")
    within(answer.seconds, ctx.bound(2), "identity_slow after the attack")


@attack("http_dropped_mid_body", CLASS_CANCEL)
def dropped_mid_body(ctx: Context) -> None:
    head = (f"POST {SLOW_INFER} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(BODY)}\r\n"
            "Content-Type: application/json\r\n\r\n").encode()
    with ThreadPoolExecutor(8) as pool:
        for i in range(200):
            pool.submit(_drop, ctx.server.http, head + BODY[:len(BODY) // 2], i % 2 == 0)
    _slow_model_serves(ctx)


@attack("http_dropped_mid_response", CLASS_CANCEL)
def dropped_mid_response(ctx: Context) -> None:
    raw = wire.compose("POST", SLOW_INFER, BODY, close=False)
    stream = wire.compose("POST", "/v2/models/repeat_slow/generate_stream",
                          b'{"IN": [1, 2, 3, 4, 5, 6, 7, 8], "DELAY": [30, 30, 30, 30, 30, 30, '
                          b'30, 30]}', close=False)
    with ThreadPoolExecutor(8) as pool:
        for i in range(200):
            pool.submit(_drop, ctx.server.http, raw * 3, i % 2 == 0, 0.005 * (i % 5))
        for i in range(50):
            pool.submit(_drop, ctx.server.http, stream, i % 2 == 0, 0.05)
    _slow_model_serves(ctx)


def _stream_call(port: int):
    return wire.channel(port).stream_stream(
        "/inference.GRPCInferenceService/ModelStreamInfer",
        request_serializer=service_pb2.ModelInferRequest.SerializeToString,
        response_deserializer=service_pb2.ModelStreamInferResponse.FromString)


def _repeat_request(n: int, delay_ms: int) -> service_pb2.ModelInferRequest:
    message = service_pb2.ModelInferRequest(model_name="repeat_slow")
    message.inputs.add(name="IN", datatype="INT32", shape=[n])
    message.inputs.add(name="DELAY", datatype="UINT32", shape=[n])
    message.raw_input_contents.append(numpy.arange(n, dtype=numpy.int32).tobytes())
    message.raw_input_contents.append(numpy.full(n, delay_ms, dtype=numpy.uint32).tobytes())
    return message


def _cancelled_stream(port: int, after: int) -> None:
    """Starts a stream, reads `after` responses, then cancels it."""
    done = threading.Event()

    def requests():
        yield _repeat_request(10, 20)
        done.wait(10)  # the client half stays open until the cancel

    call = _stream_call(port)(requests(), timeout=10)
    try:
        for _ in range(after):
            next(call)
    except (grpc.RpcError, StopIteration):
        pass
    call.cancel()
    done.set()


@attack("grpc_cancelled_in_flight", CLASS_CANCEL)
def grpc_cancelled(ctx: Context) -> None:
    slow = wire.grpc_infer_request("identity_slow", numpy.zeros((1, 16), numpy.float32))
    with ThreadPoolExecutor(8) as pool:
        for i in range(100):
            pool.submit(wire.call, ctx.server.grpc, "ModelInfer", slow, (), 0.002 + 0.003 * (i % 4))
        for i in range(40):
            pool.submit(_cancelled_stream, ctx.server.grpc, i % 3)
    _slow_model_serves(ctx)
    answers = list(_stream_call(ctx.server.grpc)(iter([_repeat_request(5, 1)]), timeout=10))
    got = [a for a in answers if not a.error_message and a.infer_response.outputs]
    if len(got) != 5 or any(a.error_message for a in answers):
        raise Fail(f"a whole stream after the cancellations: {len(got)} of 5 responses")


@attack("slow_loris_headers", "CWE-400 slow loris: headers dribbled while others are served")
def slow_loris(ctx: Context) -> None:
    header_timeout = 3.0  # the main server's --http-header-timeout
    closed_after: list[float] = []
    stop = threading.Event()

    def dribble() -> None:
        started = time.monotonic()
        try:
            sock = socket.create_connection(("127.0.0.1", ctx.server.http), timeout=5)
        except OSError:
            return
        text = b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
        try:
            for byte in text:
                if stop.is_set():
                    break
                sock.sendall(bytes([byte]))
                readable, _, _ = select.select([sock], [], [], 0.25)
                if readable:
                    break  # an answer (408) or the close
        except OSError:
            pass
        closed_after.append(time.monotonic() - started)
        sock.close()

    threads = [threading.Thread(target=dribble, daemon=True) for _ in range(100)]
    for t in threads:
        t.start()
    slowest = 0.0
    for _ in range(20):
        answer = wire.post_json(ctx.server.http, "/v2/models/identity_fp32/infer",
                                wire.infer_json(range(16)), timeout=ctx.bound(10))
        if answer.status != 200:
            raise Fail(f"an inference among slow clients: {answer.brief()}")
        slowest = max(slowest, answer.seconds)
        time.sleep(0.1)
    within(slowest, ctx.bound(2), "the slowest inference among 100 slow clients")
    deadline = time.monotonic() + header_timeout + ctx.bound(6)
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    stop.set()
    late = [s for s in closed_after if s > header_timeout + ctx.bound(3)]
    if len(closed_after) < 100 or late:
        raise Fail(f"{100 - len(closed_after) + len(late)} of 100 slow clients still connected "
                   f"{header_timeout + ctx.bound(3):.0f} s after they began")


@attack("stop_with_slow_client", "finding 9: a stop outlasted exit_timeout because of a slow "
        "client", server="none", final=True)
def stop_with_slow_client(ctx: Context) -> None:
    exit_timeout = 3  # the default-mode server's --exit-timeout-secs (drain timeout 20)
    socks = []
    for partial in (b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n",
                    (f"POST /v2/models/identity_fp32/infer HTTP/1.1\r\nHost: x\r\n"
                     f"Content-Length: {len(BODY)}\r\n\r\n").encode() + BODY[:10]):
        sock = socket.create_connection(("127.0.0.1", ctx.server.http), timeout=5)
        sock.sendall(partial)
        socks.append(sock)
    time.sleep(0.3)
    started = time.monotonic()
    code = ctx.server.stop(timeout=exit_timeout + 30)
    took = time.monotonic() - started
    for sock in socks:
        sock.close()
    if took > exit_timeout + ctx.bound(3):
        raise Fail(f"SIGTERM with slow clients mid-request took {took:.1f} s to exit "
                   f"(exit timeout {exit_timeout} s)")
    if code != 0:
        tail = " | ".join(line for line in ctx.server.lines[-4:])
        raise Fail(f"conch serve exited {code} after SIGTERM with slow clients: {tail[:200]}")
