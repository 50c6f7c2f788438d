"""tritonserver._c, the low-level bindings, used as code written for
Triton's triton_bindings uses them: the enums and their helpers, values,
options, a server and its queries, requests from raw buffers with their
responses and traces, custom metrics and logging."""

from __future__ import annotations

import concurrent.futures
import ctypes
import gc
import json
import pathlib
import queue
import re
from array import array
from typing import Any, Iterator

import numpy
import pytest

import conch
import tritonserver
from conftest import identity_config, write_model
from tritonserver import _c as b

ADDSUB = b'''
import numpy
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    @staticmethod
    def auto_complete_config(config):
        config.set_max_batch_size(0)
        for name in ("INPUT0", "INPUT1"):
            config.add_input({"name": name, "data_type": "TYPE_FP32", "dims": [4]})
        for name in ("OUTPUT0", "OUTPUT1"):
            config.add_output({"name": name, "data_type": "TYPE_FP32", "dims": [4]})
        config.set_dynamic_batching()
        config._model_config["dynamic_batching"]["priority_levels"] = 20
        config._model_config["dynamic_batching"]["default_priority_level"] = 10
        return config

    def execute(self, requests):
        out = []
        for r in requests:
            a = pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy()
            c = pb_utils.get_input_tensor_by_name(r, "INPUT1").as_numpy()
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", a + c),
                                                   pb_utils.Tensor("OUTPUT1", a - c)]))
        return out
'''


@pytest.fixture(autouse=True)
def default_logging() -> Iterator[None]:
    yield
    options = b.TRITONSERVER_ServerOptions()
    options.set_log_callback(None)
    options.set_log_file("")
    for setter in (options.set_log_info, options.set_log_warn, options.set_log_error):
        setter(False)
    options.set_log_verbose(0)
    gc.collect()


@pytest.fixture
def repository(tmp_path: pathlib.Path) -> pathlib.Path:
    version = tmp_path / "models" / "addsub" / "1"
    version.mkdir(parents=True)
    (version / "model.py").write_bytes(ADDSUB)
    return tmp_path / "models"


@pytest.fixture
def server(repository: pathlib.Path) -> Iterator[b.TRITONSERVER_Server]:
    options = b.TRITONSERVER_ServerOptions()
    options.set_model_repository_path(str(repository))
    options.set_model_control_mode(b.TRITONSERVER_ModelControlMode.POLL)
    options.set_strict_model_config(False)
    options.set_server_id("bindings_server")
    options.set_exit_timeout(5)
    s = b.TRITONSERVER_Server(options)
    yield s
    s.stop()


def as_json(message: b.TRITONSERVER_Message) -> Any:
    return json.loads(message.serialize_to_json())


def prepared(server: b.TRITONSERVER_Server) -> tuple[Any, numpy.ndarray]:
    request = b.TRITONSERVER_InferenceRequest(server, "addsub", -1)
    request.id = "req_0"
    data = numpy.ones([4], dtype=numpy.float32)
    attributes = b.TRITONSERVER_BufferAttributes()
    attributes.memory_type = b.TRITONSERVER_MemoryType.CPU
    attributes.memory_type_id = 0
    attributes.byte_size = data.nbytes
    for name in ("INPUT0", "INPUT1"):
        request.add_input(name, b.TRITONSERVER_DataType.FP32, data.shape)
        request.append_input_data_with_buffer_attributes(name, data.ctypes.data, attributes)
    return request, data


# -- module surface --------------------------------------------------------------------------

def test_the_module_is_importable_as_upstream_imports_it() -> None:
    from tritonserver._c.triton_bindings import TRITONSERVER_Server as server_class

    assert server_class is b.TRITONSERVER_Server
    assert b.TritonError is tritonserver.TritonError
    assert int(b.FINAL) == 1 and int(b.SEQUENCE_START) == 1 and int(b.DECOUPLED) == 1
    assert b.api_version() == (1, 34)
    for error in (b.UnknownError, b.InternalError, b.NotFoundError, b.InvalidArgumentError,
                  b.UnavailableError, b.UnsupportedError, b.AlreadyExistsError):
        with pytest.raises(error, match="a message"):
            raise error("a message")
        assert issubclass(error, b.TritonError)


