#include "conch/transports/grpc/tls_credentials.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace conch::transports::grpc {

namespace {

// The contents of the PEM file `path` that option `option` names.
runtime::result<std::string> read_pem(const std::string& path, const char* option) {
  if (path.empty())
    return runtime::invalid_argument(std::string{"use_ssl needs "} + option
                                     + ", a PEM file, but none is given");
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return runtime::invalid_argument(std::string{"cannot read "} + option + " '" + path
                                     + "': " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof())
    return runtime::invalid_argument(std::string{"cannot read "} + option + " '" + path + "'");
  auto pem = std::move(text).str();
  if (pem.find("-----BEGIN ") == std::string::npos)
    return runtime::invalid_argument(std::string{option} + " '" + path
                                     + "' holds no PEM data");
  return pem;
}

} // namespace

runtime::result<std::shared_ptr<::grpc::ServerCredentials>>
server_credentials(const tls_options& options) {
  if (!options.use_ssl)
    return ::grpc::InsecureServerCredentials();
  auto cert = read_pem(options.server_cert, "server_cert");
  if (!cert)
    return cert.error();
  auto key = read_pem(options.server_key, "server_key");
  if (!key)
    return key.error();
  ::grpc::SslServerCredentialsOptions ssl{
    options.use_mutual_auth ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                            : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE};
  if (options.use_mutual_auth || !options.root_cert.empty()) {
    if (options.root_cert.empty())
      return runtime::invalid_argument("use_mutual_auth needs root_cert, the CA that client "
                                       "certificates must chain to");
    auto root = read_pem(options.root_cert, "root_cert");
    if (!root)
      return root.error();
    ssl.pem_root_certs = std::move(*root);
  }
  ssl.pem_key_cert_pairs.push_back({std::move(*key), std::move(*cert)});
  return ::grpc::SslServerCredentials(ssl);
}

} // namespace conch::transports::grpc
