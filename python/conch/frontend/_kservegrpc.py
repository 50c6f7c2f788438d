"""KServeGrpc: the KServe v2 gRPC frontend, as upstream's
``tritonfrontend.KServeGrpc``."""

from __future__ import annotations

import enum
from dataclasses import field
from typing import Any, Union

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from .. import _conch
from .._logging import logger
from ._frontend import Frontend
from ._restricted import RestrictedFeatures

__all__ = ["KServeGrpc", "Grpc_compression_level"]

#: The native options' defaults, by field name: each is written once, in C++.
_DEFAULTS = _conch.GrpcFrontend.defaults()


class Grpc_compression_level(enum.IntEnum):  # noqa: N801 (upstream's name)
    """gRPC's compression levels, for KServeGrpc.Options.infer_compression_level."""

    NONE = 0
    LOW = 1
    MED = 2
    HIGH = 3
    COUNT = 4


# Fields that only tune upstream's implementation; Conch accepts them and
# warns at start() that other values have no effect.
_TUNING = ("infer_thread_count", "infer_allocation_pool_size", "max_response_pool_size")


class KServeGrpc(Frontend):
    """Serves a started Server over gRPC with the KServe v2 protocol
    (inference.GRPCInferenceService, ModelStreamInfer included, and
    grpc.health.v1):

        with KServeGrpc(server, KServeGrpc.Options(port=8001)):
            ...

    It keeps the server alive, and ``server.stop()`` stops it first."""

    Grpc_compression_level = Grpc_compression_level

    @dataclass(config=ConfigDict(arbitrary_types_allowed=True))
    class Options:
        """Options of the gRPC frontend, validated at construction (a
        pydantic ValidationError, a ValueError, for bad values); the TLS
        files, the compression level and forward_header_pattern are checked
        at start() (InvalidArgumentError). Every field is served, except
        the three that tune upstream's implementation (infer_thread_count,
        infer_allocation_pool_size, max_response_pool_size): Conch accepts
        them and warns at start() that other values have no effect."""

        #: The address to listen on (an IPv4 or IPv6 literal, or a host name).
        address: str = _DEFAULTS["address"]
        #: The TCP port; 0 picks a free one (read it back from KServeGrpc.port).
        port: int = Field(default=_DEFAULTS["port"], ge=0, le=65535)
        #: Let other sockets bind the same port (SO_REUSEPORT).
        reuse_port: bool = _DEFAULTS["reuse_port"]
        #: Serve TLS with server_cert and server_key; the TLS fields are
        #: ignored without it.
        use_ssl: bool = _DEFAULTS["use_ssl"]
        #: The server's certificate chain, a PEM file read at start().
        server_cert: str = _DEFAULTS["server_cert"]
        #: The private key of server_cert, a PEM file read at start().
        server_key: str = _DEFAULTS["server_key"]
        #: The CA certificates client certificates must chain to, a PEM
        #: file; required with use_mutual_auth.
        root_cert: str = _DEFAULTS["root_cert"]
        #: Mutual TLS: every client must present a certificate root_cert verifies.
        use_mutual_auth: bool = _DEFAULTS["use_mutual_auth"]
        #: Milliseconds between keepalive pings on an idle transport.
        keepalive_time_ms: int = Field(default=_DEFAULTS["keepalive_time_ms"], ge=0)
        #: Milliseconds to wait for a keepalive ping's acknowledgement.
        keepalive_timeout_ms: int = Field(default=_DEFAULTS["keepalive_timeout_ms"], ge=0)
        #: Send keepalive pings even without calls in flight.
        keepalive_permit_without_calls: bool = _DEFAULTS["keepalive_permit_without_calls"]
        #: Pings the server may send without data in between; 0: no limit.
        http2_max_pings_without_data: int = Field(
            default=_DEFAULTS["http2_max_pings_without_data"], ge=0)
        #: The shortest interval of a client's pings without data that is
        #: not a strike.
        http2_min_recv_ping_interval_without_data_ms: int = Field(
            default=_DEFAULTS["http2_min_recv_ping_interval_without_data_ms"], ge=0)
        #: Strikes before the server closes the connection; 0: no limit.
        http2_max_ping_strikes: int = Field(default=_DEFAULTS["http2_max_ping_strikes"], ge=0)
        #: Close connections after this many milliseconds (0: never), and
        #: let their calls run this much longer (0: no limit).
        max_connection_age_ms: int = Field(default=_DEFAULTS["max_connection_age_ms"], ge=0)
        max_connection_age_grace_ms: int = Field(
            default=_DEFAULTS["max_connection_age_grace_ms"], ge=0)
        #: The compression of ModelInfer and ModelStreamInfer responses
        #: (NONE, LOW, MED, HIGH); compressed requests are always accepted.
        infer_compression_level: Union[int, Grpc_compression_level] = Grpc_compression_level(
            _DEFAULTS["infer_compression_level"])
        #: Upstream's thread and pool sizes; accepted, no effect in Conch.
        infer_thread_count: int = Field(default=_DEFAULTS["infer_thread_count"], ge=0)
        infer_allocation_pool_size: int = Field(
            default=_DEFAULTS["infer_allocation_pool_size"], ge=0)
        max_response_pool_size: int = Field(default=_DEFAULTS["max_response_pool_size"], ge=0)
        #: An RE2 regular expression, matched without regard to case: request
        #: metadata whose keys it finds a match in become string parameters
        #: of inference requests. Empty: none.
        forward_header_pattern: str = _DEFAULTS["forward_header_pattern"]
        #: Conch: protocol groups behind required metadata. A call to a
        #: feature of a group must carry metadata
        #: ``triton-grpc-protocol-<key>`` with the group's value, else it is
        #: answered UNAVAILABLE.
        restricted_features: RestrictedFeatures = field(default_factory=RestrictedFeatures)
        #: Conch: let clients register system and CUDA shared-memory regions
        #: and name them in inference requests (Triton's --allow-client-shm).
        #: Off, as Triton ships it: the register and unregister RPCs, and an
        #: inference request that names a region, are answered UNIMPLEMENTED
        #: "Client shared memory is disabled. ..."; status is still served.
        allow_client_shm: bool = _DEFAULTS["allow_client_shm"]
        #: Conch: requests waiting on the server (inference calls, each
        #: request of a stream, repository calls) at most at once; beyond it
        #: they are answered UNAVAILABLE at once. 0: no limit.
        max_inflight: int = Field(default=_DEFAULTS["max_inflight"], ge=0)
        #: Conch: the largest message received or sent, in bytes; larger
        #: ones fail with RESOURCE_EXHAUSTED (Triton's limit, INT32_MAX).
        max_message_size: int = Field(default=_DEFAULTS["max_message_size"], gt=0, le=2**31 - 1)
        #: Conch: bytes of requests in flight at most; beyond it a request
        #: is answered UNAVAILABLE. 0: no limit.
        max_inflight_bytes: int = Field(default=_DEFAULTS["max_inflight_bytes"], ge=0)
        #: Conch: bytes of responses a stream may have waiting for its
        #: client before it reads no further requests.
        stream_high_water: int = Field(default=_DEFAULTS["stream_high_water"], gt=0)
        #: Conch: bytes of responses a stream may have waiting before it
        #: ends with RESOURCE_EXHAUSTED and its requests are cancelled.
        max_stream_backlog: int = Field(default=_DEFAULTS["max_stream_backlog"], gt=0)

        def __post_init__(self) -> None:
            if isinstance(self.infer_compression_level, Grpc_compression_level):
                self.infer_compression_level = int(self.infer_compression_level)

    def _create(self, native_server: Any, options: "KServeGrpc.Options") -> Any:
        native = {name: getattr(options, name) for name in _DEFAULTS}
        native["restricted_features"] = options.restricted_features._to_native()
        return _conch.GrpcFrontend(native_server, **native)

    def start(self) -> None:
        """Binds the port and starts serving. Raises AlreadyExistsError when
        running, UnavailableError when the port is in use or the server
        stopped, InvalidArgumentError for a TLS file that cannot be read,
        a compression level out of range or a bad forward_header_pattern."""
        defaults = KServeGrpc.Options()
        for name in _TUNING:
            if getattr(self._options, name) != getattr(defaults, name):
                logger.warning("KServeGrpc.Options.%s has no effect in Conch; ignored", name)
        super().start()
