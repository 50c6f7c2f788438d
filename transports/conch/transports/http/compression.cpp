#include "conch/transports/http/compression.hpp"

#include <cstdlib>
#include <string>

#include <zlib.h>

#include "conch/transports/http/owned_bytes.hpp"

namespace conch::transports::http {

namespace {

// The weight of one Accept-Encoding element ("gzip;q=0.5" -> 0.5).
double element_weight(std::string_view params) {
  while (!params.empty()) {
    auto semi = params.find(';');
    auto param = trim(params.substr(0, semi));
    if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
      std::string number{trim(param.substr(2))};
      char* end = nullptr;
      double q = std::strtod(number.c_str(), &end);
      return end == number.c_str() ? 0.0 : q;
    }
    params = semi == std::string_view::npos ? std::string_view{} : params.substr(semi + 1);
  }
  return 1.0;
}

} // namespace

content_coding negotiate_coding(std::string_view accept_encoding) {
  // Weights of identity, gzip, deflate, and the order in which each was named.
  double weight[3] = {-1, -1, -1};
  int order[3] = {3, 3, 3};
  double wildcard = -1;
  int position = 0;
  std::string_view rest = accept_encoding;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    auto element = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    auto semi = element.find(';');
    auto name = trim(element.substr(0, semi));
    double q = semi == std::string_view::npos ? 1.0 : element_weight(element.substr(semi + 1));
    int index = iequals(name, "identity") ? 0
                : iequals(name, "gzip")   ? 1
                : iequals(name, "deflate") ? 2
                                           : -1;
    if (name == "*")
      wildcard = q;
    if (index >= 0 && weight[index] < 0) {
      weight[index] = q;
      order[index] = position++;
    }
  }
  // A coding not named takes the wildcard's weight; identity, when neither it
  // nor `*` is named, stays acceptable but loses to any named coding.
  for (int i = 0; i < 3; ++i)
    if (weight[i] < 0)
      weight[i] = wildcard >= 0 ? wildcard : (i == 0 ? 1e-9 : 0.0);
  int best = 0;
  for (int i = 1; i < 3; ++i)
    if (weight[i] > weight[best] || (weight[i] == weight[best] && order[i] < order[best]))
      best = i;
  if (weight[best] <= 0)
    return content_coding::identity;
  return static_cast<content_coding>(best);
}

runtime::result<runtime::buffer> encode_body(content_coding coding,
                                             const std::vector<runtime::buffer>& body) {
  z_stream zs{};
  int bits = coding == content_coding::gzip ? 15 + 16 : 15;
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return runtime::internal_error("cannot start the compressor");
  size_t total = 0;
  for (auto& part : body)
    total += part.size();
  std::string out(deflateBound(&zs, static_cast<uLong>(total)) + 64, '\0');
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = Z_OK;
  for (size_t i = 0; i <= body.size() && rc == Z_OK; ++i) {
    bool last = i == body.size();
    zs.next_in = last ? nullptr : reinterpret_cast<Bytef*>(body[i].data());
    zs.avail_in = last ? 0 : static_cast<uInt>(body[i].size());
    rc = deflate(&zs, last ? Z_FINISH : Z_NO_FLUSH);
    if (!last && rc == Z_OK && zs.avail_in != 0)
      rc = Z_BUF_ERROR;  // the bound was too small; never expected
  }
  out.resize(out.size() - zs.avail_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END)
    return runtime::internal_error("compression failed");
  return owned_bytes(std::move(out));
}

void compress_for(const request& req, response& resp) {
  auto* accept = req.headers.find("Accept-Encoding");
  if (accept == nullptr || resp.body.empty() || resp.headers.contains("Content-Encoding"))
    return;
  auto coding = negotiate_coding(*accept);
  if (coding == content_coding::identity)
    return;
  for (auto& part : resp.body)
    if (!part.host_accessible() || part.size() > UINT32_MAX)
      return;
  auto encoded = encode_body(coding, resp.body);
  if (!encoded)
    return;
  resp.body.clear();
  resp.body.push_back(std::move(*encoded));
  resp.headers.set("Content-Encoding", coding == content_coding::gzip ? "gzip" : "deflate");
}

} // namespace conch::transports::http
