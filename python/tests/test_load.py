"""Loading and unloading in EXPLICIT mode; polling in POLL mode."""

from __future__ import annotations

import json
import pathlib

import numpy
import pytest

import conch
from conftest import identity_config, write_model

IDENTITY_JSON = {
    "backend": "identity",
    "max_batch_size": 0,
    "input": [{"name": "INPUT0", "data_type": "TYPE_INT32", "dims": [-1]}],
    "output": [{"name": "OUTPUT0", "data_type": "TYPE_INT32", "dims": [-1]}],
}


def explicit(make_server) -> conch.Server:
    return make_server(model_control_mode=conch.ModelControlMode.EXPLICIT)


def test_models_of_an_explicit_server_are_listed_but_not_loaded(tmp_path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    server = explicit(make_server)
    models = server.models()
    assert list(models) == [("m", -1)]
    assert models[("m", -1)].state is None
    assert server.models(exclude_not_ready=True) == {}


def test_load_and_unload(tmp_path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    server = explicit(make_server)
    model = server.load("m")
    assert model.name == "m" and model.ready()
    assert server.models()[("m", 1)].state == "READY"
    server.unload("m", wait_until_unloaded=True)
    assert not server.model("m").ready()
    assert all(m.state in (None, "UNAVAILABLE") for m in server.models().values())


def test_unload_takes_a_model_object(tmp_path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    server = explicit(make_server)
    model = server.load("m")
    server.unload(model, wait_until_unloaded=True, timeout=30)
    assert not model.ready()


def test_load_with_a_json_config(tmp_path, make_server) -> None:
    (tmp_path / "from_json" / "1").mkdir(parents=True)
    server = explicit(make_server)
    model = server.load("from_json", {"config": json.dumps(IDENTITY_JSON)})
    assert model.config()["backend"] == "identity"
    response = list(model.infer(inputs={"INPUT0": numpy.array([3], dtype=numpy.int32)}))[0]
    assert numpy.from_dlpack(response.outputs["OUTPUT0"]).tolist() == [3]


def test_load_with_file_parameters(tmp_path, make_server) -> None:
    server = explicit(make_server)
    model = server.load(
        "uploaded",
        {"config": json.dumps(IDENTITY_JSON), "file:1/notes.txt": b"any bytes"},
    )
    assert model.ready()
    assert model.metadata()["versions"] == ["1"]


def test_load_parameters_are_type_checked(tmp_path, make_server) -> None:
    server = explicit(make_server)
    with pytest.raises(conch.InvalidArgumentError):
        server.load("m", {"config": {"backend": "identity"}})
    with pytest.raises(conch.InvalidArgumentError):
        server.load("m", {"file:1/x": "not bytes"})


def test_a_bad_config_fails_the_load(tmp_path, make_server) -> None:
    (tmp_path / "bad" / "1").mkdir(parents=True)
    server = explicit(make_server)
    with pytest.raises(conch.TritonError):
        server.load("bad", {"config": "{not json"})


def test_load_is_refused_in_none_mode(tmp_path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    server = make_server()
    with pytest.raises(conch.TritonError):
        server.load("m")


def test_poll_picks_up_a_new_model(tmp_path, make_server) -> None:
    write_model(tmp_path, "first", identity_config("TYPE_INT32"))
    server = make_server(model_control_mode=conch.ModelControlMode.POLL)
    assert not server.model("second").ready()
    write_model(tmp_path, "second", identity_config("TYPE_INT32"))
    server.poll_model_repository()
    assert server.model("second").ready()


def test_startup_models_load_at_start(tmp_path, make_server) -> None:
    write_model(tmp_path, "a", identity_config("TYPE_INT32"))
    write_model(tmp_path, "b", identity_config("TYPE_INT32"))
    server = make_server(model_control_mode=conch.ModelControlMode.EXPLICIT, startup_models=["b"])
    assert server.model("b").ready() and not server.model("a").ready()


def test_a_model_that_fails_to_load_fails_start(tmp_path: pathlib.Path) -> None:
    write_model(tmp_path, "broken", 'backend: "no_such_backend"\n')
    with pytest.raises(conch.TritonError):
        conch.Server(model_repository=str(tmp_path)).start()
    server = conch.Server(model_repository=str(tmp_path), exit_on_error=False).start()
    try:
        (entry,) = [m for (name, _), m in server.models().items() if name == "broken"]
        assert entry.state == "UNAVAILABLE" and entry.reason
    finally:
        server.stop()
