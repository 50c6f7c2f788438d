"""``conch serve``: a Conch server with its network frontends, run until
SIGINT or SIGTERM, then stopped gracefully. The flags are those of
``tritonserver`` (the program) that Conch implements."""

from __future__ import annotations

import argparse
import atexit
import os
import selectors
import shutil
import signal
import socket
import sys
import tempfile
import time
from typing import TYPE_CHECKING, Optional, Sequence

from . import _conch
from ._allocator import CHOICES as _ALLOCATORS
from ._allocator import AllocatorError, active_allocator, exec_with_allocator
from ._enums import LogFormat, ModelControlMode
from ._errors import TritonError
from ._options import Options
from ._serve_common import _flag, _policy, _port, _positive, _say
from ._serve_openai import _OPENAI, add_openai_arguments, start_openai
from ._server import Server

if TYPE_CHECKING:
    from .frontend import RestrictedFeatures

__all__ = ["add_serve_arguments", "serve"]

#: The frontends' option defaults, as the native options define them; the
#: command line's defaults are these.
_HTTP = _conch.HttpFrontend.defaults()
_GRPC = _conch.GrpcFrontend.defaults()
_METRICS = _conch.MetricsFrontend.defaults()


def _metrics_setting(text: str) -> tuple[str, str, str]:
    """(group, setting, value) of a --metrics-config argument, as Triton's
    "[group,]setting=value"; settings without a group go to the unnamed one."""
    head, equals, value = text.partition("=")
    if not equals or not head:
        raise argparse.ArgumentTypeError(f"expected [GROUP,]SETTING=VALUE, got {text!r}")
    group, comma, setting = head.partition(",")
    if not comma:
        group, setting = "", head
    return group, setting, value


def _cache_setting(text: str) -> tuple[str, str, str]:
    """(cache, setting, value) of a --cache-config argument, as Triton's
    "<cache>,<setting>=<value>" ("local,size=1048576")."""
    head, equals, value = text.partition("=")
    cache, comma, setting = head.partition(",")
    if not equals or not comma or not cache or not setting:
        raise argparse.ArgumentTypeError(f"expected CACHE,SETTING=VALUE, got {text!r}")
    return cache, setting, value


