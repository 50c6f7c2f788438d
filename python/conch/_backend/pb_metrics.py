"""pb_utils.MetricFamily and pb_utils.Metric: a Python model's own metrics,
exported by every server of the process beside its ``nv_`` families (the
families of conch.MetricFamily).

As in Triton, families are shared by name: the instances of a model that
each create ``MetricFamily("requests", ...)`` get the same family, and
metrics with equal labels the same series. A family leaves the exposition
when nothing holds it any more (its model unloaded), a series when no
metric with its labels is left.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Optional

from .. import _conch
from .. import _errors as core_errors
from .pb_types import TritonModelException

__all__ = ["MetricFamily", "Metric"]

_KIND_NAMES = {0: "COUNTER", 1: "GAUGE", 2: "HISTOGRAM"}
_lock = threading.Lock()
_families: "weakref.WeakValueDictionary[str, Any]" = weakref.WeakValueDictionary()


def _kind_text(kind: int) -> str:
    return f"TRITONSERVER_METRIC_KIND_{_KIND_NAMES[kind]}"


class MetricFamily:
    """``MetricFamily(name, description, kind)`` with kind COUNTER, GAUGE or
    HISTOGRAM; ``Metric(labels, buckets)`` makes one of its series."""

    COUNTER = 0
    GAUGE = 1
    HISTOGRAM = 2

    __slots__ = ("_core", "_kind", "__weakref__")

    def __init__(self, name: str, description: str, kind: int) -> None:
        if kind not in _KIND_NAMES:
            raise TritonModelException(
                f"Error when creating MetricFamily: unknown metric kind {kind!r}"
            )
        if not isinstance(name, str) or not isinstance(description, str):
            raise TritonModelException(
                "Error when creating MetricFamily: name and description must be str"
            )
        with _lock:
            core = _families.get(name)
            if core is None:
                try:
                    core = _conch.MetricFamily(int(kind), name, description)
                except core_errors.TritonError as e:
                    raise TritonModelException(f"Error when creating MetricFamily: {e}") from None
                _families[name] = core
            elif core.kind != kind:
                raise TritonModelException(
                    f"Error when creating MetricFamily: metric family '{name}' exists as "
                    f"{_kind_text(core.kind)}, not {_kind_text(kind)}"
                )
        self._core = core
        self._kind = int(kind)

    def Metric(self, labels: Optional[dict] = None, buckets: Any = None) -> "Metric":
        return Metric(self, labels, buckets)


class Metric:
    """One series of a MetricFamily: ``increment``, ``set``, ``observe``
    (histograms), ``value`` (counters and gauges)."""

    __slots__ = ("_family", "_kind", "_core")

    def __init__(self, family: MetricFamily, labels: Optional[dict] = None, buckets: Any = None) -> None:
        kind = family._kind
        if buckets is not None and not isinstance(buckets, list):
            raise TritonModelException("Failed to create metric. Buckets must be a list.")
        if kind == MetricFamily.HISTOGRAM and buckets is None:
            raise TritonModelException("Failed to create metric. Missing required buckets.")
        if kind != MetricFamily.HISTOGRAM and buckets is not None:
            raise TritonModelException("Failed to create metric. Unexpected buckets found.")
        labels = {} if labels is None else labels
        if not isinstance(labels, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items()
        ):
            raise TritonModelException("Error when creating Metric: labels must be a dict of str to str")
        try:
            self._core = _conch.Metric(family._core, labels, [float(b) for b in buckets or []])
        except (core_errors.TritonError, TypeError, ValueError) as e:
            raise TritonModelException(f"Error when creating Metric: {e}") from None
        self._family = weakref.ref(family)
        self._kind = kind

    def _check(self, what: str, supported: tuple) -> None:
        if self._family() is None:
            raise TritonModelException(
                "Invalid metric operation as the corresponding 'MetricFamily' has been deleted. "
                "The 'MetricFamily' object should be deleted AFTER its corresponding 'Metric' "
                "objects have been deleted."
            )
        if self._kind not in supported:
            raise TritonModelException(f"{_kind_text(self._kind)} does not support {what}")

    def increment(self, value: float) -> None:
        try:
            self._check("Increment", (MetricFamily.COUNTER, MetricFamily.GAUGE))
            if self._kind == MetricFamily.COUNTER and not value >= 0:
                raise TritonModelException(
                    "TRITONSERVER_METRIC_KIND_COUNTER can only be incremented monotonically by "
                    "non-negative values."
                )
            self._core.increment(float(value))
        except (TritonModelException, core_errors.TritonError) as e:
            raise TritonModelException(f"Failed to increment metric value: {e}") from None

    def set(self, value: float) -> None:
        try:
            self._check("Set", (MetricFamily.GAUGE,))
            self._core.set_value(float(value))
        except (TritonModelException, core_errors.TritonError) as e:
            raise TritonModelException(f"Failed to set metric value: {e}") from None

    def observe(self, value: float) -> None:
        try:
            self._check("Observe", (MetricFamily.HISTOGRAM,))
            self._core.observe(float(value))
        except (TritonModelException, core_errors.TritonError) as e:
            raise TritonModelException(f"Failed to observe metric value: {e}") from None

    def value(self) -> float:
        try:
            self._check("Value", (MetricFamily.COUNTER, MetricFamily.GAUGE))
        except TritonModelException as e:
            raise TritonModelException(f"Failed to get metric value: {e}") from None
        return float(self._core.value)
