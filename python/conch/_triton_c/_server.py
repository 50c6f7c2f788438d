"""TRITONSERVER_Server and TRITONSERVER_Metrics: a Conch server driven
through Triton's low-level calls."""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Optional

from .. import _conch
from .._enums import LogFormat, ModelControlMode
from .._errors import InvalidArgumentError, NotFoundError
from .._options import Options
from .._server import Server
from ._enums import (
    TRITONSERVER_LogLevel,
    TRITONSERVER_MetricFormat,
    TRITONSERVER_ModelBatchFlag,
    TRITONSERVER_ModelTxnPropertyFlag,
)
from ._options import TRITONSERVER_ServerOptions
from ._values import TRITONSERVER_Message, TRITONSERVER_Parameter


def _conch_form(callback: Callable[..., None]) -> Callable[..., None]:
    """A Triton-form log callback as conch.Options.log_callback takes one."""
    def forward(level: Any, filename: str, line: int, timestamp: str, message: str) -> None:
        lvl = TRITONSERVER_LogLevel(int(level))
        if lvl == TRITONSERVER_LogLevel.VERBOSE:
            lvl = TRITONSERVER_LogLevel.INFO  # as Triton reports verbose lines
        callback(lvl, filename, line, time.time_ns() // 1000, message)

    return forward


def _options_of(o: TRITONSERVER_ServerOptions) -> Options:
    """conch.Options from the low-level options; logging keeps the
    process's current settings, which the options' setters changed."""
    log = _conch.log_settings()
    return Options(
        model_repository=list(o.model_repository_paths),
        server_id=o.server_id,
        model_control_mode=ModelControlMode(int(o.model_control_mode)),
        startup_models=list(o.startup_models),
        strict_model_config=o.strict_model_config,
        backend_directory=o.backend_directory,
        exit_on_error=o.exit_on_error,
        strict_readiness=o.strict_readiness,
        exit_timeout=o.exit_timeout,
        cache_config=dict(o.cache_config),
        metrics=o.metrics,
        gpu_metrics=o.gpu_metrics,
        cpu_metrics=o.cpu_metrics,
        metrics_interval=o.metrics_interval,
        pinned_memory_pool_size=o.pinned_memory_pool_byte_size,
        cuda_memory_pool_sizes=dict(o.cuda_memory_pool_byte_size),
        log_file=log["log_file"] or None,
        log_info=log["log_info"],
        log_warn=log["log_warning"],
        log_error=log["log_error"],
        log_verbose=log["log_verbose_level"],
        log_format=LogFormat.ISO8601 if log["log_format"] == "ISO8601" else LogFormat.DEFAULT,
        log_callback=None if o.log_callback is None else _conch_form(o.log_callback),
    )


class TRITONSERVER_Metrics:  # noqa: N801 (upstream's names)
    """The server's metrics at the moment they were asked for."""

    def __init__(self, text: str) -> None:
        self._text = text

    def formatted(self, format: int) -> str:  # noqa: A002
        if int(format) != TRITONSERVER_MetricFormat.PROMETHEUS:
            raise InvalidArgumentError(f"unknown metrics format '{int(format)}'")
        return self._text


class TRITONSERVER_Server:  # noqa: N801
    """A started server: constructing it starts it and loads the models the
    options name, as TRITONSERVER_ServerNew does."""

    def __init__(self, options: TRITONSERVER_ServerOptions) -> None:
        self._server = Server(_options_of(options)).start()

    def _ptr(self) -> int:
        return id(self._server)

    def _native(self) -> "_conch.Server":
        return self._server._native()

    # -- lifecycle ---------------------------------------------------------------------

    def stop(self) -> None:
        self._server.stop()

    def is_live(self) -> bool:
        return self._server.live()

    def is_ready(self) -> bool:
        return self._server.ready()

    # -- models ----------------------------------------------------------------------------

    def model_is_ready(self, model_name: str, model_version: int) -> bool:
        return bool(self._native().model_ready(model_name, int(model_version)))

    def _config(self, model_name: str, model_version: int) -> dict[str, Any]:
        return json.loads(self._native().model_config(model_name, int(model_version)))

    def model_batch_properties(self, model_name: str, model_version: int) -> tuple[int, int]:
        batches = int(self._config(model_name, model_version).get("max_batch_size", 0)) > 0
        flag = (TRITONSERVER_ModelBatchFlag.FIRST_DIM if batches
                else TRITONSERVER_ModelBatchFlag.UNKNOWN)
        return (int(flag), 0)

    def model_transaction_properties(self, model_name: str,
                                     model_version: int) -> tuple[int, int]:
        policy = self._config(model_name, model_version).get("model_transaction_policy", {})
        decoupled = bool(policy.get("decoupled", False))
        flag = (TRITONSERVER_ModelTxnPropertyFlag.DECOUPLED if decoupled
                else TRITONSERVER_ModelTxnPropertyFlag.ONE_TO_ONE)
        return (int(flag), 0)

    def metadata(self) -> TRITONSERVER_Message:
        return TRITONSERVER_Message._of(self._server.metadata())

    def model_metadata(self, model_name: str, model_version: int) -> TRITONSERVER_Message:
        return TRITONSERVER_Message._of(self._native().model_metadata(model_name,
                                                                      int(model_version)))

    def model_statistics(self, model_name: str, model_version: int) -> TRITONSERVER_Message:
        return TRITONSERVER_Message(self._native().model_statistics(model_name,
                                                                    int(model_version)))

    def model_config(self, model_name: str, model_version: int,
                     config_version: int = 1) -> TRITONSERVER_Message:
        if int(config_version) != 1:
            raise InvalidArgumentError(
                f"model configuration version {int(config_version)} not supported, "
                "supported versions are: 1")
        return TRITONSERVER_Message(self._native().model_config(model_name, int(model_version)))

    def model_index(self, flags: int) -> TRITONSERVER_Message:
        ready_only = bool(int(flags) & 1)
        rows = []
        for name, version, state, reason in self._native().repository_index(ready_only):
            row = {"name": name}
            if version:
                row["version"] = str(version)
            if state:
                row["state"] = state
            if reason:
                row["reason"] = reason
            rows.append(row)
        return TRITONSERVER_Message._of(rows)

    # -- the repository ------------------------------------------------------------------

    def load_model(self, model_name: str) -> None:
        self._server.load(model_name)

    def load_model_with_parameters(self, model_name: str,
                                   parameters: list[TRITONSERVER_Parameter]) -> None:
        self._server.load(model_name, {p.name: p.value for p in parameters})

    def unload_model(self, model_name: str) -> None:
        self._server.unload(model_name, wait_until_unloaded=True)

    def unload_model_and_dependents(self, model_name: str) -> None:
        self._server.unload(model_name, unload_dependents=True, wait_until_unloaded=True)

    def poll_model_repository(self) -> None:
        self._server.poll_model_repository()

    def register_model_repository(self, repository_path: str,
                                  name_mapping: list[TRITONSERVER_Parameter]) -> None:
        mapping = {}
        for p in name_mapping:
            if not isinstance(p.value, str):
                raise InvalidArgumentError("a name mapping maps a directory name to a str")
            mapping[p.name] = p.value
        self._server.register_model_repository(repository_path, mapping)

    def unregister_model_repository(self, repository_path: str) -> None:
        self._server.unregister_model_repository(repository_path)

    # -- metrics and inference ------------------------------------------------------------

    def metrics(self) -> TRITONSERVER_Metrics:
        return TRITONSERVER_Metrics(self._server.metrics())

    def infer_async(self, request: Any, trace: Optional[Any] = None) -> None:
        """Submits `request`; its responses come through
        request.get_next_response. A trace given here is used up."""
        request._submit(self, trace)

    def _check_model(self, model_name: str, model_version: int) -> None:
        native = self._native()
        if not native.model_ready(model_name, int(model_version)):
            try:
                native.model_config(model_name, int(model_version))
            except NotFoundError:
                raise NotFoundError(
                    f"Request for unknown model: '{model_name}' is not found") from None
