"""The onnxruntime backend's Python side on its own: load_model,
complete_config and execute, with requests that stand in for
conch._conch.BackendRequest."""

from __future__ import annotations

import pathlib
import sys
from typing import Any, Optional

import numpy
import pytest

import conch
from conch._backend import onnxruntime_model
from onnx_models import add_sub, add_sub_batch, string_identity


class FakeRequest:
    """What execute uses of a BackendRequest; records the answer."""

    def __init__(self, inputs: dict[str, Any], outputs: Optional[list[str]] = None,
                 cancelled: bool = False) -> None:
        self._inputs = [self._input(name, value) for name, value in inputs.items()]
        self._wanted = outputs
        self._cancelled = cancelled
        self.outputs: Optional[dict[str, numpy.ndarray]] = None
        self.error: Optional[tuple[str, str]] = None
        self.final_sent = False

    @staticmethod
    def _input(name: str, value: Any) -> tuple:
        tensor = conch.Tensor._from_object(value)
        buffer = tensor.memory_buffer
        return (name, int(tensor.data_type), list(tensor.shape), buffer.data_ptr,
                int(buffer.memory_type), buffer.memory_type_id, buffer.size, buffer.owner)

    @staticmethod
    def _output(native: tuple) -> numpy.ndarray:
        if len(native) == 4:  # a numeric array, taken as it is
            return numpy.asarray(native[3])
        _, data_type, shape, data_ptr, size, memory_type, device_id, owner = native
        tensor = conch.Tensor(conch.DataType(data_type), shape,
                              conch.MemoryBuffer(data_ptr, conch.MemoryType(memory_type),
                                                 device_id, size, owner))
        if tensor.data_type == conch.DataType.BYTES:
            return tensor.to_bytes_array()
        return numpy.from_dlpack(tensor)

    # -- the BackendRequest surface -------------------------------------------

    def inputs(self) -> list[tuple]:
        return self._inputs

    def requested_output_names(self) -> list[str]:
        return list(self._wanted or [])

    def is_cancelled(self) -> bool:
        return self._cancelled

    def respond(self, outputs: list[tuple], final: bool = True, parameters: Any = None) -> None:
        assert not self.final_sent and final
        self.outputs = {native[0]: self._output(native) for native in outputs}
        self.final_sent = True

    def fail(self, message: str, code: str = "internal", final: bool = True) -> None:
        assert not self.final_sent
        self.error = (code, message)
        self.final_sent = True


