"""BLS (pb_utils.InferenceRequest.exec / async_exec), async execute and the
decoupled helpers of the python backend, with the models of
python/tests/bls_models: in process, over tritonclient HTTP and gRPC, and
across a stop."""

from __future__ import annotations

import json
import pathlib
import sys
import threading
import time
import types
from typing import Iterator

import numpy
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

import conch
from conch.frontend import KServeGrpc, KServeHttp

MODELS = pathlib.Path(__file__).resolve().parent / "bls_models"
A = numpy.array([1, 2, 3, 4], dtype=numpy.float32)
B = numpy.array([4, 3, 2, 1], dtype=numpy.float32)


def start(*models: str) -> conch.Server:
    return conch.Server(
        model_repository=str(MODELS),
        model_control_mode=conch.ModelControlMode.EXPLICIT,
        startup_models=list(models),
        exit_timeout=20,
    ).start(wait_until_ready=True)


@pytest.fixture(scope="module")
def server() -> Iterator[conch.Server]:
    server = start("add_sub", "mul_div", "bls_sync", "bls_async", "square_int32",
                   "bls_decoupled_sync", "bls_decoupled_async", "async_rendezvous", "forgetful", "echo_fp32",
                   "zero_copy")
    yield server
    server.stop()


def name_tensor(name: str) -> numpy.ndarray:
    return numpy.array([name.encode()], dtype=numpy.object_)


def only(responses: conch.ResponseIterator) -> conch.InferenceResponse:
    out = list(responses)
    assert len(out) == 1
    return out[0]


def outputs(response: conch.InferenceResponse) -> list:
    return [numpy.from_dlpack(response.outputs[n]).tolist() for n in ("OUTPUT0", "OUTPUT1")]


def executions(server: conch.Server, model: str) -> int:
    stats = server.model(model).statistics()["model_stats"][0]
    return stats["inference_count"]


# -- exec ----------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["add_sub", "mul_div"])
def test_exec_runs_the_named_model(server: conch.Server, target: str) -> None:
    response = only(server.model("bls_sync").infer(
        inputs={"MODEL_NAME": name_tensor(target), "INPUT0": A, "INPUT1": B}))
    expected = [A + B, A - B] if target == "add_sub" else [A * B, A / B]
    assert outputs(response) == [e.tolist() for e in expected]


def test_bls_requests_count_in_the_called_models_statistics(server: conch.Server) -> None:
    before = executions(server, "add_sub")
    for _ in range(3):
        only(server.model("bls_sync").infer(
            inputs={"MODEL_NAME": name_tensor("add_sub"), "INPUT0": A, "INPUT1": B}))
    assert executions(server, "add_sub") == before + 3


def test_an_unknown_model_comes_back_as_an_error_response(server: conch.Server) -> None:
    with pytest.raises(conch.NotFoundError, match="nowhere"):
        only(server.model("bls_sync").infer(
            inputs={"MODEL_NAME": name_tensor("nowhere"), "INPUT0": A, "INPUT1": B}))


def test_invalid_bls_inputs_are_the_called_models_error(server: conch.Server) -> None:
    # square_int32 takes IN: the BLS request's INPUT0 and INPUT1 are refused
    # by its validation, as a client's would be.
    with pytest.raises(conch.InvalidArgumentError):
        only(server.model("bls_sync").infer(
            inputs={"MODEL_NAME": name_tensor("square_int32"), "INPUT0": A, "INPUT1": B}))
    # The server goes on.
    response = only(server.model("bls_sync").infer(
        inputs={"MODEL_NAME": name_tensor("add_sub"), "INPUT0": A, "INPUT1": B}))
    assert outputs(response)[0] == (A + B).tolist()


def test_bls_tensors_pass_without_a_copy(server: conch.Server) -> None:
    x = numpy.arange(1024, dtype=numpy.float32)
    response = only(server.model("zero_copy").infer(inputs={"X": x}))
    assert numpy.from_dlpack(response.outputs["SAME"]).tolist() == [True]