@pytest.mark.parametrize("datatype, name, size", [
    ("INVALID", "<invalid>", 0), ("BOOL", "BOOL", 1), ("UINT8", "UINT8", 1),
    ("INT16", "INT16", 2), ("FP16", "FP16", 2), ("BF16", "BF16", 2), ("FP32", "FP32", 4),
    ("UINT64", "UINT64", 8), ("FP64", "FP64", 8), ("BYTES", "BYTES", 0)])
def test_data_type_helpers(datatype: str, name: str, size: int) -> None:
    t = b.TRITONSERVER_DataType[datatype]
    assert b.TRITONSERVER_DataTypeString(t) == name
    assert b.TRITONSERVER_StringToDataType(name) == t
    assert b.TRITONSERVER_DataTypeByteSize(t) == size


def test_the_other_string_helpers() -> None:
    assert b.TRITONSERVER_MemoryTypeString(b.TRITONSERVER_MemoryType.CPU_PINNED) == "CPU_PINNED"
    assert b.TRITONSERVER_ParameterTypeString(b.TRITONSERVER_ParameterType.BYTES) == "BYTES"
    assert b.TRITONSERVER_InstanceGroupKindString(b.TRITONSERVER_InstanceGroupKind.MODEL) \
        == "MODEL"
    assert b.TRITONSERVER_InferenceTraceLevelString(b.TRITONSERVER_InferenceTraceLevel.MAX) \
        == "MAX"
    assert b.TRITONSERVER_InferenceTraceActivityString(
        b.TRITONSERVER_InferenceTraceActivity.TENSOR_BACKEND_OUTPUT) == "TENSOR_BACKEND_OUTPUT"
    assert b.TRITONSERVER_MemoryTypeString(7) == "<invalid>"
    assert b.TRITONSERVER_InferenceTraceLevelString(3) == "<unknown>"


def test_values() -> None:
    for value in ("text", 123, True, b"raw"):
        assert b.TRITONSERVER_Parameter("key", value).value == value
    attributes = b.TRITONSERVER_BufferAttributes()
    attributes.memory_type_id = 4
    attributes.memory_type = b.TRITONSERVER_MemoryType.CPU_PINNED
    attributes.byte_size = 1024
    source = array("b", range(64))
    attributes.cuda_ipc_handle = source.buffer_info()[0]
    assert (attributes.memory_type_id, attributes.memory_type, attributes.byte_size) == (
        4, b.TRITONSERVER_MemoryType.CPU_PINNED, 1024)
    assert attributes.cuda_ipc_handle != source.buffer_info()[0]  # a copy
    assert bytes((ctypes.c_char * 64).from_address(attributes.cuda_ipc_handle)) == bytes(range(64))
    document = {"key_0": [1, 2, "3"], "key_1": {"nested": "value"}}
    assert as_json(b.TRITONSERVER_Message(json.dumps(document))) == document
    allocator = b.TRITONSERVER_ResponseAllocator(lambda *a: None, lambda *a: None)
    allocator.set_buffer_attributes_function(lambda *a: None)
    allocator.set_query_function(lambda *a: None)


# -- options and logging ---------------------------------------------------------------------

def test_options_take_tritons_setters_and_refuse_what_triton_refuses(
        tmp_path: pathlib.Path) -> None:
    o = b.TRITONSERVER_ServerOptions()
    o.set_server_id("id")
    o.set_model_repository_path("repo_0")
    o.set_model_repository_path("repo_1")
    for mode in b.TRITONSERVER_ModelControlMode:
        o.set_model_control_mode(mode)
    o.set_startup_model("*")
    o.set_strict_model_config(True)
    o.set_rate_limiter_mode(b.TRITONSERVER_RateLimitMode.EXEC_COUNT)
    o.add_rate_limiter_resource("shared", 4, -1)
    o.set_pinned_memory_pool_byte_size(1024)
    o.set_cuda_memory_pool_byte_size(0, 2048)
    o.set_response_cache_byte_size(4096)
    o.set_cache_config("local", json.dumps({"size": 8192}))
    o.set_model_load_device_limit(b.TRITONSERVER_InstanceGroupKind.GPU, 0, 0.5)
    o.set_metrics_config("group", "setting", "value")
    o.set_backend_config("backend", "setting", "value")
    assert o.model_repository_paths == ["repo_0", "repo_1"]
    assert o.cache_config == {"local": {"size": 8192}}
    for kind in ("AUTO", "CPU", "MODEL"):
        with pytest.raises(b.TritonError, match="not supported"):
            o.set_model_load_device_limit(b.TRITONSERVER_InstanceGroupKind[kind], 0, 0)
    with pytest.raises(b.InvalidArgumentError, match=r"range \[0.0, 1.0\]"):
        o.set_model_load_device_limit(b.TRITONSERVER_InstanceGroupKind.GPU, 0, 1.5)
    with pytest.raises(b.TritonError, match="Unsupported host policy setting"):
        o.set_host_policy("policy", "setting", "value")
    o.set_host_policy("policy", "numa-node", "0")


