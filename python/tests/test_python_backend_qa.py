"""What Triton's QA suites expect of a python-backend model, checked with
models in the style of theirs (qa_models/): the command line a model sees,
the Logger's names, the TypeErrors of wrongly typed arguments, the response
sender's rules, and the texts of a model's failures."""

from __future__ import annotations

import json
import pathlib
import queue
import shutil
from typing import Iterator

import numpy
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

import conch
from test_serve import DEADLINE_S, GRPC, LISTENING, Serve

QA_MODELS = pathlib.Path(__file__).parent / "qa_models"


@pytest.fixture(scope="module")
def qa_server() -> Iterator[conch.Server]:
    server = conch.Server(
        model_repository=str(QA_MODELS), model_control_mode=conch.ModelControlMode.EXPLICIT,
        startup_models=["decoupled_execute_error", "response_sender", "execute_raises",
                        "decoupled_returns", "response_parameters", "batch_errors"],
        exit_timeout=10,
    ).start(wait_until_ready=True)
    yield server
    server.stop()


def _grpc_stream(port: int, model: str, requests: list[list]) -> list:
    """Sends `requests` (lists of InferInput) on one gRPC stream and collects
    (result, error) pairs until every request got its last response."""
    answers: "queue.Queue" = queue.Queue()
    client = grpcclient.InferenceServerClient(f"localhost:{port}")
    try:
        client.start_stream(callback=lambda result, error: answers.put((result, error)))
        for i, inputs in enumerate(requests):
            client.async_stream_infer(model, inputs, request_id=str(i),
                                      enable_empty_final_response=True)
        got = []
        finals = 0
        while finals < len(requests):
            result, error = answers.get(timeout=DEADLINE_S)
            got.append((result, error))
            if error is not None:
                finals += 1
            elif result.get_response().parameters["triton_final_response"].bool_param:
                finals += 1
        client.stop_stream()
    finally:
        client.close()
    return got


def _fp32(name: str, values: list[float]) -> grpcclient.InferInput:
    tensor = grpcclient.InferInput(name, [len(values)], "FP32")
    tensor.set_data_from_numpy(numpy.array(values, dtype=numpy.float32))
    return tensor


def test_a_model_sees_tritons_command_line_and_api_under_conch_serve(tmp_path) -> None:
    """unittest.main() in execute() parses sys.argv, [''] as in Triton's stub;
    the argument checks and Logger names match Triton's bindings."""
    repository = tmp_path / "models"
    shutil.copytree(QA_MODELS / "python_unittest", repository / "python_unittest")
    process = Serve("--model-repository", str(repository), "--http-port", "0",
                    "--exit-timeout-secs", "10", "--log-verbose", "1")
    try:
        port = int(process.wait_for(LISTENING).group(1))
        import tritonclient.http as httpclient

        client = httpclient.InferenceServerClient(f"localhost:{port}")
        try:
            result = client.infer("python_unittest", [])
            assert result.as_numpy("OUTPUT0").tolist() == [True], process.seen
        finally:
            client.close()
        process.process.terminate()
        assert process.process.wait(timeout=DEADLINE_S) == 0
        lines = "\n".join(process.rest())
        for message in ("Specific Msg!", "Default Msg!", "Info Msg!", "Warning Msg!",
                        "Error Msg!", "Verbose Msg!"):
            assert message in lines
    finally:
        process.kill()


def test_an_error_response_then_the_final_flag_on_a_stream(qa_server: conch.Server) -> None:
    from conch.frontend import KServeGrpc

    with KServeGrpc(qa_server, KServeGrpc.Options(port=0)) as grpc:
        got = _grpc_stream(grpc.port, "decoupled_execute_error",
                           [[_fp32("IN", [-1.0])], [_fp32("IN", [2.0])], [_fp32("IN", [3.0])]])
    errors = [e for _, e in got if e is not None]
    assert len(errors) == 1 and "An error occured during execution" in errors[0].message()
    values = sorted(float(r.as_numpy("OUT")[0]) for r, e in got
                    if e is None and r.as_numpy("OUT") is not None)
    assert values == [2.0, 3.0]
    # The model's thread lived on: it answers the next request too.
    answer = list(qa_server.model("decoupled_execute_error").infer(
        inputs={"IN": numpy.array([5], dtype=numpy.float32)}))
    assert numpy.from_dlpack(answer[0].outputs["OUT"]).tolist() == [5.0]


def _sender_inputs(before: int = 0, final_before: bool = False, returned: bool = False,
                   after: int = 0, final_after: bool = False) -> dict:
    return {"BEFORE": numpy.array([before], numpy.uint8),
            "FINAL_BEFORE": numpy.array([final_before]),
            "RETURN": numpy.array([returned]),
            "AFTER": numpy.array([after], numpy.uint8),
            "FINAL_AFTER": numpy.array([final_after])}


