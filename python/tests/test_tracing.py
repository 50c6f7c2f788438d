"""Request tracing in Triton's trace mode, checked as upstream's L0_trace
checks Triton: the trace file's objects and timestamps for HTTP, gRPC and
in-process requests, what trace_rate, trace_count and log_frequency imply,
ensemble steps as child traces, and the trace settings over HTTP, gRPC and
the Python API with Triton's answers and errors."""

from __future__ import annotations

import json
import pathlib
import queue
from collections import defaultdict
from typing import Any, Callable, Iterator

import numpy
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

import conch
from conch.frontend import KServeGrpc, KServeHttp
from conftest import identity_config, write_model

X = numpy.array([1, 2, 3, 4], dtype=numpy.float32)

ENSEMBLE = """
platform: "ensemble"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]
ensemble_scheduling { step [
  { model_name: "m" model_version: -1
    input_map { key: "INPUT0" value: "IN" } output_map { key: "OUTPUT0" value: "MID" } },
  { model_name: "m" model_version: -1
    input_map { key: "INPUT0" value: "MID" } output_map { key: "OUTPUT0" value: "OUT" } } ] }
"""

CORE = ["REQUEST_START", "QUEUE_START", "COMPUTE_START", "COMPUTE_INPUT_END",
        "COMPUTE_OUTPUT_START", "COMPUTE_END", "REQUEST_END"]
HTTP_STAMPS = (["HTTP_RECV_START", "HTTP_RECV_END"],
               ["INFER_RESPONSE_COMPLETE", "HTTP_SEND_START", "HTTP_SEND_END"])
GRPC_STAMPS = (["GRPC_WAITREAD_START", "GRPC_WAITREAD_END"],
               ["INFER_RESPONSE_COMPLETE", "GRPC_SEND_START", "GRPC_SEND_END"])


@pytest.fixture
def repository(tmp_path: pathlib.Path) -> pathlib.Path:
    models = tmp_path / "models"
    write_model(models, "m", identity_config("TYPE_FP32"))
    write_model(models, "pipe", ENSEMBLE)
    return models


@pytest.fixture
def start(tmp_path: pathlib.Path, repository: pathlib.Path,
          make_server: Callable[..., conch.Server]) -> Callable[..., conch.Server]:
    """Starts a server over the repository with `--trace-config` arguments,
    writing to tmp_path/trace.json unless they name another file."""
    def go(*config: str) -> conch.Server:
        args = list(config)
        if not any(a.startswith("triton,file=") for a in args):
            args.insert(0, f"triton,file={tmp_path / 'trace.json'}")
        return make_server(model_repository=str(repository), trace_config=args)
    return go


def read_traces(path: pathlib.Path) -> dict[int, dict[str, Any]]:
    """Triton's flat objects, gathered per trace id: the header's fields,
    the timestamps in file order, and the tensors."""
    objects = json.loads(path.read_text())
    assert isinstance(objects, list)
    traces: dict[int, dict[str, Any]] = defaultdict(lambda: {"stamps": [], "tensors": []})
    for o in objects:
        t = traces[o["id"]]
        if "timestamps" in o:
            assert len(o["timestamps"]) == 1
            t["stamps"].append((o["timestamps"][0]["name"], o["timestamps"][0]["ns"]))
        elif "activity" in o:
            t["tensors"].append(o)
        else:
            assert "model_name" in o, o
            t["header"] = o
    return dict(traces)


def check_trace(trace: dict[str, Any], model: str, frontend: tuple[list, list]) -> None:
    names = [n for n, _ in trace["stamps"]]
    assert names == frontend[0] + CORE + frontend[1]
    times = [ns for _, ns in trace["stamps"]]
    assert times == sorted(times) and times[0] > 0
    header = trace["header"]
    assert header["model_name"] == model and header["model_version"] == 1
    assert "parent_id" not in header


