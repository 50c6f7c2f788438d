"""KServeGrpc: the KServe v2 gRPC frontend, as upstream's
``tritonfrontend.KServeGrpc``."""

from __future__ import annotations

import enum
from typing import Any, Union

from pydantic import Field
from pydantic.dataclasses import dataclass

from .. import _conch
from .._errors import UnsupportedError
from .._logging import logger
from ._frontend import Frontend

__all__ = ["KServeGrpc", "Grpc_compression_level"]


class Grpc_compression_level(enum.IntEnum):  # noqa: N801 (upstream's name)
    """gRPC's compression levels, for KServeGrpc.Options.infer_compression_level."""

    NONE = 0
    LOW = 1
    MED = 2
    HIGH = 3
    COUNT = 4


# Fields whose non-default values need a feature this frontend does not
# have yet: starting with one raises UnsupportedError.
_NEEDS_FEATURE = (
    "use_ssl", "server_cert", "server_key", "root_cert", "use_mutual_auth",
    "keepalive_time_ms", "keepalive_timeout_ms", "keepalive_permit_without_calls",
    "http2_max_pings_without_data", "http2_min_recv_ping_interval_without_data_ms",
    "http2_max_ping_strikes", "max_connection_age_ms", "max_connection_age_grace_ms",
    "infer_compression_level", "forward_header_pattern",
)
# Fields that only tune upstream's implementation; Conch ignores other
# values with a warning.
_TUNING = ("infer_thread_count", "infer_allocation_pool_size", "max_response_pool_size")


class KServeGrpc(Frontend):
    """Serves a started Server over gRPC with the KServe v2 protocol
    (inference.GRPCInferenceService, ModelStreamInfer included, and
    grpc.health.v1):

        with KServeGrpc(server, KServeGrpc.Options(port=8001)):
            ...

    It keeps the server alive, and ``server.stop()`` stops it first."""

    Grpc_compression_level = Grpc_compression_level

    @dataclass
    class Options:
        """Options of the gRPC frontend, validated at construction (a
        pydantic ValidationError, a ValueError, for bad values). Served now:
        address, port and reuse_port. SSL, keepalive, HTTP/2 ping,
        connection age, compression and forward_header_pattern are accepted
        but not served yet: start() raises UnsupportedError when one of
        them differs from its default. The pool sizes and the thread count
        tune upstream's implementation; Conch ignores them with a warning."""

        #: The address to listen on (an IPv4 or IPv6 literal, or a host name).
        address: str = "0.0.0.0"
        #: The TCP port; 0 picks a free one (read it back from KServeGrpc.port).
        port: int = Field(default=8001, ge=0, le=65535)
        #: Let other sockets bind the same port (SO_REUSEPORT).
        reuse_port: bool = False
        #: Serve TLS with server_cert and server_key (PEM files). Not yet.
        use_ssl: bool = False
        server_cert: str = ""
        server_key: str = ""
        #: The CA that client certificates must chain to (mutual TLS). Not yet.
        root_cert: str = ""
        use_mutual_auth: bool = False
        #: Keepalive and HTTP/2 ping settings, as gRPC's channel arguments. Not yet.
        keepalive_time_ms: int = Field(default=7_200_000, ge=0)
        keepalive_timeout_ms: int = Field(default=20_000, ge=0)
        keepalive_permit_without_calls: bool = False
        http2_max_pings_without_data: int = Field(default=2, ge=0)
        http2_min_recv_ping_interval_without_data_ms: int = Field(default=300_000, ge=0)
        http2_max_ping_strikes: int = Field(default=2, ge=0)
        #: Close connections after this age (0: never), with this grace. Not yet.
        max_connection_age_ms: int = Field(default=0, ge=0)
        max_connection_age_grace_ms: int = Field(default=0, ge=0)
        #: The compression of inference responses. Not yet.
        infer_compression_level: Union[int, Grpc_compression_level] = Grpc_compression_level.NONE
        #: Upstream's thread and pool sizes; ignored.
        infer_thread_count: int = Field(default=2, ge=0)
        infer_allocation_pool_size: int = Field(default=8, ge=0)
        max_response_pool_size: int = Field(default=2_147_483_647, ge=0)
        #: A regular expression: request headers whose names match become
        #: parameters of inference requests. Not yet.
        forward_header_pattern: str = ""

        def __post_init__(self) -> None:
            if isinstance(self.infer_compression_level, Grpc_compression_level):
                self.infer_compression_level = int(self.infer_compression_level)

    def _create(self, native_server: Any, options: "KServeGrpc.Options") -> Any:
        return _conch.GrpcFrontend(
            native_server,
            address=options.address,
            port=options.port,
            reuse_port=options.reuse_port,
        )

    def start(self) -> None:
        """Binds the port and starts serving. Raises UnsupportedError for
        an option this frontend cannot serve yet, AlreadyExistsError when
        running, UnavailableError when the port is in use or the server
        stopped."""
        defaults = KServeGrpc.Options()
        options = self._options
        unsupported = [name for name in _NEEDS_FEATURE
                       if getattr(options, name) != getattr(defaults, name)]
        if unsupported:
            raise UnsupportedError(
                "the gRPC frontend does not support these options yet: "
                + ", ".join(f"{n}={getattr(options, n)!r}" for n in unsupported))
        for name in _TUNING:
            if getattr(options, name) != getattr(defaults, name):
                logger.warning("KServeGrpc.Options.%s has no effect in Conch; ignored", name)
        super().start()
