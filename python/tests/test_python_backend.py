"""The python backend: model.py files written for Triton's python backend,
run in-process (models in python/tests/python_models)."""

from __future__ import annotations

import ctypes
import json
import pathlib
import shutil
import sys
import threading
import time
from typing import Iterator

import numpy
import pytest

import conch

MODELS = pathlib.Path(__file__).resolve().parent / "python_models"


@pytest.fixture(scope="module")
def server() -> Iterator[conch.Server]:
    """EXPLICIT mode over python_models with the working models loaded."""
    server = conch.Server(
        model_repository=str(MODELS),
        model_control_mode=conch.ModelControlMode.EXPLICIT,
        startup_models=["echo", "decoupled_counter", "faulty"],
        strict_model_config=False,
    ).start(wait_until_ready=True)
    yield server
    server.stop()


def info_of(response: conch.InferenceResponse) -> dict:
    return json.loads(response.outputs["INFO"].to_bytes_array()[0])


def only(responses: conch.ResponseIterator) -> conch.InferenceResponse:
    out = list(responses)
    assert len(out) == 1
    return out[0]


# -- requests reach the model --------------------------------------------------------


def test_bytes_in_and_out(server: conch.Server) -> None:
    data = numpy.array([b"hello", b"", b"\x00\xff"], dtype=numpy.object_)
    response = only(server.model("echo").infer(inputs={"INPUT0": data}))
    assert response.outputs["OUTPUT0"].to_bytes_array().tolist() == data.tolist()


def test_parameters_of_each_type_reach_the_model(server: conch.Server) -> None:
    parameters = {"s": "text", "i": -7, "b": True, "f": 2.5}
    response = only(
        server.model("echo").infer(
            inputs={"INPUT0": numpy.array([b"x"], dtype=numpy.object_)},
            parameters=parameters,
            request_id="r-1",
            correlation_id=42,
        )
    )
    info = info_of(response)
    assert info["parameters"] == parameters
    assert info["request_id"] == "r-1"
    assert info["correlation_id"] == 42
    assert response.request_id == "r-1"


def test_string_correlation_id_reaches_the_model(server: conch.Server) -> None:
    response = only(
        server.model("echo").infer(
            inputs={"INPUT0": numpy.array([b"x"], dtype=numpy.object_)}, correlation_id="seq-a"
        )
    )
    assert info_of(response)["correlation_id"] == "seq-a"


def test_unsupported_parameter_raises_at_call_time(server: conch.Server) -> None:
    with pytest.raises(conch.InvalidArgumentError):
        server.model("echo").infer(
            inputs={"INPUT0": numpy.array([b"x"], dtype=numpy.object_)}, parameters={"l": [1]}
        )


def test_initialize_receives_the_keys_triton_passes(server: conch.Server) -> None:
    response = only(
        server.model("echo").infer(inputs={"INPUT0": numpy.array([b"x"], dtype=numpy.object_)})
    )
    args = info_of(response)["args"]
    assert json.loads(args["model_config"])["name"] == "echo"
    assert args["model_instance_kind"] == "CPU"
    assert args["model_instance_name"] == "echo_0"
    assert args["model_instance_device_id"] == "0"
    assert args["model_repository"] == str(MODELS / "echo")
    assert args["model_version"] == "1"
    assert args["model_name"] == "echo"


def test_requested_outputs_are_honoured(server: conch.Server) -> None:
    request = server.model("echo").create_request(
        inputs={"INPUT0": numpy.array([b"x"], dtype=numpy.object_)}
    )
    response = only(server.model("echo").infer(request))
    assert set(response.outputs) == {"OUTPUT0", "INFO"}
    assert info_of(response)["requested"] == ["OUTPUT0", "INFO"]


# -- decoupled ------------------------------------------------------------------------


