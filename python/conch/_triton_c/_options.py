"""TRITONSERVER_ServerOptions: the options of TRITONSERVER_Server, set one
by one. As in Triton, the log setters change the process's logging at
once, and the log callback is installed at once and again by each server
made from the options (or cleared, when they have none).

Also ``server_options_of``, these options made from a conch.Options: it is
upstream's ``Options._create_tritonserver_server_options()``, which this
module gives conch.Options, so that conch._options never imports this
emulation."""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Optional

from .. import _conch
from .._errors import InvalidArgumentError, UnsupportedError
from .._options import Options, _setting_text
from ._enums import (
    TRITONSERVER_InstanceGroupKind,
    TRITONSERVER_LogFormat,
    TRITONSERVER_LogLevel,
    TRITONSERVER_ModelControlMode,
    TRITONSERVER_RateLimitMode,
)

_HOST_POLICY_SETTINGS = ("numa-node", "cpu-cores")


def _log_now(**change: Any) -> None:
    """Changes the process's logging settings at once."""
    s = _conch.log_settings()
    settings = {
        "info": s["log_info"], "warn": s["log_warning"], "error": s["log_error"],
        "verbose": s["log_verbose_level"], "format": 1 if s["log_format"] == "ISO8601" else 0,
        "file": s["log_file"],
    }
    settings.update(change)
    _conch.configure_logging(settings["info"], settings["warn"], settings["error"],
                             settings["verbose"], settings["format"], settings["file"])


