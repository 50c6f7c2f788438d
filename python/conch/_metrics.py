"""Custom metrics: counter, gauge and histogram families of the user's own, exported
beside Conch's families by server.metrics() and the Metrics frontend.

    family = conch.MetricFamily(conch.MetricKind.COUNTER, "app_requests", "Requests seen")
    metric = conch.Metric(family, {"route": "predict"})
    metric.increment(1)
"""

from __future__ import annotations

from typing import Optional

from . import _conch
from ._enums import MetricKind
from ._errors import InvalidArgumentError


class MetricFamily(_conch.MetricFamily):
    """A named counter, gauge or histogram family. Names follow Prometheus rules
    ([a-zA-Z_:][a-zA-Z0-9_:]*); the prefix "nv_" is reserved. The family
    leaves the exposition when it and all its metrics are gone."""

    def __init__(self, kind: MetricKind, name: str, description: str) -> None:
        if not isinstance(kind, MetricKind):
            raise InvalidArgumentError(f"kind must be a MetricKind, not {type(kind).__name__}")
        if not isinstance(name, str) or not isinstance(description, str):
            raise InvalidArgumentError("name and description must be str")
        super().__init__(int(kind), name, description)

    @property
    def kind(self) -> MetricKind:
        return MetricKind(super().kind)


class Metric(_conch.Metric):
    """One series of a family, at 0 when made. A counter only grows: its
    set_value raises UnsupportedError and a negative increment
    InvalidArgumentError; a gauge takes both. A histogram takes `buckets`
    (strictly increasing upper bounds) and only observe()."""

    def __init__(
        self,
        family: MetricFamily,
        labels: Optional[dict[str, str]] = None,
        buckets: Optional[list[float]] = None,
    ) -> None:
        if not isinstance(family, _conch.MetricFamily):
            raise InvalidArgumentError(
                f"family must be a MetricFamily, not {type(family).__name__}")
        labels = {} if labels is None else labels
        if not isinstance(labels, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items()
        ):
            raise InvalidArgumentError("labels must be a dict of str to str")
        super().__init__(family, labels, [float(b) for b in buckets or []])

    @property
    def kind(self) -> MetricKind:
        return MetricKind(super().kind)
