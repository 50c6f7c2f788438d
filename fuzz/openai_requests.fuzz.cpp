// The OpenAI frontend's request decoders and what follows a decoded body:
// the first byte picks the route (completions, chat, embeddings), the rest
// is the body; a body starting with '!' is a depth bomb (json_bomb.hpp). A
// text request that decodes is then built for a model of each convention,
// and its prompt is run through the stop scanner with its stop sequences
// and, as if a model had written it, through the tool-call readers.
#include <string>

#include <google/protobuf/text_format.h>

#include "conch/transports/openai/build_request.hpp"
#include "conch/transports/openai/decode_requests.hpp"
#include "conch/transports/openai/stop_scanner.hpp"
#include "conch/transports/openai/tool_calls.hpp"
#include "json_bomb.hpp"

namespace {

using namespace conch::transports::openai;

inference::ModelConfig parse_config(const char* text) {
  inference::ModelConfig out;
  google::protobuf::TextFormat::ParseFromString(text, &out);
  return out;
}

const inference::ModelConfig& vllm_config() {
  static const auto c = parse_config(R"(
    name: "v" backend: "vllm" model_transaction_policy { decoupled: true }
    input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] },
            { name: "stream" data_type: TYPE_BOOL dims: [ 1 ] },
            { name: "sampling_parameters" data_type: TYPE_STRING dims: [ 1 ] },
            { name: "exclude_input_in_output" data_type: TYPE_BOOL dims: [ 1 ] } ]
    output [ { name: "text_output" data_type: TYPE_STRING dims: [ -1 ] } ])");
  return c;
}

const inference::ModelConfig& tensor_config() {
  static const auto c = parse_config(R"(
    name: "t" max_batch_size: 4
    input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] },
            { name: "max_tokens" data_type: TYPE_INT32 dims: [ 1 ] },
            { name: "temperature" data_type: TYPE_FP16 dims: [ 1 ] optional: true },
            { name: "top_p" data_type: TYPE_FP32 dims: [ 1 ] optional: true },
            { name: "stop_words" data_type: TYPE_STRING dims: [ -1 ] optional: true },
            { name: "seed" data_type: TYPE_UINT64 dims: [ 1 ] optional: true } ]
    output [ { name: "text_output" data_type: TYPE_STRING dims: [ -1 ] } ])");
  return c;
}

void build_both(const std::string& prompt, const generation_settings& settings) {
  for (const auto* config : {&vllm_config(), &tensor_config()}) {
    auto contract = contract_of(*config);
    if (!contract)
      continue;
    auto built = build_generate_request(*config, *contract, prompt, settings, 16);
    (void) built;
  }
  // A generated text is bounded by max_tokens; 64 KiB of it is plenty here.
  stop_scanner scanner{settings.stop};
  for (size_t at = 0; at < prompt.size() && at < 65536 && !scanner.stopped(); at += 3)
    (void) scanner.feed(std::string_view{prompt}.substr(at, 3));
  (void) scanner.flush();
  // The text as a model's answer read for tool calls, streamed and whole.
  for (auto format : {tool_call_format::llama3, tool_call_format::mistral}) {
    tool_call_reader reader{format, 65536};
    for (size_t at = 0; at < prompt.size() && at < 65536 && !reader.overflowed(); at += 5) {
      (void) reader.feed(std::string_view{prompt}.substr(at, 5));
      (void) reader.deltas();
    }
    (void) reader.finish();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  const int route = data[0] % 3;
  auto body = conch::fuzz::expand_json_bomb({reinterpret_cast<const char*>(data + 1), size - 1});
  if (route == 0) {
    completion_request r;
    if (!decode_completion_request(body, r))
      build_both(r.prompt, r.settings);
  } else if (route == 1) {
    chat_request r;
    if (!decode_chat_request(body, r))
      build_both(r.messages_json, r.settings);
  } else {
    embedding_request r;
    (void) decode_embedding_request(body, r);
  }
  return 0;
}
