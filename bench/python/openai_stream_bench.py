"""Streaming through the OpenAI frontend beside KServe's generate_stream,
the same model behind both, with the server's CPU per token.

    .venv/bin/python bench/python/openai_stream_bench.py [--tokens N]
                                                          [--seconds S]
                                                          [--concurrency 1,64,256]

It starts `conch serve` with the KServe HTTP and OpenAI frontends over
bench/python/openai_models (stream_tokens: a python model that answers N
tokens, one response each, as fast as it can) and, for each concurrency,
keeps that many streams open for S seconds on each path in turn:

  openai      POST /v1/completions {"stream": true, "max_tokens": N}
  kserve      POST /v2/models/stream_tokens/generate_stream with the same
              sampling_parameters

The clients are asyncio connections reading the server-sent events as they
come (keep-alive, one stream at a time per connection). It reports streams
and tokens per second, the time to the first token (p50, p99) and the
server process's CPU time per token (/proc/PID/stat, user + system), and
the OpenAI frontend's own cost: its TTFT and CPU per token beside
generate_stream's. It never fails on a number; it fails when a stream does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = pathlib.Path(__file__).resolve().parent / "openai_models"
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def start_server(log: pathlib.Path) -> tuple[subprocess.Popen, int, int]:
    conch = ROOT / ".venv/bin/conch"
    process = subprocess.Popen(
        [str(conch), "serve", "--model-repository", str(MODELS), "--http-port", "0",
         "--allow-grpc", "false", "--allow-metrics", "false", "--openai-port", "0",
         "--http-address", "127.0.0.1", "--openai-address", "127.0.0.1"],
        stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        text = log.read_text()
        http = re.search(r"KServe HTTP listening on \S+:(\d+)", text)
        openai = re.search(r"OpenAI API listening on \S+:(\d+)", text)
        if http and openai and "serving;" in text:
            return process, int(http.group(1)), int(openai.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"conch serve did not start:\n{log.read_text()[-3000:]}")


def request_bytes(path: str, tokens: int, port: int) -> tuple[bytes, str]:
    params = json.dumps({"max_tokens": tokens})
    if path == "openai":
        body = json.dumps({"model": "stream_tokens", "prompt": "p", "max_tokens": tokens,
                           "stream": True}).encode()
        target = "/v1/completions"
    else:
        body = json.dumps({"text_input": "p", "stream": True,
                           "sampling_parameters": params}).encode()
        target = "/v2/models/stream_tokens/generate_stream"
    head = (f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode() + body, path


async def one_stream(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     request: bytes) -> tuple[float, int]:
    """Sends one streamed request on a kept-alive connection and reads its
    chunked body: (seconds to the first event, events with a token)."""
    started = time.perf_counter()
    writer.write(request)
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"stream refused: {status!r}")
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    first = None
    tokens = 0
    pending = b""
    while True:
        size_line = await reader.readline()
        size = int(size_line.strip() or b"0", 16)
        if size == 0:
            await reader.readline()
            break
        pending += await reader.readexactly(size)
        await reader.readline()
        while b"\n\n" in pending:
            event, pending = pending.split(b"\n\n", 1)
            if event.startswith(b"data: ") and event != b"data: [DONE]":
                if first is None:
                    first = time.perf_counter() - started
                tokens += 1
    return first if first is not None else 0.0, tokens


async def drive(port: int, request: bytes, concurrency: int, seconds: float,
                closing_event: bool) -> tuple[int, int, list[float]]:
    stop_at = time.perf_counter() + seconds
    ttfts: list[float] = []
    counts = [0, 0]

    async def client() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while time.perf_counter() < stop_at:
                first, tokens = await one_stream(reader, writer, request)
                ttfts.append(first)
                counts[0] += 1
                # OpenAI's last event carries the finish reason, no token.
                counts[1] += tokens - (1 if closing_event else 0)
        finally:
            writer.close()

    await asyncio.gather(*(client() for _ in range(concurrency)))
    return counts[0], counts[1], ttfts


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--concurrency", default="1,64,256")
    args = parser.parse_args()
    levels = [int(c) for c in args.concurrency.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        process, http_port, openai_port = start_server(pathlib.Path(tmp) / "conch.log")
        try:
            print(f"stream_tokens: {args.tokens} tokens per stream, {args.seconds:g} s per case, "
                  f"load average {os.getloadavg()[0]:.2f}")
            print(f"{'path':8} {'c':>4} {'streams/s':>10} {'tokens/s':>10} {'ttft p50':>9} "
                  f"{'ttft p99':>9} {'cpu us/token':>13}")
            rows: dict[tuple[str, int], tuple[float, float]] = {}
            for c in levels:
                for path, port in (("kserve", http_port), ("openai", openai_port)):
                    request, _ = request_bytes(path, args.tokens, port)
                    closing = path == "openai"
                    asyncio.run(drive(port, request, min(c, 4), 0.5, closing))  # warm up
                    cpu0 = cpu_seconds(process.pid)
                    t0 = time.perf_counter()
                    streams, tokens, ttfts = asyncio.run(
                        drive(port, request, c, args.seconds, closing))
                    elapsed = time.perf_counter() - t0
                    cpu = cpu_seconds(process.pid) - cpu0
                    per_token = cpu / tokens * 1e6 if tokens else 0.0
                    p50 = percentile(ttfts, 0.5) * 1e3
                    rows[(path, c)] = (p50, per_token)
                    print(f"{path:8} {c:>4} {streams / elapsed:>10.0f} {tokens / elapsed:>10.0f} "
                          f"{p50:>7.2f}ms {percentile(ttfts, 0.99) * 1e3:>7.2f}ms "
                          f"{per_token:>13.1f}")
            print("OpenAI frontend beside generate_stream (openai - kserve):")
            for c in levels:
                (o_ttft, o_cpu), (k_ttft, k_cpu) = rows[("openai", c)], rows[("kserve", c)]
                print(f"  c={c:<4} ttft p50 {o_ttft - k_ttft:+.2f} ms, "
                      f"cpu per token {o_cpu - k_cpu:+.1f} us ({o_cpu / k_cpu:.2f}x)")
        finally:
            process.terminate()
            process.wait(60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