def infer_http(port: int, model: str = "m", n: int = 1, request_id: str = "") -> None:
    client = httpclient.InferenceServerClient(f"127.0.0.1:{port}")
    name = "IN" if model == "pipe" else "INPUT0"
    for _ in range(n):
        tensor = httpclient.InferInput(name, [4], "FP32")
        tensor.set_data_from_numpy(X)
        client.infer(model, [tensor], request_id=request_id)
    client.close()


def test_http_requests_are_traced_with_every_timestamp_in_order(
        start, tmp_path: pathlib.Path) -> None:
    server = start("level=TIMESTAMPS", "rate=1")
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as http:
        infer_http(http.port, n=3, request_id="abc")
    server.stop()
    traces = read_traces(tmp_path / "trace.json")
    assert len(traces) == 3
    for trace in traces.values():
        check_trace(trace, "m", HTTP_STAMPS)
        assert trace["header"]["request_id"] == "abc"
    # The header comes right before REQUEST_START, as in Triton's file.
    objects = json.loads((tmp_path / "trace.json").read_text())
    at = next(i for i, o in enumerate(objects) if "model_name" in o)
    assert objects[at + 1]["timestamps"][0]["name"] == "REQUEST_START"


def test_generate_requests_are_traced(start, tmp_path: pathlib.Path) -> None:
    import urllib.request

    server = start("level=TIMESTAMPS", "rate=1")
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as http:
        for route in ("generate", "generate_stream"):
            request = urllib.request.Request(
                f"http://127.0.0.1:{http.port}/v2/models/m/{route}",
                data=json.dumps({"INPUT0": [1.0, 2.0]}).encode(), method="POST")
            with urllib.request.urlopen(request, timeout=30) as reply:
                assert reply.status == 200
                reply.read()
    server.stop()
    traces = read_traces(tmp_path / "trace.json")
    assert len(traces) == 2
    for trace in traces.values():
        check_trace(trace, "m", HTTP_STAMPS)


def test_grpc_requests_and_stream_requests_are_traced(start, tmp_path: pathlib.Path) -> None:
    server = start("level=TIMESTAMPS", "rate=1")
    with KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0)) as grpc:
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")
        tensor = grpcclient.InferInput("INPUT0", [4], "FP32")
        tensor.set_data_from_numpy(X)
        client.infer("m", [tensor])
        answers: queue.Queue = queue.Queue()
        client.start_stream(callback=lambda result, error: answers.put(error))
        client.async_stream_infer("m", [tensor])
        assert answers.get(timeout=30) is None
        client.stop_stream()
        client.close()
    server.stop()
    traces = read_traces(tmp_path / "trace.json")
    assert len(traces) == 2
    for trace in traces.values():
        check_trace(trace, "m", GRPC_STAMPS)


def test_in_process_requests_are_traced(start, tmp_path: pathlib.Path) -> None:
    server = start("level=TIMESTAMPS", "rate=1")
    for _ in range(2):
        list(server.model("m").infer(inputs={"INPUT0": X}))
    server.stop()
    traces = read_traces(tmp_path / "trace.json")
    assert len(traces) == 2
    for trace in traces.values():
        check_trace(trace, "m", ([], []))


def test_rate_traces_one_request_in_n(start, tmp_path: pathlib.Path) -> None:
    server = start("level=TIMESTAMPS", "rate=3")
    for _ in range(10):
        list(server.model("m").infer(inputs={"INPUT0": X}))
    server.stop()
    assert len(read_traces(tmp_path / "trace.json")) == 3


def test_count_ends_tracing_and_writes_an_indexed_file(start, tmp_path: pathlib.Path) -> None:
    server = start("level=TIMESTAMPS", "rate=1")
    for _ in range(4):
        list(server.model("m").infer(inputs={"INPUT0": X}))
    assert server.update_trace_settings(settings={"trace_count": "2"})["trace_count"] == "2"
    for _ in range(5):
        list(server.model("m").infer(inputs={"INPUT0": X}))
    server.flush_traces()
    # The count's traces are in an indexed file as soon as they are all in.
    assert len(read_traces(tmp_path / "trace.json.0")) == 2
    assert server.get_trace_settings()["trace_count"] == "0"
    server.stop()
    # The four traced before the count was set are in the file itself.
    assert len(read_traces(tmp_path / "trace.json")) == 4


