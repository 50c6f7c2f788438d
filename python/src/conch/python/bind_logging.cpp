// _conch's logging functions: the process-global logger of the C++ core,
// configured from conch.Options and written to by the Python layer, so that
// every Conch log line shares one format, one file and one callback.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "conch/python/bindings.hpp"
#include "conch/python/gil.hpp"
#include "conch/python/py_delivery.hpp"
#include "conch/python/status.hpp"
#include "conch/runtime/logging/logger.hpp"

namespace conch::python {

namespace py = pybind11;
using runtime::logging::log_level;

namespace {

log_level level_of(int level) {
  if (level < 0 || level > static_cast<int>(log_level::verbose))
    throw py::value_error("log level must be INFO (0), WARN (1), ERROR (2) or VERBOSE (3), got "
                          + std::to_string(level));
  return static_cast<log_level>(level);
}

// A str from text that may not be valid UTF-8 (a file name, a message from a
// backend): undecodable bytes become U+FFFD instead of raising.
py::str text(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (o == nullptr)
    throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

// The most lines queued for the callable at once. Past it lines still reach
// the file or standard error, but not the callable: a callable slower than
// the server's logging must not grow memory without bound.
constexpr int64_t max_queued_lines = 10'000;

struct callback_state {
  py_ref fn;
  std::atomic<int64_t> queued{0};
  std::atomic<int64_t> dropped{0};
};

void call(const callback_state& cb, log_level level, std::string_view file, int line,
          std::string_view stamp, std::string_view message) {
  try {
    py::handle{cb.fn.get()}(static_cast<int>(level), text(file), line, text(stamp),
                            text(message));
  } catch (py::error_already_set&) { // NOLINT(bugprone-empty-catch): swallowed on purpose
  }
}

// Hands a line to the Python callable. A thread that holds the GIL (Python
// code logging through conch, a python-backend model) calls it at once;
// every other thread (a CAF worker, an HTTP loop, a C++ model's thread, a
// Python thread inside a call that released the GIL) queues the line for
// the log thread and goes on, so logging never waits for the GIL. What the
// callable raises is swallowed, as the option promises.
runtime::logging::log_callback python_callback(const py::object& callable) {
  auto cb = std::make_shared<callback_state>();
  cb->fn = py_ref::borrow(callable.ptr());
  return [cb](log_level level, std::string_view file, int line, std::string_view stamp,
              std::string_view message) {
    if (!interpreter_alive())
      return;
    if (PyGILState_Check() != 0) {
      call(*cb, level, file, line, stamp, message);
      return;
    }
    if (cb->queued.fetch_add(1) >= max_queued_lines) {
      cb->queued.fetch_sub(1);
      cb->dropped.fetch_add(1);
      return;
    }
    py_delivery::post_log([cb, level, file = std::string{file}, line,
                           stamp = std::string{stamp}, message = std::string{message}] {
      // What the callable logs in turn is written, not handed back to it.
      runtime::logging::callback_scope scope;
      cb->queued.fetch_sub(1);
      if (int64_t missed = cb->dropped.exchange(0); missed > 0)
        call(*cb, log_level::warn, "bind_logging.cpp", __LINE__, stamp,
             std::to_string(missed) + " log lines were not passed to log_callback: it fell "
               + std::to_string(max_queued_lines) + " lines behind");
      call(*cb, level, file, line, stamp, message);
    });
  };
}

void configure(bool info, bool warn, bool error, uint32_t verbose, int format,
               const std::string& file) {
  if (format != 0 && format != 1)
    throw py::value_error("log format must be DEFAULT (0) or ISO8601 (1)");
  runtime::logging::log_settings_update u;
  u.log_info = info;
  u.log_warning = warn;
  u.log_error = error;
  u.log_verbose_level = verbose;
  u.log_format = std::string{runtime::logging::format_name(
    static_cast<runtime::logging::log_format>(format))};
  throw_if_error(runtime::logging::apply_settings(u).error());
  throw_if_error(runtime::logging::set_log_file(file));
}

py::dict settings() {
  auto s = runtime::logging::current_settings();
  py::dict d;
  d["log_file"] = s.log_file;
  d["log_info"] = s.log_info;
  d["log_warning"] = s.log_warning;
  d["log_error"] = s.log_error;
  d["log_verbose_level"] = s.log_verbose_level;
  d["log_format"] = s.log_format;
  return d;
}

} // namespace

void bind_logging(py::module_& m) {
  m.def("configure_logging", &configure, py::arg("info"), py::arg("warn"), py::arg("error"),
        py::arg("verbose"), py::arg("format"), py::arg("file"),
        "Sets the process-wide logging settings; an empty file means standard error. "
        "Raises InvalidArgumentError, keeping the current output, when the file cannot "
        "be opened.");
  m.def(
    "set_log_callback",
    [](const std::optional<py::object>& callback) {
      if (!callback || callback->is_none()) {
        runtime::logging::set_log_callback({});
        return;
      }
      if (!PyCallable_Check(callback->ptr()))
        throw py::type_error("log_callback must be callable or None");
      runtime::logging::set_log_callback(python_callback(*callback));
    },
    py::arg("callback"),
    "Installs callback(level: int, filename, line, timestamp, message) for every line "
    "written (None removes it). A thread holding the GIL calls it at once; other "
    "threads queue the line for the extension's log thread, in order "
    "(flush_log_callback() waits for them).");
  m.def(
    "flush_log_callback", [] { py_delivery::flush_logs(); },
    "Returns once the log lines queued for log_callback before the call have been "
    "handed to it, or after one second at most.");
  m.def(
    "log_message",
    [](int level, const std::string& file, int line, const std::string& message) {
      auto l = level_of(level);
      if (runtime::logging::is_on(l))
        runtime::logging::write(l, file, line, message);
    },
    py::arg("level"), py::arg("filename"), py::arg("line"), py::arg("message"),
    "Writes a line through Conch's logger when its level is on.");
  m.def(
    "log_is_on", [](int level) { return runtime::logging::is_on(level_of(level)); },
    py::arg("level"), "Whether lines of `level` are written now.");
  m.def("log_settings", &settings,
        "The current logging settings, as the logging extension reports them.");
}

} // namespace conch::python
