"""Options of a Conch server, with the fields and defaults of upstream's
``tritonserver.Options``.

Fields that have no meaning in Conch are accepted and ignored; when one is set
to anything but its default, starting the server logs a warning naming it (see
``_IGNORED``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from . import _conch
from ._enums import InstanceGroupKind, LogFormat, LogLevel, ModelControlMode, RateLimitMode
from ._errors import InvalidArgumentError, UnsupportedError
from ._logging import logger

__all__ = ["Options", "RateLimiterResource", "ModelLoadDeviceLimit"]


@dataclass(slots=True)
class RateLimiterResource:
    """A rate-limiter resource (accepted; Conch has no rate limiter)."""

    name: str
    count: int
    device: int


@dataclass(slots=True)
class ModelLoadDeviceLimit:
    """A per-device limit on model loading (accepted; ignored by Conch)."""

    kind: InstanceGroupKind
    device: int
    fraction: float


@dataclass(slots=True)
class Options:
    """Options of a Conch server. Nothing is validated until Server.start()."""

    #: The repository paths searched for models (required).
    model_repository: Union[str, list[str]] = field(default_factory=list)
    #: The server name reported by Server.metadata().
    server_id: str = "triton"
    #: NONE, POLL or EXPLICIT. POLL follows the repository on poll_model_repository().
    model_control_mode: ModelControlMode = ModelControlMode.NONE
    #: Models loaded at start in EXPLICIT mode; "*" loads all.
    startup_models: list[str] = field(default_factory=list)
    #: When False, a missing config.pbtxt or missing fields are completed by the backend.
    strict_model_config: bool = False
    #: Ignored: Conch has no rate limiter.
    rate_limiter_mode: RateLimitMode = RateLimitMode.OFF
    #: Ignored: Conch has no rate limiter.
    rate_limiter_resources: list[RateLimiterResource] = field(default_factory=list)
    #: Bytes of pinned host memory allocated at start that pinned buffers are
    #: cut from first; 0: none. Only where CUDA finds a GPU. Servers running
    #: at once share the pools the first of them allocated.
    pinned_memory_pool_size: int = 1 << 28
    #: GPU -> bytes of its CUDA memory pool; a GPU not listed gets 64 MiB.
    cuda_memory_pool_sizes: dict[int, int] = field(default_factory=dict)
    #: The response cache: ``{"local": {"size": bytes}}`` (Triton's local
    #: cache; models opt in with ``response_cache { enable: true }``). Empty:
    #: no cache. Other cache implementations are refused.
    cache_config: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Ignored: Conch's one cache (local) is built in.
    cache_directory: str = "/opt/tritonserver/caches"
    #: Ignored: Conch runs no CUDA kernels of its own.
    min_supported_compute_capability: float = 6.0
    #: When True, start() fails if any model fails to load.
    exit_on_error: bool = True
    #: When True, the server is ready only while every loaded model is ready.
    strict_readiness: bool = True
    #: Seconds stop() waits for in-flight work before abandoning it.
    exit_timeout: int = 30
    #: Ignored: Conch has no buffer manager threads.
    buffer_manager_thread_count: int = 0
    #: Ignored: Conch loads each model in an actor of its own.
    model_load_thread_count: int = 4
    #: Ignored: Conch does not retry failed loads.
    model_load_retry_count: int = 0
    #: Ignored: Conch has no model namespacing.
    model_namespacing: bool = False
    #: Ignored: Conch does not manage peer access between GPUs.
    enable_peer_access: bool = True
    #: Where log lines go; None means stderr.
    log_file: Optional[str] = None
    #: Log messages of level INFO (turns on log_warn).
    log_info: bool = False
    #: Log messages of level WARN (turns on log_error).
    log_warn: bool = False
    #: Log messages of level ERROR.
    log_error: bool = False
    #: DEFAULT or ISO8601 timestamps.
    log_format: LogFormat = LogFormat.DEFAULT
    #: Verbose logging when > 0 (turns on log_info).
    log_verbose: int = 0
    #: False switches the system gauges (CPU, GPU, pinned memory) off; the
    #: per-model families, updated as requests complete, are always collected.
    metrics: bool = True
    #: False switches the GPU gauges (nv_gpu_*, nv_energy_consumption) off;
    #: they exist only where NVML (libnvidia-ml.so.1) and a GPU are present.
    gpu_metrics: bool = True
    #: False switches the CPU gauges (nv_cpu_*) off.
    cpu_metrics: bool = True
    #: How often the CPU and GPU gauges are sampled, in milliseconds (> 0).
    metrics_interval: int = 2000
    #: Where a model's backend is looked up by name first: a python-based
    #: backend is <backend_directory>/<backend>/model.py, as in Triton.
    backend_directory: str = "/opt/tritonserver/backends"
    #: Ignored: Conch has no repository agents.
    repo_agent_directory: str = "/opt/tritonserver/repoagents"
    #: Ignored: Conch does not limit loading per device.
    model_load_device_limits: list[ModelLoadDeviceLimit] = field(default_factory=list)
    #: Ignored: Conch's backends take no command-line configuration.
    backend_configuration: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Ignored: Conch has no host policies.
    host_policies: dict[str, dict[str, str]] = field(default_factory=dict)
    #: The optional per-model latency families, as Triton's --metrics-config:
    #: {"": {"summary_latencies": "true", "summary_quantiles": "0.5:0.05,0.9:0.01",
    #: "histogram_latencies": "true", "counter_latencies": "false"}}. Unknown
    #: groups or settings and malformed values fail start() (InvalidArgumentError).
    metrics_configuration: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Called as callback(level: LogLevel, filename, line, timestamp, message)
    #: for each message Conch logs; exceptions it raises are swallowed.
    log_callback: Optional[Callable[[LogLevel, str, int, str, str], None]] = None
    #: Conch's addition: when True, a small request (HTTP, gRPC or
    #: in-process) to an idle instance of a model that neither batches nor
    #: streams runs on the thread that read it, or, for a Python model, goes
    #: straight to its instance's thread (docs/architecture.md, "The direct
    #: lane"); False sends every request through the actors.
    direct_lane: bool = True
    #: Conch's addition: in-process requests (infer, async_infer, with or
    #: without a response queue) at most in flight at once; past it one is
    #: answered UnavailableError("the server is busy: too many requests in
    #: flight") at once. 0 (the default, as upstream) means no limit.
    max_inflight: int = 0
    #: Conch's addition: request tracing, as Triton's ``--trace-config``
    #: arguments: ["triton,file=/tmp/trace.json", "level=TIMESTAMPS",
    #: "rate=1"]. Off by default; Server.update_trace_settings changes the
    #: settings while the server runs (docs/tracing.md).
    trace_config: list[str] = field(default_factory=list)

    # Upstream's _create_tritonserver_server_options(), which builds the
    # tritonserver._c options from these, is given to this class by that
    # emulation (conch._triton_c._options, server_options_of): the
    # emulation is built on this module, which never imports it.

    def _cascade_log_levels(self) -> None:
        # As upstream: verbose turns on info, info warn, warn error, and the
        # Options object keeps the result.
        if self.log_verbose > 0:
            self.log_info = True
        if self.log_info:
            self.log_warn = True
        if self.log_warn:
            self.log_error = True

    def _warn_ignored(self) -> None:
        defaults = Options()
        for name in _IGNORED:
            if getattr(self, name) != getattr(defaults, name):
                logger.warning("Options.%s is ignored: %s", name, _IGNORED[name])

    def _to_native(self) -> "_conch.ServerOptions":
        """The C++ options; raises TypeError for a field of the wrong type."""
        if self.model_repository is None:
            raise InvalidArgumentError("Model repository must be specified.")
        repositories = (
            [self.model_repository]
            if isinstance(self.model_repository, str)
            else list(self.model_repository)
        )
        native = _conch.ServerOptions()
        native.model_repository = repositories
        native.server_id = self.server_id
        native.model_control_mode = int(self.model_control_mode)
        native.startup_models = list(self.startup_models)
        if "*" in native.startup_models and len(native.startup_models) > 1:
            raise InvalidArgumentError(
                "Wildcard model name '*' must be the ONLY startup model if specified at all.")
        native.strict_model_config = self.strict_model_config
        native.backend_directory = str(self.backend_directory or "")
        native.exit_on_error = self.exit_on_error
        native.strict_readiness = self.strict_readiness
        native.exit_timeout = self.exit_timeout
        native.metrics = self.metrics
        native.gpu_metrics = self.gpu_metrics
        native.cpu_metrics = self.cpu_metrics
        native.metrics_interval_ms = self.metrics_interval
        native.metrics_configuration = {
            str(group): {str(k): _setting_text(v) for k, v in settings.items()}
            for group, settings in self.metrics_configuration.items()
        }
        native.pinned_memory_pool_byte_size = _byte_count(
            "pinned_memory_pool_size", self.pinned_memory_pool_size)
        native.cuda_memory_pool_byte_size = {
            _byte_count("cuda_memory_pool_sizes key", device):
            _byte_count(f"cuda_memory_pool_sizes[{device}]", size)
            for device, size in self.cuda_memory_pool_sizes.items()
        }
        native.direct_lane = self.direct_lane
        native.max_inflight = int(self.max_inflight)
        if isinstance(self.trace_config, str):
            raise InvalidArgumentError("trace_config must be a list of str")
        native.set_trace_config([str(a) for a in self.trace_config])
        native.response_cache_byte_size = _cache_byte_size(self.cache_config)
        # In-process Triton polls only when asked (poll_model_repository).
        native.repository_poll_secs = 0
        return native


def _byte_count(what: str, value: Any) -> int:
    """A non-negative integer option, or InvalidArgumentError naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidArgumentError(f"{what} must be a non-negative integer, not {value!r}")
    return value