def test_log_frequency_rotates_the_files_of_a_model(start, tmp_path: pathlib.Path) -> None:
    server = start("level=TIMESTAMPS", "rate=1")
    settings = server.update_trace_settings("m", {"log_frequency": "2"})
    assert settings["log_frequency"] == "2"
    for _ in range(5):
        list(server.model("m").infer(inputs={"INPUT0": X}))
    server.flush_traces()
    assert len(read_traces(tmp_path / "trace.json.0")) == 2
    assert len(read_traces(tmp_path / "trace.json.1")) == 2
    assert not (tmp_path / "trace.json.2").exists()
    server.stop()
    # The last one is written when the server stops.
    assert len(read_traces(tmp_path / "trace.json.2")) == 1
    assert not (tmp_path / "trace.json").exists()


def test_ensemble_steps_are_child_traces(start, tmp_path: pathlib.Path) -> None:
    server = start("level=TIMESTAMPS", "rate=1")
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as http:
        infer_http(http.port, model="pipe")
    server.stop()
    traces = read_traces(tmp_path / "trace.json")
    assert len(traces) == 3
    parents = [t for t in traces.values() if t["header"]["model_name"] == "pipe"]
    assert len(parents) == 1
    parent = parents[0]
    assert "parent_id" not in parent["header"]
    names = [n for n, _ in parent["stamps"]]
    # An ensemble computes nothing of its own.
    assert names == ["HTTP_RECV_START", "HTTP_RECV_END", "REQUEST_START", "QUEUE_START",
                     "REQUEST_END", "INFER_RESPONSE_COMPLETE", "HTTP_SEND_START",
                     "HTTP_SEND_END"]
    steps = [t for t in traces.values() if t["header"]["model_name"] == "m"]
    assert len(steps) == 2
    for step in steps:
        assert step["header"]["parent_id"] == parent["header"]["id"]
        assert [n for n, _ in step["stamps"]] == CORE
        # A step runs within its ensemble's request.
        assert step["stamps"][0][1] >= parent["stamps"][2][1]
        assert step["stamps"][-1][1] <= parent["stamps"][4][1]


def test_tensors_level_records_inputs_and_outputs(start, tmp_path: pathlib.Path) -> None:
    server = start("level=TIMESTAMPS", "level=TENSORS", "rate=1")
    list(server.model("m").infer(inputs={"INPUT0": X}))
    server.stop()
    (trace,) = read_traces(tmp_path / "trace.json").values()
    by_activity = {t["activity"]: t["tensor"] for t in trace["tensors"]}
    assert by_activity["TENSOR_QUEUE_INPUT"] == {
        "name": "INPUT0", "data": "1,2,3,4", "shape": "4", "dtype": "FP32"}
    assert by_activity["TENSOR_BACKEND_OUTPUT"]["name"] == "OUTPUT0"
    assert by_activity["TENSOR_BACKEND_OUTPUT"]["data"] == "1,2,3,4"


def test_tracing_off_writes_nothing_until_turned_on(start, tmp_path: pathlib.Path) -> None:
    server = start()
    assert server.get_trace_settings()["trace_level"] == ["OFF"]
    for _ in range(3):
        list(server.model("m").infer(inputs={"INPUT0": X}))
    server.flush_traces()
    assert not (tmp_path / "trace.json").exists()
    server.update_trace_settings(settings={"trace_level": ["TIMESTAMPS"], "trace_rate": "1"})
    for _ in range(2):
        list(server.model("m").infer(inputs={"INPUT0": X}))
    server.stop()
    assert len(read_traces(tmp_path / "trace.json")) == 2


