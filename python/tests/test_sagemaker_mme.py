"""The SageMaker frontend as a multi-model endpoint: SageMaker loads models
from folders it unpacked (POST /models), lists them, invokes them with the
headers it forwards from boto3's invoke_endpoint, and unloads them, with
the status codes Triton's SageMaker frontend answers."""

from __future__ import annotations

import json
import pathlib
import shutil
import tempfile
import textwrap
from typing import Iterator

import numpy
import pytest
import tritonclient.http as httpclient

import conch
from conch.frontend import RestrictedFeatures, SageMaker
from conftest import http_call as call, identity_config, write_model

BINARY = "application/vnd.sagemaker-triton.binary+json;json-header-size="
JSON = {"Content-Type": "application/json", "Accept": "application/json"}
REQUEST = json.dumps({"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2],
                                  "data": [1.0, 2.0]}]}).encode()


@pytest.fixture
def models(tmp_path: pathlib.Path) -> pathlib.Path:
    """Where SageMaker unpacks model archives: /opt/ml/models/<id>/model."""
    root = tmp_path / "opt" / "ml" / "models"
    for hashed in ("1a2b3c", "4d5e6f"):
        # SageMaker's folder is called "model", whatever the config names.
        write_model(root / hashed, "model", identity_config("TYPE_FP32"))
    return root


@pytest.fixture
def server(tmp_path: pathlib.Path, make_server) -> conch.Server:
    # As Triton's SageMaker entry point runs a multi-model endpoint: an empty
    # repository, models loaded on request.
    (tmp_path / "empty").mkdir()
    return make_server(model_repository=str(tmp_path / "empty"),
                       model_control_mode=conch.ModelControlMode.EXPLICIT)


@pytest.fixture
def port(server: conch.Server) -> Iterator[int]:
    with SageMaker(server, SageMaker.Options(port=0, thread_count=1, ping_mode="live")) as f:
        yield f.port


