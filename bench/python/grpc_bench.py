"""KServe gRPC inference through `conch serve`, next to a reference gRPC
server as a ceiling.

    .venv/bin/python bench/python/grpc_bench.py [--build-dir build] [--seconds S]

What it measures: ModelInfer of identity_fp32 with one FP32 [1,16] input
(raw_input_contents), as sync unary calls and over bidi ModelStreamInfer
streams, at concurrency 1 and 16 (one connection and one request in flight
per worker). The load comes from conch-bench-grpc-load (bench/grpc/), a
small C++ client on the generated stub, because perf_analyzer's wheels do
not run on every system; where perf_analyzer runs, its figures
(-i grpc, with and without --streaming) are added. The reference,
conch-bench-grpc-reference (bench/grpc/), is a minimal gRPC C++ callback
server of the same service answering every request at once with a fixed
response of identity_fp32's shape: the machine's ceiling for one gRPC call.

It prints the machine and its load, then one table with Conch's share of
the ceiling, then the targets, and never fails on a number; it fails when a
call fails. Client and servers share the machine's cores: compare figures of
one run.
"""

from __future__ import annotations

import argparse
import csv
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[2]
REPOSITORY = ROOT / "python/examples/example_model_repository"
CASES = [("unary", 1), ("unary", 16), ("stream", 1), ("stream", 16)]


@dataclass
class Figures:
    infer_per_s: float
    p50_us: float
    p99_us: float


def fail(message: str) -> None:
    sys.exit(f"grpc_bench: {message}")


def wait_for_line(process: subprocess.Popen, log: pathlib.Path, pattern: str,
                  seconds: float = 60.0) -> re.Match:
    """Waits until the process's log has a line matching `pattern`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = log.read_text() if log.exists() else ""
        if m := re.search(pattern, text):
            return m
        if process.poll() is not None:
            fail(f"{process.args[0]} exited ({process.returncode}):\n{text}")
        time.sleep(0.05)
    fail(f"{process.args[0]} did not print {pattern!r} within {seconds:.0f} s")
    raise AssertionError


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def start_reference(bin_dir: pathlib.Path, workdir: pathlib.Path) -> tuple[subprocess.Popen, int]:
    log = workdir / "reference.log"
    process = subprocess.Popen([str(bin_dir / "conch-bench-grpc-reference"), "--port", "0"],
                               stdout=log.open("w"), stderr=subprocess.STDOUT)
    return process, int(wait_for_line(process, log, r"listening on (\d+)").group(1))


def start_conch(conch: str, workdir: pathlib.Path) -> tuple[subprocess.Popen, int]:
    """`conch serve` with only identity_fp32 loaded and only the gRPC frontend."""
    log = workdir / "conch.log"
    process = subprocess.Popen(
        [conch, "serve", "--model-repository", str(REPOSITORY), "--model-control-mode",
         "explicit", "--load-model", "identity_fp32", "--allow-http", "false",
         "--allow-metrics", "false", "--grpc-address", "127.0.0.1", "--grpc-port", "0"],
        stdout=log.open("w"), stderr=subprocess.STDOUT)
    port = int(wait_for_line(process, log, r"KServe gRPC listening on [^:]+:(\d+)").group(1))
    wait_for_line(process, log, r"serving; stop with")
    return process, port


def run_load(bin_dir: pathlib.Path, port: int, mode: str, concurrency: int,
             args: argparse.Namespace) -> tuple[Figures, str]:
    """The load generator's figures and the machine lines it printed."""
    done = subprocess.run(
        [str(bin_dir / "conch-bench-grpc-load"), "--target", f"127.0.0.1:{port}", "--mode", mode,
         "--concurrency", str(concurrency), "--seconds", str(args.seconds),
         "--warmup", str(args.warmup)], capture_output=True, text=True, timeout=600)
    m = re.search(r"infer_per_s=([\d.]+) p50_us=([\d.]+) p99_us=([\d.]+) errors=0", done.stdout)
    if done.returncode != 0 or not m:
        fail(f"the load on port {port} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    machine = done.stdout[:done.stdout.index("mode=")]
    return Figures(float(m.group(1)), float(m.group(2)), float(m.group(3))), machine


def find_perf_analyzer() -> tuple[str | None, str]:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    from http_bench_tools import find_perf_analyzer as find  # the HTTP benchmark's probe

    return find()


def run_perf_analyzer(path: str, port: int, mode: str, concurrency: int,
                      workdir: pathlib.Path) -> Figures:
    out_csv = workdir / f"pa-{mode}-{concurrency}.csv"
    command = [path, "-m", "identity_fp32", "-i", "grpc", "-u", f"127.0.0.1:{port}",
               "--concurrency-range", str(concurrency), "--shape", "INPUT0:16",
               "--input-data", "zero", "--measurement-interval", "3000", "-f", str(out_csv)]
    if mode == "stream":
        command.append("--streaming")
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not out_csv.exists():
        fail(f"perf_analyzer failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    row = next(csv.DictReader(out_csv.open()))
    return Figures(float(row["Inferences/Second"]), float(row["p50 latency"]),
                   float(row["p99 latency"]))


def load_average() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3]) if os.path.exists("/proc/loadavg") else "?"