def test_decoupled_model_streams_from_its_own_thread(server: conch.Server) -> None:
    responses = list(
        server.model("decoupled_counter").infer(inputs={"IN": numpy.array([5], dtype=numpy.int32)})
    )
    values = [int(numpy.from_dlpack(r.outputs["OUT"])[0]) for r in responses if r.outputs]
    assert values == [0, 1, 2, 3, 4]
    assert responses[-1].final and not responses[-1].outputs
    assert not any(r.final for r in responses[:-1])


def test_decoupled_model_with_no_responses_sends_only_the_final_flag(server: conch.Server) -> None:
    responses = list(
        server.model("decoupled_counter").infer(inputs={"IN": numpy.array([0], dtype=numpy.int32)})
    )
    assert len(responses) == 1 and responses[0].final and not responses[0].outputs


def test_decoupled_python_model_sees_cancellation(server: conch.Server) -> None:
    iterator = server.model("decoupled_counter").infer(
        inputs={"IN": numpy.array([100000], dtype=numpy.int32)}, raise_on_error=False
    )
    first = next(iterator)
    assert not first.final
    iterator.cancel()
    rest = list(iterator)
    assert rest[-1].final
    assert isinstance(rest[-1].error, conch.CancelledError)


def test_async_iteration_of_a_decoupled_python_model(server: conch.Server) -> None:
    import asyncio

    async def collect() -> list:
        out = []
        model = server.model("decoupled_counter")
        async for r in model.async_infer(inputs={"IN": numpy.array([3], dtype=numpy.int32)}):
            out.append(r)
        return out

    responses = asyncio.run(collect())
    assert [int(numpy.from_dlpack(r.outputs["OUT"])[0]) for r in responses if r.outputs] == [0, 1, 2]


# -- errors -----------------------------------------------------------------------------


def faulty(server: conch.Server, mode: int) -> conch.ResponseIterator:
    return server.model("faulty").infer(
        inputs={"MODE": numpy.array([mode], dtype=numpy.int32), "X": numpy.arange(4, dtype=numpy.float32)}
    )


def test_exception_in_execute_is_an_error_response_and_the_model_keeps_serving(
    server: conch.Server,
) -> None:
    with pytest.raises(conch.InternalError, match="execute failed on purpose") as caught:
        list(faulty(server, 1))
    assert "RuntimeError" in str(caught.value) and "model.py" in str(caught.value)
    response = only(faulty(server, 0))
    assert numpy.from_dlpack(response.outputs["Y"]).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_error_response_keeps_its_code(server: conch.Server) -> None:
    with pytest.raises(conch.InvalidArgumentError, match="bad input on purpose"):
        list(faulty(server, 2))


def test_too_few_responses_is_an_error(server: conch.Server) -> None:
    with pytest.raises(conch.InternalError, match=r"InferenceRequest\(s\) size is:1, and "
                                                  r"InferenceResponse\(s\) size is:"):
        list(faulty(server, 3))


def test_non_contiguous_output_is_sent_correctly(server: conch.Server) -> None:
    response = only(faulty(server, 4))
    assert numpy.from_dlpack(response.outputs["Y"]).tolist() == [0.0, 2.0]


def test_initialize_raising_makes_the_model_unavailable_with_its_message(
    server: conch.Server,
) -> None:
    with pytest.raises(conch.TritonError, match="initialize refused on purpose"):
        server.load("init_fails")
    state = server.models()[("init_fails", 1)]
    assert state.state == "UNAVAILABLE"
    assert "ValueError: initialize refused on purpose" in state.reason
    assert server.model("echo").ready()


def test_auto_complete_config_fills_the_configuration(server: conch.Server) -> None:
    model = server.load("auto_complete")
    config = model.config()
    assert config["backend"] == "python"
    assert config["max_batch_size"] == 4
    assert [i["name"] for i in config["input"]] == ["A"]
    assert config["output"][0]["data_type"] == "TYPE_INT64"
    assert "dynamic_batching" in config
    response = only(model.infer(inputs={"A": numpy.array([[1, 2]], dtype=numpy.int64)}))
    assert numpy.from_dlpack(response.outputs["B"]).tolist() == [[2, 4]]


