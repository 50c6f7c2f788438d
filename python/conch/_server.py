"""Server: a Conch server running in this process."""

from __future__ import annotations

import atexit
import os
import threading
import time
import weakref
from typing import Any, Optional, Union

from . import _conch, _logging
from ._enums import MetricFormat
from ._errors import InvalidArgumentError, UnavailableError
from ._logging import logger
from ._model import Model
from ._options import Options

__all__ = ["Server", "ModelDictionary"]

# Started servers, stopped when the interpreter exits (before it finalizes,
# while Conch's threads can still hand their last responses to Python).
_started: "weakref.WeakSet[Server]" = weakref.WeakSet()
_started_lock = threading.Lock()


# How long the interpreter's exit waits for the Python code of abandoned
# model executions to return once ExecutionAbandoned was raised in them.
_ABANDONED_EXIT_WAIT_S = 2.0


@atexit.register
def _stop_all() -> None:
    with _started_lock:
        servers = list(_started)
    for server in servers:
        try:
            server.stop()
        except Exception:  # noqa: BLE001 - exiting; nothing can be reported
            pass
    # A model thread abandoned past an exit timeout got ExecutionAbandoned
    # raised in its Python code; let it end before the interpreter
    # finalizes, which would otherwise end it by unwinding it without the GIL.
    deadline = time.monotonic() + _ABANDONED_EXIT_WAIT_S
    while _conch.interrupted_executions() > 0 and time.monotonic() < deadline:
        _conch.run_deferred()
        time.sleep(0.005)


class ModelDictionary(dict):
    """Models keyed by (name, version). A plain name looks up the model
    itself (version -1) when any version of it is listed."""

    def __init__(self, server: "Server", models: list[Model]) -> None:
        super().__init__({(m.name, m.version): m for m in models})
        self._server = server
        self._names = {m.name for m in models}

    def __getitem__(self, key: Union[str, tuple[str, int]]) -> Model:
        if isinstance(key, tuple):
            try:
                return super().__getitem__(key)
            except KeyError:
                raise KeyError(f"Unknown Model: {key}") from None
        if key in self._names:
            return Model(self._server, key)
        raise KeyError(f"Unknown Model: {key}")


