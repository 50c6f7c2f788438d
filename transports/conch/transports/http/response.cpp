#include "conch/transports/http/response.hpp"

#include <cstdio>

namespace conch::transports::http {

response response::text(int status, std::string_view text, std::string_view content_type) {
  response out{status};
  out.headers.set("Content-Type", std::string{content_type});
  out.append(text);
  return out;
}

response response::error(int status, std::string_view message) {
  std::string body = "{\"error\":\"";
  body += json_escape(message);
  body += "\"}";
  return text(status, body, "application/json");
}

size_t response::body_size() const noexcept {
  size_t total = 0;
  for (auto& part : body)
    total += part.size();
  return total;
}

void response::append(std::string_view bytes) {
  if (!bytes.empty())
    body.push_back(runtime::buffer::copy_of(bytes.data(), bytes.size()));
}

std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

} // namespace conch::transports::http
