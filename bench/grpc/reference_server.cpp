// The gRPC ceiling `make bench` compares Conch against: a minimal gRPC C++
// callback server of the same service (proto/grpc_service.proto) whose
// ModelInfer and ModelStreamInfer answer every request at once with a fixed
// response shaped like identity_fp32's (OUTPUT0, FP32 [1,16], 64 raw
// bytes). It parses each request and serialises each response, as any
// server must, but runs no model, no scheduler and no actor.
//
//   conch-bench-grpc-reference [--address ADDR] [--port PORT]
//
// Prints "listening on PORT" once serving (PORT 0 picks a free one), then
// serves until SIGINT or SIGTERM.

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <memory>
#include <string>

#include <absl/synchronization/mutex.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include "grpc_service.grpc.pb.h"

namespace {

// The response every ModelInfer gets, built once.
inference::ModelInferResponse fixed_response() {
  inference::ModelInferResponse r;
  r.set_model_name("identity_fp32");
  r.set_model_version("1");
  auto* out = r.add_outputs();
  out->set_name("OUTPUT0");
  out->set_datatype("FP32");
  out->add_shape(1);
  out->add_shape(16);
  float values[16];
  for (int i = 0; i < 16; ++i)
    values[i] = static_cast<float>(i);
  r.add_raw_output_contents(std::string(reinterpret_cast<const char*>(values), sizeof(values)));
  return r;
}

// One stream: each request read is answered with the fixed response before
// the next read, so at most one write is in flight.
class echo_stream final
  : public grpc::ServerBidiReactor<inference::ModelInferRequest,
                                   inference::ModelStreamInferResponse> {
 public:
  explicit echo_stream(const inference::ModelInferResponse& fixed) {
    *response_.mutable_infer_response() = fixed;
    (*response_.mutable_infer_response()->mutable_parameters())["triton_final_response"]
      .set_bool_param(true);
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    response_.mutable_infer_response()->set_id(request_.id());
    StartWrite(&response_);
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    StartRead(&request_);
  }

  void OnDone() override { delete this; }

 private:
  inference::ModelInferRequest request_;
  inference::ModelStreamInferResponse response_;
};

class reference_service final : public inference::GRPCInferenceService::CallbackService {
 public:
  grpc::ServerUnaryReactor* ServerLive(grpc::CallbackServerContext* ctx,
                                       const inference::ServerLiveRequest*,
                                       inference::ServerLiveResponse* res) override {
    res->set_live(true);
    auto* r = ctx->DefaultReactor();
    r->Finish(grpc::Status::OK);
    return r;
  }

  grpc::ServerUnaryReactor* ModelInfer(grpc::CallbackServerContext* ctx,
                                       const inference::ModelInferRequest* req,
                                       inference::ModelInferResponse* res) override {
    *res = fixed_;
    res->set_id(req->id());
    auto* r = ctx->DefaultReactor();
    r->Finish(grpc::Status::OK);
    return r;
  }

  grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
  ModelStreamInfer(grpc::CallbackServerContext*) override {
    return new echo_stream{fixed_};
  }

 private:
  const inference::ModelInferResponse fixed_ = fixed_response();
};

volatile std::sig_atomic_t stop_requested = 0;

} // namespace

int main(int argc, char** argv) {
  std::string address = "127.0.0.1";
  int port = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--address") == 0)
      address = argv[i + 1];
    else if (std::strcmp(argv[i], "--port") == 0)
      port = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--address ADDR] [--port PORT]\n", argv[0]);
      return 2;
    }
  }
  // As Conch's gRPC frontend does (release_locks.hpp): the floor is what the
  // library costs as its release builds run.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  reference_service service;
  grpc::ServerBuilder builder;
  int selected = 0;
  builder.AddListeningPort(address + ":" + std::to_string(port),
                           grpc::InsecureServerCredentials(), &selected);
  builder.SetMaxReceiveMessageSize(std::numeric_limits<int32_t>::max());
  builder.SetMaxSendMessageSize(std::numeric_limits<int32_t>::max());
  builder.RegisterService(&service);
  auto server = builder.BuildAndStart();
  if (!server || selected == 0) {
    std::fprintf(stderr, "cannot listen on %s:%d\n", address.c_str(), port);
    return 1;
  }
  std::printf("listening on %d\n", selected);
  std::fflush(stdout);
  std::signal(SIGINT, [](int) { stop_requested = 1; });
  std::signal(SIGTERM, [](int) { stop_requested = 1; });
  // A signal handler may not call Shutdown; poll the flag instead.
  while (!stop_requested) {
    timespec tick{0, 50'000'000};
    nanosleep(&tick, nullptr);
  }
  server->Shutdown();
  return 0;
}
