"""Metrics: the Prometheus metrics frontend, as upstream's
``tritonfrontend.Metrics``."""

from __future__ import annotations

from typing import Any

from pydantic import Field
from pydantic.dataclasses import dataclass

from .. import _conch
from ._frontend import Frontend
from ._policy import policy_of

__all__ = ["Metrics"]

#: The native options' defaults, by field name: each is written once, in C++.
_DEFAULTS = _conch.MetricsFrontend.defaults()


class Metrics(Frontend):
    """Serves a started Server's metrics for Prometheus: ``GET /metrics``
    (and ``/metrics/``) answers the text exposition (version 0.0.4) of every
    metric family, read fresh at each scrape; other methods get 405, other
    paths 404.

        with Metrics(server, Metrics.Options(port=8002)):
            ...

    It keeps the server alive, and ``server.stop()`` stops it first."""

    @dataclass
    class Options:
        """Options of the metrics frontend, validated at construction (a
        pydantic ValidationError, a ValueError, for bad values). The fields
        after thread_count are Conch's additions: the connection policy, as
        in KServeHttp.Options."""

        #: The address to listen on (an IPv4 or IPv6 literal).
        address: str = _DEFAULTS["address"]
        #: The TCP port; 0 picks a free one (read it back from Metrics.port).
        port: int = Field(default=_DEFAULTS["port"], ge=0, le=65535)
        #: The number of threads serving connections.
        thread_count: int = Field(default=_DEFAULTS["thread_count"], gt=0)
        header_timeout: float = Field(default=_DEFAULTS["header_timeout"], ge=0)
        body_timeout: float = Field(default=_DEFAULTS["body_timeout"], ge=0)
        keepalive_timeout: float = Field(default=_DEFAULTS["keepalive_timeout"], ge=0)
        write_timeout: float = Field(default=_DEFAULTS["write_timeout"], ge=0)
        drain_timeout: float = Field(default=_DEFAULTS["drain_timeout"], ge=0)
        max_connections: int = Field(default=_DEFAULTS["max_connections"], ge=0)
        max_inflight_bytes: int = Field(default=_DEFAULTS["max_inflight_bytes"], ge=0)

    def _create(self, native_server: Any, options: "Metrics.Options") -> Any:
        return _conch.MetricsFrontend(
            native_server,
            address=options.address,
            port=options.port,
            thread_count=options.thread_count,
            **policy_of(options),
        )
