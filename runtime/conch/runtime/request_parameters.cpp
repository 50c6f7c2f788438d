#include "conch/runtime/request_parameters.hpp"

#include <string>
#include <utility>

namespace conch::runtime {

namespace {

constexpr std::string_view reserved_prefix = "triton_";

request_parameter_result applied() noexcept { return {}; }

request_parameter_result failed(request_parameter_outcome outcome) noexcept {
  request_parameter_result r;
  r.outcome = outcome;
  return r;
}

request_parameter_result wrong_type(reserved_request_parameter key) noexcept {
  auto r = failed(request_parameter_outcome::wrong_type);
  r.key = key;
  r.expected = expected_type_of(key);
  return r;
}

// An integer >= 0 of either signedness, as unsigned.
std::optional<uint64_t> unsigned_of(const request_parameter_value& value) noexcept {
  if (const auto* u = std::get_if<uint64_t>(&value))
    return *u;
  if (const auto* i = std::get_if<int64_t>(&value); i != nullptr && *i >= 0)
    return static_cast<uint64_t>(*i);
  return std::nullopt;
}

request_parameter_result apply_sequence_id(const request_parameter_value& value,
                                           inference_request& request) {
  if (const auto* s = std::get_if<std::string_view>(&value)) {
    request.correlation_id = std::string{*s};
    return applied();
  }
  if (auto id = unsigned_of(value)) {
    request.correlation_id = *id;
    return applied();
  }
  return wrong_type(reserved_request_parameter::sequence_id);
}

request_parameter_result apply_flag(reserved_request_parameter key, uint32_t bit,
                                    const request_parameter_value& value,
                                    inference_request& request) {
  const auto* set = std::get_if<bool>(&value);
  if (set == nullptr)
    return wrong_type(key);
  if (*set)
    request.flags |= bit;
  return applied();
}

request_parameter_result apply_unsigned(reserved_request_parameter key,
                                        const request_parameter_value& value, uint64_t& out) {
  auto number = unsigned_of(value);
  if (!number)
    return wrong_type(key);
  out = *number;
  return applied();
}

request_parameter_result apply_reserved(reserved_request_parameter key,
                                        const request_parameter_value& value,
                                        inference_request& request) {
  switch (key) {
    case reserved_request_parameter::sequence_id:
      return apply_sequence_id(value, request);
    case reserved_request_parameter::sequence_start:
      return apply_flag(key, request_sequence_start, value, request);
    case reserved_request_parameter::sequence_end:
      return apply_flag(key, request_sequence_end, value, request);
    case reserved_request_parameter::priority:
      return apply_unsigned(key, value, request.priority);
    case reserved_request_parameter::timeout:
      return apply_unsigned(key, value, request.timeout_us);
  }
  return wrong_type(key);
}

request_parameter_result apply_custom(std::string_view key, const request_parameter_value& value,
                                      parameter_list& out) {
  parameter p;
  if (const auto* s = std::get_if<std::string_view>(&value))
    p.value = std::string{*s};
  else if (const auto* b = std::get_if<bool>(&value))
    p.value = *b;
  else if (const auto* i = std::get_if<int64_t>(&value))
    p.value = *i;
  else if (const auto* d = std::get_if<double>(&value))
    p.value = *d;
  else
    return failed(request_parameter_outcome::unsupported_type);
  p.name = std::string{key};
  out.push_back(std::move(p));
  return applied();
}

} // namespace

std::optional<reserved_request_parameter> find_reserved_request_parameter(
  std::string_view key) noexcept {
  if (key == "sequence_id")
    return reserved_request_parameter::sequence_id;
  if (key == "sequence_start")
    return reserved_request_parameter::sequence_start;
  if (key == "sequence_end")
    return reserved_request_parameter::sequence_end;
  if (key == "priority")
    return reserved_request_parameter::priority;
  if (key == "timeout")
    return reserved_request_parameter::timeout;
  return std::nullopt;
}

expected_parameter_type expected_type_of(reserved_request_parameter parameter) noexcept {
  switch (parameter) {
    case reserved_request_parameter::sequence_id:
      return expected_parameter_type::unsigned_or_string;
    case reserved_request_parameter::sequence_start:
    case reserved_request_parameter::sequence_end:
      return expected_parameter_type::boolean;
    case reserved_request_parameter::priority:
    case reserved_request_parameter::timeout:
      return expected_parameter_type::unsigned_integer;
  }
  return expected_parameter_type::unsigned_integer;
}

request_parameter_result apply_request_parameter(std::string_view key,
                                                 const request_parameter_value& value,
                                                 inference_request& request) {
  if (auto reserved = find_reserved_request_parameter(key))
    return apply_reserved(*reserved, value, request);
  if (key.substr(0, reserved_prefix.size()) == reserved_prefix)
    return failed(request_parameter_outcome::reserved_prefix);
  return apply_custom(key, value, request.parameters);
}

} // namespace conch::runtime
