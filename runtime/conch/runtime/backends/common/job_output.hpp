#pragma once

#include <string>
#include <vector>

#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/response_allocator.hpp"
#include "conch/runtime/tensor.hpp"

namespace conch::runtime::backends::common {

/// The allocator outputs of `request` come from: its own, else host memory.
response_allocator& output_allocator(const inference_request& request) noexcept;

/// Stamps the job's input_end time, unless an earlier step stamped it.
void mark_input_end(inference_job& job) noexcept;

/// Stamps the job's output_start time, unless an earlier output stamped it.
void mark_output_start(inference_job& job) noexcept;

/// Allocates output `name` of `byte_size` bytes for `job` from its allocator,
/// preferring the request's output memory type and device, and stamps the
/// job's output_start time. The built-in backends write
/// outputs from host code, so memory the host cannot write is UNSUPPORTED.
result<tensor> allocate_output(inference_job& job, std::string name, data_type type,
                               shape_type shape, size_t byte_size);

/// Sends one response of `job` carrying `outputs`.
void respond_with(inference_job& job, std::vector<tensor> outputs, bool final);

/// Answers `job` CANCELLED ("request cancelled") when it was cancelled.
/// Returns true when it did.
bool fail_if_cancelled(inference_job& job);

} // namespace conch::runtime::backends::common
