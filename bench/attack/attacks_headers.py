"""Long and many headers (finding 2): a backtracking regular expression
recurses once per character of what it matches, so a header of tens of
kilobytes ends the process; and the work per header must stay linear.

Modelled on CVE-2025-23310/23311 (stack overflow from crafted input) and
CVE-2026-24146 (unbounded counts)."""

from __future__ import annotations

import grpc
import numpy

import wire
from harness import UNSUPPORTED, Context, attack, client_error, grpc_refused, status_in, within

CLASS = "CVE-2025-23310/23311 stack overflow by a long header; finding 2"
REDIRECT = "X-Vertex-Ai-Triton-Redirect"


def _predict(ctx: Context, redirect: str) -> wire.Answer:
    return wire.request(ctx.server.port("Vertex AI"), "POST", "/predict", b"{}",
                        {REDIRECT: redirect, "Content-Type": "application/json"},
                        timeout=ctx.bound(15))


@attack("vertex_redirect_60k", CLASS)
def vertex_redirect_60k(ctx: Context) -> None:
    for label, value in (("v2/ + 60k letters", "v2/" + "a" * 60_000),
                         ("v2/models/ + 'a/' x 30k + infer",
                          "v2/models/" + "a/" * 30_000 + "infer"),
                         ("a version of 60k digits", "v2/models/identity_fp32/versions/"
                          + "9" * 60_000 + "/infer"),
                         ("60k slashes", "/" * 60_000),
                         ("v2/repository/ + 60k letters + /index", "v2/repository/"
                          + "r" * 60_000 + "/index")):
        answer = _predict(ctx, value)
        # A repository name is UNSUPPORTED, as in Triton.
        client_error(answer, f"redirect to {label}", also=(UNSUPPORTED,))
        within(answer.seconds, ctx.bound(2), f"redirect to {label}")


@attack("vertex_redirect_1mb", CLASS + " (beyond the header cap)")
def vertex_redirect_1mb(ctx: Context) -> None:
    answer = _predict(ctx, "v2/" + "a" * (1 << 20))
    client_error(answer, "a 1 MiB redirect header", also=(wire.CLOSED,))
    within(answer.seconds, ctx.bound(2), "a 1 MiB redirect header")


@attack("vertex_route_60k_path", CLASS + " (the route patterns against the path)")
def vertex_route_long_path(ctx: Context) -> None:
    port = ctx.server.port("Vertex AI")
    for path in ("/" + "health" * 10_000, "/predict" + "/" * 60_000, "/" + "a" * 60_000):
        answer = wire.request(port, "GET", path, timeout=ctx.bound(15))
        client_error(answer, f"GET of a {len(path)} byte path")
        within(answer.seconds, ctx.bound(2), f"GET of a {len(path)} byte path")


@attack("http_header_forward_60k_name", CLASS + " (header_forward_pattern over HTTP)")
def http_forward_long_name(ctx: Context) -> None:
    ctx.need_flag("--http-header-forward-pattern")
    body = wire.infer_json(range(16))
    for size in (60_000, 1 << 20):
        answer = wire.post_json(ctx.server.http, "/v2/models/identity_fp32/infer", body,
                                {"x-fwd-" + "a" * size: "1"}, timeout=ctx.bound(15))
        what = f"an inference with a {size} byte header name the pattern matches"
        status_in(answer, (200, 400, 413, 431, wire.CLOSED), what)
        within(answer.seconds, ctx.bound(2), what)


@attack("grpc_header_forward_long_key", CLASS + " (header_forward_pattern over gRPC)")
def grpc_forward_long_key(ctx: Context) -> None:
    message = wire.grpc_infer_request("identity_fp32",
                                      numpy.zeros((1, 16), dtype=numpy.float32))
    for size in (4_000, 60_000):
        reply = wire.call(ctx.server.grpc, "ModelInfer", message,
                          [("x-fwd-" + "a" * size, "1")], timeout=ctx.bound(15), fresh=True)
        what = f"ModelInfer with a {size} byte metadata key the pattern matches"
        # gRPC itself refuses metadata beyond its limit; under it the
        # pattern runs and the inference answers.
        grpc_refused(reply, what, (grpc.StatusCode.OK, grpc.StatusCode.RESOURCE_EXHAUSTED,
                                   grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.INTERNAL,
                                   grpc.StatusCode.UNAVAILABLE))
        within(reply.seconds, ctx.bound(2), what)


@attack("many_headers", "CVE-2026-24146 class (unbounded counts): thousands of headers")
def many_headers(ctx: Context) -> None:
    for count, allowed in ((6_000, (200,)), (12_000, (200, 400, 431, wire.CLOSED))):
        headers = {f"h{i}": "v" for i in range(count)}
        answer = wire.post_json(ctx.server.http, "/v2/models/identity_fp32/infer",
                                wire.infer_json(range(16)), headers, timeout=ctx.bound(15))
        status_in(answer, allowed, f"{count} headers")
        within(answer.seconds, ctx.bound(2), f"{count} headers")


@attack("header_1mb_value", CLASS + " (KServe HTTP, beyond the header cap)")
def header_1mb(ctx: Context) -> None:
    for name, value in (("X-Big", "v" * (1 << 20)), ("X-" + "n" * (1 << 20), "v")):
        answer = wire.request(ctx.server.http, "GET", "/v2/health/live", headers={name: value},
                              timeout=ctx.bound(15))
        client_error(answer, "a 1 MiB header", also=(wire.CLOSED,))
        within(answer.seconds, ctx.bound(2), "a 1 MiB header")
