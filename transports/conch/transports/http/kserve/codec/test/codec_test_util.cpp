#include "conch/transports/http/kserve/codec/test/codec_test_util.hpp"

#include "conch/runtime/bytes_elements.hpp"
#include "conch/transports/http/owned_bytes.hpp"

namespace conch::transports::http::kserve::codec::test {

request_ptr make_request(const std::string& json, const std::string& binary,
                         bool declare_header) {
  auto req = std::make_shared<request>();
  req->method = "POST";
  req->path = "/v2/models/m/infer";
  req->segments = {"v2", "models", "m", "infer"};
  req->headers.add("Content-Type", "application/json");
  if (declare_header)
    req->headers.add("Inference-Header-Content-Length", std::to_string(json.size()));
  req->body = owned_bytes(json + binary);
  return req;
}

std::string text_of(const runtime::buffer& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string bytes_elements(const std::vector<std::string>& elements) {
  std::string out;
  for (const auto& e : elements)
    runtime::append_bytes_element(out, e);
  return out;
}

runtime::tensor make_tensor(std::string name, runtime::data_type type, runtime::shape_type shape,
                            const std::string& bytes) {
  runtime::tensor t;
  t.name = std::move(name);
  t.type = type;
  t.shape = std::move(shape);
  t.data = owned_bytes(bytes);
  return t;
}

std::string body_text(const response& r) {
  std::string out;
  for (const auto& b : r.body)
    out += text_of(b);
  return out;
}

} // namespace conch::transports::http::kserve::codec::test
