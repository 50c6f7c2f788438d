"""The load generators of the HTTP benchmark: wrk (with bench/http/post_body.lua)
and perf_analyzer, each run as a subprocess and its output parsed."""

from __future__ import annotations

import csv
import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

LUA_SCRIPT = pathlib.Path(__file__).resolve().parent.parent / "http" / "post_body.lua"


@dataclass
class Figures:
    """What one run measured: requests per second and latency percentiles in µs."""

    rate: float
    p50_us: float
    p99_us: float


@dataclass
class Request:
    """One request kind: its name, body, Content-Type and binary header length."""

    encoding: str
    body_file: pathlib.Path
    content_type: str
    header_length: int | None


_UNITS = {"us": 1.0, "ms": 1e3, "s": 1e6}


def _latency_us(output: str, percent: str) -> float:
    m = re.search(rf"^\s*{percent}%\s+([\d.]+)(us|ms|s)\s*$", output, re.M)
    return float(m.group(1)) * _UNITS[m.group(2)] if m else float("nan")


def run_wrk(url: str, request: Request, connections: int, seconds: int,
            script: pathlib.Path = LUA_SCRIPT) -> Figures:
    """wrk with `connections` connections and a request script (by default
    post_body.lua); exits if any answer was not 2xx/3xx."""
    threads = min(connections, 2)
    env = dict(os.environ, CONCH_BENCH_BODY=str(request.body_file),
               CONCH_BENCH_CONTENT_TYPE=request.content_type,
               CONCH_BENCH_HEADER_LENGTH=str(request.header_length or ""))
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency",
               "-s", str(script), url]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=seconds + 60)
    out = done.stdout
    rate = re.search(r"^Requests/sec:\s+([\d.]+)", out, re.M)
    if done.returncode != 0 or rate is None:
        sys.exit(f"http_bench: wrk failed ({done.returncode}):\n{out}{done.stderr}")
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    errors = re.search(r"Socket errors:.*", out)
    if bad or errors:
        sys.exit(f"http_bench: {url} answered with errors:\n{out}")
    return Figures(float(rate.group(1)), _latency_us(out, "50"), _latency_us(out, "99"))


def find_perf_analyzer() -> tuple[str | None, str]:
    """(path, "") of a perf_analyzer that runs here, or (None, why not)."""
    venv_bin = pathlib.Path(sys.executable).parent / "perf_analyzer"
    path = str(venv_bin) if venv_bin.exists() else shutil.which("perf_analyzer")
    if path is None:
        libc = " ".join(platform.libc_ver())
        return None, (f"not installed: the perf-analyzer wheels need glibc >= 2.38, "
                      f"this system has {libc}")
    try:
        probe = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except OSError as e:
        return None, f"does not start: {e}"
    text = (probe.stderr or probe.stdout).strip()
    if "not found" in text or "error while loading" in text:
        return None, f"does not start: {text.splitlines()[0]}"
    return path, ""


def run_perf_analyzer(path: str, port: int, encoding: str, concurrency: int,
                      workdir: pathlib.Path) -> Figures:
    """perf_analyzer over HTTP at one concurrency; binary tensors unless JSON."""
    out_csv = workdir / f"pa-{encoding}-{concurrency}.csv"
    command = [path, "-m", "identity_fp32", "-i", "http", "-u", f"127.0.0.1:{port}",
               "--concurrency-range", str(concurrency), "--shape", "INPUT0:16",
               "--input-data", "zero", "--measurement-interval", "3000", "-f", str(out_csv)]
    if encoding == "json":
        command += ["--input-tensor-format", "json", "--output-tensor-format", "json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not out_csv.exists():
        sys.exit(f"http_bench: perf_analyzer failed ({done.returncode}):\n"
                 f"{done.stdout}{done.stderr}")
    row = next(csv.DictReader(out_csv.open()))
    return Figures(float(row["Inferences/Second"]), float(row["p50 latency"]),
                   float(row["p99 latency"]))
