// What the repository learns by walking its roots — the initial load, a
// poll, the index — with the walk itself off the actor system's threads.

#include <algorithm>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "conch/actors/repository/model_repository.hpp"
#include "conch/runtime/logging/log.hpp"
#include "conch/runtime/repository/fingerprint.hpp"
#include "conch/runtime/repository/scan.hpp"

namespace conch::actors {

namespace repo = runtime::repository;
using runtime::status;

namespace {

// Answers `rp` when the walk it waits for will never finish (the repository
// ends first, or the walk ran out of memory): CAF 0.17 would drop it silently.
std::function<void()> stopped(caf::response_promise rp) {
  return [rp]() mutable {
    if (rp.pending())
      rp.deliver(caf::make_error(caf::sec::request_receiver_down));
  };
}

} // namespace

caf::result<std::vector<std::string>> model_repository::initial_load() {
  auto rp = make_response_promise();
  off_thread([this, roots = roots_, rp]() -> std::function<void()> {
    auto scanned = std::make_shared<repo::scan_result>(repo::scan(roots));
    return [this, scanned, rp] { load_initial(*scanned, rp); };
  }, stopped(rp));
  return rp;
}

void model_repository::load_initial(const repo::scan_result& scanned, caf::response_promise rp) {
  auto failures = std::make_shared<std::vector<std::string>>();
  for (auto& [what, st] : scanned.errors) {
    CONCH_LOG_ERROR << st.message();
    failures->push_back(st.message());
  }
  std::vector<std::string> wanted;
  if (options_.model_control_mode != control_mode::explicit_) {
    for (const auto& m : scanned.models)
      wanted.push_back(m.name);
  } else {
    for (const auto& name : options_.startup_models) {
      if (name == "*") {
        wanted.clear();
        for (const auto& m : scanned.models)
          wanted.push_back(m.name);
        break;
      }
      wanted.push_back(name);
    }
  }
  auto remaining = std::make_shared<size_t>(wanted.size());
  auto finish = [this, rp, failures]() mutable {
    if (exiting_)
      return rp.deliver(*failures);
    if (options_.model_control_mode == control_mode::poll)
      schedule_poll();
    publish([rp, failures]() mutable { rp.deliver(*failures); });
  };
  if (wanted.empty())
    return finish();
  for (const auto& name : wanted)
    run_exclusive(
      name, [this, name](done_fn done) { load_by_name(name, nullptr, std::move(done)); },
      [name, failures, remaining, finish](status st) mutable {
        if (!st)
          failures->push_back(name + ": " + st.message());
        if (--*remaining == 0)
          finish();
      });
}

caf::result<status> model_repository::poll() {
  if (options_.model_control_mode != control_mode::poll)
    return runtime::unsupported("poll is only allowed in POLL mode");
  auto rp = make_response_promise();
  off_thread([this, roots = roots_, rp]() -> std::function<void()> {
    // Each model found, with the fingerprint of its files.
    auto found = std::make_shared<std::map<std::string, uint64_t>>();
    for (const auto& m : repo::scan(roots).models)
      found->emplace(m.name, repo::fingerprint(m.path));
    return [this, found, rp] { poll_found(*found, rp); };
  }, stopped(rp));
  return rp;
}

void model_repository::poll_found(const std::map<std::string, uint64_t>& found,
                                  caf::response_promise rp) {
  auto remaining = std::make_shared<size_t>(1);
  auto errors = std::make_shared<std::string>();
  auto one_done = [rp, remaining, errors](const std::string& name, status st) mutable {
    if (!st)
      *errors += (errors->empty() ? "" : "; ") + name + ": " + st.message();
    if (--*remaining == 0)
      rp.deliver(errors->empty() ? status::ok() : runtime::internal_error(*errors));
  };
  for (const auto& [name, fp] : found) {
    auto i = records_.find(name);
    // A model with an operation under way is looked at again next poll.
    if (i != records_.end() && (i->second.busy || !i->second.waiting.empty()))
      continue;
    if (i != records_.end() && i->second.fingerprint == fp && !i->second.versions.empty())
      continue;
    CONCH_LOG_INFO << "poll: model '" << name << "' "
                   << (i == records_.end() || i->second.versions.empty() ? "added" : "modified")
                   << ", loading";
    ++*remaining;
    run_exclusive(
      name, [this, name = name](done_fn done) { load_by_name(name, nullptr, std::move(done)); },
      [one_done, name = name](status st) mutable { one_done(name, std::move(st)); });
  }
  for (auto& [name, record] : records_) {
    if (found.count(name) != 0 || record.versions.empty() || record.busy)
      continue;
    CONCH_LOG_INFO << "poll: model '" << name << "' removed, unloading";
    ++*remaining;
    run_exclusive(
      name, [this, name = name](done_fn done) { unload(name, false, std::move(done)); },
      [one_done, name = name](status st) mutable { one_done(name, std::move(st)); });
  }
  one_done("", status::ok());
}

caf::result<index_ptr> model_repository::index(bool ready_only) {
  auto rp = make_response_promise();
  off_thread([this, roots = roots_, ready_only, rp]() -> std::function<void()> {
    auto names = std::make_shared<std::vector<std::string>>();
    if (!ready_only)
      for (const auto& m : repo::scan(roots).models)
        names->push_back(m.name);
    return [this, names, ready_only, rp]() mutable { rp.deliver(index_of(*names, ready_only)); };
  }, stopped(rp));
  return rp;
}

index_ptr model_repository::index_of(const std::vector<std::string>& found,
                                     bool ready_only) const {
  auto out = std::make_shared<std::vector<index_entry>>();
  std::map<std::string, bool> listed;
  for (const auto& [name, record] : records_) {
    if (record.versions.empty() && !record.last_error.empty() && !ready_only) {
      out->push_back({name, "", model_state::unavailable, record.last_error});
      listed[name] = true;
    }
    for (const auto& [v, version] : record.versions) {
      // A READY ensemble whose composing models are not is shown as the
      // published table marks it (mark_broken_ensembles).
      const auto* published = table_->find(name, v);
      const auto& entry = version.state == model_state::ready && published ? *published : version;
      if (ready_only && entry.state != model_state::ready)
        continue;
      out->push_back({name, std::to_string(v), entry.state, entry.reason});
      listed[name] = true;
    }
  }
  for (const auto& name : found)
    if (!listed[name])
      out->push_back({name, "", model_state::unknown, ""});
  std::stable_sort(out->begin(), out->end(),
                   [](const index_entry& a, const index_entry& b) { return a.name < b.name; });
  return out;
}

} // namespace conch::actors
