#include "conch/transports/metrics/metrics_handler.hpp"

#include "conch/transports/http/response.hpp"

namespace conch::transports::metrics {

namespace {

bool is_metrics_path(const std::string& path) {
  return path == "/metrics" || path == "/metrics/";
}

} // namespace

void metrics_handler::handle(http::request_ptr req, http::responder res) {
  // As upstream, the method is checked before the path: the port serves
  // nothing but GET.
  if (req->method != "GET") {
    auto out = http::response::text(405, "Method Not Allowed\n", exposition_content_type);
    out.headers.set("Allow", "GET");
    res.send(std::move(out));
    return;
  }
  if (!is_metrics_path(req->path)) {
    res.send(http::response::text(404, "Not Found\n", exposition_content_type));
    return;
  }
  res.send(http::response::text(200, source_(), exposition_content_type));
}

} // namespace conch::transports::metrics