def _indexes(server: conch.Server, **case: object) -> list[int]:
    responses = server.model("response_sender").infer(inputs=_sender_inputs(**case))
    return [int(numpy.from_dlpack(r.outputs["INDEX"])[0]) for r in responses if r.outputs]


@pytest.mark.parametrize("case,expected", [
    (dict(returned=True), [0]),
    (dict(before=1, final_before=True), [1000]),
    (dict(before=1), [1000]),  # no final flag: the one response is the answer
    (dict(after=1, final_after=True), [2000]),
    (dict(after=1), [2000]),
    (dict(before=1, final_before=True, returned=True), [1000]),
    # The thread may send before or after execute() returned: the first
    # answers, the other is refused.
    (dict(returned=True, after=1, final_after=True), [[0], [2000]]),
    (dict(before=2, final_before=True), [1000]),
])
def test_a_model_that_is_not_decoupled_answers_once_through_its_sender(
        qa_server: conch.Server, case: dict, expected: list) -> None:
    got = _indexes(qa_server, **case)
    assert got in expected if isinstance(expected[0], list) else got == expected


def test_complete_final_before_any_response_is_refused(qa_server: conch.Server) -> None:
    with pytest.raises(conch.InternalError) as caught:
        _indexes(qa_server, final_before=True)
    assert "Non-decoupled model cannot send complete final before sending a response" \
        in str(caught.value)


def test_a_sent_response_is_the_only_one_on_a_grpc_stream(qa_server: conch.Server) -> None:
    from conch.frontend import KServeGrpc

    def inputs(**case: object) -> list:
        out = []
        for name, value in _sender_inputs(**case).items():
            tensor = grpcclient.InferInput(name, [1], "BOOL" if value.dtype == bool else "UINT8")
            tensor.set_data_from_numpy(value)
            out.append(tensor)
        return out

    answers: "queue.Queue" = queue.Queue()
    with KServeGrpc(qa_server, KServeGrpc.Options(port=0)) as grpc:
        client = grpcclient.InferenceServerClient(f"localhost:{grpc.port}")
        try:
            client.start_stream(callback=lambda result, error: answers.put((result, error)))
            client.async_stream_infer("response_sender", inputs(before=1, final_before=True),
                                      request_id="sent")
            client.async_stream_infer("response_sender", inputs(returned=True),
                                      request_id="returned")
            got = [answers.get(timeout=DEADLINE_S) for _ in range(2)]
            client.stop_stream()  # waits for whatever else the server sent
        finally:
            client.close()
    assert answers.empty()
    assert [(r.get_response().id, int(r.as_numpy("INDEX")[0])) for r, _ in got] == [
        ("sent", 1000), ("returned", 0)]


def test_a_stream_answers_a_batch_with_failures_in_request_order(
        qa_server: conch.Server) -> None:
    """Triton writes a non-decoupled model's answers on a stream in the order
    of the requests, whichever the model answered first and whether a
    request failed its checks, failed in the model or succeeded."""
    from conch.frontend import KServeGrpc

    def case(i: int) -> str:
        return "invalid" if i % 5 == 4 else "fails" if i % 3 == 2 else "ok"

    requests = []
    for i in range(40):
        if case(i) == "invalid":  # the wrong type: refused before the model
            tensor = grpcclient.InferInput("IN", [1, 1], "INT32")
            tensor.set_data_from_numpy(numpy.array([[i]], dtype=numpy.int32))
        else:
            value = -float(i) if case(i) == "fails" else float(i)
            tensor = grpcclient.InferInput("IN", [1, 1], "FP32")
            tensor.set_data_from_numpy(numpy.array([[value]], dtype=numpy.float32))
        requests.append([tensor])
    with KServeGrpc(qa_server, KServeGrpc.Options(port=0)) as grpc:
        got = _grpc_stream(grpc.port, "batch_errors", requests)
    assert len(got) == len(requests)
    for i, (result, error) in enumerate(got):
        if case(i) == "ok":
            assert error is None, (i, error)
            assert result.get_response().id == str(i)
            assert float(result.as_numpy("OUT")[0][0]) == i
        elif case(i) == "fails":
            assert result is None and f"negative input -{i}.0" in str(error), (i, error)
        else:
            assert result is None and "INT32" in str(error), (i, error)


