#pragma once

// Building Conch inference requests from Python values, and what Python keeps
// of a submitted request.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "conch/actors/server.hpp"
#include "conch/python/response_queue.hpp"
#include "conch/runtime/inference_request.hpp"
#include "conch/runtime/request_trace.hpp"

namespace conch::python {

/// A submitted request as Python holds it (_conch.RequestHandle): the queue
/// its responses arrive in, which also cancels it.
struct submitted_request {
  std::shared_ptr<response_queue> queue;
};

/// The fields of a request that Python passes to _conch.Server.infer.
struct request_fields {
  std::string model_name;
  int64_t model_version = -1;
  /// A list of input tuples: (name, data_type, shape, buffer-protocol object)
  /// or (name, data_type, shape, data_ptr, size, memory_type, memory_type_id,
  /// owner).
  pybind11::list inputs;
  /// str -> str | int | bool | float, dispatched on the exact type.
  pybind11::dict parameters;
  /// None or str.
  pybind11::object request_id;
  uint32_t flags = 0;
  /// None, int (unsigned 64-bit) or str.
  pybind11::object correlation_id;
  uint64_t priority = 0;
  uint64_t timeout_us = 0;
  /// The request's trace, made by the caller (_conch.Trace); null: the
  /// server's settings decide.
  runtime::request_trace_ptr trace;
  /// The outputs to return; empty: all of them.
  std::vector<std::string> outputs;
};

/// Request or response parameters from a dict of str to str, int, bool or
/// float (exact types; anything else raises InvalidArgumentError at call
/// time). Requires the GIL.
runtime::parameter_list parameters_from_dict(const pybind11::dict& parameters);

/// Parameters as a dict. Requires the GIL.
pybind11::dict parameters_to_dict(const runtime::parameter_list& parameters);

/// Converts `fields` into an inference request whose inputs alias the Python
/// objects' bytes. Raises InvalidArgumentError (at call time) for an input or
/// parameter Conch cannot take. Requires the GIL.
runtime::inference_request build_request(const request_fields& fields);

} // namespace conch::python
