#pragma once

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "conch/runtime/backends/registry.hpp"
#include "conch/runtime/inference_job.hpp"

namespace conch::tests {

/// What a sequence backend's executions saw: one row per job of each batch.
class sequence_log {
 public:
  struct row {
    std::string id;
    int32_t ready = 0;
    int32_t start = 0;
  };

  void add(std::vector<row> batch) {
    std::lock_guard<std::mutex> guard{mu_};
    batches_.push_back(std::move(batch));
  }

  std::vector<std::vector<row>> batches() {
    std::lock_guard<std::mutex> guard{mu_};
    return batches_;
  }

 private:
  std::mutex mu_;
  std::vector<std::vector<row>> batches_;
};

/// Registers backend `name`: an accumulator over the sequence batcher. Each
/// job has INT32 INPUT, optional INT32 controls START and READY, and an
/// optional INT32 state ACC_IN; it answers OUTPUT = READY ? (START ? INPUT :
/// ACC_IN + INPUT) : 0, and the same as ACC_OUT, the next state. Every batch
/// is recorded in `log`.
inline void register_sequence_backend(const std::string& name, std::shared_ptr<sequence_log> log) {
  using namespace runtime;
  using namespace runtime::backends;

  class instance final : public backend_instance {
   public:
    explicit instance(std::shared_ptr<sequence_log> log) : log_(std::move(log)) {}
    void execute(batch& jobs) override {
      std::vector<sequence_log::row> rows;
      std::vector<inference_response> answers;
      for (auto& job : jobs) {
        const auto& req = job->request();
        auto read = [&](const char* n, int32_t fallback) {
          const auto* t = req.input(n);
          int32_t v = fallback;
          if (t != nullptr && t->data.size() >= 4)
            std::memcpy(&v, t->data.data(), 4);
          return v;
        };
        int32_t ready = read("READY", 1), start = read("START", 0);
        rows.push_back({req.id, ready, start});
        int32_t out = ready ? (start ? read("INPUT", 0) : read("ACC_IN", 0) + read("INPUT", 0)) : 0;
        auto shape = req.input("INPUT") ? req.input("INPUT")->shape : shape_type{1};
        inference_response r;
        for (const char* n : {"OUTPUT", "ACC_OUT"})
          if (req.wants_output(n))
            r.outputs.push_back(tensor{n, data_type::int32, shape, buffer::copy_of(&out, 4)});
        r.final = true;
        answers.push_back(std::move(r));
      }
      // Recorded before any answer, so a client that has its answer sees
      // the batch in the log.
      log_->add(std::move(rows));
      for (size_t i = 0; i < jobs.size(); ++i)
        jobs[i]->respond(std::move(answers[i]));
    }

   private:
    std::shared_ptr<sequence_log> log_;
  };

  class model final : public backend_model {
   public:
    explicit model(std::shared_ptr<sequence_log> log) : log_(std::move(log)) {}
    result<std::unique_ptr<backend_instance>> create_instance(const instance_context&) override {
      return std::unique_ptr<backend_instance>{std::make_unique<instance>(log_)};
    }

   private:
    std::shared_ptr<sequence_log> log_;
  };

  registry::global().add(backend_entry{
    name,
    [log](const model_context&) -> result<std::unique_ptr<backend_model>> {
      return std::unique_ptr<backend_model>{std::make_unique<model>(log)};
    },
    nullptr});
}

} // namespace conch::tests
