// conch-demo: starts a server over a model repository, runs one inference on
// each bundled example model, prints what came back and the statistics, and
// stops. `make run` runs it on python/examples/example_model_repository.

#include <condition_variable>
#include <cstring>
#include <iostream>
#include <mutex>
#include <vector>

#include "conch/actors/server_host.hpp"
#include "conch/runtime/statistics/statistics_json.hpp"

namespace {

using namespace conch::runtime;

// Runs one request and collects every response (several for decoupled models).
std::vector<inference_response> infer(conch::server& srv, inference_request request) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<inference_response> out;
  bool done = false;
  srv.submit(std::move(request), [&](inference_response&& r) {
    std::lock_guard<std::mutex> guard{mu};
    done = r.final;
    out.push_back(std::move(r));
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock{mu};
  cv.wait(lock, [&] { return done; });
  return out;
}

template <class T>
tensor make_tensor(const std::string& name, data_type type, shape_type shape, std::vector<T> v) {
  auto b = buffer::copy_of(v.data(), v.size() * sizeof(T));
  return {name, type, std::move(shape), std::move(b)};
}

template <class T>
void print_tensor(const tensor& t) {
  std::cout << "    " << t.name << " " << data_type_name(t.type) << shape_string(t.shape) << ":";
  auto n = t.data.size() / sizeof(T);
  for (size_t i = 0; i < n; ++i) {
    T x;
    std::memcpy(&x, t.data.data() + i * sizeof(T), sizeof(T));
    std::cout << " " << x;
  }
  std::cout << "\n";
}

void print_responses(const std::string& title, const std::vector<inference_response>& rs) {
  std::cout << title << ": " << rs.size() << " response(s)\n";
  for (const auto& r : rs) {
    if (!r.error.is_ok())
      std::cout << "    error: " << r.error.to_string() << "\n";
    for (const auto& t : r.outputs) {
      if (t.type == data_type::fp32)
        print_tensor<float>(t);
      else if (t.type == data_type::int32)
        print_tensor<int32_t>(t);
      else if (t.type == data_type::uint32)
        print_tensor<uint32_t>(t);
    }
  }
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: conch-demo <model repository>\n";
    return 2;
  }
  conch::server_options options;
  options.model_repository = {argv[1]};
  // Models that need the Python backends (this program has none) are listed
  // as UNAVAILABLE with the reason; the others are served.
  options.exit_on_error = false;
  auto host = conch::actors::server_host::start(options);
  if (!host) {
    std::cerr << "conch-demo: " << host.error().to_string() << "\n";
    return 1;
  }
  auto& srv = (*host)->server();
  std::cout << "Conch " << srv.metadata().version << " serving " << argv[1] << "\n";
  if (auto index = srv.repository_index(); index)
    for (const auto& e : *index)
      std::cout << "  model " << e.name << " version " << e.version << " "
                << conch::actors::model_state_name(e.state)
                << (e.reason.empty() ? "" : ": " + e.reason) << "\n";

  std::vector<int32_t> a(16), b(16, 1);
  for (int i = 0; i < 16; ++i)
    a[i] = i;
  inference_request add;
  add.model_name = "simple";
  add.inputs.push_back(make_tensor("INPUT0", data_type::int32, {1, 16}, a));
  add.inputs.push_back(make_tensor("INPUT1", data_type::int32, {1, 16}, b));
  print_responses("simple (INPUT0 + INPUT1, INPUT0 - INPUT1)", infer(srv, std::move(add)));

  inference_request id;
  id.model_name = "identity_fp32";
  id.inputs.push_back(make_tensor("INPUT0", data_type::fp32, {1, 16}, std::vector<float>(16, 0.5f)));
  print_responses("identity_fp32", infer(srv, std::move(id)));

  inference_request rep;
  rep.model_name = "repeat_int32";
  rep.inputs.push_back(make_tensor("IN", data_type::int32, {3}, std::vector<int32_t>{7, 8, 9}));
  print_responses("repeat_int32 (decoupled)", infer(srv, std::move(rep)));

  if (auto stats = srv.model_statistics(); stats)
    std::cout << "statistics: " << conch::runtime::statistics::statistics_json(*stats) << "\n";
  auto st = srv.stop();
  std::cout << "stopped: " << st.to_string() << "\n";
  return st.is_ok() ? 0 : 1;
}