def test_concurrent_callers_share_the_called_models_instance(server: conch.Server) -> None:
    # add_sub has one instance: eight callers at once queue for it, each on
    # its own thread, and every answer is right.
    results: list = [None] * 8
    def call(i: int) -> None:
        a = A + i
        r = only(server.model("bls_sync").infer(
            inputs={"MODEL_NAME": name_tensor("add_sub"), "INPUT0": a, "INPUT1": B}))
        results[i] = outputs(r)[0] == (a + B).tolist()
    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert results == [True] * 8


# -- async execute and async_exec ----------------------------------------------------


def test_async_execute_awaits_two_bls_requests(server: conch.Server) -> None:
    response = only(server.model("bls_async").infer(inputs={"INPUT0": A, "INPUT1": B}))
    assert outputs(response) == [((A + B) + (A * B)).tolist(), ((A - B) + (A / B)).tolist()]


def test_a_decoupled_async_model_runs_its_requests_side_by_side(server: conch.Server) -> None:
    model = server.model("async_rendezvous")
    waiting = model.infer(inputs={"ROLE": name_tensor("wait")})
    setting = model.infer(inputs={"ROLE": name_tensor("set")})
    for responses, role in ((setting, b"set"), (waiting, b"wait")):
        got = [r for r in responses if r.outputs]
        assert [r.outputs["DONE"].to_bytes_array()[0] for r in got] == [role]


# -- decoupled BLS ---------------------------------------------------------------------


@pytest.mark.parametrize("model", ["bls_decoupled_sync", "bls_decoupled_async"])
def test_exec_decoupled_iterates_every_response(server: conch.Server, model: str) -> None:
    for n in (0, 1, 4):
        response = only(server.model(model).infer(
            inputs={"IN": numpy.array([n], dtype=numpy.int32)}))
        assert numpy.from_dlpack(response.outputs["SUM"]).tolist() == [n * n]
        # n responses, then the empty final one.
        assert numpy.from_dlpack(response.outputs["COUNT"]).tolist() == [n + 1]


def test_a_request_the_model_lets_go_of_unfinished_fails(server: conch.Server) -> None:
    # forgetful sends one response and drops its sender: the request ends
    # with an error instead of waiting for ever (a BLS caller would too).
    responses = server.model("forgetful").infer(inputs={"IN": numpy.array([3], numpy.int32)},
                                                raise_on_error=False)
    got = list(responses)
    assert numpy.from_dlpack(got[0].outputs["OUT"]).tolist() == [3]
    assert got[-1].final and "without sending its final response" in str(got[-1].error)


# -- over the network ------------------------------------------------------------------


def test_tritonclient_http_and_grpc(server: conch.Server) -> None:
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=2)) as http, \
            KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0)) as grpc:
        for module, port in ((httpclient, http.port), (grpcclient, grpc.port)):
            client = module.InferenceServerClient(f"127.0.0.1:{port}")
            inputs = [module.InferInput("MODEL_NAME", [1], "BYTES"),
                      module.InferInput("INPUT0", [4], "FP32"),
                      module.InferInput("INPUT1", [4], "FP32")]
            inputs[0].set_data_from_numpy(name_tensor("add_sub"))
            inputs[1].set_data_from_numpy(A)
            inputs[2].set_data_from_numpy(B)
            result = client.infer("bls_sync", inputs)
            assert result.as_numpy("OUTPUT0").tolist() == (A + B).tolist()
            assert result.as_numpy("OUTPUT1").tolist() == (A - B).tolist()
            inputs[0].set_data_from_numpy(name_tensor("nowhere"))
            with pytest.raises(InferenceServerException, match="nowhere") as error:
                client.infer("bls_sync", inputs)
            # The model answered with the BLS response's error, NOT_FOUND:
            # HTTP 404, gRPC NOT_FOUND, as Triton maps the code.
            assert error.value.status() in ("404", "StatusCode.NOT_FOUND")
            client.close()


