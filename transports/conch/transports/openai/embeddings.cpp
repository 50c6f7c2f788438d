// POST /v1/embeddings: one inference request per input, to a model that
// takes `embedding_request` (a JSON object with the input and pooling
// parameters) and answers `text_output` (a JSON list of numbers); the
// answers are gathered in input order.
#include <cmath>
#include <cstring>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "conch/runtime/bytes_elements.hpp"
#include "conch/transports/http/kserve/codec/json_policy.hpp"
#include "conch/transports/openai/decode_requests.hpp"
#include "conch/transports/openai/encode_responses.hpp"
#include "conch/transports/openai/generation_output.hpp"
#include "conch/transports/openai/json_text.hpp"
#include "conch/transports/openai/model_contract.hpp"
#include "conch/transports/openai/routes.hpp"

namespace conch::transports::openai {

namespace {

std::string base64_of(const std::string& bytes) {
  static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (uint32_t(uint8_t(bytes[i])) << 16) | (uint32_t(uint8_t(bytes[i + 1])) << 8)
                 | uint8_t(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6)
      out.push_back(alphabet[(n >> s) & 63]);
  }
  if (i < bytes.size()) {
    uint32_t n = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size())
      n |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    out.push_back(alphabet[(n >> 18) & 63]);
    out.push_back(alphabet[(n >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? alphabet[(n >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

// The model's vector, checked to be a flat list of numbers, as the JSON
// the answer carries: the list itself, or the base64 of its float32 bytes
// as a JSON string.
runtime::result<std::string> embedding_json(const std::string& text, embedding_encoding e) {
  rapidjson::Document doc;
  if (!http::kserve::codec::parse_json(text, doc).is_ok() || !doc.IsArray())
    return runtime::internal_error("the embedding model's output is not a JSON list");
  std::string floats;
  floats.reserve(doc.Size() * sizeof(float));
  json_text list;
  list.begin_array();
  for (const auto& v : doc.GetArray()) {
    if (!v.IsNumber() || !std::isfinite(v.GetDouble()))
      return runtime::internal_error("the embedding model's output holds a value that is not a "
                                     "finite number");
    list.value(v.GetDouble());
    float f = static_cast<float>(v.GetDouble());
    char raw[sizeof f];
    std::memcpy(raw, &f, sizeof f);
    floats.append(raw, sizeof f);
  }
  list.end_array();
  if (e == embedding_encoding::floats)
    return list.take();
  json_text j;
  j.value(base64_of(floats));
  return j.take();
}

// The answers of one embeddings request, in input order. Each item holds
// an admission ticket of its own until it is answered; the first failure
// answers the request and cancels the other items; a client gone cancels
// them all, those submitted after it too. Thread-safe.
class embedding_batch final {
 public:
  embedding_batch(embedding_request request, http::responder res,
                  std::vector<protocol::admission::ticket> tickets)
    : request_(std::move(request)), res_(std::move(res)), tickets_(std::move(tickets)),
      vectors_(tickets_.size()), remaining_(tickets_.size()) {}

  void on_response(size_t index, runtime::inference_response&& r) {
    std::vector<cancel_fn> cancels;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (done_)
        return;
      auto failure = take(index, std::move(r));
      if (!failure && !r.final)
        return;
      if (failure) {
        fail(*failure);
        cancels.swap(cancels_);
      } else if (vectors_[index].empty()) {
        fail(detail_error(500, "the embedding model answered without an embedding"));
        cancels.swap(cancels_);
      } else {
        tickets_[index].reset();
        if (--remaining_ == 0)
          answer();
      }
    }
    for (auto& f : cancels)
      if (f)
        f();
  }

  // Keeps what cancels item `fn`'s request; runs it at once when the batch
  // is already cancelled or failed.
  void add_cancel(cancel_fn fn) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!cancelled_ && !done_) {
        cancels_.push_back(std::move(fn));
        return;
      }
    }
    if (fn)
      fn();
  }

  void cancel() {
    std::vector<cancel_fn> fns;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      cancelled_ = true;
      fns.swap(cancels_);
    }
    for (auto& f : fns)
      if (f)
        f();
  }

 private:
  // Takes one response of item `index`; the answer to give when it failed.
  std::optional<api_error> take(size_t index, runtime::inference_response&& r) {
    if (!r.error.is_ok())
      return from_status(r.error);
    auto out = read_generation(r);
    if (!out)
      return from_status(out.error());
    if (out->text.empty())
      return std::nullopt;  // a stream's closing flag
    auto json = embedding_json(out->text, request_.encoding);
    if (!json)
      return from_status(json.error());
    vectors_[index] = std::move(*json);
    if (out->prompt_tokens)
      prompt_tokens_ = saturating_add(prompt_tokens_, *out->prompt_tokens);
    else
      counted_all_ = false;
    return std::nullopt;
  }

  void answer() {
    done_ = true;
    std::optional<usage_counts> usage;
    if (counted_all_)
      usage = usage_counts{prompt_tokens_, 0};
    res_.send(json_response(embedding_body(request_.model, vectors_, usage)));
  }

  void fail(const api_error& error) {
    done_ = true;
    res_.send(error_response(error));
    tickets_.clear();
  }

  std::mutex mutex_;
  embedding_request request_;
  http::responder res_;
  std::vector<protocol::admission::ticket> tickets_;
  std::vector<std::string> vectors_;
  size_t remaining_;
  int64_t prompt_tokens_ = 0;
  bool counted_all_ = true;
  bool cancelled_ = false;
  bool done_ = false;
  std::vector<cancel_fn> cancels_;
};

// `embedding_request`: {"input": <text or token ids>, "pooling_params": {...}}.
std::string embedding_request_json(const embedding_request& r, const std::string* text) {
  json_text j;
  j.begin_object();
  j.key("input");
  if (text != nullptr)
    j.value(*text);
  else
    j.raw(r.token_ids_json);
  j.key("pooling_params");
  j.begin_object();
  if (r.dimensions) {
    j.key("dimensions");
    j.begin_array();
    j.value(*r.dimensions);
    j.end_array();
  }
  j.end_object();
  j.end_object();
  return j.take();
}

runtime::tensor bool_tensor(const inference::ModelConfig& config, const std::string& name) {
  uint8_t one = 1;
  runtime::shape_type shape;
  if (config.max_batch_size() > 0)
    shape.push_back(1);
  shape.push_back(1);
  return runtime::tensor{name, runtime::data_type::bool_, shape,
                         runtime::buffer::copy_of(&one, 1)};
}

} // namespace

void serve_embeddings(route_call&& call) {
  embedding_request request;
  std::string_view body{reinterpret_cast<const char*>(call.req->body.data()),
                        call.req->body.size()};
  if (auto bad = decode_embedding_request(body, request)) {
    call.res.send(error_response(*bad));
    return;
  }
  auto model = resolve_model(*call.options.server, request.model);
  if (!model) {
    call.res.send(error_response(from_status(model.error())));
    return;
  }
  const auto& config = *(*model)->config;
  const auto* input = find_input(config, "embedding_request");
  if (input == nullptr || input->data_type() != inference::TYPE_STRING) {
    call.res.send(error_response(detail_error(
      400, "model '" + config.name()
             + "' does not serve embeddings: it has no input 'embedding_request' (TYPE_STRING); "
               "TRT-LLM backend and Python backend do not support embedding requests unless "
               "they take one")));
    return;
  }
  // One request per text, or one for a list of token ids.
  std::vector<std::string> items;
  for (const auto& t : request.texts)
    items.push_back(embedding_request_json(request, &t));
  if (items.empty())
    items.push_back(embedding_request_json(request, nullptr));
  // Each item waits on the server as a request of its own, so each takes a
  // place in flight.
  std::vector<protocol::admission::ticket> tickets;
  tickets.push_back(std::move(call.ticket));
  while (tickets.size() < items.size()) {
    auto more = call.admission.try_admit();
    if (!more) {
      call.res.send(error_response(
        detail_error(503, "the server is busy: too many requests in flight")));
      return;
    }
    tickets.push_back(std::move(more));
  }
  auto batch = std::make_shared<embedding_batch>(std::move(request), std::move(call.res),
                                                 std::move(tickets));
  call.req->on_cancel([batch] { batch->cancel(); });
  for (size_t i = 0; i < items.size(); ++i) {
    runtime::inference_request r;
    r.model_name = config.name();
    std::string bytes;
    runtime::append_bytes_element(bytes, items[i]);
    runtime::shape_type shape;
    if (config.max_batch_size() > 0)
      shape.push_back(1);
    shape.push_back(1);
    r.inputs.push_back(runtime::tensor{"embedding_request", runtime::data_type::bytes, shape,
                                       runtime::buffer::copy_of(bytes.data(), bytes.size())});
    for (const char* flag : {"return_num_input_tokens", "return_num_output_tokens"})
      if (find_input(config, flag) != nullptr)
        r.inputs.push_back(bool_tensor(config, flag));
    auto cancel = call.options.server->submit(
      std::move(r),
      [batch, i](runtime::inference_response&& response) {
        batch->on_response(i, std::move(response));
      },
      {runtime::submitter::frontend, runtime::placement::queued, runtime::trace_origin{},
       *model});
    batch->add_cancel(std::move(cancel));
  }
}

} // namespace conch::transports::openai
