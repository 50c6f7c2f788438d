#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/status.hpp"

namespace conch::transports::openai {

/// An answer the OpenAI frontend gives instead of a result: an HTTP status
/// and its JSON body, in the shapes Triton's OpenAI frontend uses (FastAPI's
/// `{"detail": ...}` for its own errors, OpenAI's `{"error": {...}}` for
/// authentication and size refusals).
struct api_error {
  int status = 500;
  std::string body;
};

/// One field a request body got wrong, as FastAPI reports a failed schema
/// check: the error's kind (`missing`, `extra_forbidden`, `int_type`, ...),
/// where it is (`["body", "temperature"]`; a list index is written as a
/// number), the message, and the offending value as JSON text (empty: none).
struct field_error {
  std::string type;
  std::vector<std::string> loc;
  std::string msg;
  std::string input_json;
};

/// 422 with `{"detail": [<each field error>]}`.
api_error validation_failed(const std::vector<field_error>& errors);

/// `status` with `{"detail": "<message>"}`: 400 for what the client asked
/// wrong, 404 for an unknown route or model, 500 for a failure of the server.
api_error detail_error(int status, std::string_view message);

/// `status` with OpenAI's `{"error": {"message", "type", "code"}}`.
api_error openai_error(int status, std::string_view message, std::string_view type,
                       std::string_view code);

/// The answer to a request the server refused or failed: 400 with its
/// message for what the client can fix (invalid argument, not found,
/// unsupported, already exists), 503 when the server is busy or stopping,
/// 500 otherwise.
api_error from_status(const runtime::status& error);

/// The event that ends a stream the model failed in mid-answer, as OpenAI
/// streams an error (its clients raise it): `{"error": {"message", "type"
/// ("invalid_request_error" for what the client can fix, "server_error"
/// otherwise), "param": null, "code": null}}`.
std::string stream_error_event(const runtime::status& error);

} // namespace conch::transports::openai