def _cache_byte_size(cache_config: dict[str, dict[str, Any]]) -> int:
    """The local cache's size in bytes from a cache_config; 0 for none."""
    if not cache_config:
        return 0
    unknown = sorted(set(cache_config) - {"local"})
    if unknown:
        raise UnsupportedError(
            f"cache_config: Conch has the local response cache only, not {', '.join(unknown)}")
    size = cache_config["local"].get("size")
    if isinstance(size, str) and size.isdigit():
        size = int(size)
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise InvalidArgumentError(
            "cache_config['local'] must give 'size', a number of bytes, got " + repr(size))
    return size


def _setting_text(value: Any) -> str:
    """A metrics_configuration value as C++ reads it (True -> "true")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# The fields Conch ignores, and why (the warning's text).
_IGNORED = {
    "rate_limiter_mode": "Conch has no rate limiter",
    "rate_limiter_resources": "Conch has no rate limiter",
    "cache_directory": "Conch's one cache (local) is built in",
    "min_supported_compute_capability": "Conch runs no CUDA kernels of its own",
    "buffer_manager_thread_count": "Conch has no buffer manager threads",
    "model_load_thread_count": "Conch loads each model in an actor of its own",
    "model_load_retry_count": "Conch does not retry failed loads",
    "model_namespacing": "Conch has no model namespacing",
    "enable_peer_access": "Conch does not manage GPU peer access",
    "repo_agent_directory": "Conch has no repository agents",
    "model_load_device_limits": "Conch does not limit loading per device",
    "backend_configuration": "Conch's backends take no backend configuration",
    "host_policies": "Conch has no host policies",
}