def test_the_memory_pool_sizes_reach_the_server_options() -> None:
    from conch._triton_c._server import _options_of
    o = b.TRITONSERVER_ServerOptions()
    o.set_pinned_memory_pool_byte_size(1024)
    o.set_cuda_memory_pool_byte_size(0, 2048)
    o.set_cuda_memory_pool_byte_size(1, 0)
    native = _options_of(o)._to_native()
    assert native.pinned_memory_pool_byte_size == 1024
    assert native.cuda_memory_pool_byte_size == {0: 2048, 1: 0}


def test_log_setters_change_logging_at_once(tmp_path: pathlib.Path) -> None:
    log = tmp_path / "bindings.log"
    o = b.TRITONSERVER_ServerOptions()
    o.set_log_file(str(log))
    o.set_log_info(True)
    o.set_log_warn(False)
    o.set_log_error(True)
    o.set_log_verbose(0)
    o.set_log_format(b.TRITONSERVER_LogFormat.DEFAULT)
    level = b.TRITONSERVER_LogLevel
    assert [b.TRITONSERVER_LogIsEnabled(v) for v in level] == [True, False, True, False]
    b.TRITONSERVER_LogMessage(level.INFO, "file.py", 123, "info message")
    b.TRITONSERVER_LogMessage(level.WARN, "file.py", 456, "warn message")
    b.TRITONSERVER_LogMessage(level.ERROR, "file.py", 789, "error message")
    text = log.read_text()
    assert re.search(r"file.py:123.*info message", text)
    assert not re.search(r"file.py:456", text)
    assert re.search(r"^E\d{4} \d\d:\d\d:\d\d\.\d{6} .*file.py:789.*error message", text, re.M)
    o.set_log_format(b.TRITONSERVER_LogFormat.ISO8601)
    b.TRITONSERVER_LogMessage(level.INFO, "fn", 258, "iso")
    assert re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ I .*fn:258.*iso", log.read_text())
    with pytest.raises(b.InvalidArgumentError, match="unknown logging level '9'"):
        b.TRITONSERVER_LogMessage(9, "f", 1, "m")


def test_the_log_callback_gets_tritons_record(repository: pathlib.Path) -> None:
    records: list[tuple] = []
    o = b.TRITONSERVER_ServerOptions()
    o.set_log_error(True)
    o.set_log_callback(lambda *record: records.append(record))
    b.TRITONSERVER_LogMessage(b.TRITONSERVER_LogLevel.ERROR, "model.cc", 42, "a record")
    level, filename, line, timestamp_us, message = records[-1]
    assert (level, filename, line, message) == (b.TRITONSERVER_LogLevel.ERROR, "model.cc", 42,
                                                "a record")
    assert isinstance(timestamp_us, int) and timestamp_us > 1_577_836_800 * 10**6
    # A server made from options without a callback clears it.
    plain = b.TRITONSERVER_ServerOptions()
    plain.set_model_repository_path(str(repository))
    plain.set_model_control_mode(b.TRITONSERVER_ModelControlMode.EXPLICIT)
    b.TRITONSERVER_Server(plain).stop()
    records.clear()
    b.TRITONSERVER_LogMessage(b.TRITONSERVER_LogLevel.ERROR, "model.cc", 43, "dropped")
    assert not records
    # A callback that raises does not reach the caller.
    o.set_log_callback(lambda *record: 1 / 0)
    b.TRITONSERVER_LogMessage(b.TRITONSERVER_LogLevel.ERROR, "model.cc", 44, "raises")