def _forwarding(callback: Callable[..., None]) -> Callable[[int, str, int, str, str], None]:
    """The core's log callback for a callback in Triton's form:
    callback(level, filename, line, timestamp_us, message), where verbose
    lines come as INFO, as Triton reports them."""
    def forward(level: int, filename: str, line: int, timestamp: str, message: str) -> None:
        lvl = TRITONSERVER_LogLevel(level)
        if lvl == TRITONSERVER_LogLevel.VERBOSE:
            lvl = TRITONSERVER_LogLevel.INFO
        callback(lvl, filename, line, time.time_ns() // 1000, message)

    return forward


def install_log_callback(callback: Optional[Callable[..., None]]) -> None:
    _conch.set_log_callback(None if callback is None else _forwarding(callback))


class TRITONSERVER_ServerOptions:  # noqa: N801 (upstream's names)
    """The options of a TRITONSERVER_Server, with Triton's C defaults."""

    def __init__(self) -> None:
        self.server_id = "triton"
        self.model_repository_paths: list[str] = []
        self.model_control_mode = TRITONSERVER_ModelControlMode.POLL
        self.startup_models: list[str] = []
        self.strict_model_config = True
        self.rate_limiter_mode = TRITONSERVER_RateLimitMode.OFF
        self.rate_limiter_resources: list[tuple[str, int, int]] = []
        self.pinned_memory_pool_byte_size = 1 << 28
        self.cuda_memory_pool_byte_size: dict[int, int] = {}
        self.cache_config: dict[str, dict[str, Any]] = {}
        self.cache_directory = "/opt/tritonserver/caches"
        self.min_supported_compute_capability = 6.0
        self.exit_on_error = True
        self.strict_readiness = True
        self.exit_timeout = 30
        self.buffer_manager_thread_count = 0
        self.model_load_thread_count = 4
        self.model_load_retry_count = 0
        self.model_namespacing = False
        self.enable_peer_access = True
        self.metrics = True
        self.gpu_metrics = True
        self.cpu_metrics = True
        self.metrics_interval = 2000
        self.backend_directory = "/opt/tritonserver/backends"
        self.repo_agent_directory = "/opt/tritonserver/repoagents"
        self.model_load_device_limits: list[tuple[int, int, float]] = []
        self.backend_config: dict[str, dict[str, str]] = {}
        self.host_policies: dict[str, dict[str, str]] = {}
        self.metrics_config: dict[str, dict[str, str]] = {}
        self.log_callback: Optional[Callable[..., None]] = None

    # -- the repository and models -------------------------------------------------

    def set_server_id(self, server_id: str) -> None:
        self.server_id = str(server_id)

    def set_model_repository_path(self, path: str) -> None:
        if path not in self.model_repository_paths:
            self.model_repository_paths.append(str(path))

    def set_model_control_mode(self, mode: int) -> None:
        try:
            self.model_control_mode = TRITONSERVER_ModelControlMode(int(mode))
        except ValueError:
            raise InvalidArgumentError(f"unknown control mode '{int(mode)}'") from None

    def set_startup_model(self, model_name: str) -> None:
        if model_name not in self.startup_models:
            self.startup_models.append(str(model_name))

    def set_strict_model_config(self, strict: bool) -> None:
        self.strict_model_config = bool(strict)

    def set_model_load_thread_count(self, thread_count: int) -> None:
        self.model_load_thread_count = int(thread_count)

    def set_model_load_retry_count(self, retry_count: int) -> None:
        self.model_load_retry_count = int(retry_count)

    def set_model_namespacing(self, enable: bool) -> None:
        self.model_namespacing = bool(enable)

    def set_model_load_device_limit(self, kind: int, device_id: int, fraction: float) -> None:
        if int(device_id) < 0:
            raise InvalidArgumentError(f"expects device ID >= 0, got {int(device_id)}")
        if not 0.0 <= float(fraction) <= 1.0:
            raise InvalidArgumentError(
                f"expects limit fraction to be in range [0.0, 1.0], got {float(fraction)}")
        if int(kind) != TRITONSERVER_InstanceGroupKind.GPU:
            name = TRITONSERVER_InstanceGroupKind(int(kind)).name
            raise InvalidArgumentError(f"given device kind is not supported, got: {name}")
        self.model_load_device_limits.append((int(kind), int(device_id), float(fraction)))

    # -- resources ---------------------------------------------------------------------

    def set_rate_limiter_mode(self, mode: int) -> None:
        try:
            self.rate_limiter_mode = TRITONSERVER_RateLimitMode(int(mode))
        except ValueError:
            raise InvalidArgumentError(f"unknown rate limit mode '{int(mode)}'") from None

    def add_rate_limiter_resource(self, resource_name: str, resource_count: int,
                                  device: int) -> None:
        self.rate_limiter_resources.append((str(resource_name), int(resource_count), int(device)))

    def set_pinned_memory_pool_byte_size(self, size: int) -> None:
        self.pinned_memory_pool_byte_size = int(size)

    def set_cuda_memory_pool_byte_size(self, gpu_device: int, size: int) -> None:
        self.cuda_memory_pool_byte_size[int(gpu_device)] = int(size)

    def set_response_cache_byte_size(self, size: int) -> None:
        if int(size) != 0:
            self.cache_config["local"] = {"size": int(size)}

    def set_cache_config(self, cache_name: str, config_json: str) -> None:
        self.cache_config[str(cache_name)] = json.loads(config_json)

    def set_cache_directory(self, cache_dir: str) -> None:
        self.cache_directory = str(cache_dir)

    def set_min_supported_compute_capability(self, cc: float) -> None:
        self.min_supported_compute_capability = float(cc)

    def set_buffer_manager_thread_count(self, thread_count: int) -> None:
        self.buffer_manager_thread_count = int(thread_count)

    def set_enable_peer_access(self, enable: bool) -> None:
        self.enable_peer_access = bool(enable)

    # -- lifecycle ---------------------------------------------------------------------

    def set_exit_on_error(self, exit: bool) -> None:  # noqa: A002 (upstream's name)
        self.exit_on_error = bool(exit)

    def set_strict_readiness(self, strict: bool) -> None:
        self.strict_readiness = bool(strict)

    def set_exit_timeout(self, timeout: int) -> None:
        if int(timeout) < 0:
            raise InvalidArgumentError("exit timeout must not be negative")
        self.exit_timeout = int(timeout)

    # -- logging: the process's, at once ---------------------------------------------

    def set_log_file(self, file: str) -> None:
        _log_now(file=str(file))

    def set_log_info(self, log: bool) -> None:
        _log_now(info=bool(log))

    def set_log_warn(self, log: bool) -> None:
        _log_now(warn=bool(log))

    def set_log_error(self, log: bool) -> None:
        _log_now(error=bool(log))

    def set_log_verbose(self, level: int) -> None:
        _log_now(verbose=int(level))

    def set_log_format(self, format: int) -> None:  # noqa: A002
        _log_now(format=int(TRITONSERVER_LogFormat(int(format))))

    def set_log_callback(self, callback: Optional[Callable[..., None]]) -> None:
        if callback is not None and not callable(callback):
            raise TypeError("the log callback must be callable or None")
        self.log_callback = callback
        install_log_callback(callback)

    # -- metrics -------------------------------------------------------------------------

    def set_metrics(self, metrics: bool) -> None:
        self.metrics = bool(metrics)

    def set_gpu_metrics(self, gpu_metrics: bool) -> None:
        self.gpu_metrics = bool(gpu_metrics)

    def set_cpu_metrics(self, cpu_metrics: bool) -> None:
        self.cpu_metrics = bool(cpu_metrics)

    def set_metrics_interval(self, metrics_interval_ms: int) -> None:
        self.metrics_interval = int(metrics_interval_ms)

    def set_metrics_config(self, name: str, setting: str, value: str) -> None:
        self.metrics_config.setdefault(str(name), {})[str(setting)] = str(value)

    # -- what Conch keeps but does not use ------------------------------------------------

    def set_backend_directory(self, backend_dir: str) -> None:
        self.backend_directory = str(backend_dir)

    def set_repo_agent_directory(self, repoagent_dir: str) -> None:
        self.repo_agent_directory = str(repoagent_dir)

    def set_backend_config(self, backend_name: str, setting: str, value: str) -> None:
        self.backend_config.setdefault(str(backend_name), {})[str(setting)] = str(value)

    def set_host_policy(self, policy_name: str, setting: str, value: str) -> None:
        if setting not in _HOST_POLICY_SETTINGS:
            raise UnsupportedError(
                f"Unsupported host policy setting '{setting}' is specified, supported "
                "settings are 'numa-node', 'cpu-cores'")
        self.host_policies.setdefault(str(policy_name), {})[str(setting)] = str(value)


def server_options_of(options: Options) -> TRITONSERVER_ServerOptions:
    """`options` as a TRITONSERVER_ServerOptions, set in upstream's order.
    As upstream's, it applies the log settings to the process at once (and
    cascades the log levels of `options`)."""
    low = TRITONSERVER_ServerOptions()
    low.set_server_id(options.server_id)
    if options.model_repository is None:
        raise InvalidArgumentError("Model repository must be specified.")
    repositories = options.model_repository
    if not isinstance(repositories, list):
        repositories = [repositories]
    for path in repositories:
        low.set_model_repository_path(path)
    low.set_model_control_mode(int(options.model_control_mode))
    for model in options.startup_models:
        low.set_startup_model(model)
    low.set_strict_model_config(options.strict_model_config)
    low.set_rate_limiter_mode(int(options.rate_limiter_mode))
    for resource in options.rate_limiter_resources:
        low.add_rate_limiter_resource(resource.name, resource.count, resource.device)
    low.set_pinned_memory_pool_byte_size(options.pinned_memory_pool_size)
    for device, size in options.cuda_memory_pool_sizes.items():
        low.set_cuda_memory_pool_byte_size(device, size)
    for cache_name, settings in options.cache_config.items():
        low.set_cache_config(cache_name, json.dumps(settings))
    low.set_cache_directory(options.cache_directory)
    low.set_min_supported_compute_capability(options.min_supported_compute_capability)
    low.set_exit_on_error(options.exit_on_error)
    low.set_strict_readiness(options.strict_readiness)
    low.set_exit_timeout(options.exit_timeout)
    low.set_buffer_manager_thread_count(options.buffer_manager_thread_count)
    low.set_model_load_thread_count(options.model_load_thread_count)
    low.set_model_load_retry_count(options.model_load_retry_count)
    low.set_model_namespacing(options.model_namespacing)
    low.set_enable_peer_access(options.enable_peer_access)
    if options.log_file:
        low.set_log_file(options.log_file)
    options._cascade_log_levels()
    low.set_log_info(options.log_info)
    low.set_log_warn(options.log_warn)
    low.set_log_error(options.log_error)
    low.set_log_format(int(options.log_format))
    low.set_log_verbose(options.log_verbose)
    if options.log_callback is not None:
        low.set_log_callback(options.log_callback)
    low.set_metrics(options.metrics)
    low.set_cpu_metrics(options.cpu_metrics)
    low.set_gpu_metrics(options.gpu_metrics)
    low.set_metrics_interval(options.metrics_interval)
    low.set_backend_directory(options.backend_directory)
    low.set_repo_agent_directory(options.repo_agent_directory)
    for limit in options.model_load_device_limits:
        low.set_model_load_device_limit(int(limit.kind), limit.device, limit.fraction)
    for policy, settings in options.host_policies.items():
        for setting, value in settings.items():
            low.set_host_policy(policy, setting, value)
    for group, settings in options.metrics_configuration.items():
        for setting, value in settings.items():
            low.set_metrics_config(group, setting, _setting_text(value))
    for backend, settings in options.backend_configuration.items():
        for setting, value in settings.items():
            low.set_backend_config(backend, setting, value)
    return low


def _create_tritonserver_server_options(self: Options) -> TRITONSERVER_ServerOptions:
    """These options as a tritonserver._c TRITONSERVER_ServerOptions, set
    in upstream's order (server_options_of)."""
    return server_options_of(self)


# Upstream's Options has this method (its Server builds the low-level
# options with it). It is given to conch.Options here, with this emulation,
# because the dependency points one way: the emulation is built on
# conch._options, never the reverse. `import tritonserver` imports this
# module, as upstream's package imports its tritonserver._c.
Options._create_tritonserver_server_options = (  # type: ignore[attr-defined]
    _create_tritonserver_server_options)
