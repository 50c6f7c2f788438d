"""The OpenAI frontend's own edges: bodies whose every item is wrong (an
error list as large as the body), numbers JSON has no room for, bytes that
are no UTF-8, lists past OpenAI's limits, values past a model input's type,
and a storm of streams dropped mid-answer. Each must be answered with a
bounded 4xx, quickly, and leave the server serving.

Modelled on the resource-exhaustion classes of Triton's bulletins
(CVE-2025-23316/23317: memory exhaustion from crafted requests)."""

from __future__ import annotations

import json
import socket

import wire
from harness import Context, Fail, attack, client_error, within

CLASS = "CVE-2025-23316/23317 memory exhaustion by crafted bodies; OpenAI frontend"
FRONTEND = "OpenAI API"
HEADERS = {"Content-Type": "application/json"}


def _post(ctx: Context, path: str, body: bytes) -> wire.Answer:
    return wire.request(ctx.server.port(FRONTEND), "POST", path, body, HEADERS,
                        timeout=ctx.bound(30))


@attack("openai_error_list_bomb", CLASS)
def error_list_bomb(ctx: Context) -> None:
    # 4 million wrong messages: one bounded 422, not 4 million errors.
    body = b'{"model":"x","messages":[' + b",".join([b"1"] * 4_000_000) + b"]}"
    answer = _post(ctx, "/v1/chat/completions", body)
    client_error(answer, "4M wrong messages")
    within(answer.seconds, ctx.bound(5), "4M wrong messages")
    if len(answer.body) > 64 * 1024:
        raise Fail(f"4M wrong messages: a {len(answer.body)} byte answer")


@attack("openai_non_finite_numbers", CLASS)
def non_finite(ctx: Context) -> None:
    for value in (b"NaN", b"Infinity", b"-Infinity", b"1e999"):
        answer = _post(ctx, "/v1/completions",
                       b'{"model":"x","prompt":"p","temperature":' + value + b"}")
        client_error(answer, f"temperature {value.decode()}")
        json.loads(answer.body)  # the answer is valid JSON


@attack("openai_invalid_utf8", CLASS)
def invalid_utf8(ctx: Context) -> None:
    for raw in (b"\xff\xfe", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"):
        answer = _post(ctx, "/v1/completions", b'{"model":"' + raw + b'","prompt":"p"}')
        client_error(answer, f"model name {raw!r}")
        answer.body.decode("utf-8")  # never echoed back as bytes


@attack("openai_lists_past_their_limits", CLASS)
def long_lists(ctx: Context) -> None:
    stops = json.dumps({"model": "x", "prompt": "p", "stop": ["s"] * 100_000}).encode()
    client_error(_post(ctx, "/v1/completions", stops), "100k stop sequences")
    long_stop = json.dumps({"model": "x", "prompt": "p", "stop": ["s" * 10_000_000]}).encode()
    client_error(_post(ctx, "/v1/completions", long_stop), "a 10 MB stop sequence")
    texts = json.dumps({"model": "identity_fp32", "input": ["t"] * 100_000}).encode()
    client_error(_post(ctx, "/v1/embeddings", texts), "100k embedding inputs")


@attack("openai_values_past_their_types", CLASS)
def past_types(ctx: Context) -> None:
    for body in ({"model": "x", "prompt": "p", "max_tokens": 2**70},
                 {"model": "x", "prompt": "p", "seed": -(2**70)},
                 {"model": "x", "prompt": "p", "n": 10**30}):
        client_error(_post(ctx, "/v1/completions", json.dumps(body).encode()), str(body))


@attack("openai_dropped_streams", CLASS)
def dropped_streams(ctx: Context) -> None:
    # 200 streamed requests whose clients leave before reading a byte.
    port = ctx.server.port(FRONTEND)
    body = json.dumps({"model": "identity_fp32", "prompt": "p", "stream": True}).encode()
    head = (f"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    for _ in range(200):
        with socket.create_connection(("127.0.0.1", port), timeout=ctx.bound(5)) as s:
            s.sendall(head + body)
    answer = wire.request(port, "GET", "/health/ready", timeout=ctx.bound(10))
    if answer.status != 200:
        raise Fail(f"health after 200 dropped streams: {answer.brief()}")