def test_python_model_loads_from_file_parameters(server: conch.Server) -> None:
    source = (MODELS / "faulty" / "1" / "model.py").read_bytes()
    config = {
        "backend": "python",
        "max_batch_size": 0,
        "input": [
            {"name": "MODE", "data_type": "TYPE_INT32", "dims": [1]},
            {"name": "X", "data_type": "TYPE_FP32", "dims": [-1]},
        ],
        "output": [{"name": "Y", "data_type": "TYPE_FP32", "dims": [-1]}],
    }
    model = server.load(
        "uploaded", {"config": json.dumps(config), "file:1/model.py": source}
    )
    response = only(
        model.infer(inputs={"MODE": numpy.array([0], dtype=numpy.int32), "X": numpy.ones(2, numpy.float32)})
    )
    assert numpy.from_dlpack(response.outputs["Y"]).tolist() == [1.0, 1.0]
    server.unload("uploaded", wait_until_unloaded=True)


def test_broken_model_file_fails_the_load_with_the_error(tmp_path: pathlib.Path) -> None:
    shutil.copytree(MODELS / "faulty", tmp_path / "broken")
    (tmp_path / "broken" / "config.pbtxt").write_text(
        (MODELS / "faulty" / "config.pbtxt").read_text().replace('"faulty"', '"broken"')
    )
    (tmp_path / "broken" / "1" / "model.py").write_text("def oops(:\n")
    server = conch.Server(
        model_repository=str(tmp_path), model_control_mode=conch.ModelControlMode.EXPLICIT
    ).start(wait_until_ready=True)
    try:
        with pytest.raises(conch.TritonError, match="SyntaxError"):
            server.load("broken")
    finally:
        server.stop()


PLACEMENT_MODEL = b"""
import json
import numpy
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        out = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "INPUT0")
            info = json.dumps({"is_cpu": x.is_cpu()}).encode()
            out.append(pb_utils.InferenceResponse([
                pb_utils.Tensor.from_dlpack("OUTPUT0", x.to_dlpack()),
                pb_utils.Tensor("INFO", numpy.array([info], dtype=numpy.object_)),
            ]))
        return out
"""


def placement_model(repository: pathlib.Path, name: str, value: str) -> None:
    (repository / name / "1").mkdir(parents=True)
    (repository / name / "1" / "model.py").write_bytes(PLACEMENT_MODEL)
    (repository / name / "config.pbtxt").write_text(
        f'name: "{name}"\nbackend: "python"\nmax_batch_size: 0\n'
        'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] },\n'
        '         { name: "INFO" data_type: TYPE_STRING dims: [ 1 ] } ]\n'
        'parameters: { key: "FORCE_CPU_ONLY_INPUT_TENSORS" '
        f'value: {{ string_value: "{value}" }} }}\n')


def test_force_cpu_only_input_tensors_takes_yes_or_no(tmp_path: pathlib.Path) -> None:
    for name, value in (("yes_model", "yes"), ("no_model", "no"), ("bad_model", "maybe")):
        placement_model(tmp_path, name, value)
    server = conch.Server(
        model_repository=str(tmp_path), model_control_mode=conch.ModelControlMode.EXPLICIT
    ).start(wait_until_ready=True)
    try:
        with pytest.raises(conch.TritonError,
                           match="Incorrect value for FORCE_CPU_ONLY_INPUT_TENSORS: maybe'"):
            server.load("bad_model")
        data = numpy.arange(4, dtype=numpy.float32)
        for name in ("yes_model", "no_model"):
            server.load(name)
            response = only(server.model(name).infer(inputs={"INPUT0": data}))
            # Host inputs stay in host memory either way (test_gpu.py moves
            # GPU ones).
            assert info_of(response) == {"is_cpu": True}
            assert numpy.from_dlpack(response.outputs["OUTPUT0"]).tolist() == data.tolist()
    finally:
        server.stop()


