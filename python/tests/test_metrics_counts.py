"""Exact counts of the per-model families: after N successful, rejected,
cancelled and failing requests each series holds exactly its value, both in
server.metrics() and on the Metrics frontend; series exist at 0 from load to
unload. Counters move before the client hears of its request, so nothing here
waits for an interval."""

from __future__ import annotations

import pathlib
import re
import shutil
import time
import urllib.request
from typing import Iterator, Optional

import numpy
import pytest

import conch
from conch.frontend import Metrics

from conftest import identity_config, write_model

N = 5
MODELS = pathlib.Path(__file__).resolve().parent / "python_models"
REASONS = ("REJECTED", "CANCELED", "BACKEND", "OTHER")
# Long enough to hold an instance for the whole test; a cancel ends it early.
BLOCKING_MS = 600_000


def limited_config() -> str:
    """A blocking identity model whose queue holds one request."""
    return identity_config("TYPE_INT32", delay_ms=BLOCKING_MS) + """
        dynamic_batching { default_queue_policy { max_queue_size: 1 } }
    """


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[conch.Server]:
    repository = tmp_path_factory.mktemp("counts")
    write_model(repository, "counted", identity_config("TYPE_INT32"))
    write_model(repository, "fresh", identity_config("TYPE_INT32"))
    write_model(repository, "blocking", identity_config("TYPE_INT32", delay_ms=BLOCKING_MS))
    write_model(repository, "limited", limited_config())
    write_model(repository, "unloaded", identity_config("TYPE_INT32"))
    shutil.copytree(MODELS / "faulty", repository / "faulty")
    server = conch.Server(
        model_repository=str(repository),
        model_control_mode=conch.ModelControlMode.EXPLICIT,
        startup_models=["counted", "fresh", "blocking", "limited", "faulty"],
    ).start(wait_until_ready=True)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def frontend(server: conch.Server) -> Iterator[Metrics]:
    with Metrics(server, Metrics.Options(address="127.0.0.1", port=0)) as metrics:
        yield metrics


def scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        assert response.status == 200
        return response.read().decode()


