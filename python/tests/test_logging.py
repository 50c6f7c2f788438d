"""Conch's one log: the core's lines (model loads, frontends, requests) and
the Python layer's go through the same process-wide logger, in upstream's
line formats, to the same file and callback; /v2/logging changes what is
written."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from typing import Any, Iterator, Optional

import numpy
import pytest

import conch
from conch import _logging
from conch.frontend import KServeHttp
from conftest import http_call, identity_config, write_model

PID = os.getpid()
DEFAULT_LINE = re.compile(r"^([IWE])(\d{4} \d\d:\d\d:\d\d\.\d{6}) (\d+) ([^ :]+):(\d+)\] (.*)$")
ISO_LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) ([IWE]) (\d+) ([^ :]+):(\d+)\] (.*)$")


@pytest.fixture(autouse=True)
def quiet_afterwards() -> Iterator[None]:
    """Each test configures the process-wide logger; it ends as the defaults."""
    yield
    _logging.configure(conch.Options())


def lines_of(path: pathlib.Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def messages_of(path: pathlib.Path, pattern: re.Pattern = DEFAULT_LINE) -> list[str]:
    """The messages of the file's lines, checking that every line has the format."""
    out = []
    for line in lines_of(path):
        match = pattern.match(line)
        assert match, f"line not in the expected format: {line!r}"
        out.append(match.groups()[-1])
    return out


