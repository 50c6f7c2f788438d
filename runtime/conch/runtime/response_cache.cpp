#include "conch/runtime/response_cache.hpp"

#include <algorithm>
#include <cstring>

namespace conch::runtime {

namespace {

// Two FNV-1a hashes with different offsets: 128 bits, so that two requests
// that differ never meet in practice.
class hasher {
 public:
  void add(const void* data, size_t size) noexcept {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) {
      a_ = (a_ ^ p[i]) * prime;
      b_ = (b_ ^ p[i]) * prime;
    }
  }
  void add(const std::string& s) noexcept {
    add_number(s.size());
    add(s.data(), s.size());
  }
  template <class T>
  void add_number(T v) noexcept {
    auto u = static_cast<uint64_t>(v);
    add(&u, sizeof u);
  }
  cache_key key() const noexcept { return {a_, b_}; }

 private:
  static constexpr uint64_t prime = 1099511628211ULL;
  uint64_t a_ = 14695981039346656037ULL;
  uint64_t b_ = 0x84222325cbf29ce4ULL;
};

size_t bytes_of(const std::vector<tensor>& outputs) noexcept {
  size_t total = 0;
  for (const auto& t : outputs)
    total += t.data.size() + t.name.size() + sizeof(tensor);
  return total;
}

} // namespace

cache_key response_cache::key_of(const inference_request& request, const std::string& model,
                                 int64_t version) {
  hasher h;
  h.add(model);
  h.add_number(version);
  std::vector<const tensor*> inputs;
  inputs.reserve(request.inputs.size());
  for (const auto& in : request.inputs)
    inputs.push_back(&in);
  std::sort(inputs.begin(), inputs.end(),
            [](const tensor* a, const tensor* b) { return a->name < b->name; });
  h.add_number(inputs.size());
  for (const auto* in : inputs) {
    h.add(in->name);
    h.add_number(static_cast<int>(in->type));
    h.add_number(in->shape.size());
    for (auto d : in->shape)
      h.add_number(d);
    h.add_number(in->data.size());
    h.add(in->data.data(), in->data.size());
  }
  auto wanted = request.requested_outputs;
  std::sort(wanted.begin(), wanted.end());
  h.add_number(wanted.size());
  for (const auto& name : wanted)
    h.add(name);
  return h.key();
}

bool response_cache::cacheable(const inference_request& request) noexcept {
  return std::all_of(request.inputs.begin(), request.inputs.end(),
                     [](const tensor& t) { return t.data.host_accessible(); });
}

std::optional<std::vector<tensor>> response_cache::lookup(const cache_key& key) {
  std::lock_guard<std::mutex> guard{mu_};
  auto i = index_.find(key);
  if (i == index_.end())
    return std::nullopt;
  lru_.splice(lru_.begin(), lru_, i->second);
  return i->second->outputs;
}

bool response_cache::insert(const cache_key& key, const std::vector<tensor>& outputs) {
  auto bytes = bytes_of(outputs);
  if (bytes > capacity_)
    return false;
  if (!std::all_of(outputs.begin(), outputs.end(),
                   [](const tensor& t) { return t.data.host_accessible(); }))
    return false;
  // The copy is made outside the lock: the response's buffers may be the
  // client's (shared memory) and change after it is answered.
  entry e{key, {}, bytes};
  e.outputs.reserve(outputs.size());
  for (const auto& t : outputs)
    e.outputs.push_back(tensor{t.name, t.type, t.shape, buffer::copy_of(t.data.data(), t.data.size())});
  std::lock_guard<std::mutex> guard{mu_};
  if (index_.count(key) != 0)
    return true; // a request answered at the same time stored it first
  while (bytes_ + bytes > capacity_ && !lru_.empty()) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
  lru_.push_front(std::move(e));
  index_[key] = lru_.begin();
  bytes_ += bytes;
  return true;
}

size_t response_cache::size_bytes() const {
  std::lock_guard<std::mutex> guard{mu_};
  return bytes_;
}

size_t response_cache::entries() const {
  std::lock_guard<std::mutex> guard{mu_};
  return lru_.size();
}

void cache_insert_tap::on_response(inference_response& r) {
  if (r.final && r.error.is_ok())
    (void) cache_->insert(key_, r.outputs);
}

} // namespace conch::runtime
