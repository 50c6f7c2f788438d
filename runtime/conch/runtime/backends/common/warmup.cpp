#include "conch/runtime/backends/common/warmup.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <random>

#include "conch/runtime/backends/common/model_config_view.hpp"
#include "conch/runtime/contained_path.hpp"

namespace conch::runtime::backends::common {

namespace {

namespace fs = std::filesystem;

result<buffer> read_file(const fs::path& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return internal_error("failed to open text file for read " + path.string()
                          + ": No such file or directory");
  std::vector<char> bytes{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  return buffer::copy_of(bytes.data(), bytes.size());
}

// The data of one sample input: `size` bytes as the sample asks for them.
result<buffer> input_data(const std::string& name, const inference::ModelWarmup::Input& in,
                          size_t size, const fs::path& model_path) {
  switch (in.input_data_type_case()) {
    case inference::ModelWarmup::Input::kZeroData: {
      auto b = buffer::allocate(size);
      if (size > 0)
        std::memset(b.data(), 0, size);
      return b;
    }
    case inference::ModelWarmup::Input::kRandomData: {
      auto b = buffer::allocate(size);
      // BYTES elements stay empty: random length prefixes would not parse.
      if (in.data_type() == inference::TYPE_STRING) {
        if (size > 0)
          std::memset(b.data(), 0, size);
        return b;
      }
      std::minstd_rand gen{std::random_device{}()};
      for (size_t i = 0; i < size; ++i)
        b.data()[i] = static_cast<std::byte>(gen() & 0xff);
      return b;
    }
    case inference::ModelWarmup::Input::kInputDataFile: {
      auto file = resolve_within(model_path / "warmup", in.input_data_file());
      if (!file)
        return invalid_argument("warmup input_data_file of input '" + name
                                + "': " + file.error().message());
      auto data = read_file(*file);
      if (!data)
        return data.error();
      // A BYTES file holds its length-prefixed elements as they are.
      if (in.data_type() == inference::TYPE_STRING)
        return data;
      if (data->size() < size)
        return invalid_argument("warmup setting expects " + std::to_string(size)
                                + " bytes, but the data provided from "
                                + in.input_data_file() + "only has "
                                + std::to_string(data->size()) + " bytes");
      return data->slice(0, size);
    }
    default:
      return invalid_argument("warmup setting expects input '" + name
                              + "' to have input_data_type set");
  }
}

} // namespace

result<std::vector<warmup_sample>> make_warmup_samples(const inference::ModelConfig& config,
                                                       const fs::path& model_path) {
  std::vector<warmup_sample> out;
  for (const auto& w : config.model_warmup()) {
    if (w.batch_size() == 0)
      continue;
    // The inputs of one request, in name order (the map has none).
    std::vector<std::pair<std::string, inference::ModelWarmup::Input>> inputs(
      w.inputs().begin(), w.inputs().end());
    std::sort(inputs.begin(), inputs.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    inference_request request;
    request.model_name = config.name();
    request.id = "warmup";
    for (const auto& [name, in] : inputs) {
      shape_type shape(in.dims().begin(), in.dims().end());
      if (std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; }))
        return invalid_argument("warmup setting expects all variable-size dimensions are "
                                "specified for input '" + name + "'");
      auto type = to_data_type(in.data_type());
      auto elements = static_cast<size_t>(element_count(shape));
      // A BYTES element is at least its 4-byte length prefix.
      size_t size = elements * (type == data_type::bytes ? 4 : element_size(type));
      auto data = input_data(name, in, size, model_path);
      if (!data)
        return data.error();
      if (config.max_batch_size() > 0)
        shape.insert(shape.begin(), 1);
      request.inputs.push_back(tensor{name, type, std::move(shape), std::move(*data)});
    }
    warmup_sample sample;
    sample.name = w.name();
    sample.count = std::max<uint32_t>(w.count(), 1);
    sample.requests.assign(w.batch_size(), request);
    out.push_back(std::move(sample));
  }
  return out;
}

namespace {

// The final responses of one run of a sample.
class run_outcome {
 public:
  explicit run_outcome(size_t jobs) : left_(jobs) {}

  response_callback callback() {
    return [this](inference_response&& r) {
      if (!r.final)
        return;
      std::lock_guard<std::mutex> guard{mu_};
      if (!r.error)
        errors_ += r.error.message() + "; ";
      if (--left_ == 0)
        cv_.notify_all();
    };
  }

  /// Waits for every final response; the errors, each followed by "; ".
  std::string wait() {
    std::unique_lock<std::mutex> lock{mu_};
    cv_.wait(lock, [this] { return left_ == 0; });
    return errors_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  size_t left_;           // guarded by mu_
  std::string errors_;    // guarded by mu_
};

status warm_up(backend_instance& instance, const std::vector<warmup_sample>& samples) {
  for (const auto& sample : samples)
    for (uint32_t i = 0; i < sample.count; ++i) {
      run_outcome outcome{sample.requests.size()};
      batch jobs;
      for (const auto& request : sample.requests)
        jobs.push_back(std::make_shared<inference_job>(request, outcome.callback()));
      instance.execute(jobs);
      // A job the backend left unanswered answers UNAVAILABLE when it goes.
      jobs.clear();
      if (auto errors = outcome.wait(); !errors.empty())
        return invalid_argument("failed to run warmup sample '" + sample.name + "': " + errors);
    }
  return status::ok();
}

class warmed_model final : public backend_model {
 public:
  warmed_model(std::shared_ptr<backend_model> model, std::vector<warmup_sample> samples)
    : model_(std::move(model)), samples_(std::move(samples)) {}

  result<std::unique_ptr<backend_instance>> create_instance(const instance_context& c) override {
    auto instance = model_->create_instance(c);
    if (!instance)
      return instance.error();
    if (auto st = warm_up(**instance, samples_); !st)
      return st;
    return instance;
  }

  bool blocking() const noexcept override { return model_->blocking(); }

 private:
  std::shared_ptr<backend_model> model_;
  std::vector<warmup_sample> samples_;
};

} // namespace

std::shared_ptr<backend_model> with_warmup(std::shared_ptr<backend_model> model,
                                           std::vector<warmup_sample> samples) {
  if (samples.empty())
    return model;
  return std::make_shared<warmed_model>(std::move(model), std::move(samples));
}

} // namespace conch::runtime::backends::common
