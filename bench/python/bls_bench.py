"""A Python model called directly and through one BLS hop from another
Python model, beside the C++ identity, in process and over KServe HTTP.

    .venv/bin/python bench/python/bls_bench.py [--seconds S]

The models (FP32 [1,16], one instance each):
  identity_fp32   Conch's C++ identity (bench/models), the baseline
  py_identity     a python-backend identity (pb_utils, as bench-peers's)
  bls_identity    a python-backend model whose execute sends its input to
                  py_identity with InferenceRequest.exec() and answers with
                  the response's output: two Python models per request
In process: Model.infer from one thread (infer/s, p50). Over HTTP: wrk with
a JSON body at concurrency 1 and 16 through `conch serve`. Each row's ratio
is its rate over py_identity's in the same run. It prints the machine and
one table, and never fails on a number; it fails when an answer is wrong.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import sys
import tempfile
import time

import numpy

import conch
import http_bench_servers as servers
import http_bench_tools as tools
import http_models_bench as models_bench
import inprocess_bench

MODELS = ("identity_fp32", "py_identity", "bls_identity")

PY_CONFIG = """name: "{name}"
backend: "python"
max_batch_size: 0
input [ {{ name: "INPUT0" data_type: TYPE_FP32 dims: [ 1, 16 ] }} ]
output [ {{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 1, 16 ] }} ]
instance_group [ {{ count: 1 kind: KIND_CPU }} ]
"""

PY_IDENTITY = """
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse(
                    [pb_utils.Tensor("OUTPUT0", pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy())])
                for r in requests]
"""

BLS_IDENTITY = """
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for r in requests:
            answer = pb_utils.InferenceRequest(
                model_name="py_identity", requested_output_names=["OUTPUT0"],
                inputs=[pb_utils.get_input_tensor_by_name(r, "INPUT0")]).exec()
            if answer.has_error():
                responses.append(pb_utils.InferenceResponse(error=answer.error()))
            else:
                responses.append(pb_utils.InferenceResponse(answer.output_tensors()))
        return responses
"""


def write_repository(root: pathlib.Path) -> None:
    models_bench.write_repository(root)  # identity_fp32 and the other C++ models
    for name, code in (("py_identity", PY_IDENTITY), ("bls_identity", BLS_IDENTITY)):
        (root / name / "1").mkdir(parents=True)
        (root / name / "config.pbtxt").write_text(PY_CONFIG.format(name=name))
        (root / name / "1" / "model.py").write_text(code)


def in_process(root: pathlib.Path, seconds: float) -> dict[str, tuple[float, float]]:
    """Per model, (infer/s, p50 µs) of Model.infer from one thread."""
    server = conch.Server(model_repository=str(root), log_info=False,
                          model_control_mode=conch.ModelControlMode.EXPLICIT,
                          startup_models=list(MODELS)).start(wait_until_ready=True)
    figures = {}
    try:
        x = numpy.arange(16, dtype=numpy.float32).reshape(1, 16)
        for name in MODELS:
            model = server.model(name)
            out = list(model.infer(inputs={"INPUT0": x}))
            if numpy.from_dlpack(out[0].outputs["OUTPUT0"]).tolist() != x.tolist():
                sys.exit(f"bls_bench: {name} did not echo its input")

            def infer(model: conch.Model = model) -> None:
                for _ in model.infer(inputs={"INPUT0": x}):
                    pass

            rate, latencies = inprocess_bench.one_thread(infer, seconds)
            figures[name] = (rate, inprocess_bench.percentile(latencies, 0.5))
    finally:
        server.stop()
    return figures


def over_http(args: argparse.Namespace, root: pathlib.Path) -> dict[tuple[str, int], float]:
    conch_serve, port = servers.start_conch(args.conch, str(root), root.parent, None,
                                            models=MODELS)
    rates = {}
    try:
        for name in MODELS:
            request = models_bench.write_body(root.parent, name)
            models_bench.check(port, name, request)
            url = f"http://127.0.0.1:{port}/v2/models/{name}/infer"
            for c in (1, 16):
                tools.run_wrk(url, request, c, 1)  # warm-up
                rates[(name, c)] = tools.run_wrk(url, request, c, args.seconds).rate
    finally:
        servers.stop(conch_serve)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=4, help="measuring time per run")
    parser.add_argument("--conch", default=str(pathlib.Path(sys.executable).parent / "conch"))
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("bls_bench: wrk is missing; run scripts/setup.sh --bench")
    print(inprocess_bench.machine())
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="conch-bls-bench-") as tmp:
        root = pathlib.Path(tmp) / "models"
        write_repository(root)
        local = in_process(root, args.seconds)
        http = over_http(args, root)
    print(f"\nA Python model directly and through one BLS hop ({args.seconds} s per run, "
          f"{time.monotonic() - start:.0f} s in all); ratios over py_identity\n")
    print("| model | in process infer/s (p50 µs) | ratio | HTTP c=1 | ratio | HTTP c=16 | ratio |")
    print("|---|---|---|---|---|---|---|")
    for name in MODELS:
        rate, p50 = local[name]
        row = [name, f"{rate:,.0f} ({p50:.0f})", f"{rate / local['py_identity'][0]:.2f}"]
        for c in (1, 16):
            r = http[(name, c)]
            row += [f"{r:,.0f}", f"{r / http[('py_identity', c)]:.2f}"]
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
