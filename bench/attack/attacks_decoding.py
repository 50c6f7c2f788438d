"""Decoding that must stay linear and bounded (finding 4), and integers
that overflow: shapes, binary sizes, BYTES length prefixes, numbers.

Modelled on CVE-2026-24146 (a large number of outputs), CVE-2026-24173
(malformed input; integer overflow is its class here) and CVE-2024-0116
(out-of-bounds read)."""

from __future__ import annotations

import json
import struct

import grpc
from tritonclient.grpc import service_pb2

import wire
from harness import Context, Fail, attack, client_error, grpc_refused, status_in, within

INFER = "/v2/models/identity_fp32/infer"
MANY = 100_000
CLASS_COUNTS = "CVE-2026-24146 class (a large number of outputs); finding 4"
CLASS_OVERFLOW = "CVE-2026-24173 class, integer overflow (held up: keep it so)"
U64 = (1 << 64) - 1
I64 = (1 << 63) - 1


def _http(ctx: Context, body: dict, what: str, path: str = INFER) -> None:
    answer = wire.request(ctx.server.http, "POST", path, json.dumps(body).encode(),
                          {"Content-Type": "application/json"}, timeout=ctx.bound(30))
    client_error(answer, what)
    within(answer.seconds, ctx.bound(2), what)


def _grpc(ctx: Context, message: service_pb2.ModelInferRequest, what: str) -> None:
    # Sent as bytes serialized beforehand, so the time is the server's.
    raw = message.SerializeToString()
    reply = wire.call(ctx.server.grpc, "/inference.GRPCInferenceService/ModelInfer", raw,
                      timeout=ctx.bound(30))
    grpc_refused(reply, what, (grpc.StatusCode.INVALID_ARGUMENT,
                               grpc.StatusCode.RESOURCE_EXHAUSTED))
    within(reply.seconds, ctx.bound(2), what)


def _tensor(name: str) -> dict:
    return {"name": name, "shape": [1, 16], "datatype": "FP32", "data": [0.0] * 16}


def _grpc_inputs(names) -> service_pb2.ModelInferRequest:
    message = service_pb2.ModelInferRequest(model_name="identity_fp32")
    payload = bytes(64)
    for name in names:
        message.inputs.add(name=name, datatype="FP32", shape=[1, 16])
        message.raw_input_contents.append(payload)
    return message


@attack("inputs_100k_unique", CLASS_COUNTS)
def inputs_unique(ctx: Context) -> None:
    _http(ctx, {"inputs": [_tensor(f"i{n}") for n in range(MANY)]},
          "HTTP inference with 100k uniquely named inputs")
    _grpc(ctx, _grpc_inputs(f"i{n}" for n in range(MANY)),
          "gRPC inference with 100k uniquely named inputs")


@attack("inputs_100k_same_name", CLASS_COUNTS)
def inputs_same(ctx: Context) -> None:
    _http(ctx, {"inputs": [_tensor("INPUT0")] * MANY}, "HTTP inference with 100k INPUT0s")
    _grpc(ctx, _grpc_inputs(["INPUT0"] * MANY), "gRPC inference with 100k INPUT0s")


@attack("outputs_100k", CLASS_COUNTS)
def outputs_many(ctx: Context) -> None:
    for label, names in (("uniquely named", [f"o{n}" for n in range(MANY)]),
                         ("OUTPUT0", ["OUTPUT0"] * MANY)):
        _http(ctx, {"inputs": [_tensor("INPUT0")], "outputs": [{"name": n} for n in names]},
              f"HTTP inference asking for 100k {label} outputs")
        message = _grpc_inputs(["INPUT0"])
        for name in names:
            message.outputs.add(name=name)
        _grpc(ctx, message, f"gRPC inference asking for 100k {label} outputs")


@attack("parameters_100k", CLASS_COUNTS)
def parameters_many(ctx: Context) -> None:
    params = {f"p{n}": n for n in range(MANY)}
    _http(ctx, {"inputs": [_tensor("INPUT0")], "parameters": params},
          "HTTP inference with 100k request parameters")
    _http(ctx, {"inputs": [{**_tensor("INPUT0"), "parameters": params}]},
          "HTTP inference with 100k parameters on an input")
    message = _grpc_inputs(["INPUT0"])
    for n in range(MANY):
        message.parameters[f"p{n}"].int64_param = n
    _grpc(ctx, message, "gRPC inference with 100k request parameters")


@attack("shape_product_overflow", CLASS_OVERFLOW)
def shapes(ctx: Context) -> None:
    for shape in ([1 << 62, 4], [1 << 31, 1 << 31, 4], [I64, 2], [-1, 16], [1, -16],
                  [4611686018427387904, 4611686018427387904], [1, 16, 1 << 62]):
        _http(ctx, {"inputs": [{"name": "INPUT0", "shape": shape, "datatype": "FP32",
                                "data": [0.0] * 16}]}, f"HTTP shape {shape}")
        body, headers = wire.binary_infer(
            {"inputs": [{"name": "INPUT0", "shape": shape, "datatype": "FP32",
                         "parameters": {"binary_data_size": 64}}]}, bytes(64))
        answer = wire.request(ctx.server.http, "POST", INFER, body, headers)
        client_error(answer, f"HTTP binary shape {shape}")
        message = service_pb2.ModelInferRequest(model_name="identity_fp32")
        message.inputs.add(name="INPUT0", datatype="FP32", shape=shape)
        message.raw_input_contents.append(bytes(64))
        _grpc(ctx, message, f"gRPC shape {shape}")
    for shape in ([1 << 70, 1], [1e30, 1], ["1", 16]):
        _http(ctx, {"inputs": [{"name": "INPUT0", "shape": shape, "datatype": "FP32",
                                "data": [0.0] * 16}]}, f"HTTP shape {shape}")


