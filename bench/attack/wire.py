"""What the attacks send and read: raw HTTP/1.1 over sockets (so a request
can be as malformed as an attack needs), gRPC calls by method name, and the
bodies of ordinary requests."""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Iterable, Optional

import grpc
import numpy
from tritonclient.grpc import service_pb2

# -- HTTP ---------------------------------------------------------------------

#: The status of an answer that never came: the server closed the connection
#: (or reset it) first.
CLOSED = 0


@dataclass
class Answer:
    """One HTTP answer, or CLOSED with `error` saying why none came."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    seconds: float = 0.0
    error: str = ""

    def json(self):
        return json.loads(self.body)

    def brief(self) -> str:
        if self.status == CLOSED:
            return f"no answer ({self.error or 'connection closed'})"
        text = self.body[:160].decode("utf-8", "replace")
        return f"{self.status} {text!r}"


class _Reader:
    """Buffered reads from a socket, up to a deadline."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline
        self.buffer = b""
        self.eof = False

    def _fill(self) -> bool:
        if self.eof:
            return False
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no complete answer in time")
        self.sock.settimeout(left)
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            self.eof = True
            return False
        self.buffer += chunk
        return True

    def until(self, delimiter: bytes) -> Optional[bytes]:
        while delimiter not in self.buffer:
            if not self._fill():
                return None
        head, _, self.buffer = self.buffer.partition(delimiter)
        return head

    def exactly(self, n: int) -> Optional[bytes]:
        while len(self.buffer) < n:
            if not self._fill():
                return None
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def rest(self) -> bytes:
        while self._fill():
            pass
        data, self.buffer = self.buffer, b""
        return data


