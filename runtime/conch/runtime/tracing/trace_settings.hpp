#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conch/runtime/request_trace.hpp"
#include "conch/runtime/result.hpp"

namespace conch::runtime::tracing {

/// Where traces go: Triton's JSON trace file, or OpenTelemetry spans.
enum class trace_mode : uint8_t { triton, opentelemetry };

/// "triton" or "opentelemetry".
const char* trace_mode_name(trace_mode m) noexcept;

/// The OpenTelemetry exporter's settings (`--trace-config
/// opentelemetry,<key>=<value>`).
struct otel_settings {
  /// The OTLP/HTTP traces endpoint.
  std::string url = "http://localhost:4318/v1/traces";
  /// Resource attributes: (key, value) pairs; service.name defaults to
  /// "triton-inference-server".
  std::vector<std::pair<std::string, std::string>> resource;
  /// The batch span processor: spans queued at most, the delay between
  /// exports, and spans per export.
  uint32_t bsp_max_queue_size = 2048;
  uint32_t bsp_schedule_delay_ms = 5000;
  uint32_t bsp_max_export_batch_size = 512;
};

/// One set of trace settings (Triton's trace extension): the global ones,
/// or a model's with its own values merged in.
struct trace_settings {
  /// trace_level_bits; 0 is OFF.
  uint32_t level = 0;
  /// One of every `rate` requests is traced.
  uint32_t rate = 1000;
  /// Traces left to take; -1 for no limit.
  int32_t count = -1;
  /// Traces per trace file; 0 writes one file.
  uint32_t log_frequency = 0;
  /// The trace file (triton mode).
  std::string file;
  trace_mode mode = trace_mode::triton;
  otel_settings opentelemetry;
};

/// A model's own values; the rest follow the global settings.
struct trace_overrides {
  std::optional<uint32_t> level;
  std::optional<uint32_t> rate;
  std::optional<int32_t> count;
  std::optional<uint32_t> log_frequency;

  bool empty() const noexcept { return !level && !rate && !count && !log_frequency; }
};

/// `global` with `model`'s values in place.
trace_settings merge(const trace_settings& global, const trace_overrides& model);

/// A change of one setting through the trace extension: a new value, or a
/// clear (the client sent null), which returns a model's setting to the
/// global one and a global setting to its value at start.
template <class T>
struct setting_change {
  bool present = false;
  std::optional<T> value;  // nullopt while present: clear
};

/// A change of the settings through the trace extension. The trace file and
/// the mode cannot be changed there.
struct trace_settings_update {
  setting_change<uint32_t> level;
  setting_change<uint32_t> rate;
  setting_change<int32_t> count;
  setting_change<uint32_t> log_frequency;
};

/// One key's value as a protocol sent it: its strings (HTTP's string or
/// list of strings, gRPC's SettingValue), or nullopt for a clear (HTTP
/// null, an empty SettingValue).
using trace_value = std::optional<std::vector<std::string>>;

/// Finds the value the client sent for a key: nullopt when the key is
/// absent. May fail, with the protocol's own error for a value of the wrong
/// kind.
using trace_lookup = std::function<result<std::optional<trace_value>>(std::string_view key)>;

/// Reads a change (Triton's rules and messages): `trace_file` anywhere is
/// UNSUPPORTED; trace_level values other than OFF, TIMESTAMPS and TENSORS
/// are ignored, and OFF must be alone; numbers are decimal, in range;
/// unknown keys and trace_mode are ignored.
result<trace_settings_update> parse_trace_update(const trace_lookup& lookup);

/// The settings that result from applying `update` to `global` (a clear
/// takes the value in `startup`), or INVALID_ARG when they could not trace.
result<trace_settings> apply_global(const trace_settings& global, const trace_settings& startup,
                                    const trace_settings_update& update);

/// The overrides that result from applying `update` to a model's, or
/// INVALID_ARG when the model's settings could not trace.
result<trace_overrides> apply_model(const trace_overrides& model, const trace_settings& global,
                                    const trace_settings_update& update);

/// The settings as the trace extension reports them, in Triton's order:
/// each key with its values as strings (trace_level a list, the rest one
/// each); trace_file and log_frequency in triton mode, the exporter's
/// settings in opentelemetry mode.
std::vector<std::pair<std::string, std::vector<std::string>>>
report(const trace_settings& settings);

/// The names of the levels set in `level`, TIMESTAMPS before TENSORS;
/// {"OFF"} for none.
std::vector<std::string> level_names(uint32_t level);

/// Parses Triton's `--trace-config` arguments ("rate=100",
/// "triton,file=/tmp/t.json", "opentelemetry,url=...", "mode=opentelemetry",
/// "level=TIMESTAMPS", ...) onto `settings`, with Triton's messages.
status parse_trace_config(const std::vector<std::string>& args, trace_settings& settings);

/// Checks a whole set of settings before a server starts with it: what its
/// options cannot express (a rate of 0, a count below -1).
status validate(const trace_settings& settings);

} // namespace conch::runtime::tracing