def value(text: str, family: str, model: str, reason: Optional[str] = None) -> Optional[float]:
    """The value of `model`'s version-1 series of `family` (with `reason`)."""
    labels = f'model="{model}",'
    if reason is not None:
        labels += f'reason="{reason}",'
    labels += 'version="1"'
    match = re.search(rf"^{family}\{{{re.escape(labels)}\}} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else None


def counts(text: str, model: str) -> dict[str, Optional[float]]:
    """Every request counter of `model`, keyed "success", the failure reasons,
    "count" and "exec"."""
    out = {
        "success": value(text, "nv_inference_request_success", model),
        "count": value(text, "nv_inference_count", model),
        "exec": value(text, "nv_inference_exec_count", model),
    }
    for reason in REASONS:
        out[reason] = value(text, "nv_inference_request_failure", model, reason)
    return out


def expect(server: conch.Server, frontend: Metrics, model: str, **expected: float) -> None:
    """Both expositions hold exactly `expected` for `model` (0 for the rest)."""
    want = {key: 0.0 for key in ("success", "count", "exec", *REASONS)}
    want.update({key: float(v) for key, v in expected.items()})
    assert counts(server.metrics(), model) == want
    assert counts(scrape(frontend.port), model) == want


def int32(*values: int) -> dict[str, numpy.ndarray]:
    return {"INPUT0": numpy.array(values, dtype=numpy.int32)}


def executing(server: conch.Server, model: str, executions: int) -> None:
    """Waits until `model` has started `executions` executions (counted as
    each begins), so that what is sent next finds the instance busy."""
    deadline = time.monotonic() + 30
    while value(server.metrics(), "nv_inference_exec_count", model) != executions:
        assert time.monotonic() < deadline, server.metrics()
        time.sleep(0.005)


# -- counts --------------------------------------------------------------------------------


def test_one_inference_moves_the_counters_from_0_to_1_at_once(
    server: conch.Server, frontend: Metrics
) -> None:
    expect(server, frontend, "fresh")
    responses = list(server.model("fresh").infer(inputs=int32(7)))
    assert responses[-1].final
    expect(server, frontend, "fresh", success=1, count=1, exec=1)


def test_n_successes(server: conch.Server, frontend: Metrics) -> None:
    for i in range(N):
        list(server.model("counted").infer(inputs=int32(i, i + 1)))
    # Without batching every request is one execution of one inference.
    expect(server, frontend, "counted", success=N, count=N, exec=N)


def test_n_rejections_when_the_queue_is_full(server: conch.Server, frontend: Metrics) -> None:
    model = server.model("limited")
    running = model.infer(inputs=int32(1))
    executing(server, "limited", 1)
    queued = model.infer(inputs=int32(2))
    for i in range(N):
        with pytest.raises(conch.UnavailableError, match="Exceeds maximum queue size"):
            list(model.infer(inputs=int32(i)))
    expect(server, frontend, "limited", REJECTED=N, exec=1, count=1)
    # Cancelling frees the instance: the queued request is answered as
    # cancelled, the running one returns early as cancelled.
    queued.cancel()
    running.cancel()
    for responses in (queued, running):
        with pytest.raises(conch.CancelledError):
            list(responses)
    expect(server, frontend, "limited", REJECTED=N, CANCELED=2, exec=1, count=1)


def test_n_cancellations(server: conch.Server, frontend: Metrics) -> None:
    model = server.model("blocking")
    running = model.infer(inputs=int32(0))
    executing(server, "blocking", 1)
    queued = [model.infer(inputs=int32(i)) for i in range(N - 1)]
    for responses in queued:
        responses.cancel()
    running.cancel()
    for responses in [*queued, running]:
        with pytest.raises(conch.CancelledError):
            list(responses)
    # Only the running request reached the instance.
    expect(server, frontend, "blocking", CANCELED=N, exec=1, count=1)


def test_n_backend_failures(server: conch.Server, frontend: Metrics) -> None:
    def faulty(mode: int) -> conch.ResponseIterator:
        return server.model("faulty").infer(inputs={
            "MODE": numpy.array([mode], dtype=numpy.int32),
            "X": numpy.arange(4, dtype=numpy.float32),
        })

    for _ in range(N):
        with pytest.raises(conch.InternalError, match="execute failed on purpose"):
            list(faulty(1))  # model.py raises
    for _ in range(N):
        with pytest.raises(conch.InvalidArgumentError, match="bad input on purpose"):
            list(faulty(2))  # model.py answers with an error response
    list(faulty(0))
    expect(server, frontend, "faulty", BACKEND=2 * N, success=1, exec=2 * N + 1,
           count=2 * N + 1)


# -- series lifetime -----------------------------------------------------------------------


def test_series_exist_at_0_from_load_until_unload(
    server: conch.Server, frontend: Metrics
) -> None:
    assert counts(server.metrics(), "unloaded")["success"] is None
    server.load("unloaded")
    expect(server, frontend, "unloaded")
    text = server.metrics()
    for family in ("nv_inference_request_duration_us", "nv_inference_queue_duration_us",
                   "nv_inference_compute_input_duration_us",
                   "nv_inference_compute_infer_duration_us",
                   "nv_inference_compute_output_duration_us",
                   "nv_inference_pending_request_count"):
        assert value(text, family, "unloaded") == 0, family
    assert value(text, "nv_model_load_duration_secs", "unloaded") is not None
    server.unload("unloaded", wait_until_unloaded=True)
    for text in (server.metrics(), scrape(frontend.port)):
        assert 'model="unloaded"' not in text
    # The other models keep their series.
    assert counts(server.metrics(), "counted")["success"] is not None