class Server:
    """A Conch server in this process. Construct it with Options (or their
    fields as keyword arguments), then start() it. Usable as a context
    manager (a Conch addition): ``with Server(...) as s:`` starts and stops."""

    def __init__(self, options: Optional[Options] = None, **kwargs: Any) -> None:
        if options is None:
            options = Options(**kwargs)
        elif kwargs:
            raise TypeError("pass either an Options object or its fields as keyword arguments")
        self.options = options
        self._server: Optional[_conch.Server] = None
        # The native server of the latest start, kept once stop() began so
        # that a stop racing with it (another thread, a signal handler, a
        # ``with`` exit) waits for it instead of raising.
        self._stopped: Optional[_conch.Server] = None
        # Reentrant: a signal handler may stop the server on the thread that
        # is inside stop() already.
        self._lifecycle = threading.RLock()

    # -- lifecycle -----------------------------------------------------------------

    def start(
        self,
        wait_until_ready: bool = False,
        polling_interval: float = 0.1,
        timeout: Optional[float] = None,
    ) -> "Server":
        """Starts the server and loads models as the control mode says;
        returns self. With wait_until_ready, polls ready() and raises
        UnavailableError("Timeout before ready") after `timeout` seconds."""
        if self._server is not None:
            raise InvalidArgumentError("Server already started")
        self.options._cascade_log_levels()
        _logging.configure(self.options)
        self.options._warn_ignored()
        native = self.options._to_native()
        try:
            self._server = _conch.Server.start(native)
        finally:
            # What the start logged has reached log_callback when it returns.
            _conch.flush_log_callback()
        self._stopped = None
        with _started_lock:
            _started.add(self)
        if wait_until_ready:
            deadline = None if timeout is None else time.monotonic() + timeout
            while not self.ready():
                if deadline is not None and time.monotonic() >= deadline:
                    raise UnavailableError("Timeout before ready")
                time.sleep(polling_interval)
            _conch.flush_log_callback()
        return self

    def stop(self) -> None:
        """Stops the server: requests in flight finish (up to exit_timeout),
        then models unload. Raises InternalError("Exit timeout expired.
        Exiting immediately.") when the timeout passed first; the server is
        stopped either way. Idempotent: a stop while another thread stops
        the server waits for that stop and returns, and so does a stop after
        it; only a server never started raises InvalidArgumentError."""
        with self._lifecycle:
            native = self._server
            if native is not None:
                self._stopped = native
                self._server = None
            else:
                native = self._stopped
        if native is None:
            raise InvalidArgumentError("Server not started")
        with _started_lock:
            _started.discard(self)
        # A later caller waits for the stop the first one runs; only the
        # first hears its error.
        try:
            native.stop()
        finally:
            _conch.flush_log_callback()

    def __enter__(self) -> "Server":
        if self._server is None:
            self.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._server is not None:
            self.stop()

    def _native(self) -> "_conch.Server":
        if self._server is None:
            raise InvalidArgumentError("Server not started")
        return self._server

    def _ptr(self) -> "_conch.Server":
        """The running server, for Conch's frontends (an object, not an address)."""
        return self._native()

    # -- health and metadata ----------------------------------------------------------

    def live(self) -> bool:
        return self._native().live()

    def ready(self) -> bool:
        return self._native().ready()

    def metadata(self) -> dict[str, Any]:
        """{"name": server_id, "version": ..., "extensions": [...]}."""
        return self._native().metadata()

    def metrics(self, metric_format: MetricFormat = MetricFormat.PROMETHEUS) -> str:
        """The server's metrics in Prometheus text format."""
        if metric_format != MetricFormat.PROMETHEUS:
            raise InvalidArgumentError(f"metric format {metric_format!r} is not supported")
        return self._native().metrics()

    # -- tracing (Conch's addition) -----------------------------------------------------

    def get_trace_settings(self, model_name: Optional[str] = None) -> dict[str, Any]:
        """The global trace settings, or a model's, as the trace extension
        reports them: {"trace_level": [...], "trace_rate": "1000", ...}."""
        return _settings_dict(self._native().trace_settings(model_name or ""))

    def update_trace_settings(
        self, model_name: Optional[str] = None, settings: Optional[dict[str, Any]] = None
    ) -> dict[str, Any]:
        """Changes the global trace settings, or a model's, as tritonclient's
        update_trace_settings does: values are str (trace_level a list of
        str), None returns a setting to the global one (for a model) or to
        its value at start. Returns the settings that result."""
        native = self._native().update_trace_settings(model_name or "", dict(settings or {}))
        return _settings_dict(native)

    def flush_traces(self) -> None:
        """Waits until every finished trace is in its trace file."""
        self._native().flush_traces()

    # -- models ----------------------------------------------------------------------

    def model(self, model_name: str, model_version: int = -1) -> Model:
        """The model called `model_name`; not checked until used."""
        return Model(self, model_name, model_version)

    def models(self, exclude_not_ready: bool = False) -> ModelDictionary:
        """Every model of the repository index (only ready ones when asked)."""
        entries = self._native().repository_index(exclude_not_ready)
        models = [
            Model(self, name, int(version) if version else -1, state, reason or None)
            for name, version, state, reason in entries
        ]
        return ModelDictionary(self, models)

    def load(self, model_name: str, parameters: Optional[dict[str, Any]] = None) -> Model:
        """Loads (or reloads) a model in EXPLICIT mode and returns it.
        parameters: "config" -> a JSON model configuration that replaces
        config.pbtxt; "file:<version>/<path>" -> bytes that replace the model
        directory's files."""
        config: Optional[str] = None
        files: list[tuple[str, bytes]] = []
        for key, value in (parameters or {}).items():
            if key == "config":
                if not isinstance(value, str):
                    raise InvalidArgumentError("load parameter 'config' must be a JSON str")
                config = value
            elif isinstance(key, str) and key.startswith("file:"):
                if not isinstance(value, (bytes, bytearray, memoryview)):
                    raise InvalidArgumentError(f"load parameter '{key}' must be bytes")
                files.append((key, bytes(value)))
            else:
                logger.warning("load parameter %r is ignored", key)
        self._native().load(model_name, config, files)
        return self.model(model_name)

    def unload(
        self,
        model: Union[str, Model],
        unload_dependents: bool = False,
        wait_until_unloaded: bool = False,
        polling_interval: float = 0.1,
        timeout: Optional[float] = None,
    ) -> None:
        """Unloads every version of a model; with wait_until_unloaded, polls
        the index until none is left loaded."""
        name = model.name if isinstance(model, Model) else model
        self._native().unload(name, unload_dependents)
        if not wait_until_unloaded:
            return
        deadline = None if timeout is None else time.monotonic() + timeout
        while any(
            m.state not in (None, "UNAVAILABLE")
            for (n, _), m in self.models().items()
            if n == name
        ):
            if deadline is not None and time.monotonic() >= deadline:
                raise UnavailableError("Timeout before unloaded")
            time.sleep(polling_interval)

    def poll_model_repository(self) -> None:
        """Applies changes of the repository (POLL mode)."""
        self._native().poll_repository()

    def register_model_repository(
        self, repository_path: str, name_mapping: Optional[dict[str, str]] = None
    ) -> None:
        """Adds the model repository at `repository_path` (EXPLICIT mode only,
        else UnsupportedError). `name_mapping` maps a model directory of it to
        the model name it is known by, e.g. {"dir_a": "model_a"}; the other
        directories keep their own names. Its models show in models() and
        load on request. Raises InvalidArgumentError for a path that is not a
        directory or a bad mapping, AlreadyExistsError for a path already
        registered or a mapped name another repository already uses."""
        native = self._native()
        path = os.fspath(repository_path)
        mapping = dict(name_mapping or {})
        for directory, name in mapping.items():
            if not isinstance(directory, str) or not isinstance(name, str):
                raise InvalidArgumentError(
                    "name_mapping must map str directory names to str model names, "
                    f"got {directory!r}: {name!r}"
                )
        native.register_model_repository(path, mapping)

    def unregister_model_repository(self, repository_path: str) -> None:
        """Removes a registered model repository and its name mapping
        (EXPLICIT mode only). Models loaded from it keep serving until
        unloaded. Raises InvalidArgumentError when no repository is
        registered at `repository_path`."""
        self._native().unregister_model_repository(os.fspath(repository_path))


def _settings_dict(pairs: list) -> dict[str, Any]:
    """The trace settings as the HTTP trace extension shows them: lists for
    trace_level (and resource), a str for the rest."""
    return {k: v if k in ("trace_level", "resource") else v[0] for k, v in pairs}
