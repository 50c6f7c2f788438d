"""The attack suite's machinery: the `conch serve` processes under attack,
the registry of attacks, and the check that follows every attack (the
process runs, health answers, real inferences over HTTP and gRPC return the
right data, the memory did not jump)."""

from __future__ import annotations

import os
import pathlib
import re
import signal
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Callable, Optional

import grpc
import numpy

import wire

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONCH = ROOT / ".venv/bin/conch"

#: The growth of the server's resident memory one attack may cause.
MAX_RSS_GROWTH_KIB = 200 * 1024


class Fail(Exception):
    """The attack found a defect; the message says which."""


class Skip(Exception):
    """The attack cannot run here; the message says why."""


# -- the servers ----------------------------------------------------------------

_LISTENING = re.compile(
    r"(KServe HTTP|KServe gRPC|SageMaker|Vertex AI|OpenAI API) listening on (\S+):(\d+)")


class Server:
    """One `conch serve` process, its ports and its log (stdout and stderr
    together, split into lines as text mode splits them: at LF, CR or
    CRLF)."""

    def __init__(self, name: str, args: list[str], env: Optional[dict] = None,
                 headers: Optional[dict] = None,
                 metadata: Optional[list[tuple[str, str]]] = None) -> None:
        self.name = name
        self.args = args
        self.env = {**os.environ, **(env or {})}
        #: Headers every check request carries (a restricted server's key).
        self.headers = dict(headers or {})
        #: gRPC metadata every check call carries.
        self.grpc_metadata = list(metadata or [])
        self.proc: Optional[subprocess.Popen] = None
        self.ports: dict[str, int] = {}
        self.addresses: dict[str, str] = {}
        self.lines: list[str] = []
        self.starts = 0
        self._serving = threading.Event()

    # -- life ---------------------------------------------------------------------

    def start(self, timeout: float = 90) -> None:
        self.ports, self.addresses = {}, {}
        self._serving.clear()
        self.starts += 1
        self.proc = subprocess.Popen([str(CONCH), "serve", *self.args], env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, errors="replace")
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        deadline = time.monotonic() + timeout
        while not self._serving.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = "\n  ".join(self.lines[-15:])
                self.kill()
                raise RuntimeError(f"conch serve ({self.name}) did not start:\n  {tail}")
        for port in self.ports.values():
            wire.forget_channel(port)

    def _read(self, proc: subprocess.Popen) -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            line = line.rstrip("\n")
            if len(self.lines) < 500_000:
                self.lines.append(line)
            if match := _LISTENING.search(line):
                self.ports[match.group(1)] = int(match.group(3))
                self.addresses[match.group(1)] = match.group(2)
            if "serving;" in line:
                self._serving.set()

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = 30) -> Optional[int]:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.proc.returncode

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def restart(self) -> None:
        self.stop(10)
        self.start()

    # -- properties ---------------------------------------------------------------

    @property
    def http(self) -> int:
        return self.ports["KServe HTTP"]

    @property
    def grpc(self) -> int:
        return self.ports["KServe gRPC"]

    def port(self, frontend: str) -> int:
        if frontend not in self.ports:
            raise Skip(f"the {frontend} frontend is not running on the {self.name} server")
        return self.ports[frontend]

    def rss_kib(self) -> int:
        try:
            for line in pathlib.Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        except (OSError, AttributeError):
            pass
        return 0

    def metadata(self) -> list[tuple[str, str]]:
        return list(self.grpc_metadata)

    def log_since(self, mark: int) -> list[str]:
        return self.lines[mark:]


# -- the attacks ------------------------------------------------------------------

@dataclass
class Attack:
    """One attack: `run(ctx)` returns when the server answered as it should
    and raises Fail or Skip otherwise."""

    name: str
    models: str  # the bulletin class or CVE it is modelled on, and the finding
    run: Callable[["Context"], None]
    server: str = "main"
    #: The attack loads or unloads models, so readiness may dip; the check
    #: waits for it to come back.
    loads: bool = False
    #: The attack ends the server; no check follows.
    final: bool = False


ATTACKS: list[Attack] = []


def attack(name: str, models: str, server: str = "main", loads: bool = False,
           final: bool = False) -> Callable:
    """Registers the decorated function as an attack."""

    def register(run: Callable[["Context"], None]) -> Callable:
        ATTACKS.append(Attack(name, models, run, server, loads, final))
        return run

    return register


@dataclass
class Context:
    """What an attack works with."""

    server: Server
    work: pathlib.Path  # a private folder for the attack's files
    repository: pathlib.Path  # the main server's model repository
    flags: set[str]  # the flags `conch serve --help` lists
    time_scale: float = 1.0
    notes: list[str] = field(default_factory=list)

    def bound(self, seconds: float) -> float:
        """A time bound, scaled for slow machines (--time-scale)."""
        return seconds * self.time_scale

    def token(self) -> str:
        return uuid.uuid4().hex[:10]

    def need_flag(self, flag: str) -> None:
        if flag not in self.flags:
            raise Skip(f"conch serve has no {flag} yet")