def test_execute_failures_have_tritons_texts(qa_server: conch.Server) -> None:
    model = qa_server.model("execute_raises")
    instance = "execute_raises_0"  # a model without instance_group: one group named as the model

    def error_of(how: int) -> str:
        with pytest.raises(conch.InternalError) as caught:
            list(model.infer(inputs={"IN": numpy.array([how], dtype=numpy.float32)}))
        return str(caught.value)

    prefix = f"Failed to process the request(s) for model '{instance}', message: "
    assert error_of(0).startswith(prefix + "Exception: Intentional Error")
    assert error_of(1).startswith(
        prefix + "Expected a list in the execute return, found type '<class 'str'>'.")
    assert error_of(2).startswith(
        prefix + "Number of InferenceResponse objects do not match the number of "
                 "InferenceRequest objects. InferenceRequest(s) size is:1, and "
                 "InferenceResponse(s) size is:0")
    assert error_of(3).startswith(
        prefix + "Expected an 'InferenceResponse' object in the execute function return "
                 "list, found type '<class 'str'>'.")
    with pytest.raises(conch.InternalError) as caught:
        list(qa_server.model("decoupled_returns").infer(
            inputs={"IN": numpy.array([1], dtype=numpy.float32)}))
    assert str(caught.value).startswith(
        "Failed to process the request(s) for model 'decoupled_returns_0', message: Python "
        "model 'decoupled_returns_0' is using the decoupled mode and the execute function "
        "must return None.")


def test_a_missing_model_file_has_tritons_text(qa_server: conch.Server) -> None:
    with pytest.raises(conch.TritonError) as caught:
        qa_server.load("no_model_file")
    path = QA_MODELS / "no_model_file" / "1" / "model.py"
    assert f"Python model file not found in '{path}'" in str(caught.value)


@pytest.mark.parametrize("params,error", [
    ({}, None),
    ({"many_elements": False}, None),
    ({"bool": True, "str": "Hello World!", "int": 1024}, None),
    ([], ", got <class 'list'>"),
    ({"1": "int key"}, "Expect parameters keys to have type str, found type <class 'int'>"),
    ({"int": 2, "float": 0.5},
     "Expect parameters values to have type bool/int/str, found type <class 'float'>"),
    ({"bool": True, "null": None},
     "Expect parameters values to have type bool/int/str, found type <class 'NoneType'>"),
    ({"str": "", "list": ["variable"]},
     "Expect parameters values to have type bool/int/str, found type <class 'list'>"),
    ({"nested": {"a": 1}},
     "Expect parameters values to have type bool/int/str, found type <class 'dict'>"),
])
def test_response_parameters_are_checked_as_triton_checks_them(
        qa_server: conch.Server, params: object, error: str) -> None:
    text = json.dumps(params)
    responses = qa_server.model("response_parameters").infer(
        inputs={"PARAMS": numpy.array([text], dtype=numpy.object_)})
    if error is None:
        (response,) = list(responses)
        assert response.parameters == params
        return
    with pytest.raises(conch.InvalidArgumentError) as caught:
        list(responses)
    assert error in str(caught.value)


def test_python_based_backends_come_from_the_backend_directory(tmp_path, make_server) -> None:
    """backend: "add_sub" is <backend_directory>/add_sub/model.py (before
    Conch's built-in add_sub), for every model that names it."""
    for name, operation, versions in (("add", "add", (1, 2)), ("sub", "sub", (1,))):
        for version in versions:
            folder = tmp_path / name / str(version)
            folder.mkdir(parents=True)
            (folder / "model.json").write_text(json.dumps({"operation": operation}))
        (tmp_path / name / "config.pbtxt").write_text(
            'backend: "add_sub"\nversion_policy { all {} }\n')
    server = make_server(backend_directory=str(pathlib.Path(__file__).parent / "qa_backends"),
                         model_control_mode=conch.ModelControlMode.EXPLICIT,
                         startup_models=["add", "sub"])
    a = numpy.array([1, 2, 3, 4], dtype=numpy.float32)
    b = numpy.array([10, 20, 30, 40], dtype=numpy.float32)
    for name, expected in (("add", a + b), ("sub", a - b)):
        (response,) = list(server.model(name).infer(inputs={"INPUT0": a, "INPUT1": b}))
        assert numpy.from_dlpack(response.outputs["OUTPUT"]).tolist() == expected.tolist()
    (response,) = list(server.model("add", 1).infer(inputs={"INPUT0": a, "INPUT1": b}))
    assert numpy.from_dlpack(response.outputs["OUTPUT"]).tolist() == (a + b).tolist()
    # A configuration (a load's override is client input) cannot name a
    # backend outside the directory.
    (tmp_path / "escape" / "1").mkdir(parents=True)
    (tmp_path / "escape" / "config.pbtxt").write_text(
        'backend: "../qa_backends/add_sub"\n')
    with pytest.raises(conch.TritonError, match="unable to find backend"):
        server.load("escape")


def test_a_wildcard_startup_model_must_be_the_only_one(tmp_path) -> None:
    with pytest.raises(conch.InvalidArgumentError,
                       match=r"Wildcard model name '\*' must be the ONLY startup model"):
        conch.Server(model_repository=str(tmp_path),
                     model_control_mode=conch.ModelControlMode.EXPLICIT,
                     startup_models=["*", "a"]).start()
