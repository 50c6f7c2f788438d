"""The repository extension in explicit mode: configuration overrides that
ask for absurd counts (finding 5), loads of names with no model (finding
6), paths that leave the model's folder (finding 7), file overrides (CVE-2023-31036),
and what one loaded model may do to another (finding 9).

Modelled on CVE-2023-31036 (file override path traversal), CVE-2025-23316
(python backend code execution through model control) and CVE-2026-24208/24209
(path traversal)."""

from __future__ import annotations

import base64
import json
import os
import pathlib
import stat

import grpc
from tritonclient.grpc import service_pb2

import model_repository
import wire
from harness import Context, Fail, attack, client_error, grpc_refused, status_in, within


def load(ctx: Context, model: str, parameters: dict | None = None,
         timeout: float = 30) -> wire.Answer:
    body = {"parameters": parameters} if parameters is not None else {}
    return wire.post_json(ctx.server.http, f"/v2/repository/models/{model}/load", body,
                          ctx.server.headers, timeout=ctx.bound(timeout))


def unload(ctx: Context, model: str) -> wire.Answer:
    return wire.request(ctx.server.http, "POST", f"/v2/repository/models/{model}/unload",
                        headers=ctx.server.headers, timeout=ctx.bound(30))


def loaded(ctx: Context, model: str, parameters: dict | None = None) -> None:
    answer = load(ctx, model, parameters)
    if answer.status != 200:
        raise Fail(f"loading {model}: {answer.brief()}")


def infer_py(ctx: Context, model: str, values: list[float],
             parameters: dict | None = None) -> wire.Answer:
    body = {"inputs": [{"name": "INPUT0", "shape": [4], "datatype": "FP32", "data": values}]}
    if parameters:
        body["parameters"] = parameters
    return wire.post_json(ctx.server.http, f"/v2/models/{model}/infer", body,
                          timeout=ctx.bound(30))


def outputs(answer: wire.Answer, what: str) -> list:
    if answer.status != 200:
        raise Fail(f"{what}: {answer.brief()}")
    return answer.json()["outputs"][0]["data"]


class unloaded_after:
    """Unloads `models` when the block ends: a failed load leaves a model
    unavailable, and a strictly ready server not ready, until then (as in
    Triton)."""

    def __init__(self, ctx: Context, *models: str) -> None:
        self.ctx, self.models = ctx, models

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_) -> None:
        for model in self.models:
            unload(self.ctx, model)


def still_loads(ctx: Context) -> None:
    """A plain load, an inference and an unload of identity_extra work."""
    loaded(ctx, "identity_extra")
    answer = wire.post_json(ctx.server.http, "/v2/models/identity_extra/infer",
                            wire.infer_json(range(16)), timeout=ctx.bound(10))
    if answer.status != 200:
        raise Fail(f"an inference on identity_extra after the attack: {answer.brief()}")
    unload(ctx, "identity_extra")


CLASS_COUNTS = "CWE-789 excessive allocation through a configuration override; finding 5"


@attack("config_override_huge_counts", CLASS_COUNTS, loads=True)
def huge_counts(ctx: Context) -> None:
    with unloaded_after(ctx, "identity_extra"):
        _huge_counts(ctx)


def _huge_counts(ctx: Context) -> None:
    refused = {
        "instance count 2e9": [{"count": 2_000_000_000, "kind": "KIND_CPU"}],
        "instance count 2^31-1": [{"count": 2**31 - 1, "kind": "KIND_CPU"}],
        "instance count 2^40": [{"count": 2**40, "kind": "KIND_CPU"}],
        "2000 groups of 1e6 instances": [{"count": 1_000_000, "kind": "KIND_CPU"}] * 2000,
        "instance count 2e9 on GPU 0": [{"count": 2_000_000_000, "kind": "KIND_GPU",
                                         "gpus": [0]}],
    }
    for label, groups in refused.items():
        config = model_repository.identity_config("identity_extra", instance_group=groups)
        answer = load(ctx, "identity_extra", {"config": json.dumps(config)}, timeout=20)
        if answer.status == 200:
            unload(ctx, "identity_extra")
        client_error(answer, f"a config override with {label}")
        within(answer.seconds, ctx.bound(10), f"a config override with {label}")
    message = service_pb2.RepositoryModelLoadRequest(model_name="identity_extra")
    message.parameters["config"].string_param = json.dumps(model_repository.identity_config(
        "identity_extra", instance_group=[{"count": 2_000_000_000}]))
    grpc_refused(wire.call(ctx.server.grpc, "RepositoryModelLoad", message, timeout=20),
                 "gRPC config override with instance count 2e9",
                 (grpc.StatusCode.INVALID_ARGUMENT,))
    # Counts that allocate nothing may load; they must not wedge anything.
    # Triton takes a count below 1 for its default.
    for label, fields in (("instance count -5", {"instance_group": [{"count": -5}]}),
                          ("num_versions 2e9", {"version_policy": {"latest": {
                              "num_versions": 2_000_000_000}}}),
                          ("max_batch_size 2^31-1", {"max_batch_size": 2**31 - 1}),
                          ("max_queue_size 2^62", {"dynamic_batching": {
                              "default_queue_policy": {"max_queue_size": 2**62}}})):
        config = model_repository.identity_config("identity_extra", **fields)
        answer = load(ctx, "identity_extra", {"config": json.dumps(config)}, timeout=20)
        status_in(answer, (200, 400), f"a config override with {label}")
        if answer.status == 200:
            unload(ctx, "identity_extra")
    still_loads(ctx)


