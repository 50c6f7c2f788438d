"""The log and trace files changed over the network (held up: keep it so):
a client that names the file decides what the server writes where.

Modelled on CVE-2024-0087 (log file path), CVE-2024-0100 (trace file path)
and CVE-2023-31036 (file writes through the control APIs)."""

from __future__ import annotations

import pathlib

import grpc
from tritonclient.grpc import service_pb2

import wire
from harness import UNSUPPORTED, Context, Fail, attack, client_error, grpc_refused, status_in

NOT_OVER_THE_NETWORK = (UNSUPPORTED,)  # Triton's answer to a log or trace file change


def _targets(ctx: Context) -> list[pathlib.Path]:
    token = ctx.token()
    return [pathlib.Path(f"/etc/conch-attack-{token}.log"),
            pathlib.Path(f"/etc/cron.d/conch-attack-{token}"),
            pathlib.Path(f"/proc/sys/kernel/conch-attack-{token}"),
            ctx.repository / f"conch-attack-{token}.log",
            pathlib.Path(f"/tmp/../etc/conch-attack-{token}-2.log")]


def _none_written(targets: list[pathlib.Path], what: str) -> None:
    for path in targets:
        if path.exists():
            path.unlink(missing_ok=True)
            raise Fail(f"{what}: the server wrote {path}")


@attack("log_file_changed_at_runtime", "CVE-2024-0087 log file path (held up: keep it so)")
def log_file(ctx: Context) -> None:
    before = wire.request(ctx.server.http, "GET", "/v2/logging").json().get("log_file")
    targets = _targets(ctx)
    for path in targets:
        answer = wire.post_json(ctx.server.http, "/v2/logging", {"log_file": str(path)})
        client_error(answer, f"log_file {path}", also=NOT_OVER_THE_NETWORK)
        message = service_pb2.LogSettingsRequest()
        message.settings["log_file"].string_param = str(path)
        grpc_refused(wire.call(ctx.server.grpc, "LogSettings", message), f"gRPC log_file {path}")
    for body in ({"log_verbose_level": -1}, {"log_info": "yes"}, {"log_format": "%n%n%n"},
                 {"log_file": 7}, {"log_file": str(targets[0]), "log_info": True}):
        client_error(wire.post_json(ctx.server.http, "/v2/logging", body), f"logging {body}",
                     also=NOT_OVER_THE_NETWORK)
    wire.post_json(ctx.server.http, "/v2/models/identity_fp32/infer", wire.infer_json(range(16)))
    _none_written(targets, "after log_file changes")
    after = wire.request(ctx.server.http, "GET", "/v2/logging").json().get("log_file")
    if after != before:
        raise Fail(f"the log file changed: {before!r} became {after!r}")


@attack("trace_file_changed_at_runtime", "CVE-2024-0100 trace file path (held up: keep it so)")
def trace_file(ctx: Context) -> None:
    targets = _targets(ctx)
    try:
        for path in targets:
            for route in ("/v2/trace/setting", "/v2/models/identity_fp32/trace/setting"):
                answer = wire.post_json(ctx.server.http, route, {"trace_file": str(path)})
                client_error(answer, f"{route} trace_file {path}", also=NOT_OVER_THE_NETWORK)
            for model in ("", "identity_fp32"):
                message = service_pb2.TraceSettingRequest(model_name=model)
                message.settings["trace_file"].value.append(str(path))
                grpc_refused(wire.call(ctx.server.grpc, "TraceSetting", message),
                             f"gRPC trace_file {path} ({model or 'global'})")
        # Tracing turned on without a file the operator chose must not write one.
        answer = wire.post_json(ctx.server.http, "/v2/trace/setting",
                                {"trace_level": ["TIMESTAMPS"], "trace_rate": "1",
                                 "log_frequency": "1"})
        status_in(answer, (200, 400), "trace_level TIMESTAMPS")
        for _ in range(3):
            wire.post_json(ctx.server.http, "/v2/models/identity_fp32/infer",
                           wire.infer_json(range(16)))
        _none_written(targets, "after trace_file changes")
    finally:
        wire.post_json(ctx.server.http, "/v2/trace/setting",
                       {"trace_level": ["OFF"], "trace_rate": None, "log_frequency": None})


@attack("trace_settings_bad_values", "CVE-2024-0100 class: trace settings as data")
def trace_values(ctx: Context) -> None:
    for body in ({"trace_rate": str(1 << 70)}, {"trace_count": "-2"},
                 {"log_frequency": "x"}, {"trace_level": ["OFF", "TIMESTAMPS"]},
                 {"trace_level": "TIMESTAMPS" * 10_000}, {"trace_rate": ["1"] * 100_000}):
        answer = wire.post_json(ctx.server.http, "/v2/trace/setting", body)
        # Triton answers a non-string value with 500 "attempt to access JSON
        # non-string as string"; anything else must be a 4xx.
        if answer.status == 500 and b"attempt to access JSON" in answer.body:
            continue
        client_error(answer, f"trace setting {str(body)[:60]}")
    # 6,000 bytes: an error that names the model stays within the 8 KiB of
    # metadata a gRPC client takes by default.
    message = service_pb2.TraceSettingRequest(model_name="x" * 6_000)
    message.settings["trace_rate"].value.append("1")
    reply = wire.call(ctx.server.grpc, "TraceSetting", message)
    if reply.code not in (grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT,
                          grpc.StatusCode.NOT_FOUND):
        raise Fail(f"gRPC trace setting for a 6,000-byte model name: {reply.brief()}")