class CountingSession:
    """An InferenceSession that counts its runs."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.runs = 0

    def run(self, names: list[str], feeds: dict) -> list:
        self.runs += 1
        return self.session.run(names, feeds)


def context(version_path: pathlib.Path, **config: Any) -> dict:
    return {"name": "m", "version": 1, "model_path": str(version_path.parent),
            "version_path": str(version_path), "repository_path": str(version_path.parent.parent),
            "config": config, "config_json": ""}


def instance(version_path: pathlib.Path, **config: Any) -> Any:
    model = onnxruntime_model.load_model(context(version_path, **config))
    return model.create_instance({"name": "m_0", "kind": "KIND_CPU", "device_id": 0, "index": 0})


def counted(runner: Any) -> CountingSession:
    runner._session = CountingSession(runner._session)
    return runner._session


def fp32(*rows: list[float]) -> numpy.ndarray:
    return numpy.array(rows, dtype=numpy.float32)


# -- execute ----------------------------------------------------------------------


def test_strings_go_through_as_bytes(tmp_path) -> None:
    string_identity(tmp_path / "1" / "model.onnx")
    runner = instance(tmp_path / "1", max_batch_size=8)
    text = numpy.array([[b"Roger Roger", "caf\u00e9".encode()]], dtype=object)
    request = FakeRequest({"INPUT0": text}, ["OUTPUT0"])
    runner.execute([request])
    assert request.error is None
    assert request.outputs["OUTPUT0"].tolist() == [[b"Roger Roger", "caf\u00e9".encode()]]


def test_requests_that_fit_run_as_one_batch(tmp_path) -> None:
    add_sub_batch(tmp_path / "1" / "model.onnx")
    runner = instance(tmp_path / "1", max_batch_size=8)
    session = counted(runner)
    requests = [
        FakeRequest({"A": fp32([1, 2, 3, 4]), "B": fp32([1, 1, 1, 1])}, ["SUM", "DIFF"]),
        FakeRequest({"A": fp32([1, 1, 1, 1], [2, 2, 2, 2]), "B": fp32([0, 1, 2, 3], [1, 1, 1, 1])}, ["SUM"]),
        FakeRequest({"A": fp32([5, 5, 5, 5]), "B": fp32([1, 2, 3, 4])}, ["DIFF", "BATCH"]),
    ]
    runner.execute(requests)
    assert session.runs == 1
    assert [r.error for r in requests] == [None, None, None]
    assert requests[0].outputs["SUM"].tolist() == [[2, 3, 4, 5]]
    assert requests[0].outputs["DIFF"].tolist() == [[0, 1, 2, 3]]
    assert list(requests[1].outputs) == ["SUM"]
    assert requests[1].outputs["SUM"].tolist() == [[1, 2, 3, 4], [3, 3, 3, 3]]
    assert list(requests[2].outputs) == ["DIFF", "BATCH"]
    assert requests[2].outputs["DIFF"].tolist() == [[4, 3, 2, 1]]
    assert requests[2].outputs["BATCH"].tolist() == [[4]]


def test_requests_of_other_shapes_run_one_by_one(tmp_path) -> None:
    string_identity(tmp_path / "1" / "model.onnx")
    runner = instance(tmp_path / "1", max_batch_size=8)
    session = counted(runner)
    short = FakeRequest({"INPUT0": numpy.array([[b"a"]], dtype=object)}, ["OUTPUT0"])
    long = FakeRequest({"INPUT0": numpy.array([[b"b", b"c"]], dtype=object)}, ["OUTPUT0"])
    runner.execute([short, long])
    assert session.runs == 2
    assert short.outputs["OUTPUT0"].tolist() == [[b"a"]]
    assert long.outputs["OUTPUT0"].tolist() == [[b"b", b"c"]]


def test_a_model_that_does_not_batch_runs_each_request(tmp_path) -> None:
    add_sub(tmp_path / "1" / "model.onnx", shape=[4])
    runner = instance(tmp_path / "1", max_batch_size=0)
    session = counted(runner)
    requests = [FakeRequest({"A": fp32(*[[i] * 4])[0], "B": fp32([1, 1, 1, 1])[0]}, ["SUM"])
                for i in range(3)]
    runner.execute(requests)
    assert session.runs == 3
    assert [r.outputs["SUM"].tolist() for r in requests] == [[1] * 4, [2] * 4, [3] * 4]


def test_a_bad_request_fails_alone(tmp_path) -> None:
    add_sub(tmp_path / "1" / "model.onnx")
    runner = instance(tmp_path / "1", max_batch_size=8)
    good = FakeRequest({"A": fp32([1, 2, 3, 4]), "B": fp32([1, 1, 1, 1])}, ["SUM"])
    wrong_type = FakeRequest({"A": numpy.ones((1, 4), numpy.int32), "B": fp32([1, 1, 1, 1])}, ["SUM"])
    runner.execute([good, wrong_type])
    assert good.outputs["SUM"].tolist() == [[2, 3, 4, 5]]
    code, message = wrong_type.error
    assert code == "invalid_argument" and "tensor(int32)" in message


def test_an_error_of_the_run_fails_the_request_and_the_instance_goes_on(tmp_path) -> None:
    add_sub(tmp_path / "1" / "model.onnx")
    runner = instance(tmp_path / "1", max_batch_size=8)
    wrong_shape = FakeRequest({"A": fp32([1, 2, 3]), "B": fp32([1, 1, 1])}, ["SUM"])
    runner.execute([wrong_shape])
    code, message = wrong_shape.error
    assert code == "invalid_argument" and "dimensions" in message.lower()
    good = FakeRequest({"A": fp32([1, 2, 3, 4]), "B": fp32([1, 1, 1, 1])}, ["SUM"])
    runner.execute([good])
    assert good.outputs["SUM"].tolist() == [[2, 3, 4, 5]]


def test_bytes_that_are_not_utf8_are_rejected(tmp_path) -> None:
    string_identity(tmp_path / "1" / "model.onnx")
    runner = instance(tmp_path / "1", max_batch_size=8)
    request = FakeRequest({"INPUT0": numpy.array([[b"\xff"]], dtype=object)}, ["OUTPUT0"])
    runner.execute([request])
    code, message = request.error
    assert code == "invalid_argument" and "UTF-8" in message


def test_a_cancelled_request_is_not_run(tmp_path) -> None:
    add_sub(tmp_path / "1" / "model.onnx")
    runner = instance(tmp_path / "1", max_batch_size=8)
    session = counted(runner)
    request = FakeRequest({"A": fp32([1, 2, 3, 4]), "B": fp32([1, 1, 1, 1])}, ["SUM"], cancelled=True)
    runner.execute([request])
    assert session.runs == 0 and request.error[0] == "cancelled"


def test_each_instance_has_its_own_session(tmp_path) -> None:
    add_sub(tmp_path / "1" / "model.onnx")
    model = onnxruntime_model.load_model(context(tmp_path / "1", max_batch_size=8))
    first, second = (model.create_instance({"name": f"m_{i}", "kind": "KIND_CPU", "device_id": 0,
                                            "index": i}) for i in range(2))
    assert first._session is not second._session


# -- load ------------------------------------------------------------------------


def test_without_onnxruntime_the_load_says_how_to_install_it(tmp_path, monkeypatch) -> None:
    add_sub(tmp_path / "1" / "model.onnx")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(conch.TritonError, match=r"onnxruntime.*not installed.*pip install onnxruntime"):
        onnxruntime_model.load_model(context(tmp_path / "1"))
    with pytest.raises(conch.TritonError, match="pip install onnxruntime"):
        onnxruntime_model.complete_config({"name": "m"}, str(tmp_path))


def test_a_bad_model_file_fails_the_load_with_onnxruntime_message(tmp_path) -> None:
    (tmp_path / "1").mkdir()
    (tmp_path / "1" / "model.onnx").write_bytes(b"not an onnx model")
    with pytest.raises(conch.TritonError, match="onnxruntime could not load .*(?i:protobuf)"):
        onnxruntime_model.load_model(context(tmp_path / "1"))


def test_a_missing_model_file_fails_the_load(tmp_path) -> None:
    (tmp_path / "1").mkdir()
    with pytest.raises(conch.NotFoundError, match="weights.onnx' does not exist"):
        onnxruntime_model.load_model(context(tmp_path / "1", default_model_filename="weights.onnx"))


def test_thread_counts_come_from_the_parameters(tmp_path) -> None:
    add_sub(tmp_path / "1" / "model.onnx")
    runner = instance(tmp_path / "1", parameters={"intra_op_thread_count": {"string_value": "2"}})
    assert runner._session.get_session_options().intra_op_num_threads == 2
    with pytest.raises(conch.InvalidArgumentError, match="'inter_op_thread_count' must be"):
        instance(tmp_path / "1", parameters={"inter_op_thread_count": {"string_value": "many"}})


# -- complete_config ---------------------------------------------------------------


def test_complete_config_fills_an_empty_config(tmp_path) -> None:
    add_sub(tmp_path / "1" / "model.onnx")
    config = onnxruntime_model.complete_config({"name": "m", "backend": "onnxruntime"}, str(tmp_path))
    assert config["max_batch_size"] == 4
    assert config["dynamic_batching"] == {}
    assert config["input"] == [{"name": "A", "data_type": "TYPE_FP32", "dims": [4]},
                               {"name": "B", "data_type": "TYPE_FP32", "dims": [4]}]
    assert [o["name"] for o in config["output"]] == ["SUM", "DIFF"]


def test_complete_config_keeps_what_the_config_says(tmp_path) -> None:
    string_identity(tmp_path / "1" / "model.onnx", shape=[2, "n"])
    given = {"name": "m", "max_batch_size": 0,
             "input": [{"name": "INPUT0", "data_type": "TYPE_STRING", "dims": [2, 3]}],
             "output": [{"name": "OUTPUT0"}]}
    config = onnxruntime_model.complete_config(given, str(tmp_path))
    assert config["input"] == given["input"]
    assert config["output"] == [{"name": "OUTPUT0", "data_type": "TYPE_STRING", "dims": [2, -1]}]
    assert config["max_batch_size"] == 0 and "dynamic_batching" not in config
    assert given["output"] == [{"name": "OUTPUT0"}]  # the argument itself is unchanged


def test_complete_config_removes_the_batch_dimension_of_a_batching_config(tmp_path) -> None:
    string_identity(tmp_path / "1" / "model.onnx")
    config = onnxruntime_model.complete_config({"name": "m", "max_batch_size": 16}, str(tmp_path))
    assert config["max_batch_size"] == 16 and "dynamic_batching" not in config
    assert config["input"][0]["dims"] == [-1]


def test_a_fixed_first_dimension_means_no_batching(tmp_path) -> None:
    add_sub(tmp_path / "1" / "model.onnx", shape=[3, 4])
    config = onnxruntime_model.complete_config({"name": "m"}, str(tmp_path))
    assert config.get("max_batch_size", 0) == 0
    assert config["input"][0]["dims"] == [3, 4]


def test_complete_config_reads_the_newest_version(tmp_path) -> None:
    add_sub(tmp_path / "1" / "model.onnx")
    string_identity(tmp_path / "10" / "model.onnx")
    config = onnxruntime_model.complete_config({"name": "m"}, str(tmp_path))
    assert [i["name"] for i in config["input"]] == ["INPUT0"]


def test_complete_config_without_a_model_file(tmp_path) -> None:
    (tmp_path / "1").mkdir()
    with pytest.raises(conch.NotFoundError, match="model.onnx"):
        onnxruntime_model.complete_config({"name": "m"}, str(tmp_path))
