"""The connection policy fields that KServeHttp.Options, Metrics.Options and
the cloud frontends' options share (Conch's additions), and how they travel
to the native frontend."""

from __future__ import annotations

from typing import Any

from .. import _conch

#: Field name -> default: timeouts in seconds (0 disables one), then caps
#: (0: no limit), as the native options define them.
#: docs/transports-http.md says how each one acts.
POLICY_DEFAULTS: dict[str, float | int] = {
    name: _conch.HttpFrontend.defaults()[name]
    for name in ("header_timeout", "body_timeout", "keepalive_timeout", "write_timeout",
                 "drain_timeout", "max_connections", "max_inflight_bytes")
}


def policy_of(options: Any) -> dict[str, float | int]:
    """The policy fields of ``options``, as keyword arguments of the native
    constructor."""
    return {name: getattr(options, name) for name in POLICY_DEFAULTS}
