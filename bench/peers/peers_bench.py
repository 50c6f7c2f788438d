"""Conch next to its peers, measured side by side on this machine.

    .venv/bin/python bench/peers/peers_bench.py [--build-dir build] [--seconds S]
                                                [--rounds N] [--no-docs]

Each peer is installed into a venv of its own under BUILD/peers (the
tritonserver and python backend that the nvidia-pytriton wheel bundles,
KServe's Python model server, MLServer); Conch is the project's .venv. Each
serves the same python identity model, FP32 [1,16] (Conch and Triton also a
C++ identity beside it), and is driven by the same tools: wrk with a KServe
v2 JSON body for HTTP, conch-bench-grpc-load (raw_input_contents, unary) for
gRPC, at concurrency 1, 16 and 64, and 16 ModelStreamInfer streams for the
servers that implement it. The no-op gRPC reference server
(bench/grpc/) is driven the same way: the gRPC library's own floor. One
server runs at a time, in rounds that interleave the servers; a figure is
the mean of its rounds. Beside throughput it reports the server's CPU time
per request: the user and system time of the server's whole process tree
(Triton's python stubs, MLServer's workers) over the measured seconds,
divided by the requests served, which holds where throughput swings with
the load generator on the same cores. For each server it also reports the
memory of its processes (the sum of their RSS: Triton's
python stubs and MLServer's workers count) after start-up and after the
load, and the time from launch to the model being ready.

The table is printed and, unless --no-docs, written into docs/benchmarks.md
with the machine's description. A peer that cannot be installed or started
is reported with the reason; the others go on. It never fails on a number.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Optional

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "python"))

import http_bench_tools as tools  # noqa: E402
from peer_servers import CPP_MODEL, FLOOR, FLOOR_MODEL, ROOT, SERVERS, Server  # noqa: E402

BODY = ('{"inputs":[{"name":"INPUT0","datatype":"FP32","shape":[1,16],'
        '"data":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}]}')
CASES = [("HTTP", 1), ("HTTP", 16), ("HTTP", 64), ("gRPC", 1), ("gRPC", 16), ("gRPC", 64),
         ("gRPC stream", 16)]
TICKS = os.sysconf("SC_CLK_TCK")
READY_S = 180
DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- bench-peers:begin -->", "<!-- bench-peers:end -->"


@dataclass
class Result:
    """What the rounds measured for one server."""

    why_not: Optional[str] = None
    rates: dict[tuple[str, str, int], list[float]] = field(default_factory=dict)
    # Server CPU µs per request, per case and round.
    cpu: dict[tuple[str, str, int], list[float]] = field(default_factory=dict)
    failures: dict[tuple[str, str, int], str] = field(default_factory=dict)
    rss_ready_mib: list[float] = field(default_factory=list)
    rss_loaded_mib: list[float] = field(default_factory=list)
    startup_s: list[float] = field(default_factory=list)


def free_ports(n: int) -> list[int]:
    """`n` distinct free ports (held open together while they are chosen)."""
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def process_tree(pid: int) -> list[int]:
    """`pid` and its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in pathlib.Path(f"/proc/{p}/task").glob("*"):
            try:
                todo.extend(int(c) for c in (task / "children").read_text().split())
            except OSError:
                pass
    return out


def cpu_seconds(pid: int) -> float:
    """User plus system time of `pid` and its descendants, all threads."""
    total = 0
    for p in process_tree(pid):
        try:
            fields = pathlib.Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / TICKS


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def rss_mib(pid: int) -> float:
    total = 0
    for p in process_tree(pid):
        try:
            m = re.search(r"^VmRSS:\s+(\d+) kB", pathlib.Path(f"/proc/{p}/status").read_text(), re.M)
        except OSError:
            continue
        total += int(m.group(1)) if m else 0
    return total / 1024


def ready(http_port: int, model: str) -> bool:
    url = f"http://127.0.0.1:{http_port}/v2/models/{model}/ready"
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return reply.status == 200
    except (urllib.error.URLError, OSError):
        return False


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def run_grpc(build: pathlib.Path, port: int, model: str, concurrency: int, seconds: int,
             mode: str = "unary") -> float:
    done = subprocess.run(
        [str(build / "bin" / "conch-bench-grpc-load"), "--target", f"127.0.0.1:{port}", "--mode",
         mode, "--concurrency", str(concurrency), "--seconds", str(seconds), "--warmup", "0",
         "--model", model], capture_output=True, text=True, timeout=seconds + 120)
    m = re.search(r"infer_per_s=([\d.]+)", done.stdout)
    if done.returncode != 0 or m is None:
        raise RuntimeError((done.stderr.strip().splitlines() or ["no output"])[-1])
    return float(m.group(1))


