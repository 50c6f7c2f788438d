#include "conch/runtime/backends/repeat/stream_plan.hpp"

#include <cstring>

#include "conch/runtime/bytes_elements.hpp"

namespace conch::runtime::backends::repeat {

namespace {

/// Checks that `t` holds readable host data that agrees with its shape.
status check_readable(const tensor& t) {
  CONCH_RUNTIME_RETURN_IF_ERROR(t.validate_data());
  if (!t.data.host_accessible())
    return unsupported("input '" + t.name + "': the repeat backend reads host memory only");
  return status::ok();
}

status read_in(const tensor& in, stream_plan& plan) {
  CONCH_RUNTIME_RETURN_IF_ERROR(check_readable(in));
  plan.in = &in;
  plan.count = static_cast<size_t>(element_count(in.shape));
  if (in.type != data_type::bytes)
    return status::ok();
  auto elements = split_bytes_elements(in.data.data(), in.data.size());
  if (!elements)
    return elements.error().with_prefix("input '" + in.name + "': ");
  plan.bytes_elements = std::move(*elements);
  return status::ok();
}

status read_repeat_count(const parameter& p, stream_plan& plan) {
  const auto* n = std::get_if<int64_t>(&p.value);
  if (n == nullptr || *n < 0)
    return invalid_argument("parameter 'repeat_count' must be a non-negative integer");
  plan.count = static_cast<size_t>(*n);
  return status::ok();
}

status read_delays(const tensor& delay, stream_plan& plan) {
  if (delay.type != data_type::uint32)
    return invalid_argument("input 'DELAY' must have data type UINT32, got "
                            + std::string{data_type_name(delay.type)});
  CONCH_RUNTIME_RETURN_IF_ERROR(check_readable(delay));
  plan.delays_ms.resize(delay.data.size() / sizeof(uint32_t));
  if (!plan.delays_ms.empty())
    std::memcpy(plan.delays_ms.data(), delay.data.data(), plan.delays_ms.size() * sizeof(uint32_t));
  return status::ok();
}

} // namespace

std::chrono::milliseconds stream_plan::delay(size_t i) const noexcept {
  return std::chrono::milliseconds{i < delays_ms.size() ? delays_ms[i] : 0};
}

result<stream_plan> plan_stream(const inference_request& request) {
  stream_plan plan;
  if (const tensor* in = request.input("IN"))
    CONCH_RUNTIME_RETURN_IF_ERROR(read_in(*in, plan));
  else if (const parameter* p = find_parameter(request.parameters, "repeat_count"))
    CONCH_RUNTIME_RETURN_IF_ERROR(read_repeat_count(*p, plan));
  if (const tensor* delay = request.input("DELAY"))
    CONCH_RUNTIME_RETURN_IF_ERROR(read_delays(*delay, plan));
  return plan;
}

} // namespace conch::runtime::backends::repeat
