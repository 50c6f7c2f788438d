// A closed-loop gRPC load generator for `make bench`, in the manner of
// perf_analyzer's concurrency mode: N worker threads, each with its own
// connection and one ModelInfer request (identity FP32 [1,16]) in flight at
// a time, either as sync unary calls or over one bidi ModelStreamInfer
// stream per worker.
//
//   conch-bench-grpc-load --target HOST:PORT [--mode unary|stream]
//                         [--concurrency N] [--seconds S] [--warmup S]
//                         [--model NAME]
//
// Prints the machine description, then one line of results:
//   mode=unary concurrency=16 infer_per_s=12345 p50_us=... p99_us=... errors=0
// Exits 1 when a call failed (the first error is printed).

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include "grpc_service.grpc.pb.h"
#include "machine_description.hpp"
#include "percentiles.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

struct settings {
  std::string target;
  std::string mode = "unary";
  std::string model = "identity_fp32";
  int concurrency = 1;
  double seconds = 5;
  double warmup = 1;
};

enum phase : int { warming = 0, measuring = 1, done = 2 };

// What the workers share: the phase, and the first error.
struct shared_state {
  std::atomic<int> phase{warming};
  std::mutex mutex;
  std::string first_error;  // guarded by mutex
  std::atomic<uint64_t> errors{0};

  void fail(const grpc::Status& st) {
    errors.fetch_add(1);
    std::lock_guard<std::mutex> guard{mutex};
    if (first_error.empty())
      first_error = std::to_string(st.error_code()) + " " + st.error_message();
  }
};

inference::ModelInferRequest make_request(const std::string& model) {
  inference::ModelInferRequest r;
  r.set_model_name(model);
  auto* in = r.add_inputs();
  in->set_name("INPUT0");
  in->set_datatype("FP32");
  in->add_shape(1);
  in->add_shape(16);
  float values[16];
  for (int i = 0; i < 16; ++i)
    values[i] = static_cast<float>(i);
  r.add_raw_input_contents(std::string(reinterpret_cast<const char*>(values), sizeof(values)));
  return r;
}

// A channel of its own for worker `index`: a distinct channel argument
// keeps gRPC from sharing one connection between workers.
std::unique_ptr<inference::GRPCInferenceService::Stub> make_stub(const std::string& target,
                                                                 int index) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetInt("conch.bench.worker", index);
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return inference::GRPCInferenceService::NewStub(
    grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args));
}

// Runs calls until the phase is done; the latencies (ns) of those that
// started while measuring go into `samples`.
template <class Call>
void run_worker(shared_state& shared, std::vector<int64_t>& samples, Call call) {
  samples.reserve(1 << 20);
  for (;;) {
    int ph = shared.phase.load(std::memory_order_relaxed);
    if (ph == done)
      return;
    auto start = clock_type::now();
    if (!call())
      return;
    if (ph == measuring && shared.phase.load(std::memory_order_relaxed) == measuring)
      samples.push_back(
        std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - start).count());
  }
}

void unary_worker(const settings& s, int index, shared_state& shared,
                  std::vector<int64_t>& samples) {
  auto stub = make_stub(s.target, index);
  auto request = make_request(s.model);
  inference::ModelInferResponse response;
  run_worker(shared, samples, [&] {
    grpc::ClientContext ctx;
    auto st = stub->ModelInfer(&ctx, request, &response);
    if (!st.ok()) {
      shared.fail(st);
      return false;
    }
    return true;
  });
}

void stream_worker(const settings& s, int index, shared_state& shared,
                   std::vector<int64_t>& samples) {
  auto stub = make_stub(s.target, index);
  auto request = make_request(s.model);
  inference::ModelStreamInferResponse response;
  grpc::ClientContext ctx;
  auto stream = stub->ModelStreamInfer(&ctx);
  bool broke = false;
  bool answered_error = false;  // counted already: the stream's status is not counted again
  run_worker(shared, samples, [&] {
    if (!stream->Write(request) || !stream->Read(&response)) {
      broke = true;  // the server's status says why, below
      return false;
    }
    if (!response.error_message().empty()) {
      shared.fail(grpc::Status{grpc::StatusCode::UNKNOWN, response.error_message()});
      answered_error = true;
      return false;
    }
    return true;
  });
  if (!broke)
    stream->WritesDone();
  auto st = stream->Finish();
  if (broke)
    shared.fail(st.ok() ? grpc::Status{grpc::StatusCode::UNAVAILABLE,
                                       "the stream broke; the server ended it OK"}
                        : grpc::Status{st.error_code(), "the stream broke: " + st.error_message()});
  else if (!st.ok() && !answered_error && shared.phase.load() != done)
    shared.fail(st);
}

bool parse(int argc, char** argv, settings& s) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string key = argv[i];
    std::string value = argv[i + 1];
    if (key == "--target")
      s.target = value;
    else if (key == "--mode")
      s.mode = value;
    else if (key == "--model")
      s.model = value;
    else if (key == "--concurrency")
      s.concurrency = std::atoi(value.c_str());
    else if (key == "--seconds")
      s.seconds = std::atof(value.c_str());
    else if (key == "--warmup")
      s.warmup = std::atof(value.c_str());
    else
      return false;
  }
  return !s.target.empty() && (s.mode == "unary" || s.mode == "stream") && s.concurrency > 0
         && s.seconds > 0 && (argc % 2) == 1;
}

} // namespace

int main(int argc, char** argv) {
  settings s;
  if (!parse(argc, argv, s)) {
    std::fprintf(stderr,
                 "usage: %s --target HOST:PORT [--mode unary|stream] [--concurrency N] "
                 "[--seconds S] [--warmup S] [--model NAME]\n",
                 argv[0]);
    return 2;
  }
  std::printf("%s", conch::bench::machine_description().c_str());
  shared_state shared;
  std::vector<std::vector<int64_t>> samples(static_cast<size_t>(s.concurrency));
  std::vector<std::thread> workers;
  for (int i = 0; i < s.concurrency; ++i)
    workers.emplace_back([&, i] {
      if (s.mode == "unary")
        unary_worker(s, i, shared, samples[static_cast<size_t>(i)]);
      else
        stream_worker(s, i, shared, samples[static_cast<size_t>(i)]);
    });
  std::this_thread::sleep_for(std::chrono::duration<double>(s.warmup));
  auto start = clock_type::now();
  shared.phase = measuring;
  std::this_thread::sleep_for(std::chrono::duration<double>(s.seconds));
  shared.phase = done;
  auto elapsed = std::chrono::duration<double>(clock_type::now() - start).count();
  for (auto& w : workers)
    w.join();
  std::vector<int64_t> all;
  for (auto& v : samples)
    all.insert(all.end(), v.begin(), v.end());
  auto count = all.size();
  auto p50 = conch::bench::percentile(all, 50) / 1000.0;
  auto p99 = conch::bench::percentile(all, 99) / 1000.0;
  std::printf("mode=%s concurrency=%d infer_per_s=%.0f p50_us=%.1f p99_us=%.1f errors=%llu\n",
              s.mode.c_str(), s.concurrency, static_cast<double>(count) / elapsed, p50, p99,
              static_cast<unsigned long long>(shared.errors.load()));
  if (shared.errors.load() != 0) {
    std::fprintf(stderr, "first error: %s\n", shared.first_error.c_str());
    return 1;
  }
  return 0;
}