def run_http(port: int, model: str, request: tools.Request, concurrency: int, seconds: int) -> float:
    try:
        return tools.run_wrk(f"http://127.0.0.1:{port}/v2/models/{model}/infer", request,
                             concurrency, seconds).rate
    except SystemExit as e:  # run_wrk exits on failed answers
        raise RuntimeError(str(e).strip().splitlines()[0]) from None


def measure(server: Server, result: Result, work: pathlib.Path, args: argparse.Namespace,
            request: tools.Request) -> None:
    """One round of `server`: start it, load each model with each case, stop it."""
    venv = args.build_dir / "peers" / server.slug
    root = pathlib.Path(tempfile.mkdtemp(prefix=server.slug + "-", dir=work))
    http, grpc, metrics = free_ports(3)
    try:
        launch = server.prepare(root, venv, http, grpc, metrics)
    except (OSError, StopIteration) as e:
        result.why_not = f"could not be prepared: {e!r}"
        return
    log = open(root / "server.log", "w")
    started = time.monotonic()
    process = subprocess.Popen(launch.command, env={**os.environ, **launch.env}, cwd=launch.cwd,
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        while not (all(ready(http, m) for m in server.models) if "HTTP" in server.protocols
                   else port_open(grpc)):
            if process.poll() is not None or time.monotonic() - started > READY_S:
                lines = (root / "server.log").read_text().strip().splitlines()
                errors = [line for line in lines if "Error" in line or "error" in line]
                result.why_not = "did not become ready: " + (
                    (errors or lines or ["no output"])[-1].strip()[:200])
                return
            time.sleep(0.1)
        result.startup_s.append(time.monotonic() - started)
        result.rss_ready_mib.append(rss_mib(process.pid))
        for model in server.models:
            def run(protocol: str, concurrency: int, seconds: int) -> float:
                if protocol == "HTTP":
                    return run_http(http, model, request, concurrency, seconds)
                return run_grpc(args.build_dir, grpc, model, concurrency, seconds,
                                "stream" if protocol == "gRPC stream" else "unary")
            try:
                for protocol in server.protocols:
                    run(protocol, 1, 1)  # warm-up, unmeasured
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                result.failures[(model, "warm-up", 1)] = str(e)[:120]
                continue
            for protocol, concurrency in CASES:
                if protocol not in server.protocols:
                    continue
                key = (model, protocol, concurrency)
                try:
                    before = cpu_seconds(process.pid)
                    rate = run(protocol, concurrency, args.seconds)
                    used = cpu_seconds(process.pid) - before
                    result.rates.setdefault(key, []).append(rate)
                    result.cpu.setdefault(key, []).append(used * 1e6 / max(rate * args.seconds, 1))
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    result.failures[key] = str(e)[:120]
        result.rss_loaded_mib.append(rss_mib(process.pid))
    finally:
        stop(process)
        log.close()


def machine() -> str:
    cpu = "unknown CPU"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = re.search(r"MemTotal:\s+(\d+)", open("/proc/meminfo").read())
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    return (f"{cpu}, {len(os.sched_getaffinity(0))} usable CPUs, "
            f"{int(mem.group(1)) / 1024 / 1024:.0f} GiB, {platform.system()} {platform.release()}, "
            f"load average {load}")


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def figure_table(results: dict[str, Result], figures: str) -> list[str]:
    """One markdown table of `figures` ("rates": infer/s, or "cpu": server
    CPU µs per request) per server, model and case; in parentheses Conch's
    figure over the peer's, for the same model (for the gRPC floor, over
    Conch's C++ identity's)."""
    conch = results.get("Conch", Result())
    lines = ["| server | model | " + " | ".join(f"{p} c={c}" for p, c in CASES) + " |",
             "|" + "---|" * (len(CASES) + 2)]
    for server in SERVERS:
        r = results[server.name]
        if r.why_not and not r.rates:
            lines.append(f"| {server.name} | not measured (below) |" + " — |" * len(CASES))
            continue
        for model in server.models:
            cells = []
            for protocol, concurrency in CASES:
                key = (model, protocol, concurrency)
                if protocol not in server.protocols:
                    cells.append("—")
                    continue
                if key not in r.rates:
                    cells.append(f"failed: {r.failures.get(key, '?')}")
                    continue
                value = mean(getattr(r, figures)[key])
                text = f"{value:,.0f}" if figures == "rates" else f"{value:,.1f}"
                ours = getattr(conch, figures).get(
                    (CPP_MODEL if model == FLOOR_MODEL else model, protocol, concurrency))
                if server.name != "Conch" and ours:
                    text += f" (Conch {mean(ours) / value:.2f}×)"
                cells.append(text)
            lines.append(f"| {server.name} | {model} | " + " | ".join(cells) + " |")
    return lines


def table(results: dict[str, Result]) -> list[str]:
    """Throughput, CPU per request, then memory and start-up, with what was
    not measured."""
    lines = ["Throughput, infer/s:", "", *figure_table(results, "rates"), "",
             "Server CPU time per request, µs (user + system of its processes):", "",
             *figure_table(results, "cpu"), "",
             "| server | RSS ready / loaded | start-up |", "|---|---|---|"]
    for server in SERVERS:
        r = results[server.name]
        if not r.rss_loaded_mib or server.name == FLOOR:
            continue
        lines.append(f"| {server.name} | {mean(r.rss_ready_mib):.0f} / {mean(r.rss_loaded_mib):.0f}"
                     f" MiB | {mean(r.startup_s):.1f} s |")
    notes = [f"- {s.name}: {results[s.name].why_not}" for s in SERVERS if results[s.name].why_not]
    failed = [f"- {s.name} {m} {p} c={c}: {why}" for s in SERVERS
              for (m, p, c), why in results[s.name].failures.items()]
    if notes or failed:
        lines += ["", "Not measured:", *notes, *failed]
    return lines


def write_docs(section: list[str]) -> None:
    text = DOCS.read_text()
    block = BEGIN + "\n" + "\n".join(section) + "\n" + END
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n## Peers, side by side\n\n" + block + "\n"
    DOCS.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", type=pathlib.Path, default=ROOT / "build")
    parser.add_argument("--seconds", type=int, default=4, help="measuring time per case")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-docs", action="store_true", help="print the table only")
    args = parser.parse_args()
    args.build_dir = args.build_dir.resolve()

    # A SIGTERM (or a closed terminal) ends the run through the finally
    # clauses that stop the server under test, which runs in a session of
    # its own and would otherwise outlive this script.
    def interrupted(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, interrupted)
    described = machine()
    print(described, flush=True)
    results = {s.name: Result() for s in SERVERS}
    for server in SERVERS:
        venv = args.build_dir / "peers" / server.slug
        print(f"installing {server.name} ...", flush=True)
        results[server.name].why_not = server.install(venv)
        if results[server.name].why_not:
            print(f"  {server.name}: {results[server.name].why_not}", flush=True)
    with tempfile.TemporaryDirectory(prefix="conch-peers-") as tmp:
        work = pathlib.Path(tmp)
        request = tools.Request("json", work / "json.body", "application/json", None)
        request.body_file.write_text(BODY)
        for round_number in range(1, args.rounds + 1):
            for server in SERVERS:
                r = results[server.name]
                if r.why_not:
                    continue
                print(f"round {round_number}: {server.name}", flush=True)
                measure(server, r, work, args, request)
                if r.why_not:
                    print(f"  {server.name}: {r.why_not}", flush=True)
    lines = table(results)
    print("\n" + "\n".join(lines))
    section = [
        f"Command: `make bench-peers` (`bench/peers/peers_bench.py --seconds {args.seconds} "
        f"--rounds {args.rounds}`). Machine: {described}. Each figure is the mean of "
        f"the {args.rounds} interleaved rounds that measured it; in parentheses Conch's figure "
        "over the peer's for the same model (for the gRPC floor, Conch's C++ identity's). "
        "Triton is the tritonserver of the nvidia-pytriton 0.7.0 wheel with its python "
        "backend, and upstream's C++ identity backend (r24.10) for identity_fp32.",
        "",
        *lines,
    ]
    if not args.no_docs:
        write_docs(section)
        print(f"\nwritten to {DOCS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