def test_a_model_may_turn_its_tracing_off(start, tmp_path: pathlib.Path) -> None:
    server = start("level=TIMESTAMPS", "rate=1")
    server.update_trace_settings("m", {"trace_level": ["OFF"]})
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as http:
        infer_http(http.port, n=2)
        infer_http(http.port, model="pipe")
    # Back to the global settings.
    assert server.update_trace_settings("m", {"trace_level": None})["trace_level"] == [
        "TIMESTAMPS"]
    server.stop()
    # The ensemble is traced, and its steps with it.
    models = sorted(t["header"]["model_name"] for t in read_traces(
        tmp_path / "trace.json").values())
    assert models == ["m", "m", "pipe"]


# -- settings over the protocols ---------------------------------------------------------

DEFAULT = {"trace_level": ["TIMESTAMPS"], "trace_rate": "1", "trace_count": "-1",
           "log_frequency": "0", "trace_mode": "triton"}


@pytest.fixture
def frontends(start, tmp_path: pathlib.Path) -> Iterator[tuple[Any, Any]]:
    server = start("level=TIMESTAMPS", "rate=1")
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as http, \
            KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0)) as grpc:
        h = httpclient.InferenceServerClient(f"127.0.0.1:{http.port}")
        g = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")
        yield h, g
        h.close()
        g.close()


def grpc_dict(client: Any, model: str = "", settings: Any = None) -> dict[str, Any]:
    if settings is None:
        reply = client.get_trace_settings(model_name=model, as_json=True)
    else:
        reply = client.update_trace_settings(model_name=model, settings=settings, as_json=True)
    out = {k: v.get("value", []) for k, v in reply["settings"].items()}
    return {k: v if k == "trace_level" else v[0] for k, v in out.items()}


def test_default_settings_over_both_protocols(frontends, tmp_path: pathlib.Path) -> None:
    h, g = frontends
    expected = dict(DEFAULT, trace_file=str(tmp_path / "trace.json"))
    assert h.get_trace_settings() == expected
    assert h.get_trace_settings(model_name="m") == expected
    assert grpc_dict(g) == expected
    assert grpc_dict(g, "m") == expected
    for call in (lambda: h.get_trace_settings(model_name="nope"),
                 lambda: g.get_trace_settings(model_name="nope")):
        with pytest.raises(InferenceServerException, match="Request for unknown model : nope"):
            call()


def test_updates_follow_tritons_rules(frontends) -> None:
    h, g = frontends
    with pytest.raises(InferenceServerException,
                       match="trace file location can not be updated through network protocol"
                       ) as error:
        h.update_trace_settings(model_name="m", settings={"trace_file": "model.log"})
    assert error.value.status() == "501"
    with pytest.raises(InferenceServerException, match="trace file location"):
        g.update_trace_settings(settings={"trace_file": "model.log"})
    assert h.get_trace_settings(model_name="m")["trace_rate"] == "1"

    both = h.update_trace_settings(settings={"trace_level": ["TIMESTAMPS", "TENSORS"]})
    assert both["trace_level"] == ["TIMESTAMPS", "TENSORS"]
    # The model follows the global settings it does not set.
    assert h.get_trace_settings(model_name="m")["trace_level"] == ["TIMESTAMPS", "TENSORS"]

    with pytest.raises(InferenceServerException,
                       match="Expect only one trace level 'OFF' is specified") as error:
        h.update_trace_settings(settings={"trace_level": ["OFF", "TIMESTAMPS"]})
    assert error.value.status() == "400"
    with pytest.raises(InferenceServerException,
                       match=r"Unable to parse 'trace_rate', value is out of range"):
        g.update_trace_settings(settings={"trace_rate": "10000000000"})
    with pytest.raises(InferenceServerException, match="Unable to parse 'trace_count'"):
        h.update_trace_settings(settings={"trace_count": "-5"})
    with pytest.raises(InferenceServerException, match="non-string as string") as error:
        h.update_trace_settings(settings={"trace_rate": 5})
    assert error.value.status() == "500"
    with pytest.raises(InferenceServerException, match="Request for unknown model : nope"):
        g.update_trace_settings(model_name="nope", settings={"trace_rate": "2"})


