#include "conch/runtime/backends/common/job_output.hpp"

#include "conch/runtime/clock.hpp"

namespace conch::runtime::backends::common {

response_allocator& output_allocator(const inference_request& request) noexcept {
  if (request.allocator)
    return *request.allocator;
  return *cpu_allocator::instance();
}

void mark_input_end(inference_job& job) noexcept {
  if (job.times().input_end == 0)
    job.times().input_end = now_ns();
}

void mark_output_start(inference_job& job) noexcept {
  if (job.times().output_start == 0)
    job.times().output_start = now_ns();
}

result<tensor> allocate_output(inference_job& job, std::string name, data_type type,
                               shape_type shape, size_t byte_size) {
  mark_output_start(job);
  const auto& request = job.request();
  auto memory = output_allocator(request).allocate(name, byte_size, request.preferred_output_memory,
                                                   request.preferred_output_device);
  if (!memory)
    return memory.error().with_prefix("output '" + name + "': ");
  if (memory->size() < byte_size)
    return internal_error("output '" + name + "': the allocator returned "
                          + std::to_string(memory->size()) + " bytes, "
                          + std::to_string(byte_size) + " were asked for");
  if (!memory->host_accessible())
    return unsupported("output '" + name + "': the allocator returned "
                       + std::string{memory_type_name(memory->type())}
                       + " memory, but this backend writes outputs from host code");
  // An allocator may hand out a larger region (a shared-memory block); the
  // tensor covers exactly its own bytes.
  return tensor{std::move(name), type, std::move(shape), memory->slice(0, byte_size)};
}

void respond_with(inference_job& job, std::vector<tensor> outputs, bool final) {
  inference_response r;
  r.outputs = std::move(outputs);
  r.final = final;
  job.respond(std::move(r));
}

bool fail_if_cancelled(inference_job& job) {
  if (!job.is_cancelled())
    return false;
  job.fail(cancelled("request cancelled"));
  return true;
}

} // namespace conch::runtime::backends::common