# -- threads and stop -------------------------------------------------------------------


def test_execute_runs_on_the_instance_thread_never_the_callers(server: conch.Server) -> None:
    """A request to an idle Python model skips the scheduler (the direct lane)
    yet still runs on the thread of the model's one instance."""
    model = server.model("echo")
    data = numpy.array([b"x"], dtype=numpy.object_)
    ran_on = {info_of(only(model.infer(inputs={"INPUT0": data})))["thread"] for _ in range(20)}
    assert threading.get_ident() not in ran_on
    assert len(ran_on) == 1

    def from_another_thread() -> None:
        ran_on.add(info_of(only(model.infer(inputs={"INPUT0": data})))["thread"])

    caller = threading.Thread(target=from_another_thread)
    caller.start()
    caller.join(timeout=30)
    assert len(ran_on) == 1


def test_the_instance_thread_keeps_its_thread_locals_between_requests(
    server: conch.Server,
) -> None:
    # Triton runs a model's execute() on one thread of its stub for the
    # model's life; Conch's instance thread keeps its Python thread state
    # as long, so a threading.local set in one execute() is there in the next.
    model = server.model("echo")
    data = numpy.array([b"x"], dtype=numpy.object_)
    counts = [info_of(only(model.infer(inputs={"INPUT0": data})))["executes_on_this_thread"] for _ in range(5)]
    assert counts == list(range(counts[0], counts[0] + 5))


def thread_states() -> int:
    """The interpreter's thread states, counted without letting another
    thread take the GIL (and delete one) in between."""
    api = ctypes.pythonapi
    api.PyInterpreterState_Get.restype = ctypes.c_void_p
    api.PyInterpreterState_ThreadHead.restype = ctypes.c_void_p
    api.PyInterpreterState_ThreadHead.argtypes = [ctypes.c_void_p]
    api.PyThreadState_Next.restype = ctypes.c_void_p
    api.PyThreadState_Next.argtypes = [ctypes.c_void_p]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        count, state = 0, api.PyInterpreterState_ThreadHead(api.PyInterpreterState_Get())
        while state:
            count, state = count + 1, api.PyThreadState_Next(state)
        return count
    finally:
        sys.setswitchinterval(interval)


def test_an_instance_thread_gives_its_thread_state_back_when_it_ends(server: conch.Server) -> None:
    # The state an instance thread keeps between requests is deleted when the
    # thread ends (model unloaded): loading again and again leaves none behind.
    data = numpy.array([b"x"], dtype=numpy.object_)

    def cycle() -> None:
        server.load("echo")
        only(server.model("echo").infer(inputs={"INPUT0": data}))
        server.unload("echo", wait_until_unloaded=True)

    try:
        cycle()  # the threads that live as long as the server have theirs now
        before = thread_states()
        for _ in range(4):
            cycle()
        deadline = time.monotonic() + 10
        while thread_states() > before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert thread_states() <= before
    finally:
        server.load("echo")


