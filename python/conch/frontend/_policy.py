"""The connection policy fields that KServeHttp.Options and Metrics.Options
share (Conch's additions), and how they travel to the native frontend."""

from __future__ import annotations

from typing import Any

#: Field name -> default: timeouts in seconds (0 disables one), then caps
#: (0: no limit). docs/transports-http.md says how each one acts.
POLICY_DEFAULTS: dict[str, float | int] = {
    "header_timeout": 30.0,
    "body_timeout": 60.0,
    "keepalive_timeout": 75.0,
    "write_timeout": 60.0,
    "drain_timeout": 5.0,
    "max_connections": 4096,
    "max_inflight_bytes": 1 << 30,
}


def policy_of(options: Any) -> dict[str, float | int]:
    """The policy fields of ``options``, for the native constructor."""
    return {name: getattr(options, name) for name in POLICY_DEFAULTS}
