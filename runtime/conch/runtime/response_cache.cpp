#include "conch/runtime/response_cache.hpp"

#include "conch/runtime/siphash.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <type_traits>
#include <variant>

#include <sys/random.h>

namespace conch::runtime {

namespace {

// The keys of requests. A client chooses what it sends, so the key of its
// request must not be something it can aim at: with a public hash (FNV, say)
// it could craft a request whose key equals another client's and read that
// client's cached answer, or plant its own. Keyed with a secret drawn once
// per process, finding two requests with one key is as hard as guessing it.
class hasher {
 public:
  void add(const void* data, size_t size) noexcept { hash_.add(data, size); }
  void add(const std::string& s) noexcept {
    add_number(s.size());
    add(s.data(), s.size());
  }
  template <class T>
  void add_number(T v) noexcept {
    auto u = static_cast<uint64_t>(v);
    add(&u, sizeof u);
  }
  cache_key key() noexcept {
    auto [high, low] = hash_.finish();
    return {high, low};
  }

 private:
  static const siphash128::key_type& secret() noexcept {
    static const siphash128::key_type key = [] {
      siphash128::key_type k{};
      if (::getrandom(k.data(), sizeof k, 0) != static_cast<ssize_t>(sizeof k)) {
        std::random_device device;
        for (auto& word : k)
          word = (uint64_t{device()} << 32) ^ device();
      }
      return k;
    }();
    return key;
  }

  siphash128 hash_{secret()};
};


// A parameter's value, typed, into `h`.
void add_value(hasher& h, const parameter::value_type& value) {
  h.add_number(value.index());
  std::visit(
    [&h](const auto& v) {
      using T = std::decay_t<decltype(v)>;
      if constexpr (std::is_same_v<T, std::string>) {
        h.add(v);
      } else if constexpr (std::is_same_v<T, double>) {
        uint64_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        h.add_number(bits);
      } else {
        h.add_number(v);
      }
    },
    value);
}

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
  // Parameters reach the model, which may answer differently for them.
  std::vector<const parameter*> params;
  params.reserve(request.parameters.size());
  for (const auto& p : request.parameters)
    params.push_back(&p);
  std::stable_sort(params.begin(), params.end(),
                   [](const parameter* a, const parameter* b) { return a->name < b->name; });
  h.add_number(params.size());
  for (const auto* p : params) {
    h.add(p->name);
    add_value(h, p->value);
  }
  return h.key();
}

bool response_cache::cacheable(const inference_request& request) noexcept {
  if (request.memory_of_client != client_memory::none)
    return false;
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
