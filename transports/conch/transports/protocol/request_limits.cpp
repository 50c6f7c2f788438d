#include "conch/transports/protocol/request_limits.hpp"

#include <string>

namespace conch::transports::protocol {

namespace {

runtime::status check(std::string_view owner, std::string_view what, size_t count, size_t limit) {
  if (count <= limit)
    return runtime::status::ok();
  std::string m{owner};
  m += " has " + std::to_string(count) + " ";
  m += what;
  m += ", more than the limit of " + std::to_string(limit);
  return runtime::invalid_argument(std::move(m));
}

} // namespace

runtime::status check_input_count(size_t count) {
  return check("the request", "inputs", count, max_request_inputs);
}

runtime::status check_output_count(size_t count) {
  return check("the request", "outputs", count, max_request_outputs);
}

runtime::status check_parameter_count(std::string_view owner, size_t count) {
  return check(owner, "parameters", count, max_request_parameters);
}

runtime::status check_parameter_count(std::string_view kind, std::string_view name,
                                      size_t count) {
  if (count <= max_request_parameters)
    return runtime::status::ok();
  std::string owner{kind};
  owner += " '";
  owner += name;
  owner += "'";
  return check_parameter_count(owner, count);
}

runtime::status repeated_input(std::string_view name) {
  return runtime::invalid_argument("input '" + std::string{name} + "' already exists in request");
}

} // namespace conch::transports::protocol