def http(port: int, method: str, path: str, body: Optional[dict] = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    with urllib.request.urlopen(request, timeout=60) as reply:
        text = reply.read()
    return json.loads(text) if text else None


def test_core_and_python_lines_in_the_default_format(tmp_path: pathlib.Path, make_server) -> None:
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    log = tmp_path / "conch.log"
    server = make_server(model_repository=str(tmp_path / "models"), log_info=True,
                         log_file=str(log), cache_directory="/elsewhere")
    server.stop()
    parsed = [DEFAULT_LINE.match(line) for line in lines_of(log)]
    assert parsed and all(parsed), lines_of(log)
    by_message = {m.group(6): m for m in parsed}
    loaded = by_message["successfully loaded 'm' version 1"]
    assert loaded.group(1) == "I"
    assert int(loaded.group(3)) == PID
    assert loaded.group(4) == "repository_load.cpp" and int(loaded.group(5)) > 0
    assert "loading: m:1" in by_message
    ignored = by_message[
        "Options.cache_directory is ignored: Conch's one cache (local) is built in"]
    assert ignored.group(1) == "W" and ignored.group(4) == "_options.py"
    assert "server stopped" in by_message


def test_lines_in_the_iso8601_format(tmp_path: pathlib.Path, make_server) -> None:
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    log = tmp_path / "conch.log"
    make_server(model_repository=str(tmp_path / "models"), log_info=True, log_file=str(log),
                log_format=conch.LogFormat.ISO8601, cache_directory="/elsewhere")
    messages = messages_of(log, ISO_LINE)
    assert "successfully loaded 'm' version 1" in messages
    assert any(m.startswith("Options.cache_directory is ignored") for m in messages)
    assert ISO_LINE.match(lines_of(log)[0]).group(3) == str(PID)


def test_the_callback_receives_core_and_python_lines(tmp_path: pathlib.Path,
                                                     make_server) -> None:
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    seen: list[tuple] = []
    make_server(model_repository=str(tmp_path / "models"), log_info=True,
                repo_agent_directory="/elsewhere",
                log_callback=lambda *args: seen.append(args),
                log_file=str(tmp_path / "conch.log"))
    for level, filename, line, stamp, message in seen:
        assert isinstance(level, conch.LogLevel)
        assert isinstance(line, int) and line > 0
        assert re.fullmatch(r"\d{4} \d\d:\d\d:\d\d\.\d{6}", stamp), stamp
    core = [s for s in seen if s[4] == "successfully loaded 'm' version 1"]
    assert core and core[0][0] == conch.LogLevel.INFO and core[0][1] == "repository_load.cpp"
    python = [s for s in seen if "repo_agent_directory is ignored" in s[4]]
    assert python and python[0][0] == conch.LogLevel.WARN and python[0][1] == "_options.py"
    # The callback comes on top of the file, not instead of it.
    assert "successfully loaded 'm' version 1" in messages_of(tmp_path / "conch.log")


def test_verbose_lines_only_when_asked(tmp_path: pathlib.Path, make_server) -> None:
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    for verbose in (0, 1):
        log = tmp_path / f"verbose{verbose}.log"
        server = make_server(model_repository=str(tmp_path / "models"), log_info=True,
                             log_verbose=verbose, log_file=str(log))
        list(server.model("m").infer(inputs={"INPUT0": numpy.ones(3, numpy.float32)}))
        _logging.logger.debug("a verbose line of the Python layer")
        server.stop()
        messages = messages_of(log)
        executing = [m for m in messages if re.match(r"instance 'm_\S+' executing 1 request", m)]
        python = [m for m in messages if m == "a verbose line of the Python layer"]
        assert "successfully loaded 'm' version 1" in messages
        assert (len(executing), len(python)) == ((1, 1) if verbose else (0, 0)), messages


def test_v2_logging_changes_what_is_written(tmp_path: pathlib.Path, make_server) -> None:
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    log = tmp_path / "conch.log"
    server = make_server(model_repository=str(tmp_path / "models"), log_error=True,
                         log_file=str(log), model_control_mode=conch.ModelControlMode.EXPLICIT)
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as frontend:
        port = frontend.port
        settings = http(port, "GET", "/v2/logging")
        assert settings == {"log_file": str(log), "log_info": False, "log_warning": False,
                            "log_error": True, "log_verbose_level": 0, "log_format": "default"}
        http(port, "POST", "/v2/repository/models/m/load", {})
        _logging.logger.info("python line while info is off")
        assert not any("loaded 'm'" in m for m in messages_of(log))

        changed = http(port, "POST", "/v2/logging", {"log_info": True})
        assert changed["log_info"] is True
        http(port, "POST", "/v2/repository/models/m/load", {})
        _logging.logger.info("python line while info is on")
        messages = messages_of(log)
        assert "successfully loaded 'm' version 1" in messages
        assert "python line while info is on" in messages
        assert "python line while info is off" not in messages

        http(port, "POST", "/v2/logging", {"log_format": "ISO8601"})
        http(port, "POST", "/v2/repository/models/m/unload", {})
        unloaded = [line for line in lines_of(log) if "successfully unloaded 'm'" in line]
        assert len(unloaded) == 1 and ISO_LINE.match(unloaded[0]), unloaded
        assert conch._conch.log_settings()["log_format"] == "ISO8601"


def test_a_model_name_cannot_forge_log_lines(tmp_path: pathlib.Path, make_server) -> None:
    # CVE-2024-0095's class: a percent-decoded CR/LF in a request's model name.
    (tmp_path / "models").mkdir()
    log = tmp_path / "conch.log"
    seen: list[str] = []
    server = make_server(model_repository=str(tmp_path / "models"), log_error=True,
                         log_file=str(log), model_control_mode=conch.ModelControlMode.EXPLICIT,
                         log_callback=lambda *record: seen.append(record[4]))
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as frontend:
        status, _, _ = http_call(frontend.port, "POST",
                                 "/v2/repository/models/a%0D%0AE1231%20forged/load", b"{}")
        assert status >= 400
        _logging.logger.error("python line with\nE1231 a second")
        conch._conch.flush_log_callback()
    messages = messages_of(log)  # every line is a whole log line
    assert not any(line.startswith("E1231") for line in lines_of(log))
    forged = [m for m in messages if "a\\r\\nE1231 forged" in m]
    # The failed load and Triton's reason ("failed to poll model ..."), each
    # a whole line with the name escaped.
    assert forged and all(m.startswith("failed to") for m in forged), messages
    assert "python line with\\nE1231 a second" in messages
    assert forged[0] in seen and not any("\n" in m or "\r" in m for m in seen)


def test_a_callback_that_raises_does_not_break_the_server(tmp_path: pathlib.Path,
                                                          make_server) -> None:
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    calls = []

    def callback(*args: object) -> None:
        calls.append(args)
        raise RuntimeError("boom")

    log = tmp_path / "conch.log"
    server = make_server(model_repository=str(tmp_path / "models"), log_verbose=1,
                         log_file=str(log), log_callback=callback)
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as frontend:
        assert http(frontend.port, "GET", "/v2/health/ready") is None
        out = list(server.model("m").infer(inputs={"INPUT0": numpy.ones(2, numpy.float32)}))
        assert numpy.from_dlpack(out[0].outputs["OUTPUT0"]).tolist() == [1.0, 1.0]
    messages = messages_of(log)
    assert any(m.startswith("Started HTTPService at 0.0.0.0:") for m in messages)
    assert any(m.startswith("Stopped HTTPService at 0.0.0.0:") for m in messages)
    assert any(c[4].startswith("Started HTTPService") for c in calls)
    assert any(re.match(r"instance 'm_\S+' executing", c[4]) for c in calls)


def test_python_backend_logger_writes_through_conch(tmp_path: pathlib.Path,
                                                   make_server) -> None:
    model = tmp_path / "models" / "talker"
    (model / "1").mkdir(parents=True)
    (model / "config.pbtxt").write_text(textwrap.dedent("""
        name: "talker"
        backend: "python"
        max_batch_size: 0
        input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ -1 ] } ]
        output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1 ] } ]
    """))
    (model / "1" / "model.py").write_text(textwrap.dedent("""
        import triton_python_backend_utils as pb_utils

        class TritonPythonModel:
            def initialize(self, args):
                pb_utils.Logger.log_warn("talker warns")
                pb_utils.Logger.log_info("talker informs")
                pb_utils.Logger.log("talker is verbose", pb_utils.LogLevel.VERBOSE)

            def execute(self, requests):
                return [pb_utils.InferenceResponse(output_tensors=[
                    pb_utils.get_input_tensor_by_name(r, "INPUT0")]) for r in requests]
    """))
    log = tmp_path / "conch.log"
    make_server(model_repository=str(tmp_path / "models"), log_warn=True, log_file=str(log))
    parsed = [DEFAULT_LINE.match(line) for line in lines_of(log)]
    mine = [(m.group(1), m.group(4), m.group(6)) for m in parsed if "talker" in m.group(6)]
    assert mine == [("W", "model.py", "talker warns")], lines_of(log)


def test_a_log_file_that_cannot_be_opened_is_an_error(tmp_path: pathlib.Path) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_FP32"))
    with pytest.raises(conch.InvalidArgumentError, match="failed to open log file"):
        conch.Server(model_repository=str(tmp_path), log_info=True,
                     log_file=str(tmp_path / "missing" / "conch.log")).start()


def test_log_message_writes_with_the_callers_line(tmp_path: pathlib.Path) -> None:
    log = tmp_path / "conch.log"
    _logging.configure(conch.Options(log_warn=True, log_error=True, log_file=str(log)))
    line = sys._getframe().f_lineno + 1
    _logging.LogMessage(conch.LogLevel.ERROR, "from LogMessage")
    _logging.LogMessage(conch.LogLevel.INFO, "info is off")
    match = DEFAULT_LINE.match(lines_of(log)[-1])
    assert match and match.group(1) == "E" and match.group(6) == "from LogMessage"
    assert (match.group(4), int(match.group(5))) == ("test_logging.py", line)
    assert len(lines_of(log)) == 1


def test_serve_writes_its_log_file(tmp_path: pathlib.Path) -> None:
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    log = tmp_path / "serve.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "conch", "serve", "--model-repository", str(tmp_path / "models"),
         "--http-port", "0", "--grpc-port", "0", "--metrics-port", "0", "--log-info", "true",
         "--log-format", "ISO8601", "--log-file", str(log)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 120
        for output in process.stdout:  # until it says it listens (or ends)
            if "KServe HTTP listening" in output or time.monotonic() > deadline:
                break
    finally:
        process.terminate()
        assert process.wait(timeout=120) == 0
    messages = messages_of(log, ISO_LINE)
    assert "successfully loaded 'm' version 1" in messages
    assert any(m.startswith("Started HTTPService at 0.0.0.0:") for m in messages)
    assert any(m.startswith("Started GRPCInferenceService at 0.0.0.0:") for m in messages)
    assert any(m.startswith("Started Metrics Service at 0.0.0.0:") for m in messages)
    assert "server stopped" in messages


def test_a_callback_that_blocks_does_not_stall_requests(tmp_path: pathlib.Path,
                                                        make_server) -> None:
    # The callback blocks on every line that a Conch thread logs for a
    # request. Those lines wait on the delivery thread; the requests do not.
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    release = threading.Event()
    executing: list[str] = []

    def callback(level, filename, line, stamp, message) -> None:
        if "executing" in message:
            executing.append(message)
            release.wait(60)

    server = make_server(model_repository=str(tmp_path / "models"), log_verbose=1,
                         log_callback=callback)
    answers: list[list[float]] = []

    def infer_once() -> list[float]:
        out = list(server.model("m").infer(inputs={"INPUT0": numpy.ones(2, numpy.float32)}))
        return numpy.from_dlpack(out[0].outputs["OUTPUT0"]).tolist()

    # The first request's line reaches the callback, which blocks in it.
    answers.append(infer_once())
    deadline = time.monotonic() + 30
    while not executing and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(executing) == 1

    def infer() -> None:
        for _ in range(20):
            answers.append(infer_once())

    worker = threading.Thread(target=infer)
    worker.start()
    worker.join(timeout=30)
    finished_while_blocked = not worker.is_alive()
    still_one = len(executing) == 1
    release.set()
    worker.join(timeout=30)
    assert finished_while_blocked
    assert still_one
    assert answers == [[1.0, 1.0]] * 21
    server.stop()
    assert len(executing) >= 21


def test_what_the_callback_logs_is_not_handed_back_to_it(tmp_path: pathlib.Path,
                                                         make_server) -> None:
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    seen: list[str] = []

    def callback(level, filename, line, stamp, message) -> None:
        seen.append(message)
        # Lines of Conch's threads arrive on the log thread, which holds the
        # GIL: this one is written to the file, not passed back in.
        _logging.LogMessage(conch.LogLevel.INFO, "echo: " + message)

    log = tmp_path / "conch.log"
    server = make_server(model_repository=str(tmp_path / "models"), log_info=True,
                         log_file=str(log), log_callback=callback)
    server.stop()
    assert "successfully loaded 'm' version 1" in seen
    assert not any(m.startswith("echo: ") for m in seen)
    assert "echo: successfully loaded 'm' version 1" in messages_of(log)