@attack("load_missing_then_good", "finding 6: readiness poisoned by a name with no model",
        loads=True)
def readiness(ctx: Context) -> None:
    missing = f"conch_attack_missing_{ctx.token()}"
    # Triton's INTERNAL "failed to poll from model repository", or a 4xx.
    client_error(load(ctx, missing), f"loading {missing}, which has no folder", also=(500,))
    message = service_pb2.RepositoryModelLoadRequest(model_name=missing + "_grpc")
    grpc_refused(wire.call(ctx.server.grpc, "RepositoryModelLoad", message),
                 "gRPC loading a name with no folder")
    loaded(ctx, "identity_extra")
    ready = wire.request(ctx.server.http, "GET", "/v2/health/ready")
    if ready.status != 200:
        raise Fail(f"ready after a failed load of a missing name and a good load: {ready.brief()}")
    index = wire.post_json(ctx.server.http, "/v2/repository/index", {})
    if missing in index.body.decode("utf-8", "replace"):
        raise Fail(f"the repository index lists {missing}, which has no folder")
    unload(ctx, missing)
    unload(ctx, "identity_extra")


def _evil(ctx: Context, where: pathlib.Path) -> pathlib.Path:
    """A .py file at `where` that leaves a marker when imported; the marker."""
    marker = ctx.work / f"imported-{where.name}"
    where.write_text(model_repository.EVIL.format(marker=str(marker)))
    return marker


@attack("default_model_filename_escape", "CVE-2025-23316 class: the python "
        "backend imports any .py; finding 7", loads=True)
def default_model_filename(ctx: Context) -> None:
    version = ctx.repository / "py_victim" / "1"
    places = {
        "an absolute path": (ctx.work / "abs_evil.py", str(ctx.work / "abs_evil.py")),
        "../x.py (the model folder)": (version.parent / "up1_evil.py", "../up1_evil.py"),
        "../../x.py (the repository)": (ctx.repository / "up2_evil.py", "../../up2_evil.py"),
        "../../../x.py (outside)": (ctx.repository.parent / "up3_evil.py", "../../../up3_evil.py"),
        "a detour through a folder": (ctx.repository / "up4_evil.py",
                                      "sub/../../../up4_evil.py"),
    }
    with unloaded_after(ctx, "py_victim"):
        _default_model_filename(ctx, places)


def _default_model_filename(ctx: Context, places: dict) -> None:
    try:
        for label, (path, name) in places.items():
            marker = _evil(ctx, path)
            config = model_repository.python_config("py_victim", default_model_filename=name)
            answer = load(ctx, "py_victim", {"config": json.dumps(config)})
            if answer.status == 200:
                unload(ctx, "py_victim")
            if marker.exists():
                raise Fail(f"default_model_filename as {label}: the server imported {path}")
            client_error(answer, f"default_model_filename as {label}")
    finally:
        for path, _ in places.values():
            path.unlink(missing_ok=True)
    for name in ("/etc/passwd", "/proc/self/environ", "../../../../../../../../etc/passwd"):
        config = model_repository.python_config("py_victim", default_model_filename=name)
        answer = load(ctx, "py_victim", {"config": json.dumps(config)})
        if answer.status == 200:
            unload(ctx, "py_victim")
        client_error(answer, f"default_model_filename {name}")
    loaded(ctx, "py_victim")
    outputs(infer_py(ctx, "py_victim", [1, 2, 3, 4]), "py_victim after the attack")
    unload(ctx, "py_victim")


@attack("sagemaker_url_escape", "CVE-2026-24208/24209 path traversal (SageMaker url through "
        "links); finding 7", loads=True)