def test_clearing_returns_to_the_global_and_to_the_start(frontends) -> None:
    h, g = frontends
    h.update_trace_settings(model_name="m", settings={"trace_rate": "12", "log_frequency": "34"})
    h.update_trace_settings(settings={"trace_rate": "56", "trace_count": "78",
                                      "trace_level": ["OFF"]})
    cleared = grpc_dict(g, "", {"trace_rate": None, "trace_count": None})
    assert (cleared["trace_level"], cleared["trace_rate"], cleared["trace_count"],
            cleared["log_frequency"]) == (["OFF"], "1", "-1", "0")
    model = h.get_trace_settings(model_name="m")
    assert (model["trace_level"], model["trace_rate"], model["trace_count"],
            model["log_frequency"]) == (["OFF"], "12", "-1", "34")
    model = h.update_trace_settings(model_name="m",
                                    settings={"trace_rate": None, "trace_level": None})
    assert (model["trace_level"], model["trace_rate"], model["trace_count"],
            model["log_frequency"]) == (["OFF"], "1", "-1", "34")
    assert h.get_trace_settings()["trace_rate"] == "1"


def test_settings_that_cannot_trace_are_refused(start, tmp_path: pathlib.Path,
                                                repository: pathlib.Path,
                                                make_server) -> None:
    server = make_server(model_repository=str(repository))
    assert server.get_trace_settings() == dict(DEFAULT, trace_level=["OFF"], trace_rate="1000",
                                               trace_file="")
    with pytest.raises(conch.InvalidArgumentError,
                       match="Attempting to set invalid trace setting :trace file name is not "
                             "given"):
        server.update_trace_settings(settings={"trace_level": ["TIMESTAMPS"]})
    with pytest.raises(conch.InvalidArgumentError, match="must be a str, a list of str or None"):
        server.update_trace_settings(settings={"trace_rate": 5})


def test_bad_trace_config_fails_start_with_tritons_message(repository: pathlib.Path) -> None:
    with pytest.raises(conch.InvalidArgumentError,
                       match="invalid value for trace level option: loud"):
        conch.Server(model_repository=str(repository),
                     trace_config=["level=LOUD"]).start(wait_until_ready=True)


BLS_CONFIG = """
backend: "python"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ -1 ] } ]
"""

BLS_MODEL = '''
import json
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
            inputs = [pb_utils.Tensor("INPUT0", x)]
            # Traced: passes its request's trace on.
            traced = pb_utils.InferenceRequest(
                model_name="m", inputs=inputs, requested_output_names=["OUTPUT0"],
                trace=request.trace()).exec()
            # Not traced, as in Triton: no trace given.
            pb_utils.InferenceRequest(
                model_name="m", inputs=inputs, requested_output_names=["OUTPUT0"]).exec()
            context = json.loads(request.trace().get_context())
            assert context["traceparent"].startswith("00-"), context
            y = pb_utils.get_output_tensor_by_name(traced, "OUTPUT0").as_numpy()
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", y)]))
        return responses
'''


def test_bls_requests_given_the_trace_are_child_traces(start, tmp_path: pathlib.Path,
                                                      repository: pathlib.Path) -> None:
    model = write_model(repository, "bls", BLS_CONFIG)
    (model / "1" / "model.py").write_text(BLS_MODEL)
    server = start("level=TIMESTAMPS", "rate=1")
    server.update_trace_settings("m", {"trace_level": ["OFF"]})
    list(server.model("bls").infer(inputs={"X": X}))
    server.stop()
    traces = read_traces(tmp_path / "trace.json")
    by_model = defaultdict(list)
    for t in traces.values():
        by_model[t["header"]["model_name"]].append(t)
    assert len(by_model["bls"]) == 1 and len(by_model["m"]) == 1
    parent, child = by_model["bls"][0], by_model["m"][0]
    assert child["header"]["parent_id"] == parent["header"]["id"]
    assert [n for n, _ in child["stamps"]] == CORE
