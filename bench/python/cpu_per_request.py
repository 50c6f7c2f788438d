"""The server's CPU time per request, beside its throughput, for one or more
`conch` commands measured alternately in one run.

    .venv/bin/python bench/python/cpu_per_request.py [--conch LABEL=COMMAND ...]
                                                      [--model NAME ...]
                                                      [--rounds N] [--seconds S]

Why CPU per request: the load generators share the machine's cores with the
server, so requests per second move with whatever else runs, while the CPU
time the server's process spends on each request holds. Each round starts
every `conch` given (for example a build of main and a build of a branch,
each through a small wrapper that sets PYTHONPATH and then `exec`s Python,
so that the process measured is the server's) in turn, with the HTTP and
gRPC frontends and the models of bench/models it measures (--model, by
default identity_fp32, the C++ identity; pyid is the python backend's
identity, FP32 [1,16] both) loaded, and drives the same cases at each:

  http-binary-c1, -c16, -c64  POST /v2/models/MODEL/infer, binary tensor
                              extension, wrk with 1, 16 and 64 connections
  http-json-c1, -c16, -c64    the same with the tensor as JSON numbers
  grpc-unary-c1, -c16, -c64   ModelInfer, conch-bench-grpc-load (bench/grpc/)
  grpc-stream-c16             ModelStreamInfer, 16 streams

A model other than identity_fp32 prefixes its cases with its name.

For each case it reads the server process's user and system time
(/proc/PID/stat) before and after the measured seconds and divides by the
requests completed. It prints the medians over the rounds and, for each
`conch` after the first, its ratio to the first. It never fails on a number;
it fails when a request fails.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

import http_bench
import http_bench_servers as servers
import http_bench_tools as tools

ROOT = pathlib.Path(__file__).resolve().parents[2]
REPOSITORY = ROOT / "bench/models"
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system time of the process `pid`, all its threads."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def start(conch: str, workdir: pathlib.Path,
          models: list[str]) -> tuple[subprocess.Popen, int, int]:
    """`conch serve` with `models` and the HTTP and gRPC frontends."""
    http_port, grpc_port = servers.free_port(), servers.free_port()
    log = workdir / "conch.log"
    # bench/models keeps configurations (and a python model's code); each
    # model gets its version folder in a copy.
    repository = workdir / "models"
    for model in models:
        shutil.copytree(REPOSITORY / model, repository / model, dirs_exist_ok=True)
        (repository / model / "1").mkdir(exist_ok=True)
    command = shlex.split(conch) + [
        "serve", "--model-repository", str(repository), "--model-control-mode", "explicit",
        *[a for m in models for a in ("--load-model", m)], "--allow-metrics", "false",
        "--http-address", "127.0.0.1", "--http-port", str(http_port),
        "--grpc-address", "127.0.0.1", "--grpc-port", str(grpc_port)]
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    servers.wait_until(http_port, "/v2/health/ready", process, log)
    return process, http_port, grpc_port


def run_wrk(url: str, request: tools.Request, connections: int, seconds: int) -> int:
    """Requests wrk completed; exits when any failed."""
    env = dict(os.environ, CONCH_BENCH_BODY=str(request.body_file),
               CONCH_BENCH_CONTENT_TYPE=request.content_type,
               CONCH_BENCH_HEADER_LENGTH=str(request.header_length or ""))
    done = subprocess.run(["wrk", f"-t{min(connections, 2)}", f"-c{connections}", f"-d{seconds}s",
                           "-s", str(tools.LUA_SCRIPT), url],
                          env=env, capture_output=True, text=True, timeout=seconds + 60)
    count = re.search(r"^\s*(\d+) requests in", done.stdout, re.M)
    if (done.returncode != 0 or count is None or "Non-2xx" in done.stdout
            or "Socket errors" in done.stdout):
        sys.exit(f"cpu_per_request: wrk on {url} failed:\n{done.stdout}{done.stderr}")
    return int(count.group(1))


def run_grpc(bin_dir: pathlib.Path, port: int, model: str, mode: str, concurrency: int,
             seconds: int) -> int:
    """Requests conch-bench-grpc-load completed; exits when any failed."""
    done = subprocess.run(
        [str(bin_dir / "conch-bench-grpc-load"), "--target", f"127.0.0.1:{port}", "--mode", mode,
         "--concurrency", str(concurrency), "--seconds", str(seconds), "--warmup", "0",
         "--model", model],
        capture_output=True, text=True, timeout=seconds + 60)
    m = re.search(r"infer_per_s=([\d.]+) .*errors=0", done.stdout)
    if done.returncode != 0 or not m:
        sys.exit(f"cpu_per_request: gRPC {mode} load failed:\n{done.stdout}{done.stderr}")
    return round(float(m.group(1)) * seconds)


def measure(conch: str, bin_dir: pathlib.Path, seconds: int, workdir: pathlib.Path,
            models: list[str], only: str = "") -> dict[str, tuple[float, float]]:
    """{case: (requests per second, server CPU µs per request)} for one server."""
    requests = {r.encoding: r for r in http_bench.write_requests(workdir)}
    process, http_port, grpc_port = start(conch, workdir, models)
    cases = []
    for model in models:
        prefix = "" if model == "identity_fp32" else model + "/"
        url = f"http://127.0.0.1:{http_port}/v2/models/{model}/infer"
        for encoding in ("binary", "json"):
            for c in (1, 16, 64):
                cases.append((f"{prefix}http-{encoding}-c{c}",
                              lambda s, u=url, e=encoding, c=c: run_wrk(u, requests[e], c, s)))
        for mode, c in (("unary", 1), ("unary", 16), ("unary", 64), ("stream", 16)):
            cases.append((f"{prefix}grpc-{mode}-c{c}",
                          lambda s, md=model, m=mode, c=c: run_grpc(bin_dir, grpc_port, md, m, c, s)))
    figures = {}
    try:
        for name, run in cases:
            if not re.search(only, name):
                continue
            run(1)  # warm-up, unmeasured
            before = cpu_seconds(process.pid)
            done = run(seconds)
            used = cpu_seconds(process.pid) - before
            figures[name] = (done / seconds, used * 1e6 / max(done, 1))
    finally:
        servers.stop(process)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conch", action="append", metavar="LABEL=COMMAND",
                        help="a conch command to measure, with a label (repeatable; default: "
                             "the conch next to this Python)")
    parser.add_argument("--model", action="append", choices=("identity_fp32", "pyid"),
                        help="a model of bench/models to measure (repeatable; default: "
                             "identity_fp32)")
    parser.add_argument("--cases", default="", metavar="REGEX",
                        help="measure only the cases whose name matches REGEX")
    parser.add_argument("--build-dir", default=str(ROOT / "build"),
                        help="the CMake build holding bin/conch-bench-grpc-load")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over every conch")
    parser.add_argument("--seconds", type=int, default=3, help="measured seconds per case")
    args = parser.parse_args()
    commands = [tuple(c.split("=", 1)) for c in (args.conch or [
        f"conch={pathlib.Path(sys.executable).parent / 'conch'}"])]
    if any(len(c) != 2 or not c[0] or not c[1] for c in commands):
        parser.error("--conch takes LABEL=COMMAND")
    bin_dir = pathlib.Path(args.build_dir) / "bin"
    print(http_bench.machine())
    print(f"load average before: {os.getloadavg()[0]:.2f}, {args.rounds} rounds of "
          f"{args.seconds} s per case, conch commands alternating\n")
    results: dict[str, dict[str, list[tuple[float, float]]]] = {label: {} for label, _ in commands}
    for _ in range(args.rounds):
        for label, command in commands:
            with tempfile.TemporaryDirectory(prefix="conch-cpu-bench-") as tmp:
                for case, figure in measure(command, bin_dir, args.seconds, pathlib.Path(tmp),
                                            args.model or ["identity_fp32"],
                                            args.cases).items():
                    results[label].setdefault(case, []).append(figure)
    first = commands[0][0]
    header = "| case | " + " | ".join(f"{label} req/s | {label} CPU µs/req" for label, _ in commands)
    header += "".join(f" | {label}/{first} CPU" for label, _ in commands[1:]) + " |"
    print(header)
    print("|" + "---|" * (1 + 2 * len(commands) + len(commands) - 1))
    for case in results[first]:
        cells, cpu = [], {}
        for label, _ in commands:
            runs = results[label][case]
            rate = statistics.median(r for r, _ in runs)
            cpu[label] = statistics.median(c for _, c in runs)
            cells += [f"{rate:,.0f}", f"{cpu[label]:.1f}"]
        cells += [f"{cpu[label] / cpu[first]:.2f}" for label, _ in commands[1:]]
        print(f"| {case} | " + " | ".join(cells) + " |")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
