"""KServe HTTP inference through `conch serve`, next to nginx as a ceiling.

    .venv/bin/python bench/python/http_bench.py [--seconds S] [--http-thread-count N]
                                                [--allocator A] [--direct-lane true|false]

What it measures: POST /v2/models/identity_fp32/infer with one FP32 [1,16]
input, encoded two ways:
  binary  the binary tensor extension: Inference-Header-Content-Length, the
          JSON header, then the 64 raw input bytes; the output comes back raw
  json    the input and the output as JSON numbers
each at concurrency 1 and 16, with wrk (bench/http/post_body.lua; -t1 -c1,
-t2 -c16) and with perf_analyzer (-i http) where it runs. In the same run,
nginx answers the same requests on the same URL with the bytes Conch sent
(captured first), which is the machine's ceiling for one small HTTP exchange.

It prints the machine, then one table, and never fails on a number; it does
fail when a server answers anything but 200. Client and server share the
machine's cores: compare figures of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import re
import shutil
import struct
import sys
import tempfile
import time

import http_bench_servers as servers
import http_bench_tools as tools

REPOSITORY = pathlib.Path(__file__).resolve().parents[2] / "python/examples/example_model_repository"
# Input values whose bytes are printable, so that nginx's `return` can hold
# the binary reply, which is these bytes again.
INPUT = bytes(range(ord("A"), ord("A") + 26)) + bytes(range(ord("a"), ord("a") + 26)) + b"0123456789AB"
VALUES = list(struct.unpack("<16f", INPUT))


def write_requests(workdir: pathlib.Path) -> list[tools.Request]:
    compact = {"separators": (",", ":")}
    tensor = {"name": "INPUT0", "datatype": "FP32", "shape": [1, 16]}
    header = json.dumps({"inputs": [dict(tensor, parameters={"binary_data_size": 64})],
                         "outputs": [{"name": "OUTPUT0", "parameters": {"binary_data": True}}]},
                        **compact).encode()
    (workdir / "binary.body").write_bytes(header + INPUT)
    (workdir / "json.body").write_text(json.dumps({"inputs": [dict(tensor, data=VALUES)]}, **compact))
    return [tools.Request("binary", workdir / "binary.body", "application/octet-stream", len(header)),
            tools.Request("json", workdir / "json.body", "application/json", None)]


def capture(port: int, request: tools.Request) -> servers.Reply:
    """Conch's reply to `request`, checked: 200 and the input echoed back."""
    headers = {"Content-Type": request.content_type}
    if request.header_length is not None:
        headers["Inference-Header-Content-Length"] = str(request.header_length)
    reply = servers.post(port, request.body_file.read_bytes(), headers)
    if reply.status != 200:
        sys.exit(f"http_bench: {request.encoding} infer answered {reply.status}: {reply.body!r}")
    if request.encoding == "binary":
        echoed = reply.body[int(reply.header_length or 0):] == INPUT
    else:
        echoed = struct.pack("<16f", *json.loads(reply.body)["outputs"][0]["data"]) == INPUT
    if not echoed:
        sys.exit(f"http_bench: {request.encoding} infer did not echo its input: {reply.body!r}")
    return reply


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), "unknown")
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    return (f"machine: {cpu}, {len(os.sched_getaffinity(0))} usable CPUs, "
            f"{platform.system()} {platform.release()}\nload:    {load} (1, 5, 15 min)")


def row(tool: str, encoding: str, c: int, conch: tools.Figures | None,
        nginx: tools.Figures | None, note: str = "") -> str:
    if conch is None:
        return f"| {tool} | {encoding} | {c} | n/a | n/a | n/a | n/a | {note} |"
    ratio = f"{conch.rate / nginx.rate:.2f}" if nginx else "—"
    ngx = f"{nginx.rate:,.0f}" if nginx else "—"
    return (f"| {tool} | {encoding} | {c} | {conch.rate:,.0f} | {ngx} | {ratio} | "
            f"{conch.p50_us:.0f} / {conch.p99_us:.0f} | {note} |")


def measure(args: argparse.Namespace, workdir: pathlib.Path) -> list[str]:
    conch, conch_port = servers.start_conch(args.conch, str(REPOSITORY), workdir,
                                             args.http_thread_count, args.allocator,
                                             args.direct_lane)
    rows, nginx_figures = [], {}
    try:
        url = f"http://127.0.0.1:{conch_port}{servers.INFER_PATH}"
        for request in write_requests(workdir):
            reply = capture(conch_port, request)
            nginx_dir = workdir / f"nginx-{request.encoding}"
            nginx_dir.mkdir()
            nginx, nginx_port = servers.start_nginx(args.nginx, nginx_dir, reply)
            try:
                nginx_url = f"http://127.0.0.1:{nginx_port}{servers.INFER_PATH}"
                for c in (1, 16):
                    tools.run_wrk(url, request, c, 1)  # warm-up
                    conch_figures = tools.run_wrk(url, request, c, args.seconds)
                    tools.run_wrk(nginx_url, request, c, 1)
                    nginx_figures[request.encoding, c] = tools.run_wrk(nginx_url, request, c, args.seconds)
                    rows.append(row("wrk", request.encoding, c, conch_figures,
                                    nginx_figures[request.encoding, c]))
            finally:
                servers.stop(nginx)
        pa, why = tools.find_perf_analyzer()
        for encoding in ("binary", "json"):
            for c in (1, 16):
                if pa is None:
                    rows.append(row("perf_analyzer", encoding, c, None, None, why))
                    continue
                figures = tools.run_perf_analyzer(pa, conch_port, encoding, c, workdir)
                rows.append(row("perf_analyzer", encoding, c, figures, nginx_figures[encoding, c],
                                "nginx: wrk"))
    finally:
        servers.stop(conch)
    log = (workdir / "conch.log").read_text()
    allocator = re.search(r"memory allocator: (\S+)", log)
    rows.append(f"\nconch serve ran with the {allocator.group(1) if allocator else 'unknown'} "
                "memory allocator (--allocator)"
                + (f", --direct-lane {args.direct_lane}" if args.direct_lane else ""))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=5, help="measuring time per run")
    parser.add_argument("--allocator", default=None,
                        help="conch serve --allocator (default: its own default)")
    parser.add_argument("--http-thread-count", type=int, default=None,
                        help="conch serve --http-thread-count (default: its own default)")
    parser.add_argument("--direct-lane", choices=["true", "false"], default=None,
                        help="conch serve --direct-lane (default: its own default, true)")
    parser.add_argument("--conch", default=str(pathlib.Path(sys.executable).parent / "conch"))
    parser.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    args = parser.parse_args()
    for tool in ("wrk", args.nginx):
        if shutil.which(tool) is None:
            sys.exit(f"http_bench: {tool} is missing; run scripts/setup.sh --bench")
    print(machine())
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="conch-http-bench-") as tmp:
        rows = measure(args, pathlib.Path(tmp))
    print(f"\nKServe HTTP infer, identity_fp32 FP32 [1,16] ({args.seconds:g} s per run, "
          f"{time.monotonic() - start:.0f} s in all)\n")
    print("| tool | encoding | c | Conch infer/s | nginx req/s | ratio | Conch p50 / p99 µs | note |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\n{machine().splitlines()[1]} (after the run)")
    print("targets: wrk c=1 >= 20,000 infer/s; wrk c=16 ratio >= 0.50")


if __name__ == "__main__":
    main()