def test_many_threads_call_a_python_model(server: conch.Server) -> None:
    errors: list = []

    def work(k: int) -> None:
        try:
            for i in range(50):
                x = numpy.full(3, k * 1000 + i, dtype=numpy.float32)
                r = only(
                    server.model("faulty").infer(
                        inputs={"MODE": numpy.array([0], dtype=numpy.int32), "X": x}
                    )
                )
                assert numpy.from_dlpack(r.outputs["Y"]).tolist() == x.tolist()
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_stop_with_python_requests_in_flight_from_several_threads(tmp_path: pathlib.Path) -> None:
    shutil.copytree(MODELS / "decoupled_counter", tmp_path / "decoupled_counter")
    server = conch.Server(model_repository=str(tmp_path), exit_timeout=1).start(
        wait_until_ready=True
    )
    model = server.model("decoupled_counter")
    started = threading.Barrier(5)
    outcomes: list = []

    def stream() -> None:
        iterator = model.infer(inputs={"IN": numpy.array([100000], dtype=numpy.int32)}, raise_on_error=False)
        started.wait()
        responses = list(iterator)
        outcomes.append(responses[-1])

    threads = [threading.Thread(target=stream) for _ in range(4)]
    for t in threads:
        t.start()
    started.wait()
    # The streams would take minutes: stop cancels them once exit_timeout
    # passed, and the model sees it.
    with pytest.raises(conch.InternalError, match="Exit timeout expired"):
        server.stop()
    for t in threads:
        t.join(timeout=60)
        assert not t.is_alive()
    assert len(outcomes) == 4 and all(r.final for r in outcomes)


def test_loading_and_unloading_again_and_again_keeps_no_imports(server: conch.Server) -> None:
    # Each instance imports model.py afresh; its module must go once the
    # instance (and the version) is gone, or every reload leaks it.
    import gc

    def imports() -> int:
        return sum(1 for name in sys.modules if name.startswith("conch_python_model_"))

    server.unload("auto_complete", wait_until_unloaded=True)
    gc.collect()
    before = imports()
    for _ in range(5):
        server.load("auto_complete")
        server.unload("auto_complete", wait_until_unloaded=True)
    # The last references go on the instances' threads, and reach Python a
    # moment later (deferred releases run at the next bytecode boundary).
    deadline = time.monotonic() + 10
    while imports() > before and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.01)
    assert imports() == before


# -- each model's own modules -------------------------------------------------------------


def test_each_python_model_imports_its_own_helper(server: conch.Server) -> None:
    # helper_a and helper_b each bring a helper.py; neither may see the
    # other's, whether imported plainly, relatively, late in execute() or
    # by pickle.
    try:
        for name in ("helper_a", "helper_b"):
            server.load(name)
        for name, value in (("helper_a", "a"), ("helper_b", "b"), ("helper_a", "a")):
            response = only(server.model(name).infer(inputs={"IN": numpy.array([0], numpy.int32)}))
            assert response.outputs["OUT"].to_bytes_array().tolist() == [value.encode()] * 4, name
    finally:
        for name in ("helper_a", "helper_b"):
            server.unload(name, wait_until_unloaded=True)
    # Nothing of theirs stays behind under a bare name.
    import gc

    deadline = time.monotonic() + 10
    while "helper" in sys.modules and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.01)
    assert "helper" not in sys.modules


def test_get_input_tensor_by_name_asks_what_is_not_a_plain_request() -> None:
    # A model's own unit tests hand it stand-ins, and a subclass may answer
    # inputs() its own way: both are asked through inputs(), as in Triton.
    from unittest import mock

    import triton_python_backend_utils as pb_utils

    tensor = pb_utils.Tensor("X", numpy.ones(2, numpy.float32))
    stand_in = mock.MagicMock()
    stand_in.inputs.return_value = [tensor]
    assert pb_utils.get_input_tensor_by_name(stand_in, "X") is tensor
    assert pb_utils.get_input_tensor_by_name(stand_in, "Y") is None

    class Renamed(pb_utils.InferenceRequest):
        def inputs(self) -> list:
            return [pb_utils.Tensor("Z", numpy.zeros(1, numpy.float32))]

    renamed = Renamed(model_name="m", inputs=[tensor], requested_output_names=[])
    assert pb_utils.get_input_tensor_by_name(renamed, "Z").name() == "Z"
    assert pb_utils.get_input_tensor_by_name(renamed, "X") is None
    # A request made by model code: the inputs it was given.
    plain = pb_utils.InferenceRequest(model_name="m", inputs=[tensor], requested_output_names=[])
    assert pb_utils.get_input_tensor_by_name(plain, "X") is tensor
