"""What scraping /metrics costs in-process inference: the throughput of the
C++ identity model driven by several Python threads, with nobody scraping and
with a scraper fetching GET /metrics 100 times a second from the Metrics
frontend.

    .venv/bin/python bench/python/metrics_scrape_bench.py [--seconds S] [--threads T]

The scraper runs either as a thread of this process (it shares the GIL with
the inferring threads, as an in-process exporter would) or as a separate
process (only the server's own scrape work competes). Quiet and scraped
rounds alternate after a warm-up round, twice each, and the figures are
the means. It prints the
machine first and never fails on a number; compare figures of one run.
"""

from __future__ import annotations

import argparse
import http.client
import pathlib
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy

import conch
from conch.frontend import Metrics

from inprocess_bench import IDENTITY_CONFIG, machine, many_threads, percentile

RATE_HZ = 100

SCRAPER = """
import http.client, sys, time
port, seconds, rate = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
start = time.perf_counter(); n = 0
while time.perf_counter() - start < seconds:
    conn.request("GET", "/metrics"); conn.getresponse().read(); n += 1
    delay = start + n / rate - time.perf_counter()
    if delay > 0:
        time.sleep(delay)
print(n)
"""


class thread_scraper:
    """Fetches /metrics RATE_HZ times a second on a thread until stopped."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.stop = threading.Event()
        self.latencies_us: list[float] = []
        self.body_bytes = 0
        self.thread = threading.Thread(target=self.run)

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        start = time.perf_counter()
        n = 0
        while not self.stop.is_set():
            t = time.perf_counter()
            conn.request("GET", "/metrics")
            self.body_bytes = len(conn.getresponse().read())
            self.latencies_us.append((time.perf_counter() - t) * 1e6)
            n += 1
            self.stop.wait(max(0.0, start + n / RATE_HZ - time.perf_counter()))

    def __enter__(self) -> "thread_scraper":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


def measure(infer, threads: int, seconds: float, port: int, scraper: str) -> tuple[float, float]:
    """(infer/s, scrapes/s) of one round with `scraper` (none, thread, process)."""
    if scraper == "none":
        return many_threads(infer, threads, seconds), 0.0
    if scraper == "thread":
        with thread_scraper(port) as s:
            start = time.perf_counter()
            rate = many_threads(infer, threads, seconds)
            elapsed = time.perf_counter() - start
        return rate, len(s.latencies_us) / elapsed
    # The scraper process runs a little longer than the inference round
    # (warm-up included), so that it covers all of it.
    proc = subprocess.Popen([sys.executable, "-c", SCRAPER, str(port), str(seconds + 1.5),
                             str(RATE_HZ)], stdout=subprocess.PIPE, text=True)
    rate = many_threads(infer, threads, seconds)
    out, _ = proc.communicate()
    return rate, int(out.strip()) / (seconds + 1.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="measuring time per round")
    parser.add_argument("--threads", type=int, default=4, help="inferring Python threads")
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "identity_fp32" / "1").mkdir(parents=True)
        (root / "identity_fp32" / "config.pbtxt").write_text(IDENTITY_CONFIG)
        server = conch.Server(model_repository=str(root)).start(wait_until_ready=True)
        try:
            model = server.model("identity_fp32")
            x = numpy.ones((1, 16), dtype=numpy.float32)

            def infer() -> None:
                for _ in model.infer(inputs={"INPUT0": x}):
                    pass

            with Metrics(server, Metrics.Options(address="127.0.0.1", port=0)) as frontend:
                with thread_scraper(frontend.port) as probe:
                    time.sleep(0.5)
                series = sum(1 for line in server.metrics().splitlines()
                             if line and not line.startswith("#"))
                print(f"exposition: {probe.body_bytes} bytes, {series} series; idle scrape "
                      f"p50 {percentile(probe.latencies_us, 0.5):.0f} us, "
                      f"p99 {percentile(probe.latencies_us, 0.99):.0f} us")
                many_threads(infer, args.threads, 1.0)  # warm-up, not counted
                rates: dict[str, list[float]] = {"none": [], "thread": [], "process": []}
                scrapes: dict[str, list[float]] = {"thread": [], "process": []}
                for _ in range(2):
                    for kind in ("none", "thread", "none", "process"):
                        rate, scraped = measure(infer, args.threads, args.seconds,
                                                frontend.port, kind)
                        rates[kind].append(rate)
                        if kind != "none":
                            scrapes[kind].append(scraped)
        finally:
            server.stop()
    quiet = statistics.fmean(rates["none"])
    print(f"identity_fp32/threads:{args.threads}, no scraper:        {quiet:10.0f} infer/s")
    for kind in ("thread", "process"):
        rate = statistics.fmean(rates[kind])
        print(f"identity_fp32/threads:{args.threads}, scraper {kind:7s}:  {rate:10.0f} infer/s  "
              f"({statistics.fmean(scrapes[kind]):.0f} scrapes/s)  ratio {rate / quiet:.3f}")


if __name__ == "__main__":
    main()