def _byte_size(text: str) -> int:
    """A byte count: a non-negative integer."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a number of bytes, got {text!r}")
    return int(text)


def _device_byte_size(text: str) -> tuple[int, int]:
    """(GPU, bytes) of a --cuda-memory-pool-byte-size argument, as Triton's
    "<GPU id>:<bytes>" ("0:67108864")."""
    device, colon, size = text.partition(":")
    if not colon or not device.isdigit() or not size.isdigit():
        raise argparse.ArgumentTypeError(f"expected GPU:BYTES, got {text!r}")
    return int(device), int(size)


def _cache_config(args: argparse.Namespace) -> dict:
    """Options.cache_config from --cache-config and --response-cache-byte-size;
    ValueError when both are given."""
    if args.cache_config and args.response_cache_byte_size is not None:
        raise ValueError("incompatible flags --response-cache-byte-size and --cache-config: "
                         "give one of them")
    if args.response_cache_byte_size is not None:
        return {"local": {"size": args.response_cache_byte_size}}
    config: dict[str, dict[str, str]] = {}
    for cache, setting, value in args.cache_config:
        config.setdefault(cache, {})[setting] = value
    return config


def _port_range(text: str) -> tuple[int, int]:
    parts = text.split("-")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(
            "Cannot parse pair option due to incorrect number of inputs.--sagemaker-safe-port-range "
            f"argument requires format <first>-<second>. Found: {text}")
    return (_port(parts[0]), _port(parts[1]))


def check_port_range(args: argparse.Namespace) -> None:
    """With a SageMaker safe port range, every other frontend listens on a
    port in it (Triton's check, with its message); ValueError otherwise."""
    if not args.allow_sagemaker or args.sagemaker_safe_port_range is None:
        return
    lo, hi = args.sagemaker_safe_port_range
    for name, allowed, port in (("HTTP", args.allow_http, args.http_port),
                                ("GRPC", args.allow_grpc, args.grpc_port),
                                ("metrics", args.allow_metrics, args.metrics_port),
                                ("OpenAI", args.allow_openai or args.openai_port is not None,
                                 _OPENAI["port"] if args.openai_port is None
                                 else args.openai_port)):
        if allowed and not lo <= port <= hi:
            raise ValueError(f"The server cannot listen to {name} requests at port {port}, "
                             f"allowed port range is [{lo}, {hi}]")


# The groups --http-restricted-api and --grpc-restricted-protocol take.
_GROUP_NAMES = "health, metadata, inference, shared-memory, model-config, model-repository, " \
               "statistics, trace, logging"

# --grpc-infer-compression-level's words, as tritonserver's.
_COMPRESSION_LEVELS = {"none": 0, "low": 1, "medium": 2, "high": 3}


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the flags of `conch serve` to `parser`."""
    server = parser.add_argument_group("server")
    # Vertex AI names the model repository in AIP_STORAGE_URI (a local path
    # here), and AIP_MODE=PREDICTION serves Vertex AI alone, as Triton does.
    storage = os.environ.get("AIP_STORAGE_URI", "")
    prediction = os.environ.get("AIP_MODE", "") == "PREDICTION"
    # A SageMaker multi-model endpoint (SAGEMAKER_MULTI_MODEL=true) starts
    # with no model and loads them on request, as Triton's entry point runs it.
    multi_model = _multi_model()
    server.add_argument("--model-repository", "--model-store", action="append",
                        required=not storage and not multi_model,
                        metavar="DIR", help="a model repository (repeatable)")
    server.add_argument("--id", default="triton", help="the server name in its metadata")
    server.add_argument("--model-control-mode", choices=["none", "poll", "explicit"],
                        default="explicit" if multi_model else "none",
                        help="which models load and when (default: none; explicit with "
                             "SAGEMAKER_MULTI_MODEL=true)")
    server.add_argument("--load-model", action="append", default=[], metavar="NAME",
                        help="a model to load at start in explicit mode; '*' for all "
                             "(repeatable)")
    server.add_argument("--repository-poll-secs", type=float, default=15.0, metavar="SECS",
                        help="how often poll mode rescans the repositories (default: 15)")
    server.add_argument("--backend-directory", default="/opt/tritonserver/backends",
                        metavar="DIR",
                        help="where backends are looked up by name first, as Triton's: a "
                             "python-based backend is DIR/<backend>/model.py "
                             "(default: /opt/tritonserver/backends)")
    _flag(server, "--strict-model-config", False,
          "require complete model configurations (default: false)")
    _flag(server, "--strict-readiness", True,
          "ready only while every loaded model is ready (default: true)")
    _flag(server, "--exit-on-error", True, "fail to start when a model fails to load "
          "(default: true)")
    server.add_argument("--exit-timeout-secs", type=int, default=30, metavar="SECS",
                        help="how long stopping waits for requests in flight (default: 30)")
    _flag(server, "--allow-client-shm", False,
          "let clients register system and CUDA shared-memory regions and name them in "
          "inference requests, over every frontend; the server then maps any object under "
          "/dev/shm a client names (default: false, as Triton's server)")
    _flag(server, "--direct-lane", True, "run small requests to idle models that do not "
          "batch on the thread that read them, or hand them straight to the instance "
          "thread of a Python model (default: true)")
    server.add_argument("--cache-config", type=_cache_setting, action="append", default=[],
                        metavar="CACHE,SETTING=VALUE",
                        help="the response cache, as Triton's: local,size=BYTES (models opt "
                             "in with response_cache { enable: true }; repeatable)")
    server.add_argument("--response-cache-byte-size", type=int, default=None, metavar="BYTES",
                        help="the same as --cache-config local,size=BYTES (Triton's older flag)")
    server.add_argument("--pinned-memory-pool-byte-size", type=_byte_size, default=1 << 28,
                        metavar="BYTES",
                        help="pinned host memory allocated at start that pinned buffers are "
                             "cut from first, where CUDA finds a GPU; 0: none "
                             "(default: 268435456)")
    server.add_argument("--cuda-memory-pool-byte-size", type=_device_byte_size,
                        action="append", default=[], metavar="GPU:BYTES",
                        help="the memory allocated at start on a GPU that GPU buffers are cut "
                             "from first; 0: none (default: 67108864 on each GPU; repeatable)")
    server.add_argument("--allocator", choices=_ALLOCATORS,
                        default=os.environ.get("CONCH_ALLOCATOR", "auto"),
                        help="the memory allocator of the conch command: tcmalloc or jemalloc "
                             "(preloaded; the command restarts itself once), or system for "
                             "glibc's; auto takes tcmalloc, then jemalloc, when installed "
                             "(default: $CONCH_ALLOCATOR, else auto)")

    http = parser.add_argument_group("KServe HTTP frontend")
    _flag(http, "--allow-http", not prediction,
          "serve KServe v2 over HTTP (default: true, false when AIP_MODE=PREDICTION)")
    http.add_argument("--http-address", default=_HTTP["address"], metavar="ADDR",
                      help=f"the address to listen on (default: {_HTTP['address']})")
    http.add_argument("--http-port", type=_port, default=_HTTP["port"], metavar="PORT",
                      help=f"the port; 0 picks a free one (default: {_HTTP['port']})")
    http.add_argument("--http-thread-count", type=int, default=_HTTP["thread_count"],
                      metavar="N",
                      help=f"threads serving HTTP connections (default: {_HTTP['thread_count']})")
    http.add_argument("--http-max-input-size", type=_positive, default=_HTTP["max_input_size"],
                      metavar="BYTES",
                      help="the largest request body, before and after decompression, on the "
                           "HTTP frontends (KServe, SageMaker, Vertex AI); larger ones get 400 "
                           f"(default: {_HTTP['max_input_size']}, "
                           f"{_HTTP['max_input_size'] >> 20} MiB)")
    http.add_argument("--http-header-forward-pattern", default="", metavar="REGEX",
                      help="request headers whose names match (RE2, anywhere in the name, "
                           "any case) become inference request parameters (default: none)")
    http.add_argument("--http-restricted-api", action="append", default=[],
                      metavar="GROUPS:KEY=VALUE",
                      help="requests to these comma-separated groups (" + _GROUP_NAMES + ") "
                           "must carry header KEY with VALUE, else 403; on the KServe HTTP, "
                           "SageMaker and Vertex AI frontends alike; repeatable, a group in "
                           "one argument at most")
    policy = parser.add_argument_group(
        "HTTP connection policy", "what one client may hold of the KServe HTTP and the metrics "
        "frontends, and for how long (0 disables a timeout or cap)")
    for name, what in (
            ("header_timeout", "a request's headers must arrive within"),
            ("body_timeout", "a request body may pause between reads at most"),
            ("keepalive_timeout", "an idle connection stays open between requests"),
            ("write_timeout", "a write may wait for a client that does not read"),
            ("drain_timeout", "a stop waits for clients still sending or reading")):
        default = _HTTP[name]
        policy.add_argument("--http-" + name.replace("_", "-"), type=_seconds, default=default,
                            metavar="SECONDS", help=f"seconds {what} (default: {default:g})")
    policy.add_argument("--http-max-connections", type=_count, default=_HTTP["max_connections"],
                        metavar="N",
                        help="connections open at once per frontend; beyond it new ones are "
                             f"closed (default: {_HTTP['max_connections']})")
    policy.add_argument("--http-max-inflight-bytes", type=_count,
                        default=_HTTP["max_inflight_bytes"], metavar="BYTES",
                        help="bytes of request bodies held at once per frontend; beyond it 503 "
                             f"(default: {_HTTP['max_inflight_bytes']})")
    policy.add_argument("--http-max-header-size", type=_positive, default=_HTTP["max_header_size"],
                        metavar="BYTES", help="the largest request line plus headers; beyond it "
                                              f"431 (default: {_HTTP['max_header_size']})")

    grpc = parser.add_argument_group("KServe gRPC frontend")
    _flag(grpc, "--allow-grpc", not prediction,
          "serve KServe v2 over gRPC (default: true, false when AIP_MODE=PREDICTION)")
    grpc.add_argument("--grpc-address", default=_GRPC["address"], metavar="ADDR",
                      help=f"the address to listen on (default: {_GRPC['address']})")
    grpc.add_argument("--grpc-port", type=_port, default=_GRPC["port"], metavar="PORT",
                      help=f"the port; 0 picks a free one (default: {_GRPC['port']})")
    _flag(grpc, "--grpc-use-ssl", False, "serve gRPC over TLS (default: false)")
    _flag(grpc, "--grpc-use-ssl-mutual", False,
          "serve gRPC over mutual TLS: clients need a certificate that --grpc-root-cert "
          "verifies; implies --grpc-use-ssl (default: false)")
    grpc.add_argument("--grpc-server-cert", default="", metavar="FILE",
                      help="the server's certificate chain (PEM) for TLS")
    grpc.add_argument("--grpc-server-key", default="", metavar="FILE",
                      help="the server certificate's private key (PEM) for TLS")
    grpc.add_argument("--grpc-root-cert", default="", metavar="FILE",
                      help="the CA certificates (PEM) client certificates must chain to")
    grpc.add_argument("--grpc-infer-compression-level", default="none",
                      choices=sorted(_COMPRESSION_LEVELS), metavar="LEVEL",
                      help="the compression of inference responses: none, low, medium or "
                           "high (default: none)")
    grpc.add_argument("--grpc-max-message-size", type=_positive,
                      default=_GRPC["max_message_size"], metavar="BYTES",
                      help="the largest gRPC message received or sent "
                           f"(default: {_GRPC['max_message_size']})")
    grpc.add_argument("--grpc-header-forward-pattern", default="", metavar="REGEX",
                      help="request metadata whose keys match become inference request "
                           "parameters (default: none)")
    grpc.add_argument("--grpc-restricted-protocol", action="append", default=[],
                      metavar="GROUPS:KEY=VALUE",
                      help="calls to these comma-separated groups (" + _GROUP_NAMES + ") "
                           "must carry metadata triton-grpc-protocol-KEY with VALUE, else "
                           "UNAVAILABLE; repeatable, a group in one argument at most")

    metrics = parser.add_argument_group("metrics frontend")
    _flag(metrics, "--allow-metrics", True, "serve Prometheus metrics (default: true)")
    metrics.add_argument("--metrics-address", default=_METRICS["address"], metavar="ADDR",
                         help=f"the address to listen on (default: {_METRICS['address']})")
    metrics.add_argument("--metrics-port", type=_port, default=_METRICS["port"], metavar="PORT",
                         help=f"the port; 0 picks a free one (default: {_METRICS['port']})")
    _flag(metrics, "--allow-gpu-metrics", True, "GPU gauges, where NVML finds GPUs (default: true)")
    _flag(metrics, "--allow-cpu-metrics", True, "CPU and memory gauges (default: true)")
    metrics.add_argument("--metrics-interval-ms", type=int, default=2000, metavar="MS",
                         help="how often the system gauges are sampled (default: 2000)")
    metrics.add_argument("--metrics-config", type=_metrics_setting, action="append", default=[],
                         metavar="[GROUP,]SETTING=VALUE",
                         help="a latency-family setting, e.g. summary_latencies=true or "
                              "summary_quantiles=0.5:0.05,0.99:0.001; repeatable")

    add_openai_arguments(parser)

    sagemaker = parser.add_argument_group("SageMaker frontend")
    _flag(sagemaker, "--allow-sagemaker", False,
          "serve Amazon SageMaker's /ping and /invocations (default: false)")
    sagemaker.add_argument("--sagemaker-address", default="0.0.0.0", metavar="ADDR",
                           help="the address to listen on (default: 0.0.0.0)")
    sagemaker.add_argument("--sagemaker-port", type=_port,
                           default=os.environ.get("SAGEMAKER_BIND_TO_PORT", "8080"),
                           metavar="PORT",
                           help="the port (default: SAGEMAKER_BIND_TO_PORT, else 8080)")
    sagemaker.add_argument("--sagemaker-safe-port-range", type=_port_range,
                           default=os.environ.get("SAGEMAKER_SAFE_PORT_RANGE") or None,
                           metavar="LO-HI",
                           help="the ports the other frontends must use (default: "
                                "SAGEMAKER_SAFE_PORT_RANGE)")
    sagemaker.add_argument("--sagemaker-thread-count", type=_positive,
                           default=os.environ.get("SAGEMAKER_TRITON_THREAD_COUNT", "8"),
                           metavar="N",
                           help="threads serving SageMaker requests (default: "
                                "SAGEMAKER_TRITON_THREAD_COUNT, else 8)")

    vertex = parser.add_argument_group("Vertex AI frontend")
    _flag(vertex, "--allow-vertex-ai", prediction,
          "serve Vertex AI's health and predict routes, AIP_HEALTH_ROUTE and "
          "AIP_PREDICT_ROUTE (default: true when AIP_MODE=PREDICTION)")
    vertex.add_argument("--vertex-ai-address", default="0.0.0.0", metavar="ADDR",
                        help="the address to listen on (default: 0.0.0.0)")
    vertex.add_argument("--vertex-ai-port", type=_port,
                        default=os.environ.get("AIP_HTTP_PORT", "8080"), metavar="PORT",
                        help="the port (default: AIP_HTTP_PORT, else 8080)")
    vertex.add_argument("--vertex-ai-thread-count", type=_positive, default=8, metavar="N",
                        help="threads serving Vertex AI requests (default: 8)")
    vertex.add_argument("--vertex-ai-default-model", default="", metavar="NAME",
                        help="the model the predict route runs (default: the repository's "
                             "one ready model)")

    trace = parser.add_argument_group("tracing")
    trace.add_argument("--trace-config", action="append", default=[],
                       metavar="[MODE,]SETTING=VALUE",
                       help="a trace setting as Triton takes it: rate=N, count=N, "
                            "level=OFF|TIMESTAMPS|TENSORS, mode=triton|opentelemetry, "
                            "triton,file=PATH, triton,log-frequency=N, "
                            "opentelemetry,url=URL, opentelemetry,resource=KEY=VALUE; "
                            "repeatable (docs/tracing.md)")
    for flag, setting in _DEPRECATED_TRACE_FLAGS.items():
        trace.add_argument(flag, action="append", default=[], metavar="VALUE",
                           help=f"deprecated: --trace-config {setting}=VALUE")

    log = parser.add_argument_group("logging")
    log.add_argument("--log-verbose", type=int, default=0, metavar="LEVEL",
                     help="verbose logging when > 0")
    _flag(log, "--log-info", False, "log informational messages")
    _flag(log, "--log-warning", False, "log warnings")
    _flag(log, "--log-error", False, "log errors")
    log.add_argument("--log-format", choices=["default", "ISO8601"], default="default",
                     help="the timestamp format of log lines")
    log.add_argument("--log-file", default=None, metavar="PATH",
                     help="append log lines to PATH instead of standard error")


def _multi_model() -> bool:
    return os.environ.get("SAGEMAKER_MULTI_MODEL", "").lower() == "true"


def _default_repositories() -> list[str]:
    """The repository without --model-repository: Vertex AI's
    AIP_STORAGE_URI, else, for a SageMaker multi-model endpoint, an empty
    one of its own (its models are registered as SageMaker loads them)."""
    storage = os.environ.get("AIP_STORAGE_URI", "")
    if storage or not _multi_model():
        return [storage]
    empty = tempfile.mkdtemp(prefix="conch-sagemaker-")
    atexit.register(shutil.rmtree, empty, True)
    return [empty]


def _options(args: argparse.Namespace) -> Options:
    repositories = args.model_repository or _default_repositories()
    return Options(
        model_repository=list(repositories),
        server_id=args.id,
        model_control_mode=ModelControlMode[args.model_control_mode.upper()],
        startup_models=list(args.load_model),
        strict_model_config=args.strict_model_config,
        backend_directory=args.backend_directory,
        strict_readiness=args.strict_readiness,
        exit_on_error=args.exit_on_error,
        exit_timeout=args.exit_timeout_secs,
        direct_lane=args.direct_lane,
        log_verbose=args.log_verbose,
        log_info=args.log_info,
        log_warn=args.log_warning,
        log_error=args.log_error,
        log_file=args.log_file,
        log_format=LogFormat.ISO8601 if args.log_format == "ISO8601" else LogFormat.DEFAULT,
        metrics=args.allow_metrics,
        gpu_metrics=args.allow_gpu_metrics,
        cpu_metrics=args.allow_cpu_metrics,
        metrics_interval=args.metrics_interval_ms,
        metrics_configuration=_metrics_configuration(args.metrics_config),
        cache_config=_cache_config(args),
        trace_config=_trace_config(args),
        pinned_memory_pool_size=args.pinned_memory_pool_byte_size,
        cuda_memory_pool_sizes=dict(args.cuda_memory_pool_byte_size),
    )


# Triton's older trace flags and the --trace-config setting each became.
_DEPRECATED_TRACE_FLAGS = {
    "--trace-file": "triton,file",
    "--trace-level": "level",
    "--trace-rate": "rate",
    "--trace-count": "count",
    "--trace-log-frequency": "triton,log-frequency",
}


def _trace_config(args: argparse.Namespace) -> list[str]:
    """--trace-config's arguments, after those of the deprecated flags; a
    setting --trace-config gives overrides the deprecated flag's, as in
    Triton, with its warnings."""
    given = list(args.trace_config)
    names = {a.split("=", 1)[0] for a in given}
    out: list[str] = []
    for flag, setting in _DEPRECATED_TRACE_FLAGS.items():
        values = getattr(args, flag[2:].replace("-", "_"))
        if not values:
            continue
        key = setting.split(",")[-1]
        replacement = f"--trace-config {setting}=<{key}>"
        print(f"Warning: '{flag}' has been deprecated and will be removed in future "
              f"releases. Please use '{replacement} instead.", file=sys.stderr)
        if setting in names:
            print(f"Warning: Overriding deprecated '{flag}' in favor of provided {key} value "
                  "in --trace-config!", file=sys.stderr)
            continue
        out.extend(f"{setting}={v}" for v in values)
    return out + given


def _metrics_configuration(settings: list[tuple[str, str, str]]) -> dict[str, dict[str, str]]:
    configuration: dict[str, dict[str, str]] = {}
    for group, setting, value in settings:
        configuration.setdefault(group, {})[setting] = value
    return configuration


def _seconds(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected seconds >= 0, got {text!r}")
    return value


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a count >= 0, got {text!r}")
    return value


def http_restrictions(args: argparse.Namespace) -> "RestrictedFeatures":
    """The RestrictedFeatures of --http-restricted-api (every HTTP
    frontend's); ValueError with Triton's text for a bad argument."""
    from ._serve_restrictions import restricted_features

    return restricted_features(args.http_restricted_api, "http-restricted-api", "api")


def grpc_restrictions(args: argparse.Namespace) -> "RestrictedFeatures":
    """The RestrictedFeatures of --grpc-restricted-protocol; ValueError
    with Triton's text for a bad argument."""
    from ._serve_restrictions import restricted_features

    return restricted_features(args.grpc_restricted_protocol, "grpc-restricted-protocol",
                               "protocol")


def _start_frontends(server: Server, args: argparse.Namespace) -> list:
    frontends = []
    if args.allow_http:
        from .frontend import KServeHttp

        http = KServeHttp(server, KServeHttp.Options(
            address=args.http_address, port=args.http_port,
            thread_count=args.http_thread_count,
            restricted_features=http_restrictions(args),
            allow_client_shm=args.allow_client_shm,
            header_forward_pattern=args.http_header_forward_pattern,
            max_input_size=args.http_max_input_size,
            max_header_size=args.http_max_header_size, **_policy(args)))
        http.start()
        frontends.append(http)
        host = "localhost" if args.http_address in ("0.0.0.0", "::") else args.http_address
        if ":" in host:
            host = f"[{host}]"
        _say(f"KServe HTTP listening on {args.http_address}:{http.port}")
        _say(f"try: curl -s http://{host}:{http.port}/v2/health/ready -w '%{{http_code}}\\n'")
    if args.allow_grpc:
        from .frontend import KServeGrpc

        grpc = KServeGrpc(server, KServeGrpc.Options(
            address=args.grpc_address, port=args.grpc_port,
            use_ssl=args.grpc_use_ssl or args.grpc_use_ssl_mutual,
            use_mutual_auth=args.grpc_use_ssl_mutual,
            server_cert=args.grpc_server_cert, server_key=args.grpc_server_key,
            root_cert=args.grpc_root_cert,
            infer_compression_level=_COMPRESSION_LEVELS[args.grpc_infer_compression_level],
            forward_header_pattern=args.grpc_header_forward_pattern,
            restricted_features=grpc_restrictions(args),
            allow_client_shm=args.allow_client_shm,
            max_message_size=args.grpc_max_message_size))
        grpc.start()
        frontends.append(grpc)
        _say(f"KServe gRPC listening on {args.grpc_address}:{grpc.port}")
    if args.allow_metrics:
        from .frontend import Metrics

        metrics = Metrics(server, Metrics.Options(address=args.metrics_address,
                                                  port=args.metrics_port, **_policy(args)))
        metrics.start()
        frontends.append(metrics)
        _say(f"metrics listening on {args.metrics_address}:{metrics.port} (GET /metrics)")
    if args.allow_openai or args.openai_port is not None:
        frontends.append(start_openai(server, args))
    if args.allow_sagemaker:
        from .frontend import SageMaker

        options = SageMaker.Options(address=args.sagemaker_address, port=args.sagemaker_port,
                                    thread_count=args.sagemaker_thread_count,
                                    max_input_size=args.http_max_input_size,
                                    restricted_features=http_restrictions(args),
                                    allow_client_shm=args.allow_client_shm, **_policy(args))
        if _multi_model() and "SAGEMAKER_TRITON_PING_MODE" not in os.environ:
            options.ping_mode = "live"  # an endpoint with no model loaded is up
        sagemaker = SageMaker(server, options)
        sagemaker.start()
        frontends.append(sagemaker)
        serves = ("a multi-model endpoint: POST /models loads" if _multi_model()
                  else f"/invocations runs '{sagemaker.options.default_model}'")
        _say(f"SageMaker listening on {args.sagemaker_address}:{sagemaker.port} ({serves})")
    if args.allow_vertex_ai:
        from .frontend import VertexAI

        vertex = VertexAI(server, VertexAI.Options(
            address=args.vertex_ai_address, port=args.vertex_ai_port,
            thread_count=args.vertex_ai_thread_count,
            default_model=args.vertex_ai_default_model,
            max_input_size=args.http_max_input_size,
            restricted_features=http_restrictions(args),
            allow_client_shm=args.allow_client_shm, **_policy(args)))
        vertex.start()
        frontends.append(vertex)
        _say(f"Vertex AI listening on {args.vertex_ai_address}:{vertex.port} "
             f"({vertex.options.health_route}, {vertex.options.predict_route})")
    if not frontends:
        _say("no frontend enabled; serving in-process only")
    return frontends


class _SignalWaiter:
    """Waits in the main thread until SIGINT or SIGTERM.

    The kernel hands a process-directed signal to any thread that does not
    block it, and most of this process's threads are native (the actor
    system's, gRPC's, the HTTP loops'). Python's C handler then only sets a
    flag, and a main thread blocked on a lock would never look at it. The
    wakeup fd makes that handler write a byte the main thread waits for, so
    it wakes whichever thread took the signal."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self._reader, self._writer = socket.socketpair()
        self._reader.setblocking(False)
        self._writer.setblocking(False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._reader, selectors.EVENT_READ)
        self._previous: dict = {}
        self._previous_fd = signal.set_wakeup_fd(self._writer.fileno(), warn_on_full_buffer=False)
        try:
            for s in (signal.SIGINT, signal.SIGTERM):
                self._previous[s] = signal.signal(s, self._on_signal)
        except BaseException:
            self.close()
            raise

    def _on_signal(self, signum: int, _frame: Optional[object]) -> None:
        self.received.append(signum)

    def wait(self, timeout: Optional[float]) -> bool:
        """True once SIGINT or SIGTERM has been received; False after
        `timeout` seconds without one (None: no limit). Other signals with
        a Python handler write to the wakeup fd too: those only wake the
        wait, which then goes on until its deadline."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.received:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            self._selector.select(remaining)
            try:
                while self._reader.recv(64):
                    pass
            except BlockingIOError:
                pass
        return True

    def close(self) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        signal.set_wakeup_fd(self._previous_fd)
        self._selector.close()
        self._reader.close()
        self._writer.close()


def serve(args: argparse.Namespace) -> int:
    """Runs `conch serve` with parsed arguments; returns the exit status."""
    signals = _SignalWaiter()
    try:
        server = Server(_options(args))
        try:
            server.start(wait_until_ready=False)
            frontends = _start_frontends(server, args)
        except TritonError as e:
            _say(f"failed to start: {e}")
            try:
                server.stop()
            except TritonError:
                pass
            return 1
        polling = args.model_control_mode == "poll" and args.repository_poll_secs > 0
        _say(f"memory allocator: {active_allocator()}")
        _say("serving; stop with Ctrl-C or SIGTERM")
        while not signals.wait(args.repository_poll_secs if polling else None):
            try:
                server.poll_model_repository()
            except TritonError as e:
                _say(f"repository poll failed: {e}")
        _say(f"{signal.Signals(signals.received[0]).name} received; stopping")
        try:
            server.stop()  # stops the frontends first
        except TritonError as e:
            _say(f"stopped with an error: {e}")
            return 1
        del frontends
        _say("stopped")
        return 0
    finally:
        signals.close()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The `conch` command."""
    from . import __version__

    parser = argparse.ArgumentParser(prog="conch", description="Conch inference server")
    parser.add_argument("--version", action="version", version=f"conch {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve_parser = commands.add_parser(
        "serve", help="serve a model repository over the network until SIGINT or SIGTERM")
    add_serve_arguments(serve_parser)
    args = parser.parse_args(argv)
    if args.command == "serve":
        try:
            _cache_config(args)
            check_port_range(args)
            http_restrictions(args)
            grpc_restrictions(args)
        except ValueError as e:
            serve_parser.error(str(e))
        if argv is None:  # the command itself, not a call from Python code
            try:
                exec_with_allocator(args.allocator, sys.argv[1:])
            except (AllocatorError, ValueError) as e:
                parser.error(str(e))
            # Model code sees what Triton's python-backend stub gives it, an
            # empty command line, never the server's own arguments (a model
            # calling argparse or unittest.main() parses sys.argv).
            sys.argv = [""]
        return serve(args)
    parser.error(f"unknown command {args.command!r}")
    return 2
