#include "conch/transports/grpc/stream_messages.hpp"

#include <string_view>

namespace conch::transports::grpc {

namespace {

constexpr const char* final_key = "triton_final_response";

void set_final(inference::ModelInferResponse& r, bool final) {
  (*r.mutable_parameters())[final_key].set_bool_param(final);
}

stream_message_ptr identified(const stream_request_info& info) {
  auto m = std::make_unique<stream_message>();
  auto* r = m->mutable_infer_response();
  r->set_id(info.id);
  r->set_model_name(info.model_name);
  r->set_model_version(info.model_version);
  set_final(*r, true);
  return m;
}

// Empties a written message for another response, keeping its allocations:
// cleared strings keep their capacity and repeated fields their cleared
// entries; the parameters keep `triton_final_response`, which every response
// sets again. (The message's own Clear() would free the infer_response.)
void empty_for_reuse(stream_message& m) {
  m.clear_error_message();
  auto& r = *m.mutable_infer_response();
  r.clear_model_name();
  r.clear_model_version();
  r.clear_id();
  r.clear_outputs();
  r.clear_raw_output_contents();
  auto& parameters = *r.mutable_parameters();
  if (parameters.size() != 1 || parameters.count(final_key) == 0)
    parameters.clear();
}

} // namespace

stream_message_ptr stream_error(const stream_request_info& info, const runtime::status& st) {
  auto m = identified(info);
  m->set_error_message(st.message().empty() ? st.to_string() : st.message());
  return m;
}

stream_message_ptr stream_empty_final(const stream_request_info& info) {
  return identified(info);
}

runtime::result<stream_message_ptr> stream_response(const stream_request_info& info,
                                                    const runtime::inference_response& r,
                                                    stream_message_ptr reuse) {
  auto m = std::move(reuse);
  if (m)
    empty_for_reuse(*m);
  else
    m = std::make_unique<stream_message>();
  CONCH_RUNTIME_RETURN_IF_ERROR(
    encode_infer_response(r, info.encoding, *m->mutable_infer_response()));
  set_final(*m->mutable_infer_response(), r.final);
  return m;
}

bool empty_final_requested(const inference::ModelInferRequest& request) {
  auto i = request.parameters().find("triton_enable_empty_final_response");
  return i != request.parameters().end()
         && i->second.parameter_choice_case() == inference::InferParameter::kBoolParam
         && i->second.bool_param();
}

bool grpc_error_requested(const ::grpc::ServerContextBase& ctx) {
  auto [first, last] = ctx.client_metadata().equal_range("triton_grpc_error");
  for (auto i = first; i != last; ++i)
    if (std::string_view{i->second.data(), i->second.size()} == "true")
      return true;
  return false;
}

} // namespace conch::transports::grpc
