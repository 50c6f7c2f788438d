#include "conch/transports/http/header_map.hpp"

#include <algorithm>

namespace conch::transports::http {

namespace {

char lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

} // namespace

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i]))
      return false;
  return true;
}

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

const std::string* header_map::find(std::string_view name) const noexcept {
  for (auto& [key, value] : fields_)
    if (iequals(key, name))
      return &value;
  return nullptr;
}

bool header_map::has_token(std::string_view name, std::string_view token) const noexcept {
  for (auto& [key, value] : fields_) {
    if (!iequals(key, name))
      continue;
    std::string_view rest = value;
    while (!rest.empty()) {
      auto comma = rest.find(',');
      if (iequals(trim(rest.substr(0, comma)), token))
        return true;
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
  }
  return false;
}

void header_map::add(std::string name, std::string value) {
  if (fields_.empty())
    fields_.reserve(8);  // room for a typical request's fields at once
  fields_.emplace_back(std::move(name), std::move(value));
}

void header_map::set(std::string_view name, std::string value) {
  erase(name);
  if (fields_.empty())
    fields_.reserve(8);
  fields_.emplace_back(std::string{name}, std::move(value));
}

void header_map::erase(std::string_view name) {
  fields_.erase(std::remove_if(fields_.begin(), fields_.end(),
                               [&](const value_type& f) { return iequals(f.first, name); }),
                fields_.end());
}

} // namespace conch::transports::http
