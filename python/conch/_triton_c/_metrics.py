"""TRITONSERVER_MetricFamily and TRITONSERVER_Metric: custom metrics, in
the server's Prometheus exposition beside Conch's own."""

from __future__ import annotations

from typing import Any

from .._enums import MetricKind
from .._metrics import Metric, MetricFamily
from ._enums import TRITONSERVER_MetricKind


class TRITONSERVER_MetricFamily:  # noqa: N801 (upstream's names)
    def __init__(self, kind: int, name: str, description: str) -> None:
        self._family = MetricFamily(MetricKind(int(kind)), name, description)


class TRITONSERVER_Metric:  # noqa: N801
    """One series of a family; subclassable, as tritonserver.Metric is upstream."""

    def __init__(self, family: TRITONSERVER_MetricFamily, labels: list[Any]) -> None:
        self._family = family  # the metric keeps its family alive
        self._metric = Metric(family._family, {p.name: str(p.value) for p in labels})

    @property
    def value(self) -> float:
        return self._metric.value

    def increment(self, val: float) -> None:
        self._metric.increment(float(val))

    def set_value(self, val: float) -> None:
        self._metric.set_value(float(val))

    @property
    def kind(self) -> TRITONSERVER_MetricKind:
        return TRITONSERVER_MetricKind(int(self._metric.kind))
