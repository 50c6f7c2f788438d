#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "conch/runtime/tracing/trace_settings.hpp"

namespace conch::actors {

/// How the repository decides what to load; the values equal
/// TRITONSERVER_ModelControlMode.
enum class control_mode : uint8_t {
  /// Load every model at start; no load or unload afterwards.
  none = 0,
  /// Load every model at start and follow the repository on each poll.
  poll = 1,
  /// Load only startup_models; load and unload on request.
  explicit_ = 2,
};

/// Options of a Conch server. Field names equal those of the Python Options
/// dataclass where Conch mirrors it.
struct server_options {
  /// The repository paths searched for models.
  std::vector<std::string> model_repository;
  /// The server name reported by server metadata.
  std::string server_id = "triton";
  /// NONE, POLL or EXPLICIT.
  control_mode model_control_mode = control_mode::none;
  /// Models loaded at start in EXPLICIT mode; "*" loads all.
  std::vector<std::string> startup_models;
  /// When false, a missing config.pbtxt or missing fields are completed by the backend.
  bool strict_model_config = false;
  /// Triton's backend directory: a model's backend is looked up there first
  /// (python-based backends, `<directory>/<backend>/model.py`); empty: none.
  std::string backend_directory;
  /// When true, start fails if any model fails to load.
  bool exit_on_error = true;
  /// When true, the server is ready only while every loaded model is ready.
  bool strict_readiness = true;
  /// Seconds stop() waits for in-flight work before abandoning it.
  uint32_t exit_timeout = 30;
  /// Bytes of the local response cache that models with
  /// `response_cache { enable: true }` answer repeated requests from
  /// (Triton's `--cache-config local,size=N`); 0: no cache.
  uint64_t response_cache_byte_size = 0;
  /// Seconds between automatic polls in POLL mode (0: poll only on request).
  uint32_t repository_poll_secs = 15;
  /// Server adapters (actors that validate and route requests).
  uint32_t adapter_count = 2;
  /// Restarts allowed for crashed adapters, and per instance of a model.
  uint32_t restart_budget = 3;
  /// Lets server::submit with placement::may_run_here run small requests to models that do not
  /// batch on the submitting thread while an instance is idle (on the
  /// instance's own worker for a model that may block); false sends every
  /// request through the adapters and schedulers.
  bool direct_lane = true;
  /// In-process requests (submitter::application: C++ and Python) at most in
  /// flight at once; past it a request is answered UNAVAILABLE ("the server
  /// is busy: too many requests in flight") at once. 0: no limit. Conch's
  /// addition, like the frontends' max_inflight.
  int64_t max_inflight = 0;
  /// Number of GPUs to assume for KIND_AUTO/KIND_GPU groups; -1 asks CUDA.
  int32_t gpu_count = -1;
  /// Bytes of pinned host memory allocated at start that pinned buffers are
  /// cut from first (Triton's --pinned-memory-pool-byte-size); 0: none. The
  /// pools belong to the process, as Triton's do: a server started where
  /// CUDA finds a GPU allocates them, servers running at once share them,
  /// and they go with the last (install_memory_pools).
  uint64_t pinned_memory_pool_byte_size = uint64_t{256} << 20;
  /// GPU -> bytes of its CUDA memory pool, allocated at start likewise
  /// (Triton's --cuda-memory-pool-byte-size); a GPU not listed gets 64 MiB,
  /// and 0 means no pool on that GPU.
  std::map<int64_t, uint64_t> cuda_memory_pool_byte_size;
  /// The system gauges (CPU, GPU, pinned memory); false switches them all
  /// off. The per-model families always exist.
  bool metrics = true;
  /// The GPU gauges (nv_gpu_*, nv_energy_consumption), read through NVML
  /// when the machine has it and a GPU.
  bool gpu_metrics = true;
  /// The CPU gauges (nv_cpu_*).
  bool cpu_metrics = true;
  /// How often the CPU and GPU gauges are sampled, in milliseconds (> 0).
  uint32_t metrics_interval_ms = 2000;
  /// Group -> setting -> value: the optional per-model latency families (see
  /// runtime::statistics::parse_metrics_configuration).
  std::map<std::string, std::map<std::string, std::string>> metrics_configuration;
  /// The global trace settings (Triton's `--trace-config`); tracing is off
  /// unless `trace.level` is set. Models' settings change at run time
  /// through server::update_trace_settings and the trace extension.
  runtime::tracing::trace_settings trace;
};

} // namespace conch::actors