def load(port: int, name: str, url: pathlib.Path | str,
         headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    body = json.dumps({"model_name": name, "url": str(url)}).encode()
    status, _, reply = call(port, "POST", "/models", body, {**JSON, **(headers or {})})
    return status, reply


def invoke(port: int, name: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    # What SageMaker forwards of invoke_endpoint(ContentType=, Accept=,
    # CustomAttributes=, TargetModel=): the headers below.
    forwarded = {**JSON, "X-Amzn-SageMaker-Custom-Attributes": "trace=1",
                 **(headers or {})}
    status, _, reply = call(port, "POST", f"/models/{name}/invoke", REQUEST, forwarded)
    return status, reply


def test_load_list_get_invoke_and_unload(port: int, models: pathlib.Path) -> None:
    assert call(port, "GET", "/ping")[0] == 200
    assert load(port, "first", models / "1a2b3c" / "model") == (200, b"")
    assert load(port, "second", models / "4d5e6f" / "model/") == (200, b"")

    status, _, body = call(port, "GET", "/models")
    assert status == 200
    assert json.loads(body) == {"models": [
        {"modelName": "first", "modelUrl": str(models / "1a2b3c")},
        {"modelName": "second", "modelUrl": str(models / "4d5e6f")}]}
    status, _, body = call(port, "GET", "/models/second")
    assert (status, json.loads(body)) == (
        200, {"modelName": "second", "modelUrl": str(models / "4d5e6f")})

    status, reply = invoke(port, "first")
    assert status == 200, reply
    answer = json.loads(reply)
    assert answer["model_name"] == "first" and answer["outputs"][0]["data"] == [1.0, 2.0]

    status, _, body = call(port, "DELETE", "/models/first")
    assert (status, body) == (200, b"")
    assert call(port, "GET", "/models/first")[:3:2] == (404, b"")
    assert invoke(port, "first") == (404, b"")
    assert invoke(port, "second")[0] == 200
    # Unloaded, its folder can be loaded again.
    assert load(port, "first", models / "1a2b3c" / "model") == (200, b"")
    assert invoke(port, "first")[0] == 200


def test_invoke_takes_and_gives_binary_tensors(port: int, models: pathlib.Path) -> None:
    assert load(port, "m", models / "1a2b3c" / "model")[0] == 200
    data = numpy.arange(6, dtype=numpy.float32)
    tensor = httpclient.InferInput("INPUT0", [6], "FP32")
    tensor.set_data_from_numpy(data, binary_data=True)
    body, json_size = httpclient.InferenceServerClient.generate_request_body(
        [tensor], outputs=[httpclient.InferRequestedOutput("OUTPUT0", binary_data=True)])
    status, headers, reply = call(port, "POST", "/models/m/invoke", body,
                                  {"Content-Type": f"{BINARY}{json_size}"})
    assert status == 200, reply
    assert headers["Content-Type"].startswith(BINARY)
    result = httpclient.InferenceServerClient.parse_response_body(
        reply, header_length=int(headers["Content-Type"][len(BINARY):]))
    assert numpy.array_equal(result.as_numpy("OUTPUT0"), data)


def test_the_target_model_header_names_the_model_on_the_server(
        port: int, models: pathlib.Path, server: conch.Server) -> None:
    # SageMaker sends the archive's name as the target model.
    target = {"X-Amzn-SageMaker-Target-Model": "resnet.tar.gz"}
    assert load(port, "a1b2", models / "1a2b3c" / "model", target)[0] == 200
    assert server.model("resnet.tar.gz").ready()
    status, reply = invoke(port, "a1b2", target)
    assert status == 200 and json.loads(reply)["model_name"] == "resnet.tar.gz"
    # Conch remembers the target, so an invoke without the header finds it too.
    assert invoke(port, "a1b2")[0] == 200
    assert call(port, "DELETE", "/models/a1b2", None, target)[0] == 200
    assert not server.model("resnet.tar.gz").ready()


def test_a_model_unloaded_behind_the_endpoints_back_still_unloads_cleanly(
        port: int, models: pathlib.Path, server: conch.Server) -> None:
    assert load(port, "m", models / "1a2b3c" / "model")[0] == 200
    server.unload("m")
    # The repository is unregistered all the same: the folder loads again.
    assert call(port, "DELETE", "/models/m", None,
                {"X-Amzn-SageMaker-Target-Model": "another"})[0] == 200
    assert load(port, "m", models / "1a2b3c" / "model")[0] == 200
    assert invoke(port, "m")[0] == 200


def test_a_folder_holding_an_ensemble_loads_the_ensemble(
        port: int, tmp_path: pathlib.Path, server: conch.Server) -> None:
    folder = tmp_path / "opt" / "ml" / "models" / "ens" / "model"
    write_model(folder, "step", identity_config("TYPE_FP32"))
    write_model(folder, "pipeline", """
        platform: "ensemble"
        max_batch_size: 0
        input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ -1 ] } ]
        output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1 ] } ]
        ensemble_scheduling { step [ {
          model_name: "step" model_version: -1
          input_map { key: "INPUT0" value: "INPUT0" }
          output_map { key: "OUTPUT0" value: "OUTPUT0" } } ] }
    """)
    assert load(port, "pipe", folder) == (200, b"")
    status, reply = invoke(port, "pipe")
    assert status == 200, reply
    assert json.loads(reply)["outputs"][0]["data"] == [1.0, 2.0]
    assert call(port, "DELETE", "/models/pipe")[0] == 200
    assert not server.model("step").ready()


def test_what_a_load_refuses(port: int, models: pathlib.Path, tmp_path: pathlib.Path) -> None:
    assert load(port, "m", models / "1a2b3c" / "model")[0] == 200
    # The same folder, or the same name, again: 409.
    status, reply = load(port, "m", models / "1a2b3c" / "model")
    assert status == 409 and "already been registered" in json.loads(reply)["error"]
    status, reply = load(port, "m", models / "4d5e6f" / "model")
    assert status == 409 and "conflicting mapping" in json.loads(reply)["error"], reply

    status, reply = load(port, "gone", tmp_path / "missing" / "model")
    assert status == 400 and "repository not found" in json.loads(reply)["error"]
    for url in ("/dev/shm/model", "/proc/self", f"{models}/{'../' * 30}sys/x"):
        status, reply = load(port, "sys", url)
        assert status == 400 and "cannot start with /dev/, /proc/, or /sys/" in reply.decode()
    two = tmp_path / "two"
    write_model(two, "a", identity_config("TYPE_FP32"))
    write_model(two, "b", identity_config("TYPE_FP32"))
    status, reply = load(port, "two", two)
    assert status == 400 and "2 model directories and no ensemble" in reply.decode()

    status, _, reply = call(port, "POST", "/models", b"not json", JSON)
    assert status == 400 and "error" in json.loads(reply)
    status, _, reply = call(port, "POST", "/models", b'{"model_name": "x"}', JSON)
    assert status == 400 and "'url'" in json.loads(reply)["error"]
    # Nothing refused was left registered or loaded.
    status, _, body = call(port, "GET", "/models")
    assert [m["modelName"] for m in json.loads(body)["models"]] == ["m"]


def test_a_link_into_a_system_folder_is_refused_once_resolved(
        port: int, models: pathlib.Path, tmp_path: pathlib.Path) -> None:
    # A model a client could have written into /dev/shm (through a system
    # shared-memory region), reached through a link: no lexical check sees it.
    shm = pathlib.Path(tempfile.mkdtemp(dir="/dev/shm", prefix="conch-test-"))
    try:
        write_model(shm, "model", identity_config("TYPE_FP32"))
        (tmp_path / "via_root").symlink_to(f"/proc/self/root{shm}")
        (tmp_path / "via_fd").symlink_to("/proc/self/fd")
        for url in (tmp_path / "via_root" / "model", tmp_path / "via_root", tmp_path / "via_fd"):
            status, reply = load(port, "linked", url)
            assert status == 400, (url, reply)
            assert "cannot start with /dev/, /proc/, or /sys/" in reply.decode()
    finally:
        shutil.rmtree(shm)
    # An ordinary link is followed, and the folder it leads to registered.
    (tmp_path / "alias").symlink_to(models / "1a2b3c")
    assert load(port, "aliased", tmp_path / "alias" / "model") == (200, b"")
    status, _, body = call(port, "GET", "/models/aliased")
    assert json.loads(body)["modelUrl"] == str((models / "1a2b3c").resolve())
    assert call(port, "DELETE", "/models/aliased")[0] == 200


def test_a_model_that_fails_to_load_is_400_or_507_and_leaves_nothing_behind(
        port: int, tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "opt" / "ml" / "models" / "big" / "model"
    write_model(folder.parent, "model", """
        backend: "python"
        max_batch_size: 0
        input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ -1 ] } ]
        output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1 ] } ]
    """)
    model_py = folder / "1" / "model.py"
    model_py.write_text(textwrap.dedent("""
        class TritonPythonModel:
            def initialize(self, args):
                raise MemoryError("CUDA out of memory. Tried to allocate 80 GiB")
            def execute(self, requests):
                return []
    """))
    status, reply = load(port, "big", folder)
    assert status == 507 and "out of memory" in json.loads(reply)["error"], reply
    model_py.write_text(textwrap.dedent("""
        class TritonPythonModel:
            def initialize(self, args):
                raise ValueError("bad weights")
    """))
    status, reply = load(port, "big", folder)
    assert status == 400 and "bad weights" in json.loads(reply)["error"], reply
    assert json.loads(call(port, "GET", "/models")[2]) == {"models": []}


def test_unknown_models_and_methods(port: int) -> None:
    assert call(port, "GET", "/models/nope")[:3:2] == (404, b"")
    assert call(port, "DELETE", "/models/nope")[:3:2] == (404, b"")
    assert invoke(port, "nope") == (404, b"")
    assert call(port, "DELETE", "/models")[:3:2] == (400, b"")
    assert call(port, "PUT", "/models/nope", b"")[:3:2] == (400, b"")
    assert call(port, "GET", "/models/a/b")[:3:2] == (400, b"")
    assert call(port, "GET", "/modelsx")[:3:2] == (400, b"")


def test_the_repository_routes_follow_the_restrictions(
        server: conch.Server, models: pathlib.Path) -> None:
    restricted = RestrictedFeatures()
    restricted.create_feature_group("X-Admin", "yes", ["model-repository"])
    options = SageMaker.Options(port=0, thread_count=1, restricted_features=restricted)
    with SageMaker(server, options) as frontend:
        status, reply = load(frontend.port, "m", models / "1a2b3c" / "model")
        assert status == 403 and "X-Admin" in reply.decode()
        assert load(frontend.port, "m", models / "1a2b3c" / "model", {"X-Admin": "yes"})[0] == 200
        assert call(frontend.port, "GET", "/models")[0] == 403
        # Invoking is inference, not a repository change.
        assert invoke(frontend.port, "m")[0] == 200


def test_outside_explicit_mode_a_load_is_refused(tmp_path: pathlib.Path, make_server,
                                                 models: pathlib.Path) -> None:
    write_model(tmp_path / "repo", "m", identity_config("TYPE_FP32"))
    server = make_server(model_repository=str(tmp_path / "repo"))
    with SageMaker(server, SageMaker.Options(port=0, thread_count=1)) as frontend:
        status, reply = load(frontend.port, "x", models / "1a2b3c" / "model")
        assert status == 400 and "EXPLICIT" in reply.decode(), reply
