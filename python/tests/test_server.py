"""Server lifecycle, health, metadata, the model dictionary and options."""

from __future__ import annotations

import pathlib

import pytest

import conch
from conftest import EXAMPLE_REPOSITORY, identity_config, write_model


def test_start_returns_the_server_and_stop_ends_it() -> None:
    server = conch.Server(model_repository=str(EXAMPLE_REPOSITORY))
    assert server.start(wait_until_ready=True) is server
    assert server.live() and server.ready()
    server.stop()
    with pytest.raises(conch.InvalidArgumentError, match="Server not started"):
        server.live()


def test_metadata_names_the_server(example_server: conch.Server) -> None:
    metadata = example_server.metadata()
    assert metadata["name"] == "triton"
    assert isinstance(metadata["version"], str) and metadata["version"]
    assert "model_repository" in metadata["extensions"]


def test_server_id_is_reported(tmp_path: pathlib.Path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_FP32"))
    server = make_server(server_id="ExampleServer")
    assert server.metadata()["name"] == "ExampleServer"


def test_methods_of_a_server_never_started_raise_invalid_argument() -> None:
    server = conch.Server(model_repository=str(EXAMPLE_REPOSITORY))
    for call in (
        server.live,
        server.ready,
        server.metadata,
        server.models,
        server.metrics,
        server.stop,
        server.poll_model_repository,
        lambda: server.model("simple"),
        lambda: server.load("simple"),
        lambda: server.unload("simple"),
    ):
        with pytest.raises(conch.InvalidArgumentError, match="Server not started"):
            call()


def test_a_model_kept_past_stop_raises_invalid_argument() -> None:
    server = conch.Server(model_repository=str(EXAMPLE_REPOSITORY)).start(wait_until_ready=True)
    model = server.model("identity_fp32")
    server.stop()
    with pytest.raises(conch.InvalidArgumentError, match="Server not started"):
        model.ready()
    with pytest.raises(conch.InvalidArgumentError, match="Server not started"):
        model.infer(inputs={})


def test_starting_twice_raises_and_restart_after_stop_works() -> None:
    server = conch.Server(model_repository=str(EXAMPLE_REPOSITORY)).start()
    with pytest.raises(conch.InvalidArgumentError, match="Server already started"):
        server.start()
    server.stop()
    server.start(wait_until_ready=True)
    assert server.ready()
    server.stop()


def test_a_missing_repository_fails_at_start() -> None:
    with pytest.raises(conch.InternalError, match="failed to stat file"):
        conch.Server(model_repository="/no/such/repository").start()


def test_a_repository_of_none_is_rejected() -> None:
    with pytest.raises(conch.InvalidArgumentError, match="Model repository must be specified."):
        conch.Server(model_repository=None).start()


def test_an_empty_repository_list_is_rejected() -> None:
    with pytest.raises(conch.InvalidArgumentError, match="--model-repository must be specified"):
        conch.Server(model_repository=[]).start()


def test_options_of_the_wrong_type_raise_type_error_at_start() -> None:
    server = conch.Server(model_repository=str(EXAMPLE_REPOSITORY), server_id=5)
    with pytest.raises(TypeError):
        server.start()
    with pytest.raises(TypeError):
        conch.Server(model_repository=str(EXAMPLE_REPOSITORY), exit_timeout=-1).start()


def test_unknown_options_raise_type_error_at_once() -> None:
    with pytest.raises(TypeError):
        conch.Server(model_repository=str(EXAMPLE_REPOSITORY), no_such_option=1)


def test_context_manager_starts_and_stops() -> None:
    with conch.Server(model_repository=str(EXAMPLE_REPOSITORY)) as server:
        assert server.live()
    with pytest.raises(conch.InvalidArgumentError):
        server.live()


def test_models_are_keyed_by_name_and_version(example_server: conch.Server) -> None:
    models = example_server.models()
    assert ("identity_fp32", 1) in models
    model = models[("identity_fp32", 1)]
    assert (model.name, model.version, model.state) == ("identity_fp32", 1, "READY")
    by_name = models["identity_fp32"]
    assert (by_name.name, by_name.version) == ("identity_fp32", -1)
    with pytest.raises(KeyError, match="Unknown Model"):
        models["nope"]
    with pytest.raises(KeyError, match="Unknown Model"):
        models[("identity_fp32", 7)]


def test_str_of_a_model_shows_name_version_and_state(example_server: conch.Server) -> None:
    model = example_server.models()[("simple", 1)]
    assert str(model) == str({"name": "simple", "version": 1, "state": "READY"})


def test_metrics_count_inferences(example_server: conch.Server) -> None:
    text = example_server.metrics()
    assert "nv_inference_count" in text
    assert 'model="identity_fp32"' in text


def test_registering_repositories_needs_explicit_mode(example_server: conch.Server) -> None:
    with pytest.raises(conch.UnsupportedError, match="not EXPLICIT"):
        example_server.register_model_repository("/tmp")


def test_log_levels_cascade_into_the_options() -> None:
    options = conch.Options(model_repository=str(EXAMPLE_REPOSITORY), log_verbose=1)
    server = conch.Server(options).start()
    server.stop()
    assert options.log_info and options.log_warn and options.log_error


def test_ignored_options_are_accepted_and_logged(tmp_path: pathlib.Path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_FP32"))
    messages = []
    make_server(
        repo_agent_directory="/somewhere",
        model_load_retry_count=2,
        pinned_memory_pool_size=1,
        log_warn=True,
        log_callback=lambda level, file, line, stamp, message: messages.append((level, message)),
    )
    warned = {m for level, m in messages if level == conch.LogLevel.WARN}
    assert any("repo_agent_directory" in m for m in warned)
    assert any("model_load_retry_count" in m for m in warned)
    assert not any("pinned_memory_pool_size" in m for m in warned)  # honoured where a GPU is
    assert not any("server_id" in m for m in warned)


@pytest.mark.parametrize("field, value", [
    ("pinned_memory_pool_size", -1),
    ("pinned_memory_pool_size", 1.5),
    ("cuda_memory_pool_sizes", {0: -5}),
    ("cuda_memory_pool_sizes", {-1: 1024}),
    ("cuda_memory_pool_sizes", {"0": 1024}),
])
def test_memory_pool_sizes_must_be_byte_counts(tmp_path: pathlib.Path, field, value) -> None:
    options = conch.Options(model_repository=str(tmp_path), **{field: value})
    with pytest.raises(conch.InvalidArgumentError, match=r"cuda_memory_pool_sizes|pinned_memory"):
        conch.Server(options).start()


def test_without_a_gpu_there_is_no_pool_to_report(tmp_path: pathlib.Path, make_server) -> None:
    if conch._conch.cuda_device_count() > 0:
        pytest.skip("this machine has a GPU: test_gpu.py checks the pools there")
    write_model(tmp_path, "m", identity_config("TYPE_FP32"))
    server = make_server(pinned_memory_pool_size=1 << 20, cuda_memory_pool_sizes={0: 1 << 20})
    text = server.metrics()
    assert "nv_pinned_memory_pool_total_bytes 0" in text
    assert conch._conch.memory_pools()["pinned"] == (0, 0)


def test_a_log_callback_that_raises_is_ignored(tmp_path: pathlib.Path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_FP32"))

    def callback(*args: object) -> None:
        raise RuntimeError("boom")

    server = make_server(repo_agent_directory="/elsewhere", log_callback=callback)
    assert server.ready()


def test_options_defaults_match_upstream() -> None:
    options = conch.Options()
    assert options.model_repository == []
    assert options.server_id == "triton"
    assert options.model_control_mode == conch.ModelControlMode.NONE
    assert options.strict_model_config is False
    assert options.exit_on_error is True
    assert options.strict_readiness is True
    assert options.exit_timeout == 30
    assert options.pinned_memory_pool_size == 268435456
    assert options.min_supported_compute_capability == 6.0
    assert options.model_load_thread_count == 4
    assert options.metrics_interval == 2000
    assert options.backend_directory == "/opt/tritonserver/backends"
    assert options.log_callback is None


def test_options_and_keyword_arguments_do_not_mix() -> None:
    with pytest.raises(TypeError):
        conch.Server(conch.Options(model_repository=str(EXAMPLE_REPOSITORY)), server_id="x")


def test_log_file_receives_warnings(tmp_path: pathlib.Path, make_server) -> None:
    repository = tmp_path / "repository"
    write_model(repository, "m", identity_config("TYPE_FP32"))
    log = tmp_path / "conch.log"
    make_server(
        model_repository=str(repository),
        log_warn=True,
        log_file=str(log),
        log_format=conch.LogFormat.ISO8601,
        cache_directory="/elsewhere",
    )
    text = log.read_text()
    assert "cache_directory is ignored" in text
    assert "T" in text.split()[0] and text.split()[0].endswith("Z")


def test_nothing_is_logged_by_default(tmp_path: pathlib.Path, make_server, capfd) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_FP32"))
    make_server(cache_directory="/elsewhere")
    assert "cache_directory" not in capfd.readouterr().err


def test_wait_until_ready_times_out(tmp_path: pathlib.Path) -> None:
    # A server with strict readiness and a model that failed to load is live
    # but never ready.
    write_model(tmp_path, "broken", 'backend: "no_such_backend"\n')
    server = conch.Server(model_repository=str(tmp_path), exit_on_error=False)
    try:
        with pytest.raises(conch.UnavailableError, match="Timeout before ready"):
            server.start(wait_until_ready=True, polling_interval=0.01, timeout=0.2)
        assert server.live()
    finally:
        server.stop()
