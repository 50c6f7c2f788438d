"""``tritonserver._api._server``."""

from conch import (  # noqa: F401
    InstanceGroupKind,
    LogFormat,
    LogLevel,
    Metric,
    MetricFamily,
    MetricFormat,
    MetricKind,
    ModelControlMode,
    ModelDictionary,
    ModelLoadDeviceLimit,
    Options,
    RateLimiterResource,
    RateLimitMode,
    Server,
)
