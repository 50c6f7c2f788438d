#include "conch/runtime/batching/sequence_config.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "conch/runtime/contained_path.hpp"

namespace conch::runtime::batching {

namespace {

using control_t = inference::ModelSequenceBatching::Control;

template <class T>
std::vector<std::byte> bytes_of(T value) {
  std::vector<std::byte> out(sizeof(T));
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}

// One BYTES element: its length (4 bytes, little-endian) and the text.
std::vector<std::byte> bytes_element(const std::string& text) {
  auto out = bytes_of(static_cast<uint32_t>(text.size()));
  for (char c : text)
    out.push_back(static_cast<std::byte>(c));
  return out;
}

result<sequence_control> control_of(const std::string& name, const control_t& c) {
  sequence_control out;
  out.name = name;
  switch (c.kind()) {
    case control_t::CONTROL_SEQUENCE_START: out.what = sequence_control::kind::start; break;
    case control_t::CONTROL_SEQUENCE_READY: out.what = sequence_control::kind::ready; break;
    case control_t::CONTROL_SEQUENCE_END: out.what = sequence_control::kind::end; break;
    case control_t::CONTROL_SEQUENCE_CORRID: out.what = sequence_control::kind::corrid; break;
    default: return invalid_argument("unknown sequence control kind for '" + name + "'");
  }
  if (out.what == sequence_control::kind::corrid) {
    out.type = static_cast<data_type>(c.data_type());
    return out;
  }
  if (c.int32_false_true_size() == 2) {
    out.type = data_type::int32;
    out.false_value = bytes_of(c.int32_false_true(0));
    out.true_value = bytes_of(c.int32_false_true(1));
  } else if (c.fp32_false_true_size() == 2) {
    out.type = data_type::fp32;
    out.false_value = bytes_of(c.fp32_false_true(0));
    out.true_value = bytes_of(c.fp32_false_true(1));
  } else {
    out.type = data_type::bool_;
    out.false_value = bytes_of(static_cast<uint8_t>(c.bool_false_true(0) ? 1 : 0));
    out.true_value = bytes_of(static_cast<uint8_t>(c.bool_false_true(1) ? 1 : 0));
  }
  return out;
}

// The bytes of a state of `count` elements, all zero (empty strings for BYTES).
buffer zeros(data_type type, int64_t count) {
  size_t size = static_cast<size_t>(count)
                * (type == data_type::bytes ? sizeof(uint32_t) : element_size(type));
  auto out = buffer::allocate(size);
  if (size != 0)
    std::memset(out.data(), 0, size);
  return out;
}

result<sequence_state_spec> state_of(const inference::ModelSequenceBatching::State& s,
                                     const std::filesystem::path& model_path, bool batched) {
  sequence_state_spec out;
  out.input_name = s.input_name();
  out.output_name = s.output_name();
  out.type = static_cast<data_type>(s.data_type());
  const auto& in = s.input_name();
  if (s.initial_state_size() > 1)
    return invalid_argument("initial_state field for state input '" + in
                            + "' must contain exactly one or zero element. Found '"
                            + std::to_string(s.initial_state_size()) + "' elements.");
  shape_type dims;
  for (auto d : s.dims())
    dims.push_back(d < 0 ? 1 : d);
  buffer data;
  if (s.initial_state_size() == 1) {
    const auto& init = s.initial_state(0);
    if (init.data_type() != s.data_type())
      return invalid_argument("The data type used for 'initial_state' field of state '" + in
                              + "' does not match the state data type.");
    if (init.name().empty())
      return invalid_argument("Field 'name' must be set when using initial_state for state "
                              "input '" + in + "'.");
    if (init.dims_size() != s.dims_size())
      return invalid_argument("Number of dimensions in 'initial_state' doesn't match the size "
                              "of 'state' dimensions for state input '" + in + "'. "
                              + std::to_string(init.dims_size())
                              + " != " + std::to_string(s.dims_size()));
    for (int i = 0; i < init.dims_size(); ++i) {
      if (init.dims(i) < 0)
        return invalid_argument("'initial_state' field for state input name '" + in
                                + "' contains variable dimensions.");
      if (s.dims(i) >= 0 && s.dims(i) != init.dims(i))
        return invalid_argument("'initial_state' dim for input name '" + in
                                + "' doesn't match 'state' dim description. "
                                + std::to_string(init.dims(i)) + " != "
                                + std::to_string(s.dims(i)));
    }
    dims.assign(init.dims().begin(), init.dims().end());
    if (init.has_data_file()) {
      if (out.type == data_type::bytes)
        return unsupported("initial_state data_file for TYPE_STRING state '" + in
                           + "' is not supported");
      auto resolved = resolve_within(model_path / "initial_state", init.data_file());
      if (!resolved)
        return invalid_argument("initial_state data_file of state input '" + in
                                + "': " + resolved.error().message());
      const auto& file = *resolved;
      std::ifstream f{file, std::ios::binary};
      if (!f)
        return invalid_argument("failed to read initial_state data file '" + file.string()
                                + "' for state input '" + in + "'");
      std::string bytes{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
      auto need = static_cast<size_t>(element_count(dims)) * element_size(out.type);
      if (bytes.size() < need)
        return invalid_argument("initial_state setting expects " + std::to_string(need)
                                + " bytes, but the data provided from " + init.data_file()
                                + "only has " + std::to_string(bytes.size()) + " bytes.");
      data = buffer::copy_of(bytes.data(), need);
    } else if (!init.zero_data()) {
      return invalid_argument("initial_state setting expects state'" + in
                              + "' to have state_data set");
    }
  }
  if (data.size() == 0)
    data = zeros(out.type, element_count(dims));
  if (batched)
    dims.insert(dims.begin(), 1);
  out.shape = std::move(dims);
  out.initial = std::move(data);
  return out;
}

} // namespace

std::string correlation_id_text(const correlation_id& id) {
  if (const auto* s = std::get_if<std::string>(&id))
    return *s;
  if (const auto* n = std::get_if<uint64_t>(&id))
    return std::to_string(*n);
  return "0";
}

bool names_sequence(const correlation_id& id) noexcept {
  if (const auto* s = std::get_if<std::string>(&id))
    return !s->empty();
  if (const auto* n = std::get_if<uint64_t>(&id))
    return *n != 0;
  return false;
}

result<sequence_config> sequence_config::from(const inference::ModelConfig& config,
                                              const std::filesystem::path& model_path,
                                              size_t instances) {
  const auto& b = config.sequence_batching();
  if (b.state_size() > 0 && config.model_transaction_policy().decoupled())
    return unsupported("implicit state (sequence_batching.state) of decoupled model '"
                       + config.name() + "' is not supported by Conch");
  sequence_config out;
  out.model = config.name();
  out.iterative = b.iterative_sequence();
  out.max_batch_size = config.max_batch_size();
  out.instances = std::max<size_t>(1, instances);
  const auto per = static_cast<size_t>(std::max(1, config.max_batch_size()));
  out.slots_per_instance = per;
  out.oldest = b.has_oldest();
  if (out.oldest) {
    const auto& o = b.oldest();
    out.candidates = o.max_candidate_sequences() > 0
                       ? static_cast<size_t>(o.max_candidate_sequences())
                       : per;
    for (auto p : o.preferred_batch_size())
      out.preferred.push_back(static_cast<size_t>(p));
    out.max_queue_delay_ns = o.max_queue_delay_microseconds() * 1000;
  } else if (b.has_direct()) {
    out.max_queue_delay_ns = b.direct().max_queue_delay_microseconds() * 1000;
    out.minimum_slot_utilization = b.direct().minimum_slot_utilization();
  }
  out.idle_ns = b.max_sequence_idle_microseconds() * 1000;
  for (const auto& input : b.control_input())
    for (const auto& c : input.control()) {
      auto control = control_of(input.name(), c);
      if (!control)
        return control.error();
      out.controls.push_back(std::move(*control));
    }
  std::set<std::string> outputs;
  for (const auto& o : config.output()) {
    outputs.insert(o.name());
    out.outputs.push_back(o.name());
  }
  std::set<std::string> seen;
  bool gpu_only = !config.instance_group().empty();
  for (const auto& g : config.instance_group())
    gpu_only = gpu_only && g.kind() == inference::ModelInstanceGroup::KIND_GPU;
  for (const auto& s : b.state()) {
    if (s.use_growable_memory() && !s.use_same_buffer_for_input_output())
      return invalid_argument("In order to 'use_growable_memory', you must also enable "
                              "'use_single_buffer' for state input name '" + s.input_name()
                              + "'.");
    if (s.use_growable_memory() && !gpu_only)
      return invalid_argument("'use_growable_memory' can only work with KIND_GPU model "
                              "instances right now. Please either change the instance type to "
                              "KIND_GPU or set 'use_growable_memory' to false for state input '"
                              + s.input_name() + "'.");
    if (!seen.insert(s.input_name()).second)
      return invalid_argument("State input name '" + s.input_name()
                              + "' specified more than once.");
    auto state = state_of(s, model_path, config.max_batch_size() > 0);
    if (!state)
      return state.error();
    state->returned = outputs.count(state->output_name) > 0;
    out.states.push_back(std::move(*state));
  }
  return out;
}

status sequence_config::check_id(const correlation_id& id) const {
  for (const auto& c : controls) {
    if (c.what != sequence_control::kind::corrid || c.type == data_type::bytes)
      continue;
    if (const auto* s = std::get_if<std::string>(&id))
      return invalid_argument("inference request to model '" + model + "' has the string "
                              "correlation ID '" + *s + "', but its control input '" + c.name
                              + "' (CONTROL_SEQUENCE_CORRID) is "
                              + std::string{config_type_name(c.type)});
  }
  return status::ok();
}

std::vector<tensor> sequence_config::control_tensors(bool start, bool end, bool ready,
                                                     const correlation_id& id) const {
  std::vector<tensor> out;
  out.reserve(controls.size());
  shape_type shape = max_batch_size > 0 ? shape_type{1, 1} : shape_type{1};
  for (const auto& c : controls) {
    std::vector<std::byte> bytes;
    switch (c.what) {
      case sequence_control::kind::start: bytes = ready && start ? c.true_value : c.false_value; break;
      case sequence_control::kind::end: bytes = ready && end ? c.true_value : c.false_value; break;
      case sequence_control::kind::ready: bytes = ready ? c.true_value : c.false_value; break;
      case sequence_control::kind::corrid: {
        // A padding row's CORRID means nothing: zero, as Triton sends.
        correlation_id value = ready ? id : correlation_id{uint64_t{0}};
        if (c.type == data_type::bytes) {
          bytes = bytes_element(ready && std::holds_alternative<std::string>(value)
                                  ? std::get<std::string>(value)
                                  : (ready ? correlation_id_text(value) : std::string{}));
          break;
        }
        auto number = std::holds_alternative<uint64_t>(value) ? std::get<uint64_t>(value) : 0;
        bytes = bytes_of(number);
        // A 32-bit control takes the low-order 32 bits (little-endian).
        bytes.resize(element_size(c.type));
        break;
      }
    }
    out.push_back(tensor{c.name, c.type, shape, buffer::copy_of(bytes.data(), bytes.size())});
  }
  return out;
}

} // namespace conch::runtime::batching