# -- what answers must look like ---------------------------------------------------

#: HTTP 501: Triton's answer to an UNSUPPORTED request (a log or trace file
#: changed over the network, an unknown content coding, a repository name,
#: client shared memory on a server that does not allow it).
UNSUPPORTED = 501


def client_error(answer: wire.Answer, what: str, also: tuple = ()) -> None:
    """A 4xx (or one of `also`: UNSUPPORTED where Triton answers that, or
    wire.CLOSED where a server may close instead of answering)."""
    if 400 <= answer.status < 500 or answer.status in also:
        return
    raise Fail(f"{what}: got {answer.brief()}, expected a 4xx client error")


def status_in(answer: wire.Answer, allowed: tuple, what: str) -> None:
    if answer.status not in allowed:
        raise Fail(f"{what}: got {answer.brief()}, expected one of {allowed}")


def within(seconds: float, limit: float, what: str) -> None:
    if seconds > limit:
        raise Fail(f"{what}: took {seconds:.2f} s, more than {limit:.1f} s")


# The refusals Triton itself answers INTERNAL: a name no repository holds,
# a shared-memory key no object has. Conch answers them as Triton does.
_TRITONS_INTERNAL_REFUSALS = ("failed to poll from model repository",
                              "Unable to open shared memory region")


def _tritons_internal(reply: wire.Reply) -> bool:
    return reply.code == grpc.StatusCode.INTERNAL and any(
        text in (reply.details or "") for text in _TRITONS_INTERNAL_REFUSALS)


def grpc_refused(reply: wire.Reply, what: str, codes: tuple = ()) -> None:
    """A gRPC client error: INVALID_ARGUMENT, NOT_FOUND, ... (not INTERNAL,
    UNKNOWN or UNAVAILABLE, which would mean the server broke)."""
    allowed = codes or (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
                        grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.OUT_OF_RANGE,
                        grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.ALREADY_EXISTS,
                        grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.PERMISSION_DENIED)
    if reply.code not in allowed and not _tritons_internal(reply):
        raise Fail(f"{what}: got {reply.brief()}, expected one of "
                   f"{', '.join(c.name for c in allowed)}")


# -- the check after each attack ------------------------------------------------------

def _infer_http(server: Server, values: numpy.ndarray, timeout: float) -> Optional[str]:
    answer = wire.post_json(server.http, "/v2/models/identity_fp32/infer",
                            wire.infer_json(values[0]), server.headers, timeout)
    if answer.status != 200:
        return f"HTTP inference: {answer.brief()}"
    try:
        data = answer.json()["outputs"][0]["data"]
    except (ValueError, KeyError, IndexError) as e:
        return f"HTTP inference answered {answer.body[:120]!r} ({e})"
    if not numpy.array_equal(numpy.asarray(data, dtype=numpy.float32), values[0]):
        return "HTTP inference returned other data than it was sent"
    return None


def _infer_grpc(server: Server, values: numpy.ndarray, timeout: float) -> Optional[str]:
    reply = wire.call(server.grpc, "ModelInfer", wire.grpc_infer_request("identity_fp32", values),
                      server.metadata(), timeout)
    if reply.code != grpc.StatusCode.OK:
        return f"gRPC inference: {reply.brief()}"
    out = numpy.frombuffer(reply.message.raw_output_contents[0], dtype=numpy.float32)
    if not numpy.array_equal(out, values.reshape(-1)):
        return "gRPC inference returned other data than it was sent"
    return None


def check_serving(server: Server, loads: bool, timeout: float = 5.0) -> Optional[str]:
    """None when the server is alive and serving; else what is wrong."""
    if not server.running():
        code = server.proc.returncode if server.proc else None
        how = f"killed by {signal.Signals(-code).name}" if code and code < 0 else f"exit {code}"
        return f"conch serve is gone ({how})"
    live = wire.request(server.http, "GET", "/v2/health/live", headers=server.headers,
                        timeout=timeout)
    if live.status != 200:
        return f"/v2/health/live: {live.brief()}"
    deadline = time.monotonic() + (10.0 if loads else 0.0)
    while True:
        ready = wire.request(server.http, "GET", "/v2/health/ready", headers=server.headers,
                             timeout=timeout)
        if ready.status == 200:
            break
        if time.monotonic() >= deadline:
            return (f"/v2/health/ready: {ready.brief()}"
                    + (" (not back within 10 s)" if loads else ""))
        time.sleep(0.2)
    values = numpy.random.default_rng().standard_normal((1, 16)).astype(numpy.float32)
    return _infer_http(server, values, timeout) or _infer_grpc(server, values, timeout)
