#include "conch/transports/http/wire_format.hpp"

#include <cstdio>

namespace conch::transports::http {

std::string_view reason_phrase(int status) noexcept {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 499: return "Client Closed Request";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Unknown";
  }
}

std::string encode_head(int status, const header_map& headers, body_framing framing,
                        size_t content_length, bool keep_alive, bool http10) {
  std::string out;
  out.reserve(128 + headers.size() * 32);
  out += http10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  out += std::to_string(status);
  out += ' ';
  out += reason_phrase(status);
  out += "\r\n";
  for (auto& [name, value] : headers) {
    // The transport owns the framing fields; a handler's copy would conflict.
    if (iequals(name, "Content-Length") || iequals(name, "Transfer-Encoding")
        || iequals(name, "Connection"))
      continue;
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  if (framing == body_framing::content_length) {
    out += "Content-Length: ";
    out += std::to_string(content_length);
    out += "\r\n";
  } else if (framing == body_framing::chunked) {
    out += "Transfer-Encoding: chunked\r\n";
  }
  if (!keep_alive)
    out += "Connection: close\r\n";
  else if (http10)
    out += "Connection: keep-alive\r\n";
  out += "\r\n";
  return out;
}

std::string chunk_prefix(size_t size) {
  char line[24];
  int n = std::snprintf(line, sizeof line, "%zx\r\n", size);
  return std::string(line, static_cast<size_t>(n));
}

} // namespace conch::transports::http
