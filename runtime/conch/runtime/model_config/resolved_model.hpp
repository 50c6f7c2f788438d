#pragma once

#include <cstdint>
#include <memory>

#include "model_config.pb.h"

namespace conch::runtime {

/// The model version a request's (name, version) resolved to, read from one
/// snapshot of the server's model table: what a frontend decodes and checks
/// the request against, and what the server then runs it on, so a request
/// is resolved once. Only the server makes one (its table entry derives from
/// it); a pointer to it keeps that snapshot alive.
class resolved_model {
 public:
  int64_t version = 0;
  std::shared_ptr<const inference::ModelConfig> config;

 protected:
  resolved_model() = default;
  resolved_model(int64_t v, std::shared_ptr<const inference::ModelConfig> c)
    : version(v), config(std::move(c)) {}
  resolved_model(const resolved_model&) = default;
  resolved_model(resolved_model&&) = default;
  resolved_model& operator=(const resolved_model&) = default;
  resolved_model& operator=(resolved_model&&) = default;
  ~resolved_model() = default;
};

using resolved_model_ptr = std::shared_ptr<const resolved_model>;

} // namespace conch::runtime
