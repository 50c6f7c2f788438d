#include "conch/transports/grpc/decode_infer_request.hpp"

#include <memory>

#include "conch/runtime/repeated_name.hpp"
#include "conch/transports/grpc/request_parameters.hpp"
#include "conch/transports/grpc/tensor_parameters.hpp"
#include "conch/transports/grpc/typed_contents.hpp"
#include "conch/transports/protocol/request_limits.hpp"

namespace conch::transports::grpc {

namespace {

using input_message = inference::ModelInferRequest::InferInputTensor;

// Takes the bytes of one raw entry over into a buffer that owns them.
runtime::buffer take_raw(std::string& raw) {
  auto owner = std::make_shared<std::string>(std::move(raw));
  auto* data = reinterpret_cast<std::byte*>(owner->data());
  auto size = owner->size();
  return {std::move(owner), data, size};
}

runtime::result<runtime::tensor> decode_header(const input_message& in) {
  runtime::tensor t;
  t.name = in.name();
  auto type = runtime::parse_data_type(in.datatype());
  if (!type)
    return runtime::invalid_argument("invalid datatype for input " + in.name());
  t.type = *type;
  t.shape.assign(in.shape().begin(), in.shape().end());
  if (runtime::element_count(t.shape) < 0)
    return runtime::invalid_argument("invalid shape " + runtime::shape_string(t.shape)
                                     + " for input '" + in.name() + "'");
  return t;
}

// Fills the data of every input; `raw` is consumed in input order.
runtime::status decode_inputs(inference::ModelInferRequest& m, decoded_infer& out) {
  auto& raw = *m.mutable_raw_input_contents();
  int next_raw = 0;
  for (const auto& in : m.inputs()) {
    auto t = decode_header(in);
    if (!t)
      return t.error();
    CONCH_RUNTIME_RETURN_IF_ERROR(
      protocol::check_parameter_count("input", in.name(), in.parameters().size()));
    auto shm = shared_memory_parameters(in.parameters());
    if (!shm)
      return shm.error().with_prefix("input '" + in.name() + "': ");
    if (*shm) {
      if (in.has_contents())
        return runtime::invalid_argument(
          "unexpected 'content' provided when using shared memory for input '" + in.name() + "'");
      out.shared_memory_inputs.emplace_back(out.request.inputs.size(), std::move(**shm));
    } else if (!raw.empty()) {
      if (in.has_contents())
        return runtime::invalid_argument(
          "contents field must not be specified when using raw_input_contents for '" + in.name()
          + "'");
      if (next_raw >= raw.size())
        return runtime::invalid_argument("unable to find data for input tensor '" + in.name()
                                         + "'");
      t->data = take_raw(raw[next_raw++]);
      CONCH_RUNTIME_RETURN_IF_ERROR(t->validate_data());
    } else {
      if (!in.has_contents() && runtime::element_count(t->shape) > 0)
        return runtime::invalid_argument("unable to find data for input tensor '" + in.name()
                                         + "'");
      auto data = pack_typed_contents(in.name(), t->type, runtime::element_count(t->shape),
                                      in.contents());
      if (!data)
        return data.error();
      t->data = std::move(*data);
    }
    out.request.inputs.push_back(std::move(*t));
  }
  if (next_raw < raw.size())
    return runtime::invalid_argument("expected " + std::to_string(next_raw)
                                     + " raw_input_contents entries for model '" + m.model_name()
                                     + "', got " + std::to_string(raw.size()));
  return runtime::status::ok();
}

runtime::status decode_output(const inference::ModelInferRequest::InferRequestedOutputTensor& o,
                              decoded_infer& out) {
  CONCH_RUNTIME_RETURN_IF_ERROR(
    protocol::check_parameter_count("output", o.name(), o.parameters().size()));
  requested_output wanted;
  wanted.name = o.name();
  auto shm = shared_memory_parameters(o.parameters());
  if (!shm)
    return shm.error().with_prefix("output '" + o.name() + "': ");
  wanted.shared_memory = std::move(*shm);
  auto classes = classification_parameter(o.parameters());
  if (!classes)
    return classes.error().with_prefix("output '" + o.name() + "': ");
  wanted.classification = *classes;
  if (wanted.shared_memory && wanted.classification > 0)
    return runtime::invalid_argument("output '" + o.name()
                                     + "' can't set both 'shared_memory_region' and "
                                       "'classification'");
  out.request.requested_outputs.push_back(o.name());
  out.outputs.push_back(std::move(wanted));
  return runtime::status::ok();
}

// The limits of one request, checked before any of it is decoded.
runtime::status check_counts(const inference::ModelInferRequest& m) {
  CONCH_RUNTIME_RETURN_IF_ERROR(protocol::check_input_count(m.inputs_size()));
  CONCH_RUNTIME_RETURN_IF_ERROR(protocol::check_output_count(m.outputs_size()));
  return protocol::check_parameter_count("the request", m.parameters().size());
}

} // namespace

runtime::result<decoded_infer> decode_infer_request(inference::ModelInferRequest& m,
                                                    int64_t version) {
  decoded_infer out;
  auto& r = out.request;
  r.model_name = m.model_name();
  r.model_version = version;
  r.id = m.id();
  CONCH_RUNTIME_RETURN_IF_ERROR(check_counts(m));
  CONCH_RUNTIME_RETURN_IF_ERROR(apply_request_parameters(m.parameters(), r));
  CONCH_RUNTIME_RETURN_IF_ERROR(decode_inputs(m, out));
  if (auto twice = runtime::repeated_name(m.inputs(), [](const auto& in) -> const std::string& {
        return in.name();
      }))
    return protocol::repeated_input(*twice);
  for (const auto& o : m.outputs())
    CONCH_RUNTIME_RETURN_IF_ERROR(decode_output(o, out));
  // An output named twice is requested once, with its first settings, as
  // Triton takes it.
  runtime::keep_first_of_each_name(out.outputs,
                                   [](const auto& o) -> const std::string& { return o.name; });
  runtime::keep_first_of_each_name(out.request.requested_outputs,
                                   [](const std::string& n) -> const std::string& { return n; });
  return out;
}

} // namespace conch::transports::grpc