def cell(f: Figures | None) -> str:
    return "n/a" if f is None else f"{f.infer_per_s:>9,.0f} ({f.p50_us:.0f}/{f.p99_us:.0f} µs)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", default=str(ROOT / "build"),
                        help="the CMake build holding bin/conch-bench-grpc-* (default: build)")
    parser.add_argument("--conch", default=str(pathlib.Path(sys.executable).parent / "conch"),
                        help="the conch command (default: the one next to this Python)")
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per case")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds first")
    args = parser.parse_args()
    bin_dir = pathlib.Path(args.build_dir) / "bin"
    load_before = load_average()
    rows = []
    machine = ""
    with tempfile.TemporaryDirectory(prefix="conch-grpc-bench-") as tmp:
        workdir = pathlib.Path(tmp)
        reference, reference_port = start_reference(bin_dir, workdir)
        conch, conch_port = start_conch(args.conch, workdir)
        try:
            for mode, c in CASES:
                ref, machine = run_load(bin_dir, reference_port, mode, c, args)
                ours, _ = run_load(bin_dir, conch_port, mode, c, args)
                rows.append(("conch-bench-grpc-load", mode, c, ref, ours))
            pa, why = find_perf_analyzer()
            for mode, c in CASES:
                if pa is None:
                    rows.append(("perf_analyzer", mode, c, None, None))
                    continue
                rows.append(("perf_analyzer", mode, c,
                             run_perf_analyzer(pa, reference_port, mode, c, workdir),
                             run_perf_analyzer(pa, conch_port, mode, c, workdir)))
        finally:
            stop(conch)
            stop(reference)
    print(machine.rstrip())
    print(f"load average before: {load_before}; after: {load_average()} (1, 5, 15 min)")
    print()
    print("infer/s (p50/p99 latency)")
    header = f"{'client':<22} {'call':<7} {'c':>3}  {'reference':<28} {'conch':<28} conch/ref"
    print(header)
    print("-" * len(header))
    for tool, mode, c, ref, ours in rows:
        ratio = "n/a" if ref is None or ours is None else f"{ours.infer_per_s / ref.infer_per_s:.0%}"
        print(f"{tool:<22} {mode:<7} {c:>3}  {cell(ref):<28} {cell(ours):<28} {ratio}")
    if pa is None:
        print(f"perf_analyzer: {why}")
    print()
    figures = {(mode, c): (ref, ours) for tool, mode, c, ref, ours in rows
               if tool == "conch-bench-grpc-load"}
    c1 = figures["unary", 1][1].infer_per_s
    ref16, ours16 = figures["unary", 16]
    print("targets (unary, conch-bench-grpc-load):")
    print(f"  c=1:  >= 10,000 infer/s          {c1:,.0f}  "
          f"{'met' if c1 >= 10_000 else 'missed'}")
    share = ours16.infer_per_s / ref16.infer_per_s
    print(f"  c=16: >= 65% of the reference    {share:.0%}  "
          f"{'met' if share >= 0.65 else 'missed'}")


if __name__ == "__main__":
    main()