def test_decoupled_square_over_a_grpc_stream(server: conch.Server) -> None:
    # What upstream's square client checks: per request id, IN responses of
    # OUT == IN, in any order across ids, and nothing at all for IN = 0
    # (no empty final response unless the request asks for it).
    import queue

    with KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0)) as grpc:
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")
        results: queue.Queue = queue.Queue()
        client.start_stream(callback=lambda result, error: results.put((result, error)))
        values = [4, 2, 0, 1]
        for i, n in enumerate(values):
            tensor = grpcclient.InferInput("IN", [1], "INT32")
            tensor.set_data_from_numpy(numpy.array([n], dtype=numpy.int32))
            client.async_stream_infer("square_int32", [tensor], request_id=str(i),
                                      outputs=[grpcclient.InferRequestedOutput("OUT")])
        got: dict = {}
        for _ in range(sum(values)):
            result, error = results.get(timeout=30)
            assert error is None, error
            got.setdefault(result.get_response().id, []).append(int(result.as_numpy("OUT")[0]))
        client.stop_stream()
        assert results.empty()
        client.close()
    assert got == {"0": [4] * 4, "1": [2] * 2, "3": [1]}


# -- stopping --------------------------------------------------------------------------


@pytest.fixture
def gate() -> Iterator[types.SimpleNamespace]:
    """What chain_c and bls_later read: chain_c reports its request and waits
    for `open`; bls_later records the response of its late BLS request."""
    g = types.SimpleNamespace(arrived=threading.Event(), open=threading.Event(), later=[])
    sys.modules["bls_test_gate"] = g  # type: ignore[assignment]
    yield g
    g.open.set()
    del sys.modules["bls_test_gate"]


def test_a_stop_drains_a_bls_chain_of_three_models(gate: types.SimpleNamespace) -> None:
    server = start("chain_a", "chain_b", "chain_c")
    responses = server.model("chain_a").infer(inputs={"X": numpy.array([5], dtype=numpy.int32)})
    assert gate.arrived.wait(30)
    stopping = threading.Thread(target=server.stop)
    stopping.start()
    while True:  # the stop has begun once the server is not ready (or gone)
        try:
            if not server.ready():
                break
        except conch.InvalidArgumentError:
            break
    gate.open.set()
    response = only(responses)
    assert numpy.from_dlpack(response.outputs["Y"]).tolist() == [8]
    stopping.join(30)
    assert not stopping.is_alive()


def test_a_bls_request_that_no_request_needs_is_refused_once_the_server_stops(
    gate: types.SimpleNamespace,
) -> None:
    gate.open.set()
    server = start("bls_later", "chain_c")
    response = only(server.model("bls_later").infer(inputs={"X": numpy.array([2], numpy.int32)}))
    assert numpy.from_dlpack(response.outputs["Y"]).tolist() == [2]
    server.stop()  # bls_later's finalize() sends its BLS request now
    assert len(gate.later) == 1
    error = gate.later[0].error()
    assert error is not None and "stopping" in error.message()
    import triton_python_backend_utils as pb_utils

    assert error.code() == pb_utils.TritonError.UNAVAILABLE


def test_decoupled_policy_helper() -> None:
    import triton_python_backend_utils as pb_utils

    config = json.loads('{"model_transaction_policy": {"decoupled": true}}')
    assert pb_utils.using_decoupled_model_transaction_policy(config)
    assert not pb_utils.using_decoupled_model_transaction_policy({})


# -- pb_utils.MetricFamily -------------------------------------------------------------


