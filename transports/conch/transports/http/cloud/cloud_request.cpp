#include "conch/transports/http/cloud/cloud_request.hpp"

#include <cstdlib>

namespace conch::transports::http::cloud {

namespace {

constexpr std::string_view header_length = "Inference-Header-Content-Length";

} // namespace

void retarget(request& req, std::vector<std::string> segments) {
  std::string path;
  for (const auto& s : segments)
    path += "/" + s;
  req.path = std::move(path);
  req.segments = std::move(segments);
}

std::optional<response> announce_binary(request& req, std::string_view prefix) {
  req.headers.erase(header_length);
  const auto* type = req.headers.find("Content-Type");
  if (type == nullptr)
    return std::nullopt;
  auto at = type->find(prefix);
  if (at == std::string::npos)
    return std::nullopt;
  if (at != 0)
    return response::error(400, "expect MIME type for binary data starts with '"
                                  + std::string{prefix} + "', got: " + *type);
  auto suffix = type->substr(prefix.size());
  // atoi, as Triton reads it: what is not a number is 0 (a raw binary body).
  long long size = std::atoll(suffix.c_str());
  if (size < 0 || static_cast<unsigned long long>(size) > req.body.size())
    return response::error(400, "inference header size should be in range (0, "
                                  + std::to_string(req.body.size()) + "), got: " + suffix);
  req.headers.set(header_length, std::to_string(size));
  return std::nullopt;
}

} // namespace conch::transports::http::cloud
