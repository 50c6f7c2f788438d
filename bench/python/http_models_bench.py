"""The sequence batcher and an ensemble over KServe HTTP, beside the plain
identity model they are built on, through `conch serve`.

    .venv/bin/python bench/python/http_models_bench.py [--seconds S]

What it measures: wrk (JSON, FP32 [1,16]) at concurrency 1 and 16 against
three C++ models of bench/models, which conch-bench-inprocess measures in
process too:
  identity_fp32        the identity model, the baseline
  ensemble_identity_2  an ensemble of two identity_fp32 steps
  sequence_identity    the identity behind the sequence batcher (oldest
                       strategy, 64 candidate sequences), each request a
                       sequence of its own with a fresh correlation id
                       (bench/http/sequence_body.lua), so the figure
                       includes a slot taken and freed per request
Each row's ratio is its rate over identity_fp32's at the same concurrency,
measured in the same run. It prints the machine, then one table, and never
fails on a number; it fails when an answer is not 200 or not the input.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import struct
import sys
import tempfile
import time

import http_bench as base
import http_bench_servers as servers
import http_bench_tools as tools

SEQUENCE_SCRIPT = tools.LUA_SCRIPT.parent / "sequence_body.lua"

# The models of bench/models that conch-bench-inprocess measures too.
MODELS_DIR = pathlib.Path(__file__).resolve().parents[1] / "models"
MODELS = ("identity_fp32", "ensemble_identity_2", "sequence_identity")


def write_repository(root: pathlib.Path) -> None:
    for name in MODELS:
        (root / name / "1").mkdir(parents=True)
        shutil.copy(MODELS_DIR / name / "config.pbtxt", root / name / "config.pbtxt")


def write_body(workdir: pathlib.Path, model: str) -> tools.Request:
    """The JSON body of `model`'s requests; a sequence's holds %d for its id."""
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [1, 16],
                        "data": base.VALUES}]}
    text = json.dumps(body, separators=(",", ":"))
    if model == "sequence_identity":
        text = ('{"parameters":{"sequence_id":%d,"sequence_start":true,"sequence_end":true},'
                + text[1:])
    path = workdir / f"{model}.body"
    path.write_text(text)
    return tools.Request(model, path, "application/json", None)


def check(port: int, model: str, request: tools.Request) -> None:
    """One request of each kind answered 200 with the input echoed back."""
    body = request.body_file.read_text().replace("%d", "7")
    reply = servers.post(port, body.encode(), {"Content-Type": "application/json"},
                         f"/v2/models/{model}/infer")
    if reply.status != 200:
        sys.exit(f"http_models_bench: {model} answered {reply.status}: {reply.body!r}")
    output = json.loads(reply.body)["outputs"][0]["data"]
    if struct.pack("<16f", *output) != base.INPUT:
        sys.exit(f"http_models_bench: {model} did not echo its input: {reply.body!r}")


def measure(args: argparse.Namespace, workdir: pathlib.Path) -> list[str]:
    repository = workdir / "models"
    write_repository(repository)
    conch, port = servers.start_conch(args.conch, str(repository), workdir, None,
                                      models=MODELS)
    rows = []
    try:
        baseline: dict[int, float] = {}
        for model in MODELS:
            request = write_body(workdir, model)
            check(port, model, request)
            script = SEQUENCE_SCRIPT if model == "sequence_identity" else tools.LUA_SCRIPT
            url = f"http://127.0.0.1:{port}/v2/models/{model}/infer"
            for c in (1, 16):
                tools.run_wrk(url, request, c, 1, script)  # warm-up
                figures = tools.run_wrk(url, request, c, args.seconds, script)
                baseline.setdefault(c, figures.rate)
                rows.append(f"| {model} | {c} | {figures.rate:,.0f} | "
                            f"{figures.rate / baseline[c]:.2f} | "
                            f"{figures.p50_us:.0f} / {figures.p99_us:.0f} |")
    finally:
        servers.stop(conch)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=5, help="measuring time per run")
    parser.add_argument("--conch", default=str(pathlib.Path(sys.executable).parent / "conch"))
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("http_models_bench: wrk is missing; run scripts/setup.sh --bench")
    print(base.machine())
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="conch-http-models-bench-") as tmp:
        rows = measure(args, pathlib.Path(tmp))
    print(f"\nKServe HTTP infer (wrk, JSON), FP32 [1,16] ({args.seconds:g} s per run, "
          f"{time.monotonic() - start:.0f} s in all)\n")
    print("| model | c | infer/s | vs identity_fp32 | p50 / p99 µs |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\n{base.machine().splitlines()[1]} (after the run)")


if __name__ == "__main__":
    main()