def test_high_level_options_make_low_level_ones(repository: pathlib.Path) -> None:
    options = tritonserver.Options(model_repository=str(repository), server_id="hl",
                                   log_info=True, exit_timeout=7)
    low = options._create_tritonserver_server_options()
    assert isinstance(low, b.TRITONSERVER_ServerOptions)
    assert (low.server_id, low.exit_timeout, low.model_repository_paths) == (
        "hl", 7, [str(repository)])
    assert options.log_warn and options.log_error  # cascaded, as upstream
    assert b.TRITONSERVER_LogIsEnabled(b.TRITONSERVER_LogLevel.INFO)


# -- a server --------------------------------------------------------------------------------

def test_server_queries(server: b.TRITONSERVER_Server) -> None:
    assert server.is_live() and server.is_ready()
    assert server.model_is_ready("addsub", -1)
    assert server.model_batch_properties("addsub", -1) == (
        int(b.TRITONSERVER_ModelBatchFlag.UNKNOWN), 0)
    assert server.model_transaction_properties("addsub", -1) == (
        int(b.TRITONSERVER_ModelTxnPropertyFlag.ONE_TO_ONE), 0)
    assert as_json(server.metadata())["name"] == "bindings_server"
    assert as_json(server.model_metadata("addsub", -1))["name"] == "addsub"
    assert "model_stats" in as_json(server.model_statistics("addsub", -1))
    assert "input" in as_json(server.model_config("addsub", -1, 1))
    index = as_json(server.model_index(0))
    assert index[0]["name"] == "addsub" and index[0]["version"] == "1"
    metrics = server.metrics().formatted(b.TRITONSERVER_MetricFormat.PROMETHEUS)
    assert "nv_inference_request_success" in metrics
    with pytest.raises(b.InvalidArgumentError, match="unknown metrics format"):
        server.metrics().formatted(5)


def test_explicit_mode_loads_and_unloads(repository: pathlib.Path) -> None:
    o = b.TRITONSERVER_ServerOptions()
    o.set_model_repository_path(str(repository))
    o.set_model_control_mode(b.TRITONSERVER_ModelControlMode.EXPLICIT)
    o.set_strict_model_config(False)
    server = b.TRITONSERVER_Server(o)
    try:
        server.load_model_with_parameters("wired", [
            b.TRITONSERVER_Parameter("config", "{}"),
            b.TRITONSERVER_Parameter("file:1/model.py", ADDSUB)])
        assert server.model_is_ready("wired", -1)
        assert not server.model_is_ready("addsub", -1)
        server.unregister_model_repository(str(repository))
        with pytest.raises(b.TritonError):
            server.load_model("addsub")
        server.register_model_repository(str(repository), [])
        server.load_model("addsub")
        assert server.model_is_ready("addsub", -1)
        server.unload_model("wired")
        assert not server.model_is_ready("wired", -1)
        server.unload_model_and_dependents("addsub")
        assert not server.model_is_ready("addsub", -1)
    finally:
        server.stop()


def test_custom_metrics(server: b.TRITONSERVER_Server) -> None:
    family = b.TRITONSERVER_MetricFamily(b.TRITONSERVER_MetricKind.COUNTER,
                                         "bindings_custom_total", "a custom counter")
    metric = b.TRITONSERVER_Metric(family, [b.TRITONSERVER_Parameter("label", "x")])
    metric.increment(2)
    assert metric.kind == b.TRITONSERVER_MetricKind.COUNTER and metric.value == 2
    with pytest.raises(b.TritonError):
        metric.set_value(5)
    text = server.metrics().formatted(b.TRITONSERVER_MetricFormat.PROMETHEUS)
    assert 'bindings_custom_total{label="x"} 2' in text


# -- requests ----------------------------------------------------------------------------------

