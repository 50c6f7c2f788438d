#include "conch/transports/http/kserve/codec/encode_infer_response.hpp"

#include <variant>

#include "conch/transports/http/kserve/codec/binary_extension.hpp"
#include "conch/runtime/output_labels.hpp"
#include "conch/transports/classification/classify.hpp"
#include "conch/transports/http/kserve/codec/encode_error.hpp"
#include "conch/transports/http/kserve/codec/json_tensor_write.hpp"
#include "conch/transports/http/owned_bytes.hpp"

namespace conch::transports::http::kserve::codec {

namespace {

using runtime::status;

// What the encoder gathers besides the JSON text.
struct binary_part {
  std::vector<runtime::buffer> blobs;
  bool any = false;
};

void write_parameters(json_writer& w, const runtime::parameter_list& params) {
  w.StartObject();
  for (const auto& p : params)
    write_parameter(w, p);
  w.EndObject();
}

void write_head(json_writer& w, const runtime::tensor& t) {
  w.Key("name");
  write_string(w, t.name);
  w.Key("datatype");
  write_string(w, runtime::data_type_name(t.type));
  w.Key("shape");
  w.StartArray();
  for (auto d : t.shape)
    w.Int64(d);
  w.EndArray();
}

status write_data(json_writer& w, const runtime::tensor& t, bool binary, binary_part& bin) {
  if (!t.data.host_accessible())
    return runtime::internal_error("output '" + t.name + "' is not in host memory");
  if (!binary) {
    w.Key("data");
    return write_json_tensor_data(w, t);
  }
  w.Key("parameters");
  w.StartObject();
  w.Key("binary_data_size");
  w.Uint64(t.data.size());
  w.EndObject();
  bin.any = true;
  if (!t.data.empty())
    bin.blobs.push_back(t.data);
  return status::ok();
}

// The labels of output `name` in `r`; empty when it has none.
const std::vector<std::string>& labels_of(const runtime::inference_response& r,
                                          const std::string& name) {
  static const std::vector<std::string> none;
  const auto* labels = r.labels ? r.labels->find(name) : nullptr;
  return labels != nullptr ? *labels : none;
}

status write_output(json_writer& w, const runtime::inference_response& r,
                    const runtime::tensor& produced, const decoded_infer& how, binary_part& bin) {
  const auto* listed = how.listed_output(produced.name);
  const runtime::tensor* t = &produced;
  runtime::tensor classified;
  if (listed != nullptr && listed->classification > 0) {
    auto c = classification::classify(produced, listed->classification, how.model_batches,
                                      labels_of(r, produced.name));
    if (!c)
      return c.error();
    classified = std::move(*c);
    t = &classified;
  }
  w.StartObject();
  write_head(w, *t);
  if (listed == nullptr || !listed->shared_memory) {
    bool binary = how.raw_binary || (listed != nullptr ? listed->binary : how.binary_data_output);
    CONCH_RUNTIME_RETURN_IF_ERROR(write_data(w, *t, binary, bin));
  }
  w.EndObject();
  return status::ok();
}

status write_response(json_writer& w, const runtime::inference_response& r,
                      const decoded_infer& how, binary_part& bin) {
  w.StartObject();
  if (!r.id.empty()) {
    w.Key("id");
    write_string(w, r.id);
  }
  w.Key("model_name");
  write_string(w, r.model_name);
  w.Key("model_version");
  write_string(w, std::to_string(r.model_version));
  if (!r.parameters.empty()) {
    w.Key("parameters");
    write_parameters(w, r.parameters);
  }
  w.Key("outputs");
  w.StartArray();
  for (const auto& o : r.outputs)
    CONCH_RUNTIME_RETURN_IF_ERROR(write_output(w, r, o, how, bin));
  w.EndArray();
  w.EndObject();
  return status::ok();
}

} // namespace

response encode_infer_response(const runtime::inference_response& r, const decoded_infer& how) {
  if (!r.error.is_ok())
    return encode_error(r.error);
  std::string header;
  header.reserve(256);
  string_output stream{header};
  json_writer w{stream};
  binary_part bin;
  if (auto st = write_response(w, r, how, bin); !st)
    return encode_error(st);
  response out{200};
  if (bin.any) {
    out.headers.set("Content-Type", "application/octet-stream");
    out.headers.set(inference_header_content_length, std::to_string(header.size()));
  } else {
    out.headers.set("Content-Type", "application/json");
  }
  out.body.reserve(1 + bin.blobs.size());
  out.body.push_back(owned_bytes(std::move(header)));
  for (auto& b : bin.blobs)
    out.body.push_back(std::move(b));
  return out;
}

} // namespace conch::transports::http::kserve::codec