def sagemaker_url(ctx: Context) -> None:
    port = ctx.server.port("SageMaker")
    shm = pathlib.Path(f"/dev/shm/conch-attack-{ctx.token()}")
    model = shm / "sm_model"
    (model / "1").mkdir(parents=True)
    (model / "config.pbtxt").write_text(model_repository.IDENTITY.format(
        name="sm_model", instances=1, extra=""))
    (ctx.work / "link").symlink_to(shm)
    (ctx.work / "link_via_proc").symlink_to(f"/proc/self/root{shm}")
    (ctx.work / "model_link").symlink_to(model)
    urls = [str(ctx.work / "link"), str(ctx.work / "link_via_proc"), str(ctx.work / "model_link"),
            f"/proc/self/root{shm}", f"/tmp/../dev/shm/{shm.name}", str(model),
            f"/proc/self/root{model}", "/proc/self/cwd", "/dev/shm", "/sys/kernel"]
    try:
        for n, url in enumerate(urls):
            name = f"sm_escape_{n}"
            answer = wire.post_json(port, "/models", {"model_name": name, "url": url},
                                    timeout=ctx.bound(30))
            if answer.status == 200:
                wire.request(port, "DELETE", f"/models/{name}")
            client_error(answer, f"SageMaker load from {url}")
        # A folder outside the system ones still loads.
        good = ctx.work / "sm_good" / "sm_good"
        (good / "1").mkdir(parents=True)
        (good / "config.pbtxt").write_text(model_repository.IDENTITY.format(
            name="sm_good", instances=1, extra=""))
        answer = wire.post_json(port, "/models", {"model_name": "sm_good", "url": str(good)},
                                timeout=ctx.bound(30))
        if answer.status != 200:
            raise Fail(f"SageMaker load from an ordinary folder: {answer.brief()}")
        wire.request(port, "DELETE", "/models/sm_good")
    finally:
        for path in sorted(shm.rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
        shm.rmdir()


@attack("label_filename_escape", "CVE-2026-24208/24209 path traversal (labels); finding 7",
        loads=True)
def label_filename(ctx: Context) -> None:
    secret = ctx.work / "secret.txt"
    token = f"SECRET{ctx.token()}"
    secret.write_text("".join(f"{token}-{i}\n" for i in range(16)))
    with unloaded_after(ctx, "identity_extra"):
        _label_filename(ctx, secret, token)


def _label_filename(ctx: Context, secret: pathlib.Path, token: str) -> None:
    climb = os.path.relpath(secret, ctx.repository / "identity_extra")
    for label, name in (("an absolute path", str(secret)), (climb, climb),
                        ("1/../" + climb, "1/../" + climb)):
        config = model_repository.identity_config("identity_extra", output=[{
            "name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": [16], "label_filename": name}])
        answer = load(ctx, "identity_extra", {"config": json.dumps(config)})
        if answer.status != 200:
            client_error(answer, f"label_filename as {label}")
            continue
        try:
            body = {**wire.infer_json(range(16)),
                    "outputs": [{"name": "OUTPUT0", "parameters": {"classification": 3}}]}
            ranked = wire.post_json(ctx.server.http, "/v2/models/identity_extra/infer", body)
            if token in ranked.body.decode("utf-8", "replace"):
                raise Fail(f"label_filename as {label}: labels read from outside the model")
        finally:
            unload(ctx, "identity_extra")


CLASS_FILES = "CVE-2023-31036 file override path traversal (held up: keep it so)"


def _file_load(ctx: Context, key: str, content: bytes = b"x") -> tuple[wire.Answer, wire.Reply]:
    config = json.dumps(model_repository.identity_config("identity_extra"))
    answer = load(ctx, "identity_extra",
                  {"config": config, key: base64.b64encode(content).decode()})
    if answer.status == 200:
        unload(ctx, "identity_extra")
    message = service_pb2.RepositoryModelLoadRequest(model_name="identity_extra")
    message.parameters["config"].string_param = config
    message.parameters[key].bytes_param = content
    reply = wire.call(ctx.server.grpc, "RepositoryModelLoad", message, timeout=ctx.bound(30))
    if reply.code == grpc.StatusCode.OK:
        unload(ctx, "identity_extra")
    return answer, reply


def _written(name: str, roots: list[pathlib.Path]) -> list[str]:
    """Files named `name`... under `roots`, three levels down at most."""
    found = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            if dirpath.count(os.sep) - str(root).count(os.sep) >= 3:
                dirnames[:] = []
            found += [os.path.join(dirpath, f) for f in filenames if f.startswith(name)]
    return found


@attack("file_override_traversal", CLASS_FILES, loads=True)
def file_overrides(ctx: Context) -> None:
    name = f"conch-attack-{ctx.token()}"
    keys = [f"file:../../{name}-a", f"file:1/../../../{name}-b",
            "file:" + "../" * 24 + f"tmp/{name}-c", f"file:1/../../{name}-d",
            "file:", "file:1/a\u0000b", "file:.", "file:1/.."]
    # Absolute paths join under the model's folder, as Triton joins them:
    # loaded (or refused), never written where they point.
    contained = [f"file:{ctx.work}/{name}-abs", f"file:/tmp/{name}-e"]
    with unloaded_after(ctx, "identity_extra"):
        for key in keys:
            answer, reply = _file_load(ctx, key)
            client_error(answer, f"HTTP override {key[:60]!r}")
            grpc_refused(reply, f"gRPC override {key[:60]!r}")
        for key in contained:
            answer, reply = _file_load(ctx, key)
            client_error(answer, f"HTTP override {key[:60]!r}", also=(200,))
            grpc_refused(reply, f"gRPC override {key[:60]!r}",
                         codes=(grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT))
    found = _written(name, [pathlib.Path("/tmp"), ctx.work])
    if found:
        raise Fail(f"an override file was written outside its model: {found[0]}")


@attack("file_override_name_max", "finding 7: a path component longer than NAME_MAX",
        loads=True)
def file_override_name_max(ctx: Context) -> None:
    with unloaded_after(ctx, "identity_extra"):
        answer, reply = _file_load(ctx, "file:1/" + "a" * 256)
    poll = "failed to poll from model repository"
    if not (400 <= answer.status < 500
            or (answer.status == 500 and poll in answer.body.decode("utf-8", "replace"))):
        raise Fail(f"HTTP override with a 256-byte name: {answer.brief()}, expected Triton's "
                   f"INTERNAL '{poll}' (or a 4xx)")
    if not (reply.code == grpc.StatusCode.INVALID_ARGUMENT
            or (reply.code == grpc.StatusCode.INTERNAL and poll in reply.details)):
        raise Fail(f"gRPC override with a 256-byte name: {reply.brief()}, expected INTERNAL "
                   f"'{poll}'")


@attack("override_files_private", "finding 9: override files were world-readable under /tmp",
        loads=True)
def override_private(ctx: Context) -> None:
    config = model_repository.python_config("py_victim", output="TYPE_STRING", dims=[1])
    code = base64.b64encode(model_repository.PYTHON_OWN_PATH.encode()).decode()
    loaded(ctx, "py_victim", {"config": json.dumps(config), "file:1/model.py": code})
    try:
        path = pathlib.Path(outputs(infer_py(ctx, "py_victim", [1, 2, 3, 4]),
                                    "the override model")[0])
        if ctx.repository in path.parents:
            raise Fail(f"the override was written into the repository: {path}")
        private = [p for p in [path, *path.parents]
                   if p.exists() and str(p) not in ("/", "/tmp")
                   and stat.S_IMODE(p.stat().st_mode) & 0o077 == 0]
        if not private:
            modes = ", ".join(f"{p} {stat.S_IMODE(p.stat().st_mode):o}"
                              for p in [path, *list(path.parents)[:3]])
            raise Fail(f"the override is readable by other users: {modes}")
    finally:
        unload(ctx, "py_victim")


@attack("python_models_isolated", "finding 9: one python model's helper.py shadowed another's",
        loads=True)
def python_isolation(ctx: Context) -> None:
    loaded(ctx, "py_iso_a")
    loaded(ctx, "py_iso_b")
    try:
        a = outputs(infer_py(ctx, "py_iso_a", [1, 1, 1, 1]), "py_iso_a")
        b = outputs(infer_py(ctx, "py_iso_b", [1, 1, 1, 1]), "py_iso_b")
        if a != [2.0] * 4 or b != [3.0] * 4:
            raise Fail(f"each model imports its own helper.py: py_iso_a gave {a} (its helper "
                       f"says 2), py_iso_b gave {b} (its helper says 3)")
    finally:
        unload(ctx, "py_iso_a")
        unload(ctx, "py_iso_b")


@attack("response_cache_keys_parameters", "finding 9: the response cache left request "
        "parameters out of its key", loads=True)
def cache_parameters(ctx: Context) -> None:
    loaded(ctx, "py_cache")
    try:
        one = outputs(infer_py(ctx, "py_cache", [1, 2, 3, 4], {"scale": 1}), "scale 1")
        three = outputs(infer_py(ctx, "py_cache", [1, 2, 3, 4], {"scale": 3}), "scale 3")
        if one != [1, 2, 3, 4] or three != [3, 6, 9, 12]:
            raise Fail(f"the same inputs with scale 1 then 3 gave {one} and {three}: the "
                       "cache answered a request with other parameters")
    finally:
        unload(ctx, "py_cache")