def test_request_properties_and_inputs(server: b.TRITONSERVER_Server) -> None:
    with pytest.raises(b.NotFoundError, match="unknown model"):
        b.TRITONSERVER_InferenceRequest(server, "no_such_model", -1)
    r = b.TRITONSERVER_InferenceRequest(server, "addsub", -1)
    r.id = "request"
    r.flags = int(b.TRITONSERVER_RequestFlag.SEQUENCE_START)
    r.correlation_id = 2
    assert (r.id, r.flags, r.correlation_id) == ("request", 1, 2)
    r.correlation_id_string = "123"
    assert r.correlation_id_string == "123"
    with pytest.raises(b.TritonError, match="not an unsigned int"):
        r.correlation_id
    with pytest.raises(b.UnsupportedError, match="longer than 128"):
        r.correlation_id_string = "x" * 129
    r.priority = 19
    assert r.priority == 19
    r.priority_uint64 = 67  # beyond the model's 20 levels: its default, 10
    assert r.priority_uint64 == 10
    r.timeout_microseconds = 222
    assert r.timeout_microseconds == 222
    r.set_string_parameter("s", "v")
    r.set_int_parameter("i", 5)
    r.set_bool_parameter("b", False)
    r.set_double_parameter("d", 0.5)
    data = numpy.ones([2, 3], dtype=numpy.float32)
    r.add_input("INPUT0", b.TRITONSERVER_DataType.FP32, data.shape)
    with pytest.raises(b.TritonError):
        r.remove_input("INPUT2")
    with pytest.raises(b.TritonError):
        r.add_raw_input("INPUT1")
    r.remove_input("INPUT0")
    r.remove_all_inputs()
    args = ("INPUT0", data.ctypes.data, data.nbytes, b.TRITONSERVER_MemoryType.CPU, 0)
    with pytest.raises(b.TritonError):
        r.append_input_data(*args)
    with pytest.raises(b.TritonError):
        r.remove_all_input_data("INPUT0")
    r.add_input("INPUT0", b.TRITONSERVER_DataType.FP32, data.shape)
    r.append_input_data(*args)
    r.remove_all_input_data("INPUT0")
    if conch._conch.cuda_device_count() == 0:  # test_gpu.py reads GPU inputs on a GPU
        with pytest.raises(b.UnsupportedError, match="needs a CUDA device"):
            r.append_input_data("INPUT0", data.ctypes.data, 24, b.TRITONSERVER_MemoryType.GPU, 0)
    r.add_requested_output("OUTPUT0")
    r.remove_requested_output("OUTPUT1")
    r.remove_all_requested_outputs()


def test_infer_async_answers_through_a_future(server: b.TRITONSERVER_Server) -> None:
    request, data = prepared(server)
    request.add_requested_output("OUTPUT1")
    server.infer_async(request)
    future: concurrent.futures.Future = concurrent.futures.Future()
    request.get_next_response(future)
    response, flags = future.result(timeout=10)
    assert flags == int(b.TRITONSERVER_ResponseCompleteFlag.FINAL)
    response.throw_if_response_error()
    assert response.model == ("addsub", 1) and response.id == "req_0"
    assert response.parameter_count == 0
    with pytest.raises(b.TritonError):
        response.parameter(0)
    assert response.output_count == 1  # only the output asked for
    name, datatype, shape, address, size, memory, device = response.output(0)
    assert (name, datatype, list(shape), size, memory, device) == (
        "OUTPUT1", b.TRITONSERVER_DataType.FP32, [4], 16, b.TRITONSERVER_MemoryType.CPU, 0)
    values = numpy.frombuffer(ctypes.string_at(address, size), dtype=numpy.float32)
    assert numpy.array_equal(values, data - data)
    assert response.output_classification_label(0, 1) == ""
    with pytest.raises(b.AlreadyExistsError, match="concurrently"):
        request.get_next_response(concurrent.futures.Future())
        request.get_next_response(concurrent.futures.Future())


