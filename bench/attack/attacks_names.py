"""Model names and request ids as weapons: names that climb out of the
repository (held up: keep it so), and CR/LF that forge log lines
(finding 9).

Modelled on CVE-2025-23316 (model name in the model control APIs),
CVE-2026-24208/24209 (path traversal) and CVE-2024-0095 (log injection)."""

from __future__ import annotations

import time
import urllib.parse

import grpc
import numpy
from tritonclient.grpc import service_pb2

import wire
from harness import Context, Fail, attack, client_error, grpc_refused

CLASS_TRAVERSAL = "CVE-2025-23316 / CVE-2026-24208 model name traversal (held up: keep it so)"

# Percent-encoded names a router decodes into something dangerous.
NAMES = ["..", "%2e%2e", "%2E%2E%2Foutside", "..%2Foutside", "%2e%2e%2f%2e%2e%2foutside",
         "identity_fp32%2F..%2F..%2Foutside", "a%2Fb", "%00", "identity_fp32%00", ".", "%2e",
         "..%5Coutside", "%252e%252e%252foutside", "%c0%ae%c0%ae%2foutside", "~", "%2Ftmp",
         "%2F" + "a" * 300, "a" * 5000]


@attack("model_name_traversal", CLASS_TRAVERSAL, loads=True)
def names(ctx: Context) -> None:
    for name in NAMES:
        for method, suffix in (("POST", "/load"), ("POST", "/unload")):
            answer = wire.request(ctx.server.http, method,
                                  f"/v2/repository/models/{name}{suffix}", b"{}")
            if answer.status == 200 and suffix == "/load":
                raise Fail(f"loading the model named {name!r} succeeded")
            # Triton's INTERNAL "failed to poll from model repository" is
            # its answer for a name no repository holds.
            if answer.status >= 500 and b"failed to poll from model repository" not in answer.body:
                raise Fail(f"{method} {suffix} of {name!r}: {answer.brief()}")
        for suffix in ("", "/ready", "/config", "/infer"):
            method = "POST" if suffix == "/infer" else "GET"
            answer = wire.request(ctx.server.http, method, f"/v2/models/{name}{suffix}",
                                  b"{}" if method == "POST" else b"")
            client_error(answer, f"{method} /v2/models/{name[:40]}{suffix}")
    for name in ("../outside", "..", "/tmp", "a/../../outside", "a\u0000b", ".", ""):
        message = service_pb2.RepositoryModelLoadRequest(model_name=name)
        grpc_refused(wire.call(ctx.server.grpc, "RepositoryModelLoad", message),
                     f"gRPC loading {name!r}")
        ready = wire.call(ctx.server.grpc, "ModelReady",
                          service_pb2.ModelReadyRequest(name=name))
        if ready.code == grpc.StatusCode.OK and ready.message.ready:
            raise Fail(f"gRPC ModelReady says {name!r} is ready")
    index = wire.post_json(ctx.server.http, "/v2/repository/index", {})
    if '"outside"' in index.body.decode("utf-8", "replace"):
        raise Fail("the model outside the repository was indexed")
    for model in ("outside", "..%2Foutside"):
        if wire.request(ctx.server.http, "GET", f"/v2/models/{model}/ready").status == 200:
            raise Fail("the model outside the repository is ready")


CLASS_LOG = "CVE-2024-0095 log injection; finding 9"


def _forged_lines(ctx: Context, mark: int, token: str) -> list[str]:
    """Log lines that carry the forged text without the text that came
    before the CR/LF in the same client string: lines the client made."""
    return [line for line in ctx.server.log_since(mark)
            if f"FORGED{token}" in line and f"pre{token}" not in line]


@attack("log_injection_crlf", CLASS_LOG, loads=True)
def log_injection(ctx: Context) -> None:
    token = ctx.token()
    forged = f"E0101 00:00:00.000000 1 forged.cc:1] FORGED{token}"
    mark = len(ctx.server.lines)
    for separator in ("\r\n", "\n", "\r", "\u2028", "\x1b[2K\r"):
        raw = f"pre{token}{separator}{forged}"
        quoted = urllib.parse.quote(raw, safe="")
        wire.request(ctx.server.http, "POST", f"/v2/repository/models/{quoted}/load", b"{}")
        wire.request(ctx.server.http, "GET", f"/v2/models/{quoted}/ready")
        wire.request(ctx.server.http, "GET", f"/v2/models/{quoted}/config")
        body = {**wire.infer_json(range(16), name="NO_SUCH_INPUT"), "id": raw}
        wire.post_json(ctx.server.http, "/v2/models/identity_fp32/infer", body)
        body = {**wire.infer_json(range(16)), "id": raw}
        wire.post_json(ctx.server.http, "/v2/models/identity_fp32/infer", body)
        wire.call(ctx.server.grpc, "RepositoryModelLoad",
                  service_pb2.RepositoryModelLoadRequest(model_name=raw))
        message = wire.grpc_infer_request("identity_fp32", numpy.zeros((1, 16), numpy.float32),
                                          name="NO_SUCH_INPUT", id=raw)
        wire.call(ctx.server.grpc, "ModelInfer", message)
        wire.post_json(ctx.server.port("SageMaker"), "/models",
                       {"model_name": raw, "url": f"/nonexistent/{raw}"})
    time.sleep(0.5)  # the log thread writes what it has
    if found := _forged_lines(ctx, mark, token):
        raise Fail(f"a client forged a log line: {found[0][:120]!r}")
