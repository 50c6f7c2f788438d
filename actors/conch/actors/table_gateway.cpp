#include "conch/actors/table_gateway.hpp"

#include "conch/actors/adapter.hpp"
#include "conch/actors/inline_submit.hpp"

namespace conch::actors {

model_table_ptr table_gateway::table() const {
  auto flags = flags_.lock();
  return flags ? flags->table() : std::make_shared<model_table>();
}

void table_gateway::submit(runtime::job_ptr job) {
  auto table = this->table();
  if (submit_inline(*table, job))
    return;
  route(*table, job);
}

runtime::result<std::shared_ptr<const inference::ModelConfig>>
table_gateway::config_of(const std::string& name, int64_t version) const {
  auto entry = table()->resolve(name, version);
  if (!entry)
    return entry.error();
  return (*entry)->config;
}

bool table_gateway::admitting() const {
  auto flags = flags_.lock();
  return flags && flags->accepting.load(std::memory_order_acquire);
}

} // namespace conch::actors