def test_model_metrics_are_exported_shared_and_removed_on_unload() -> None:
    server = start("custom_metrics")
    try:
        for i in range(6):
            only(server.model("custom_metrics").infer(inputs={"INPUT0": A * (i + 1), "INPUT1": B}))
        text = server.metrics()
        assert "# HELP bls_test_requests Requests executed" in text
        assert "# TYPE bls_test_requests counter" in text
        # Three instances made the family: one series, every request counted.
        assert 'bls_test_requests{model="custom_metrics",version="1"} 6' in text
        assert "# TYPE bls_test_first_value histogram" in text
        # First values 1..6: one at or below 1, all six at or below 10.
        assert 'bls_test_first_value_bucket{model="custom_metrics",version="1",le="1"} 1' in text
        assert 'bls_test_first_value_bucket{model="custom_metrics",version="1",le="10"} 6' in text
        assert 'bls_test_first_value_count{model="custom_metrics",version="1"} 6' in text
        server.unload("custom_metrics")
        import gc

        gc.collect()
        assert "bls_test_requests" not in server.metrics()
    finally:
        server.stop()


def test_metric_operations_follow_tritons_rules() -> None:
    import triton_python_backend_utils as pb_utils

    counter_family = pb_utils.MetricFamily("bls_test_counter", "c", pb_utils.MetricFamily.COUNTER)
    counter = counter_family.Metric(labels={"k": "v"})
    counter.increment(2)
    # The same name and kind is the same family; equal labels, the same series.
    again = pb_utils.MetricFamily("bls_test_counter", "other", pb_utils.MetricFamily.COUNTER)
    assert again.Metric(labels={"k": "v"}).value() == 2
    with pytest.raises(pb_utils.TritonModelException, match="monotonically"):
        counter.increment(-1)
    with pytest.raises(pb_utils.TritonModelException, match="COUNTER does not support Set"):
        counter.set(1)
    with pytest.raises(pb_utils.TritonModelException, match="COUNTER does not support Observe"):
        counter.observe(1)
    with pytest.raises(pb_utils.TritonModelException):
        pb_utils.MetricFamily("bls_test_counter", "c", pb_utils.MetricFamily.GAUGE)

    gauges = pb_utils.MetricFamily("bls_test_gauge", "g", pb_utils.MetricFamily.GAUGE)
    gauge = gauges.Metric()
    gauge.set(5)
    gauge.increment(-2)
    assert gauge.value() == 3

    histograms = pb_utils.MetricFamily("bls_test_hist", "h", pb_utils.MetricFamily.HISTOGRAM)
    with pytest.raises(pb_utils.TritonModelException, match="Missing required buckets"):
        histograms.Metric(labels={})
    with pytest.raises(pb_utils.TritonModelException, match="Buckets must be a list"):
        histograms.Metric(labels={}, buckets=(1, 2))
    for bad in ([2.5, 0.1], [1, 1, 2]):
        with pytest.raises(pb_utils.TritonModelException):
            histograms.Metric(labels={"b": str(bad)}, buckets=bad)
    with pytest.raises(pb_utils.TritonModelException, match="Unexpected buckets found"):
        counter_family.Metric(labels={}, buckets=[1.0])
    histogram = histograms.Metric(labels={}, buckets=[0.1, 1, 10])
    histogram.observe(0.5)
    with pytest.raises(pb_utils.TritonModelException, match="HISTOGRAM does not support Value"):
        histogram.value()

    # As in Triton, a metric outlives its family object only to be refused.
    orphan = pb_utils.MetricFamily("bls_test_orphan", "o", pb_utils.MetricFamily.GAUGE).Metric()
    with pytest.raises(pb_utils.TritonModelException, match="has been deleted"):
        orphan.set(1)


# -- the model loading API -------------------------------------------------------------


