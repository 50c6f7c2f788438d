#pragma once

#include <optional>
#include <string_view>

#include "conch/transports/openai/api_error.hpp"
#include "conch/transports/openai/requests.hpp"

namespace conch::transports::openai {

// The request bodies of the three inference routes, checked the way Triton's
// OpenAI frontend checks them: first against OpenAI's schema (unknown
// fields, wrong types and values out of range answer 422 with every field
// error), then the choices it does not serve (n > 1, logit_bias, suffix,
// stream_options without stream, ...) answer 400. Parsing is iterative and
// bounded in depth (max_json_depth); every walk below is linear in the body.
// Each returns nullopt and fills `out`, or the error to answer with.

std::optional<api_error> decode_completion_request(std::string_view body,
                                                   completion_request& out);

std::optional<api_error> decode_chat_request(std::string_view body, chat_request& out);

std::optional<api_error> decode_embedding_request(std::string_view body,
                                                  embedding_request& out);

} // namespace conch::transports::openai
