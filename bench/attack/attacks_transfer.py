"""Transfer tricks: decompression bombs, tiny and oversized chunks, request
smuggling (all held up: keep them so).

Modelled on CVE-2025-23310/23311 (chunked transfer, stack overflow) and the
decompression-bomb class of CWE-409."""

from __future__ import annotations

import functools
import json
import struct
import zlib

import wire
from harness import UNSUPPORTED, Context, Fail, attack, client_error, status_in, within

INFER = "/v2/models/identity_fp32/infer"
GIB = 1 << 30


@functools.cache
def _raw_deflate_of_zeros() -> tuple[bytes, int, int]:
    """1 GiB of zeros as raw deflate, and the CRC-32 and Adler-32 of the
    zeros. Each 16 MiB block is compressed after a full flush, so all are
    alike and the stream is one block repeated."""
    block = bytes(1 << 24)
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
    tail = packer.flush()
    crc, adler = 0, 1
    for _ in range(GIB // len(block)):
        crc = zlib.crc32(block, crc)
        adler = zlib.adler32(block, adler)
    return segment * (GIB // len(block)) + tail, crc, adler


def gzip_bomb() -> bytes:
    raw, crc, _ = _raw_deflate_of_zeros()
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + raw
            + struct.pack("<II", crc, GIB & 0xFFFFFFFF))


def deflate_bomb() -> bytes:
    raw, _, adler = _raw_deflate_of_zeros()
    return b"\x78\xda" + raw + struct.pack(">I", adler)


CLASS_BOMB = "CWE-409 decompression bomb (held up: keep it so)"


def _bomb(ctx: Context, body: bytes, coding: str, path: str = INFER) -> None:
    answer = wire.request(ctx.server.http, "POST", path, body,
                          {"Content-Encoding": coding, "Content-Type": "application/json"},
                          timeout=ctx.bound(30))
    what = f"a {len(body) >> 10} KiB {coding} body of 1 GiB to {path}"
    # Refusing early and closing is fine; the check after the attack shows
    # whether the server lived.
    client_error(answer, what, also=(wire.CLOSED,))
    within(answer.seconds, ctx.bound(5), what)


@attack("gzip_bomb", CLASS_BOMB)
def gzip_1gib(ctx: Context) -> None:
    _bomb(ctx, gzip_bomb(), "gzip")


@attack("deflate_bomb", CLASS_BOMB)
def deflate_1gib(ctx: Context) -> None:
    _bomb(ctx, deflate_bomb(), "deflate")


@attack("bomb_other_routes", CLASS_BOMB + " (generate, repository, SageMaker, Vertex AI)")
def bombs_elsewhere(ctx: Context) -> None:
    bomb = gzip_bomb()
    for path in ("/v2/models/identity_fp32/generate", "/v2/repository/index", "/v2/logging"):
        _bomb(ctx, bomb, "gzip", path)
    for frontend, path in (("SageMaker", "/invocations"), ("Vertex AI", "/predict")):
        answer = wire.request(ctx.server.port(frontend), "POST", path, bomb,
                              {"Content-Encoding": "gzip"}, timeout=ctx.bound(30))
        client_error(answer, f"a gzip bomb to {frontend} {path}", also=(wire.CLOSED,))
        within(answer.seconds, ctx.bound(5), f"a gzip bomb to {frontend} {path}")


@attack("encodings_stacked_or_unknown", CLASS_BOMB)
def encodings(ctx: Context) -> None:
    double = zlib.compress(gzip_bomb(), 9)
    for coding, body in (("gzip, gzip", double), ("deflate, gzip", double), ("br", b"x" * 64),
                         ("gzip", b"\x1f\x8b" + b"\x00" * 64), ("deflate", b"\x78\xda\xff" * 30),
                         ("identity, gzip", gzip_bomb())):
        answer = wire.request(ctx.server.http, "POST", INFER, body,
                              {"Content-Encoding": coding}, timeout=ctx.bound(30))
        client_error(answer, f"Content-Encoding {coding!r}", also=(wire.CLOSED, UNSUPPORTED))
        within(answer.seconds, ctx.bound(5), f"Content-Encoding {coding!r}")


def _chunked(path: str, chunks: list[bytes], extra: str = "") -> bytes:
    head = (f"POST {path} HTTP/1.1\r\nHost: conch-attack\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\n{extra}Transfer-Encoding: chunked\r\n\r\n")
    return head.encode() + b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"


@attack("chunked_100k_tiny_chunks", "CVE-2025-23310/23311 chunked transfer (stack overflow)")
def tiny_chunks(ctx: Context) -> None:
    values = [float(i) for i in range(16)]
    body = json.dumps(wire.infer_json(values)).encode()
    body += b" " * (100_000 - len(body))
    answer = wire.exchange(ctx.server.http, _chunked(INFER, [bytes([b]) for b in body]),
                           timeout=ctx.bound(30))
    status_in(answer, (200, 400, 413), "an inference in 100k one-byte chunks")
    within(answer.seconds, ctx.bound(2), "an inference in 100k one-byte chunks")
    if answer.status == 200 and answer.json()["outputs"][0]["data"] != values:
        raise Fail("an inference in 100k one-byte chunks returned other data")


@attack("chunk_size_overflow", "CVE-2025-23310/23311 chunked transfer (integer overflow)")
def chunk_sizes(ctx: Context) -> None:
    head = (f"POST {INFER} HTTP/1.1\r\nHost: conch-attack\r\nConnection: close\r\n"
            "Transfer-Encoding: chunked\r\n\r\n").encode()
    for label, chunk in (("18 hex digits", b"ffffffffffffffffff\r\nab\r\n0\r\n\r\n"),
                         ("2^63", b"8000000000000000\r\nab\r\n0\r\n\r\n"),
                         ("2^64-1", b"ffffffffffffffff\r\nab\r\n0\r\n\r\n"),
                         ("-1", b"-1\r\nab\r\n0\r\n\r\n"),
                         ("0x10", b"0x10\r\nab\r\n0\r\n\r\n"),
                         ("a 60 KiB extension", b"2;" + b"e" * 60_000 + b"\r\n{}\r\n0\r\n\r\n"),
                         ("1 MiB of zeros as size", b"0" * (1 << 20) + b"1\r\na\r\n0\r\n\r\n"),
                         ("a trailer of 60 KiB", b"2\r\n{}\r\n0\r\nX: " + b"t" * 60_000
                          + b"\r\n\r\n")):
        answer = wire.exchange(ctx.server.http, head + chunk, timeout=ctx.bound(15))
        client_error(answer, f"a chunk size of {label}", also=(wire.CLOSED,))
        # A size past the body limit is refused at once, as a Content-Length
        # past it is, not after the body timeout.
        within(answer.seconds, ctx.bound(2), f"a chunk size of {label} ({answer.brief()[:60]})")


CLASS_SMUGGLING = "CWE-444 request smuggling (held up: keep it so)"


@attack("request_smuggling", CLASS_SMUGGLING)
def smuggling(ctx: Context) -> None:
    token = ctx.token()
    smuggled = f"GET /v2/smuggled-{token} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    body = b"0\r\n\r\n" + smuggled
    n = len(body)
    variants = {
        "CL then TE": f"Content-Length: {n}\r\nTransfer-Encoding: chunked\r\n",
        "TE then CL": f"Transfer-Encoding: chunked\r\nContent-Length: {n}\r\n",
        "TE chunked and identity": "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n"
                                   f"Content-Length: {n}\r\n",
        "TE 'chunked, identity'": "Transfer-Encoding: chunked, identity\r\n"
                                  f"Content-Length: {n}\r\n",
        "TE 'xchunked'": f"Transfer-Encoding: xchunked\r\nContent-Length: {n}\r\n",
        "TE with a tab": f"Transfer-Encoding:\tchunked\r\nContent-Length: {n}\r\n",
        "TE 'Chunked'": f"Transfer-Encoding: Chunked\r\nContent-Length: {n}\r\n",
        "TE folded": f"Transfer-Encoding:\r\n chunked\r\nContent-Length: {n}\r\n",
        "space before the colon": f"Transfer-Encoding : chunked\r\nContent-Length: {n}\r\n",
        "two Content-Lengths": f"Content-Length: {n}\r\nContent-Length: 5\r\n",
        "Content-Length '5, N'": f"Content-Length: 5, {n}\r\n",
        "Content-Length '+N'": f"Content-Length: +{n}\r\n",
    }
    for label, headers in variants.items():
        raw = (f"POST /v2/repository/index HTTP/1.1\r\nHost: conch-attack\r\n{headers}\r\n"
               ).encode() + body
        answers, _ = wire.exchange_all(ctx.server.http, raw, timeout=ctx.bound(3))
        if len(answers) > 1:
            raise Fail(f"{label}: the smuggled request was answered too "
                       f"({', '.join(str(a.status) for a in answers)})")
        if answers and answers[0].status >= 500:
            raise Fail(f"{label}: {answers[0].brief()}")
    # Bare LF line ends with both framings.
    raw = (f"POST /v2/repository/index HTTP/1.1\nHost: x\nContent-Length: {n}\n"
           "Transfer-Encoding: chunked\n\n").encode() + body
    answers, _ = wire.exchange_all(ctx.server.http, raw, timeout=ctx.bound(3))
    if len(answers) > 1:
        raise Fail("bare LF: the smuggled request was answered too")
    if any(f"smuggled-{token}" in line for line in ctx.server.lines):
        raise Fail("the smuggled path reached the log")


@attack("pipelined_after_error", CLASS_SMUGGLING + " (no request read after a framing error)")
def pipelined_after_error(ctx: Context) -> None:
    good = wire.compose("GET", "/v2/health/live", close=False)
    bad = (b"POST " + INFER.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
           b"Content-Length: 6\r\n\r\n12345")
    answers, _ = wire.exchange_all(ctx.server.http, bad + good, timeout=ctx.bound(3))
    if not answers:
        return  # closed without an answer is acceptable
    client_error(answers[0], "conflicting Content-Lengths")
    if len(answers) > 1:
        raise Fail("a request after a framing error on the same connection was served")