def test_a_model_loads_and_unloads_another() -> None:
    server = start("loader")

    def run(action: str, name: str) -> str:
        response = only(server.model("loader").infer(
            inputs={"ACTION": name_tensor(action), "NAME": name_tensor(name)}))
        return response.outputs["RESULT"].to_bytes_array()[0].decode()

    try:
        assert run("ready", "add_sub") == "not ready"
        assert run("load", "add_sub") == "ready"
        assert server.model("add_sub").ready()
        assert run("unload", "add_sub") == "not ready"  # at once, as Triton's QA checks
        deadline = time.monotonic() + 30
        while server.model("add_sub").ready() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not server.model("add_sub").ready()
        assert run("ready", "add_sub") == "not ready"
        assert "Failed to load model 'nowhere'" in run("load", "nowhere")
        assert "cannot load itself" in run("load", "loader")
    finally:
        server.stop()


# -- request rescheduling (iterative sequences) ----------------------------------------


def test_iterative_requests_are_rescheduled_until_done() -> None:
    server = start("iterative_count", "iterative_stream", "reschedule_plain", "late_reschedule",
                   "reschedule_answered")
    try:
        model = server.model("iterative_count")
        # Six requests at once, needing 1 to 6 runs: each is answered after
        # exactly its runs, and requests at different runs share batches.
        pending = [model.infer(inputs={"N": numpy.array([[n]], numpy.int32)}, request_id=f"r{n}")
                   for n in range(1, 7)]
        batches = []
        for n, responses in zip(range(1, 7), pending):
            response = only(responses)
            assert numpy.from_dlpack(response.outputs["RUNS"]).tolist() == [[n]]
            batches.append(numpy.from_dlpack(response.outputs["MAX_BATCH"]).tolist()[0][0])
        assert max(batches) > 1
        steps = [numpy.from_dlpack(r.outputs["STEP"]).tolist()[0]
                 for r in server.model("iterative_stream").infer(
                     inputs={"N": numpy.array([4], numpy.int32)}, request_id="s")]
        assert steps == [1, 2, 3, 4]
        # A model without iterative sequences cannot reschedule: the request
        # fails with Triton's text, and the model goes on serving.
        with pytest.raises(conch.InternalError,
                           match="Request is released with TRITONSERVER_REQUEST_RELEASE_RESCHEDULE"):
            only(server.model("reschedule_plain").infer(inputs={"N": numpy.array([2], numpy.int32)}))
        # A rescheduled request's place in execute()'s list must be None.
        with pytest.raises(conch.InternalError,
                           match="Expected a None object in the execute function return list "
                                 "for reschduled request, found type 'InferenceResponse'"):
            only(server.model("reschedule_answered").infer(
                inputs={"N": numpy.array([1], numpy.int32)}))
        # Only before the execute() that got the request returns.
        model = server.model("late_reschedule")
        first = model.infer(inputs={"N": numpy.array([1], numpy.int32)})
        second = model.infer(inputs={"N": numpy.array([1], numpy.int32)})
        texts = [[r.outputs["ERROR"].to_bytes_array()[0].decode() for r in rs if r.outputs]
                 for rs in (first, second)]
        assert "can only be rescheduled before" in texts[0][0], texts
        assert texts[1] == ["second"]
    finally:
        server.stop()


def test_request_arguments_and_iteration_follow_triton() -> None:
    import triton_python_backend_utils as pb_utils
    from conch._backend import pb_bls

    with pytest.raises(pb_utils.TritonModelException, match="Correlation ID"):
        pb_utils.InferenceRequest(model_name="m", inputs=[], requested_output_names=[],
                                  correlation_id=1.5)
    for bad in ({"timeout": -1}, {"flags": -2}):
        with pytest.raises(pb_utils.TritonModelException, match=">= 0"):
            pb_utils.InferenceRequest(model_name="m", inputs=[], requested_output_names=[], **bad)
    # A finished iterator iterated again starts over from the first response.
    first, last = pb_utils.InferenceResponse(), pb_utils.InferenceResponse()
    first._final = False
    iterator = pb_bls.InferenceResponseIterator(None, first)
    iterator._pending.append(last)
    iterator._done = True
    assert list(iterator) == [first, last]
    assert list(iterator) == [first, last]