def _read_answer(reader: _Reader, head_request: bool = False) -> Optional[Answer]:
    """The next answer on the connection; None at a clean end of stream."""
    head = reader.until(b"\r\n\r\n")
    if head is None:
        return None
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
        raise ValueError(f"not an HTTP answer: {lines[0][:80]!r}")
    status = int(parts[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    if head_request or status in (204, 304) or 100 <= status < 200:
        return Answer(status, headers)
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = b""
        while True:
            size_line = reader.until(b"\r\n")
            if size_line is None:
                break
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                reader.until(b"\r\n")
                break
            body += reader.exactly(size) or b""
            reader.until(b"\r\n")
        return Answer(status, headers, body)
    if "content-length" in headers:
        return Answer(status, headers, reader.exactly(int(headers["content-length"])) or b"")
    return Answer(status, headers, reader.rest())


def exchange_all(port: int, raw: bytes, timeout: float = 10.0,
                 most: int = 1 << 30, head: bool = False) -> tuple[list[Answer], str]:
    """Sends `raw` on a fresh connection (from a thread of its own, so a
    server that answers before it has read everything cannot stall the
    send), then reads answers until the server closes the connection,
    `timeout` passes or `most` answers came. Returns the answers and why the
    reading ended. `head`: the answers are to HEAD requests (no bodies)."""
    started = time.monotonic()
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    send_error: list[str] = []

    def send() -> None:
        try:
            sock.sendall(raw)
        except OSError as e:
            send_error.append(f"{type(e).__name__} while sending")

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    reader = _Reader(sock, started + timeout)
    answers: list[Answer] = []
    why = "closed"
    try:
        while len(answers) < most:
            answer = _read_answer(reader, head)
            if answer is None:
                break
            answer.seconds = time.monotonic() - started
            answers.append(answer)
    except TimeoutError:
        why = "timeout"
    except (ConnectionResetError, BrokenPipeError) as e:
        why = type(e).__name__
    except ValueError as e:
        why = str(e)
    finally:
        try:
            sock.shutdown(socket.SHUT_RDWR)  # wakes a sender still blocked in send
        except OSError:
            pass
        sock.close()
        sender.join(5)
    if send_error and not answers:
        why = f"{why} ({send_error[0]})"
    return answers, why


def exchange(port: int, raw: bytes, timeout: float = 10.0, head: bool = False) -> Answer:
    """The first answer to `raw`, or CLOSED. The request should carry
    `Connection: close` so that the server ends the exchange."""
    started = time.monotonic()
    try:
        answers, why = exchange_all(port, raw, timeout, most=1, head=head)
    except OSError as e:
        return Answer(CLOSED, error=f"{type(e).__name__}: {e}",
                      seconds=time.monotonic() - started)
    if answers:
        return answers[0]
    return Answer(CLOSED, error=why, seconds=time.monotonic() - started)


def compose(method: str, path: str, body: bytes = b"", headers: Optional[dict] = None,
            close: bool = True) -> bytes:
    """An HTTP/1.1 request with Content-Length (unless `headers` sets a
    Transfer-Encoding or Content-Length of its own)."""
    lines = [f"{method} {path} HTTP/1.1", "Host: conch-attack"]
    given = {k.lower() for k in (headers or {})}
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if "content-length" not in given and "transfer-encoding" not in given and (
            body or method in ("POST", "PUT")):
        lines.append(f"Content-Length: {len(body)}")
    if close and "connection" not in given:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def request(port: int, method: str, path: str, body: bytes = b"",
            headers: Optional[dict] = None, timeout: float = 10.0) -> Answer:
    return exchange(port, compose(method, path, body, headers), timeout, head=method == "HEAD")


def post_json(port: int, path: str, document, headers: Optional[dict] = None,
              timeout: float = 10.0) -> Answer:
    return request(port, "POST", path, json.dumps(document).encode(),
                   {"Content-Type": "application/json", **(headers or {})}, timeout)


# -- request bodies -------------------------------------------------------------

def infer_json(values: Iterable[float], name: str = "INPUT0", **extra) -> dict:
    data = [float(v) for v in values]
    return {"inputs": [{"name": name, "shape": [1, len(data)], "datatype": "FP32",
                        "data": data}], **extra}


def binary_infer(header: dict, payload: bytes) -> tuple[bytes, dict]:
    """A body of the binary tensor extension, and the header announcing it."""
    head = json.dumps(header).encode()
    return head + payload, {"Inference-Header-Content-Length": str(len(head)),
                            "Content-Type": "application/octet-stream"}


# -- gRPC ---------------------------------------------------------------------

_SERVICE = "/inference.GRPCInferenceService/"
_CHANNELS: dict[int, grpc.Channel] = {}
_OPTIONS = [("grpc.max_send_message_length", 256 << 20),
            ("grpc.max_receive_message_length", 256 << 20)]


def channel(port: int) -> grpc.Channel:
    if port not in _CHANNELS:
        _CHANNELS[port] = grpc.insecure_channel(f"127.0.0.1:{port}", options=_OPTIONS)
    return _CHANNELS[port]


def forget_channel(port: int) -> None:
    old = _CHANNELS.pop(port, None)
    if old is not None:
        old.close()


@dataclass
class Reply:
    """A gRPC call's outcome."""

    code: grpc.StatusCode
    details: str = ""
    message: object = None
    seconds: float = 0.0

    def brief(self) -> str:
        return f"{self.code.name} {self.details[:160]!r}"


def call(port: int, method: str, message, metadata: Iterable = (), timeout: float = 10.0,
         fresh: bool = False) -> Reply:
    """Calls `method` of the inference service (or a full "/pkg.Svc/Method"
    path with bytes in and out)."""
    if method.startswith("/"):
        path, serialize, parse = method, (lambda b: b), (lambda b: b)
    else:
        path = _SERVICE + method
        serialize = type(message).SerializeToString
        parse = getattr(service_pb2, f"{method}Response").FromString
    target = grpc.insecure_channel(f"127.0.0.1:{port}", options=_OPTIONS) if fresh \
        else channel(port)
    stub = target.unary_unary(path, request_serializer=serialize, response_deserializer=parse)
    started = time.monotonic()
    try:
        answer = stub(message, metadata=tuple(metadata), timeout=timeout)
        return Reply(grpc.StatusCode.OK, "", answer, time.monotonic() - started)
    except grpc.RpcError as e:
        return Reply(e.code(), e.details() or "", None, time.monotonic() - started)
    finally:
        if fresh:
            target.close()


def grpc_infer_request(model: str, values: numpy.ndarray, name: str = "INPUT0",
                       **fields) -> service_pb2.ModelInferRequest:
    tensor = service_pb2.ModelInferRequest.InferInputTensor(
        name=name, datatype="FP32", shape=list(values.shape))
    return service_pb2.ModelInferRequest(model_name=model, inputs=[tensor],
                                         raw_input_contents=[values.tobytes()], **fields)