@attack("binary_size_overflow", CLASS_OVERFLOW)
def binary_sizes(ctx: Context) -> None:
    header = {"inputs": [{"name": "INPUT0", "shape": [1, 16], "datatype": "FP32",
                          "parameters": {"binary_data_size": 64}}]}
    head = json.dumps(header).encode()
    body = head + bytes(64)
    for length in (str(len(body) + 1), str(1 << 40), "-1", str(U64 + 1), str(U64), "abc", "",
                   " 1", "0x10", str(len(head) - 1)):
        answer = wire.request(ctx.server.http, "POST", INFER, body,
                              {"Inference-Header-Content-Length": length})
        client_error(answer, f"Inference-Header-Content-Length {length!r}")
    for size in (1 << 63, U64, -1, 1e30, 65, 0, "64"):
        sized = {"inputs": [{"name": "INPUT0", "shape": [1, 16], "datatype": "FP32",
                             "parameters": {"binary_data_size": size}}]}
        data, headers = wire.binary_infer(sized, bytes(64))
        client_error(wire.request(ctx.server.http, "POST", INFER, data, headers),
                     f"binary_data_size {size}")
    # Two sizes whose sum wraps around to the body's length.
    wrap = {"inputs": [{"name": "INPUT0", "shape": [1, 16], "datatype": "FP32",
                        "parameters": {"binary_data_size": 1 << 63}},
                       {"name": "INPUT1", "shape": [1, 16], "datatype": "FP32",
                        "parameters": {"binary_data_size": (1 << 63) + 64}}]}
    data, headers = wire.binary_infer(wrap, bytes(64))
    client_error(wire.request(ctx.server.http, "POST", INFER, data, headers),
                 "binary sizes whose sum wraps")
    # Outputs asked in binary with absurd sizes are a request field too.
    asked = {"inputs": [_tensor("INPUT0")],
             "outputs": [{"name": "OUTPUT0", "parameters": {"binary_data": True,
                                                             "classification": 1 << 63}}]}
    # Conch ranks min(k, classes): a clamped 200 is as good as a refusal.
    status_in(wire.post_json(ctx.server.http, INFER, asked), (200, 400), "classification 2^63")


def _bytes_http(ctx: Context, shape: list, payload: bytes) -> wire.Answer:
    data, headers = wire.binary_infer(
        {"inputs": [{"name": "INPUT0", "shape": shape, "datatype": "BYTES",
                     "parameters": {"binary_data_size": len(payload)}}]}, payload)
    return wire.request(ctx.server.http, "POST", "/v2/models/identity_bytes/infer", data,
                        headers)


@attack("bytes_length_prefix_overflow", CLASS_OVERFLOW + " (BYTES element lengths)")
def bytes_prefixes(ctx: Context) -> None:
    good = struct.pack("<I", 4) + b"abcd"
    answer = _bytes_http(ctx, [1], good)
    if answer.status != 200:
        raise Fail(f"a well-formed BYTES input: {answer.brief()}")
    for label, shape, payload in (
            ("prefix 2^32-1", [1], struct.pack("<I", 0xFFFFFFFF) + b"abcd"),
            ("prefix 2^31-1", [1], struct.pack("<I", 0x7FFFFFFF) + b"abcd"),
            ("prefix 5 with 4 bytes", [1], struct.pack("<I", 5) + b"abcd"),
            ("a cut prefix", [1], b"\x04\x00"),
            ("two elements announced, one sent", [2], good),
            ("one element announced, two sent", [1], good + good),
            ("2^62 elements announced", [1 << 62], good)):
        client_error(_bytes_http(ctx, shape, payload), f"BYTES with {label}")
        message = service_pb2.ModelInferRequest(model_name="identity_bytes")
        message.inputs.add(name="INPUT0", datatype="BYTES", shape=shape)
        message.raw_input_contents.append(payload)
        _grpc(ctx, message, f"gRPC BYTES with {label}")


@attack("json_number_overflow", CLASS_OVERFLOW + " (JSON numbers)")
def numbers(ctx: Context) -> None:
    def simple(values) -> dict:
        return {"inputs": [{"name": "INPUT0", "shape": [1, 16], "datatype": "INT32",
                            "data": values},
                           {"name": "INPUT1", "shape": [1, 16], "datatype": "INT32",
                            "data": [0] * 16}]}

    for value in (1 << 64, -(1 << 63) - 1, 1.5, "1", None, True, {"a": 1}):
        raw = json.dumps(simple([value] * 16)).encode()
        answer = wire.request(ctx.server.http, "POST", "/v2/models/simple/infer", raw,
                              {"Content-Type": "application/json"})
        client_error(answer, f"INT32 data {value!r}")
    raw = json.dumps(simple([0] * 16)).replace("[0, 0", "[1e400, 0", 1).encode()
    client_error(wire.request(ctx.server.http, "POST", "/v2/models/simple/infer", raw),
                 "INT32 data 1e400")
    huge = json.dumps(wire.infer_json([0.0] * 16)).replace("[0.0,", "[1e39,", 1).encode()
    status_in(wire.request(ctx.server.http, "POST", INFER, huge), (200, 400),
              "FP32 data 1e39")
    digits = ("{\"inputs\":[{\"name\":\"INPUT0\",\"shape\":[1,16],\"datatype\":\"FP32\","
              "\"data\":[" + "9" * 1_000_000 + ",0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}]}").encode()
    answer = wire.request(ctx.server.http, "POST", INFER, digits)
    status_in(answer, (200, 400), "a number of a million digits")
    within(answer.seconds, ctx.bound(2), "a number of a million digits")
