"""KServeHttp: the KServe v2 HTTP/REST frontend, as upstream's
``tritonfrontend.KServeHttp``."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from .. import _conch
from ._frontend import Frontend
from ._policy import POLICY_DEFAULTS, policy_of
from ._restricted import RestrictedFeatures

__all__ = ["KServeHttp"]

#: The native options' defaults, by field name: each is written once, in C++.
_DEFAULTS = _conch.HttpFrontend.defaults()


class KServeHttp(Frontend):
    """Serves a started Server over HTTP with the KServe v2 protocol, the
    endpoints of NVIDIA Triton's HTTP frontend included:

        with KServeHttp(server, KServeHttp.Options(port=8000)):
            ...

    It keeps the server alive, and ``server.stop()`` stops it first."""

    @dataclass(config=ConfigDict(arbitrary_types_allowed=True))
    class Options:
        """Options of the HTTP frontend, validated at construction (a
        pydantic ValidationError, a ValueError, for bad values). The fields
        after header_forward_pattern are Conch's additions."""

        #: The address to listen on (an IPv4 or IPv6 literal).
        address: str = _DEFAULTS["address"]
        #: The TCP port; 0 picks a free one (read it back from KServeHttp.port).
        port: int = Field(default=_DEFAULTS["port"], ge=0, le=65535)
        #: Give each loop thread its own listening socket with SO_REUSEPORT.
        reuse_port: bool = _DEFAULTS["reuse_port"]
        #: The number of threads serving connections.
        thread_count: int = Field(default=_DEFAULTS["thread_count"], gt=0)
        #: An RE2 regular expression, matched without regard to case and in
        #: linear time: request headers whose names it finds a match in become
        #: parameters of inference requests. Empty: none.
        header_forward_pattern: str = _DEFAULTS["header_forward_pattern"]
        #: Endpoint groups behind a required header: a request to a feature
        #: of a group without the group's header and value is answered 403.
        restricted_features: RestrictedFeatures = field(default_factory=RestrictedFeatures)
        #: Let clients register system and CUDA shared-memory regions and
        #: name them in inference requests (Triton's --allow-client-shm). Off,
        #: as Triton ships it: register and unregister are answered 501
        #: "Client shared memory is disabled. ...", and so is an inference
        #: request that names a region; status is still served.
        allow_client_shm: bool = _DEFAULTS["allow_client_shm"]
        #: Requests waiting on the server at most at once; beyond it they
        #: are answered 503 at once. 0: no limit.
        max_inflight: int = Field(default=_DEFAULTS["max_inflight"], ge=0)
        #: The largest request body in bytes, before and after
        #: decompression; larger ones are answered 400.
        max_input_size: int = Field(default=_DEFAULTS["max_input_size"], gt=0)
        #: The largest request line plus headers in bytes; larger ones are
        #: answered 431.
        max_header_size: int = Field(default=_DEFAULTS["max_header_size"], gt=0)
        #: Seconds from a connection's accept, or a request's first byte,
        #: until its headers are complete (408 past it). 0 disables it.
        header_timeout: float = Field(default=POLICY_DEFAULTS["header_timeout"], ge=0)
        #: Seconds a request body may pause between reads (408 past it).
        body_timeout: float = Field(default=POLICY_DEFAULTS["body_timeout"], ge=0)
        #: Seconds an idle connection stays open between requests.
        keepalive_timeout: float = Field(default=POLICY_DEFAULTS["keepalive_timeout"], ge=0)
        #: Seconds a write may wait for a client that does not read; the
        #: connection closes past it.
        write_timeout: float = Field(default=POLICY_DEFAULTS["write_timeout"], ge=0)
        #: Seconds a stop waits for a client still sending a request or
        #: reading its answers before it closes the connection.
        drain_timeout: float = Field(default=POLICY_DEFAULTS["drain_timeout"], ge=0)
        #: Connections open at once; new ones beyond it are closed. 0: no limit.
        max_connections: int = Field(default=POLICY_DEFAULTS["max_connections"], ge=0)
        #: Bytes of request bodies held at once; a body that would pass it
        #: is answered 503. 0: no limit.
        max_inflight_bytes: int = Field(default=POLICY_DEFAULTS["max_inflight_bytes"], ge=0)

    def _create(self, native_server: Any, options: "KServeHttp.Options") -> Any:
        return _conch.HttpFrontend(
            native_server,
            address=options.address,
            port=options.port,
            reuse_port=options.reuse_port,
            thread_count=options.thread_count,
            header_forward_pattern=options.header_forward_pattern,
            restricted_features=options.restricted_features._to_native(),
            allow_client_shm=options.allow_client_shm,
            max_inflight=options.max_inflight,
            max_input_size=options.max_input_size,
            max_header_size=options.max_header_size,
            **policy_of(options),
        )
