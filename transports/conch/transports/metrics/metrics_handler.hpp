#pragma once

#include <functional>
#include <memory>
#include <string>

#include "conch/transports/http/handler.hpp"

namespace conch::transports::metrics {

/// Produces the Prometheus text exposition (version 0.0.4) of the metric
/// families. Called on a loop thread for every scrape; must not block.
using exposition_source = std::function<std::string()>;

/// The Content-Type of every scrape answer.
inline constexpr const char* exposition_content_type = "text/plain; charset=utf-8";

/// The metrics endpoint over the HTTP transport: GET /metrics and GET
/// /metrics/ answer 200 with the text `source` produces; any other method
/// answers 405 (with Allow: GET), any other path 404. Answers at once on the
/// loop thread. Thread-safe.
class metrics_handler final : public http::handler {
 public:
  /// A handler over `source`, which must not be empty.
  explicit metrics_handler(exposition_source source) : source_(std::move(source)) {}

  void handle(http::request_ptr req, http::responder res) override;

 private:
  exposition_source source_;
};

} // namespace conch::transports::metrics
