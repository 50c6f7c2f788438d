"""Registering and unregistering model repositories (EXPLICIT mode)."""

from __future__ import annotations

import pathlib

import numpy
import pytest

import conch
from conftest import identity_config, write_model


@pytest.fixture
def repositories(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """A startup repository holding "a", and a second one holding the
    directories "dir_b" and "c" (not registered)."""
    startup, extra = tmp_path / "startup", tmp_path / "extra"
    write_model(startup, "a", identity_config("TYPE_INT32"))
    write_model(extra, "dir_b", identity_config("TYPE_INT32"))
    write_model(extra, "c", identity_config("TYPE_INT32"))
    return startup, extra


@pytest.fixture
def server(repositories, make_server) -> conch.Server:
    startup, _ = repositories
    return make_server(
        model_repository=str(startup), model_control_mode=conch.ModelControlMode.EXPLICIT
    )


def names(server: conch.Server) -> set[str]:
    return {name for name, _ in server.models()}


def infer_one(model: conch.Model, value: int) -> list[int]:
    inputs = {"INPUT0": numpy.array([value], dtype=numpy.int32)}
    response = list(model.infer(inputs=inputs))[0]
    return numpy.from_dlpack(response.outputs["OUTPUT0"]).tolist()


def test_register_lists_the_models_unloaded_under_their_mapped_names(
    repositories, server
) -> None:
    _, extra = repositories
    server.register_model_repository(str(extra), {"dir_b": "b"})
    models = server.models()
    assert names(server) == {"a", "b", "c"}
    assert models[("b", -1)].state is None
    assert models[("c", -1)].state is None
    assert server.models(exclude_not_ready=True) == {}


def test_a_mapped_model_loads_and_infers_by_its_mapped_name(repositories, server) -> None:
    _, extra = repositories
    server.register_model_repository(str(extra), name_mapping={"dir_b": "b"})
    with pytest.raises(conch.InternalError, match="failed to poll from model repository"):
        server.load("dir_b")
    model = server.load("b")
    assert model.ready()
    assert model.config()["name"] == "b"
    assert server.models()[("b", 1)].state == "READY"
    assert infer_one(model, 7) == [7]


def test_registration_without_a_mapping_keeps_directory_names(repositories, server) -> None:
    _, extra = repositories
    server.register_model_repository(extra)  # a PathLike works too
    assert names(server) == {"a", "dir_b", "c"}
    assert infer_one(server.load("c"), 3) == [3]


def test_unregister_removes_the_models_but_loaded_ones_keep_serving(
    repositories, server
) -> None:
    _, extra = repositories
    server.register_model_repository(str(extra), {"dir_b": "b"})
    model = server.load("b")
    server.unregister_model_repository(str(extra))
    assert names(server) == {"a", "b"}
    assert model.ready()
    assert infer_one(model, 5) == [5]
    with pytest.raises(conch.InternalError, match="failed to poll from model repository"):
        server.load("c")
    server.unload("b", wait_until_unloaded=True, timeout=30)
    with pytest.raises(conch.InternalError, match="failed to poll from model repository"):
        server.load("b")


def test_a_repository_can_be_registered_again_with_another_mapping(
    repositories, server
) -> None:
    _, extra = repositories
    server.register_model_repository(str(extra), {"dir_b": "b"})
    server.unregister_model_repository(str(extra))
    server.register_model_repository(str(extra), {"dir_b": "renamed"})
    assert names(server) == {"a", "renamed", "c"}
    assert server.load("renamed").ready()


def test_registering_a_path_twice_already_exists(repositories, server) -> None:
    startup, extra = repositories
    with pytest.raises(conch.AlreadyExistsError, match="has already been registered"):
        server.register_model_repository(str(startup))
    server.register_model_repository(str(extra))
    with pytest.raises(conch.AlreadyExistsError, match="has already been registered"):
        server.register_model_repository(str(extra) + "/")


def test_a_mapped_name_used_by_another_repository_already_exists(repositories, server) -> None:
    _, extra = repositories
    with pytest.raises(conch.AlreadyExistsError, match="mapped name 'a'"):
        server.register_model_repository(str(extra), {"dir_b": "a"})
    assert names(server) == {"a"}


def test_a_mapped_name_another_mapping_uses_already_exists(
    repositories, server, tmp_path
) -> None:
    _, extra = repositories
    third = tmp_path / "third"
    write_model(third, "d", identity_config("TYPE_INT32"))
    server.register_model_repository(str(extra), {"dir_b": "b"})
    with pytest.raises(conch.AlreadyExistsError, match="conflicting mapping for 'b'"):
        server.register_model_repository(str(third), {"d": "b"})


def test_two_directories_mapped_to_one_name_are_invalid(repositories, server) -> None:
    _, extra = repositories
    with pytest.raises(conch.InvalidArgumentError, match="conflicting mapping for 'x'"):
        server.register_model_repository(str(extra), {"dir_b": "x", "c": "x"})


@pytest.mark.parametrize("mapping", [{"dir_b": ""}, {"dir_b": "x/y"}, {"dir_b": 3}, {1: "x"}])
def test_a_bad_mapping_is_invalid(repositories, server, mapping) -> None:
    _, extra = repositories
    with pytest.raises(conch.InvalidArgumentError):
        server.register_model_repository(str(extra), mapping)
    assert names(server) == {"a"}


def test_registering_a_missing_path_is_invalid(server, tmp_path) -> None:
    missing = tmp_path / "missing"
    with pytest.raises(conch.InvalidArgumentError, match="repository not found"):
        server.register_model_repository(str(missing))


def test_unregistering_an_unknown_path_is_invalid(repositories, server) -> None:
    _, extra = repositories
    with pytest.raises(conch.InvalidArgumentError, match="repository not found"):
        server.unregister_model_repository(str(extra))


@pytest.mark.parametrize("mode", [conch.ModelControlMode.NONE, conch.ModelControlMode.POLL])
def test_registration_needs_explicit_mode(repositories, make_server, mode) -> None:
    startup, extra = repositories
    server = make_server(model_repository=str(startup), model_control_mode=mode)
    with pytest.raises(conch.UnsupportedError, match="not EXPLICIT"):
        server.register_model_repository(str(extra))
    with pytest.raises(conch.UnsupportedError, match="not EXPLICIT"):
        server.unregister_model_repository(str(startup))


def test_registration_needs_a_started_server(repositories) -> None:
    _, extra = repositories
    with pytest.raises(conch.InvalidArgumentError, match="Server not started"):
        conch.Server(model_repository=str(extra)).register_model_repository(str(extra))