def test_a_trace_reports_its_activities_and_is_released(server: b.TRITONSERVER_Server) -> None:
    seen: dict[Any, Any] = {"released": queue.Queue()}

    def on_stamp(trace: Any, activity: Any, ns: int, user: dict) -> None:
        user.setdefault(trace.id, []).append((activity, trace.parent_id, trace.model_name,
                                              trace.model_version, trace.request_id))

    def on_tensor(trace: Any, activity: Any, name: str, datatype: Any, address: int, size: int,
                  shape: Any, memory: Any, device: int, user: dict) -> None:
        values = numpy.frombuffer(ctypes.string_at(address, size), dtype=numpy.float32)
        user.setdefault(trace.id, []).append((activity, name, list(shape), values.tolist()))

    def on_release(trace: Any, user: dict) -> None:
        user["released"].put(trace.id)

    level = int(b.TRITONSERVER_InferenceTraceLevel.TIMESTAMPS) | int(
        b.TRITONSERVER_InferenceTraceLevel.TENSORS)
    trace = b.TRITONSERVER_InferenceTrace(level, 123, on_stamp, on_tensor, on_release, seen)
    trace_id = trace.id
    request, _ = prepared(server)
    server.infer_async(request, trace)
    with pytest.raises(b.InvalidArgumentError, match="given to a request already"):
        server.infer_async(prepared(server)[0], trace)
    future: concurrent.futures.Future = concurrent.futures.Future()
    request.get_next_response(future)
    response, _ = future.result(timeout=10)
    del response, future
    gc.collect()
    assert seen["released"].get(timeout=10) == trace_id
    stamps = [r for r in seen[trace_id] if len(r) == 5]
    tensors = [r for r in seen[trace_id] if len(r) == 4]
    activity = b.TRITONSERVER_InferenceTraceActivity
    assert [r[0] for r in stamps] == [
        activity.REQUEST_START, activity.QUEUE_START, activity.COMPUTE_START,
        activity.COMPUTE_INPUT_END, activity.COMPUTE_OUTPUT_START, activity.COMPUTE_END,
        activity.REQUEST_END]
    assert {r[1:] for r in stamps} == {(123, "addsub", 1, "req_0")}
    assert sorted((r[0].name, r[1], r[3]) for r in tensors) == [
        ("TENSOR_BACKEND_OUTPUT", "OUTPUT0", [2.0] * 4),
        ("TENSOR_BACKEND_OUTPUT", "OUTPUT1", [0.0] * 4),
        ("TENSOR_QUEUE_INPUT", "INPUT0", [1.0] * 4),
        ("TENSOR_QUEUE_INPUT", "INPUT1", [1.0] * 4)]


def test_a_raw_input_stands_for_the_models_one_input(tmp_path: pathlib.Path,
                                                     server: b.TRITONSERVER_Server) -> None:
    # addsub has two inputs: refused when submitted, with Triton's text.
    r = b.TRITONSERVER_InferenceRequest(server, "addsub", -1)
    r.add_raw_input("RAW")
    data = numpy.arange(4, dtype=numpy.float32)
    r.append_input_data("RAW", data.ctypes.data, data.nbytes, b.TRITONSERVER_MemoryType.CPU, 0)
    with pytest.raises(b.InvalidArgumentError, match="Raw request must only have 1 input"):
        server.infer_async(r)
    # A model with one input takes the bytes as that input.
    write_model(tmp_path / "one", "ident", identity_config("TYPE_FP32"))
    o = b.TRITONSERVER_ServerOptions()
    o.set_model_repository_path(str(tmp_path / "one"))
    o.set_model_control_mode(b.TRITONSERVER_ModelControlMode.NONE)
    one = b.TRITONSERVER_Server(o)
    try:
        r = b.TRITONSERVER_InferenceRequest(one, "ident", -1)
        r.add_raw_input("RAW")
        r.append_input_data("RAW", data.ctypes.data, data.nbytes,
                            b.TRITONSERVER_MemoryType.CPU, 0)
        one.infer_async(r)
        future: concurrent.futures.Future = concurrent.futures.Future()
        r.get_next_response(future)
        response, _ = future.result(timeout=10)
        response.throw_if_response_error()
        name, _, shape, address, size, _, _ = response.output(0)
        assert (name, list(shape)) == ("OUTPUT0", [4])
        assert numpy.array_equal(
            numpy.frombuffer(ctypes.string_at(address, size), dtype=numpy.float32), data)
    finally:
        one.stop()
