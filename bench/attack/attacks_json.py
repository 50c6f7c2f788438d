"""Deep JSON on every route that reads JSON (finding 1): a recursive parser,
or a recursive copy of what it parsed, runs out of stack.

Modelled on CVE-2025-23310/23311 (stack overflow from crafted input)."""

from __future__ import annotations

import json

import grpc
from tritonclient.grpc import service_pb2

import wire
from harness import Context, Fail, attack, client_error, grpc_refused, within

CLASS = "CVE-2025-23310/23311 stack overflow by nesting; finding 1"

OPEN_ARRAYS = b"[" * (1 << 20)
OPEN_OBJECTS = b'{"a":' * 200_000
NESTED = b"[" * 100_000 + b"]" * 100_000

#: The bodies every JSON route gets: unterminated and complete nesting.
BODIES = {"'[' x 1 MiB": OPEN_ARRAYS, "'{\"a\":' x 200k": OPEN_OBJECTS,
          "[[...]] 100k deep": NESTED}


def _inside(template: str) -> dict[str, bytes]:
    """A valid request whose one value (@) is nested 100k deep."""
    head, tail = template.split("@")
    return {f"{template.replace('@', '[[...]]')} 100k deep": head.encode() + NESTED + tail.encode()}


def hammer(ctx: Context, port: int, path: str, headers: dict | None = None,
           bodies: dict[str, bytes] | None = None) -> None:
    """POSTs every deep body to `path`: each must be a 4xx within 2 s."""
    for label, body in {**BODIES, **(bodies or {})}.items():
        answer = wire.request(port, "POST", path, body,
                              {"Content-Type": "application/json", **(headers or {})},
                              timeout=ctx.bound(15))
        what = f"POST {path} with {label}"
        client_error(answer, what)
        within(answer.seconds, ctx.bound(2), what)


INFER_BODIES = {
    **_inside('{"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32","data":@}]}'),
    **_inside('{"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32",'
              '"data":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}],"parameters":{"p":@}}'),
}
GENERATE_BODIES = {**_inside('{"INPUT0":@}'), **_inside('{"parameters":{"x":@}}')}

# (attack name, frontend, path, extra bodies, headers)
ROUTES = [
    ("repository_index", "KServe HTTP", "/v2/repository/index", None, None),
    ("repository_load", "KServe HTTP", "/v2/repository/models/identity_extra/load",
     _inside('{"parameters":{"config":@}}'), None),
    ("repository_unload", "KServe HTTP", "/v2/repository/models/conch_attack_none/unload", None,
     None),
    ("logging", "KServe HTTP", "/v2/logging", None, None),
    ("trace_setting", "KServe HTTP", "/v2/trace/setting", None, None),
    ("model_trace_setting", "KServe HTTP", "/v2/models/identity_fp32/trace/setting", None, None),
    ("system_shm_register", "KServe HTTP", "/v2/systemsharedmemory/region/deep/register", None,
     None),
    ("cuda_shm_register", "KServe HTTP", "/v2/cudasharedmemory/region/deep/register", None, None),
    ("generate", "KServe HTTP", "/v2/models/identity_fp32/generate", GENERATE_BODIES, None),
    ("generate_stream", "KServe HTTP", "/v2/models/identity_fp32/generate_stream",
     GENERATE_BODIES, None),
    ("infer", "KServe HTTP", "/v2/models/identity_fp32/infer", INFER_BODIES, None),
    ("sagemaker_models", "SageMaker", "/models", _inside('{"model_name":"x","url":@}'), None),
    ("sagemaker_invocations", "SageMaker", "/invocations", INFER_BODIES, None),
    ("sagemaker_invoke", "SageMaker", "/models/identity_fp32/invoke", None, None),
    ("vertex_predict", "Vertex AI", "/predict", INFER_BODIES, None),
    ("vertex_redirect_load", "Vertex AI", "/predict", None,
     {"X-Vertex-Ai-Triton-Redirect": "v2/repository/models/identity_extra/load"}),
    ("vertex_redirect_shm", "Vertex AI", "/predict", None,
     {"X-Vertex-Ai-Triton-Redirect": "v2/systemsharedmemory/region/deep/register"}),
    ("openai_completions", "OpenAI API", "/v1/completions",
     _inside('{"model":"identity_fp32","prompt":"x","stop":@}'), None),
    ("openai_chat", "OpenAI API", "/v1/chat/completions",
     _inside('{"model":"identity_fp32","messages":[{"role":"user","content":@}]}'), None),
    ("openai_embeddings", "OpenAI API", "/v1/embeddings",
     _inside('{"model":"identity_fp32","input":@}'), None),
]


def _route_attack(name: str, frontend: str, path: str, bodies, headers) -> None:
    @attack(f"deep_json_{name}", CLASS, loads=name == "repository_load")
    def run(ctx: Context) -> None:
        hammer(ctx, ctx.server.port(frontend), path, headers, bodies)


for _route in ROUTES:
    _route_attack(*_route)


@attack("deep_json_repository_in_none_mode", CLASS + " (parsed before the mode check)",
        server="none")
def deep_json_none_mode(ctx: Context) -> None:
    for path in ("/v2/repository/index", "/v2/repository/models/identity_fp32/load",
                 "/v2/repository/models/identity_fp32/unload"):
        hammer(ctx, ctx.server.http, path)


@attack("deep_json_config_override", CLASS + " (the config string of a load)", loads=True)
def deep_json_config_override(ctx: Context) -> None:
    try:
        _config_bombs(ctx)
    finally:
        # A failed load leaves the model unavailable, and a strictly ready
        # server not ready, until it is unloaded (as in Triton).
        wire.request(ctx.server.http, "POST", "/v2/repository/models/identity_extra/unload")


def _config_bombs(ctx: Context) -> None:
    for label, body in BODIES.items():
        document = {"parameters": {"config": body.decode()}}
        answer = wire.post_json(ctx.server.http, "/v2/repository/models/identity_extra/load",
                                document, timeout=ctx.bound(15))
        what = f"HTTP load with a config override of {label}"
        client_error(answer, what)
        within(answer.seconds, ctx.bound(2), what)
        message = service_pb2.RepositoryModelLoadRequest(model_name="identity_extra")
        message.parameters["config"].string_param = body.decode()
        reply = wire.call(ctx.server.grpc, "RepositoryModelLoad", message, timeout=ctx.bound(15))
        what = f"gRPC load with a config override of {label}"
        grpc_refused(reply, what, (grpc.StatusCode.INVALID_ARGUMENT,))
        within(reply.seconds, ctx.bound(2), what)


@attack("deep_json_valid_depth_still_served", "keep: a JSON body of ordinary depth works")
def ordinary_depth(ctx: Context) -> None:
    # Triton's own nesting of "data" (one array per dimension) must still parse.
    body = {"inputs": [{"name": "INPUT0", "shape": [1, 16], "datatype": "FP32",
                        "data": [[float(i) for i in range(16)]]}]}
    answer = wire.request(ctx.server.http, "POST", "/v2/models/identity_fp32/infer",
                          json.dumps(body).encode())
    if answer.status != 200:
        raise Fail(f"nested 'data' of depth 2: {answer.brief()}")
