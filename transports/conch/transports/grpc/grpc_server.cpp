#include "conch/transports/grpc/grpc_server.hpp"

#include <chrono>
#include <limits>

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include "conch/transports/forwarding/header_forwarding.hpp"
#include "conch/transports/grpc/infer_call_settings.hpp"
#include "conch/transports/grpc/release_locks.hpp"

namespace conch::transports::grpc {

namespace {

std::string listen_address(const server_options& o) {
  auto host = o.address.find(':') != std::string::npos ? "[" + o.address + "]" : o.address;
  return host + ":" + std::to_string(o.port);
}

// What every inference call applies; nullptr when it is nothing.
runtime::result<std::shared_ptr<const infer_call_settings>>
make_infer_call_settings(const server_options& o) {
  if (o.infer_compression_level < GRPC_COMPRESS_LEVEL_NONE
      || o.infer_compression_level > GRPC_COMPRESS_LEVEL_HIGH)
    return runtime::invalid_argument(
      "infer_compression_level must be 0 (NONE), 1 (LOW), 2 (MED) or 3 (HIGH), got "
      + std::to_string(o.infer_compression_level));
  auto pattern
    = forwarding::compile_forward_pattern(o.forward_header_pattern, "forward_header_pattern");
  if (!pattern)
    return pattern.error();
  if (o.infer_compression_level == GRPC_COMPRESS_LEVEL_NONE && !pattern->has_value())
    return std::shared_ptr<const infer_call_settings>{};
  auto settings = std::make_shared<infer_call_settings>();
  settings->compression = static_cast<grpc_compression_level>(o.infer_compression_level);
  settings->forward_pattern = std::move(*pattern);
  return std::shared_ptr<const infer_call_settings>{std::move(settings)};
}

} // namespace

grpc_server::grpc_server(server_options options, gateway_ptr server)
  : options_(std::move(options)), calls_(std::make_shared<inflight_calls>()),
    inference_(server, calls_), health_(server) {}

grpc_server::~grpc_server() {
  if (server_ && !stopper_.joinable()) {
    calls_->stop();
    calls_->cancel_all();
    server_->Shutdown(std::chrono::system_clock::now());
    server_->Wait();
  }
  if (!stopper_.joinable())
    return;
  // The last owner may let go of this server from `drained` itself.
  if (stopper_.get_id() == std::this_thread::get_id())
    stopper_.detach();
  else
    stopper_.join();
}

runtime::status grpc_server::start() {
  if (options_.port < 0 || options_.port > 65535)
    return runtime::invalid_argument("port must be between 0 and 65535, got "
                                     + std::to_string(options_.port));
  auto credentials = server_credentials(options_.tls);
  if (!credentials)
    return credentials.error();
  auto settings = make_infer_call_settings(options_);
  if (!settings)
    return settings.error();
  inference_.set_infer_call_settings(std::move(*settings));
  call_byte_limits bytes;
  bytes.max_inflight_bytes = options_.max_inflight_bytes;
  bytes.stream_high_water = options_.stream_high_water;
  bytes.max_stream_backlog = options_.max_stream_backlog;
  auto limits = call_limits::make(options_.restricted_features, options_.max_inflight, bytes,
                                  options_.stats, options_.input, options_.client_shm);
  if (!limits)
    return limits.error();
  auto shared_limits = std::make_shared<const call_limits>(std::move(*limits));
  inference_.set_call_limits(shared_limits);
  health_.set_call_limits(std::move(shared_limits));
  use_release_mode_locks();
  ::grpc::ServerBuilder builder;
  int selected = 0;
  auto address = listen_address(options_);
  builder.AddListeningPort(address, std::move(*credentials), &selected);
  add_keepalive_arguments(options_.keepalive, builder);
  // gRPC allows SO_REUSEPORT by default, which would let a second server
  // share a port in use instead of failing: set it explicitly.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, options_.reuse_port ? 1 : 0);
  if (options_.max_message_size < 1)
    return runtime::invalid_argument("max_message_size must be greater than 0, got "
                                     + std::to_string(options_.max_message_size));
  builder.SetMaxReceiveMessageSize(options_.max_message_size);
  builder.SetMaxSendMessageSize(options_.max_message_size);
  builder.RegisterService(&inference_);
  builder.RegisterService(&health_);
  auto server = builder.BuildAndStart();
  if (!server || selected == 0)
    return runtime::unavailable(
      "failed to start the gRPC server: cannot listen on " + address
      + (options_.tls.use_ssl ? " with TLS (is the address free, and are server_cert and "
                                "server_key a certificate and its key?)"
                              : ""));
  server_ = std::move(server);
  port_ = static_cast<uint16_t>(selected);
  if (options_.stats)
    options_.stats->port.store(port_, std::memory_order_relaxed);
  return runtime::status::ok();
}

void grpc_server::begin_stop(std::function<void()> drained) {
  calls_->stop();
  shut_down(std::move(drained));
}

void grpc_server::abort() {
  calls_->stop();
  calls_->cancel_all();
  shut_down(nullptr);
}

void grpc_server::shut_down(std::function<void()> drained) {
  std::unique_lock<std::mutex> lock{stop_mu_};
  if (!server_ || shut_) {
    // Never started, or already shut down: nothing is left to wait for.
    lock.unlock();
    if (drained)
      drained();
    return;
  }
  if (drained)
    drained_.push_back(std::move(drained));
  if (stopper_.joinable())
    return; // the stopper runs, and tells drained_ when it is done
  stopper_ = std::thread{[this] {
    // Calls in flight get until the deadline to finish (abort() cancels
    // them sooner); then gRPC cancels what is left. A callback call still
    // ends only once finished: each is, by its answer, and the server's
    // exit timeout answers what a model never returns.
    server_->Shutdown(std::chrono::system_clock::now() + options_.shutdown_timeout);
    server_->Wait();
    std::vector<std::function<void()>> tell;
    {
      std::lock_guard<std::mutex> guard{stop_mu_};
      shut_ = true;
      tell.swap(drained_);
    }
    // The last of them may destroy this server: nothing touches it after.
    for (auto& t : tell)
      t();
  }};
}

} // namespace conch::transports::grpc
