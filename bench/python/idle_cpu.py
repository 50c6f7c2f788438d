"""The CPU an idle server uses: `conch serve` over the example repository
with its HTTP, gRPC and metrics frontends and no requests, measured from its
threads' user and system time (/proc/PID/task/*/stat) and wake-ups
(voluntary context switches) after it has settled.

    .venv/bin/python bench/python/idle_cpu.py [--seconds S] [--settle S]

It prints the share of one core the process used and the threads that woke
most. It never fails on a number.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
REPOSITORY = ROOT / "python/examples/example_model_repository"
TICKS = os.sysconf("SC_CLK_TCK")


def threads(pid: int) -> dict[str, tuple[str, int, int]]:
    """tid -> (name, CPU ticks, voluntary context switches)."""
    out = {}
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            status = (task / "status").read_text().splitlines()
            switches = sum(int(line.split()[1]) for line in status
                           if line.startswith("voluntary_ctxt_switches"))
            out[task.name] = ((task / "comm").read_text().strip(),
                              int(fields[11]) + int(fields[12]), switches)
        except OSError:
            pass
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--settle", type=float, default=8.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = open(pathlib.Path(tmp) / "conch.log", "w")
        process = subprocess.Popen(
            [str(ROOT / ".venv/bin/conch"), "serve", "--model-repository", str(REPOSITORY),
             "--http-port", "0", "--grpc-port", "0", "--metrics-port", "0"],
            stdout=log, stderr=subprocess.STDOUT)
        try:
            time.sleep(args.settle)
            before, t0 = threads(process.pid), time.monotonic()
            time.sleep(args.seconds)
            after, t1 = threads(process.pid), time.monotonic()
        finally:
            process.terminate()
            process.wait(60)
    ticks = sum(v[1] for v in after.values()) - sum(v[1] for v in before.values())
    print(f"idle conch serve: {ticks / TICKS / (t1 - t0) * 100:.3f}% of one core over "
          f"{t1 - t0:.0f} s, {len(after)} threads, load average {os.getloadavg()[0]:.2f}")
    rows = []
    for tid, (name, cpu, switches) in after.items():
        _, cpu0, switches0 = before.get(tid, (name, 0, 0))
        rows.append(((switches - switches0) / (t1 - t0), (cpu - cpu0) / TICKS * 1e3, name))
    rows.sort(reverse=True)
    print("thread            wake-ups/s  CPU ms")
    for per_second, ms, name in rows[:6]:
        print(f"{name:16s} {per_second:11.1f} {ms:7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
