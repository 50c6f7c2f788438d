#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace conch::transports::http {

/// True when `a` and `b` are equal ignoring ASCII case.
bool iequals(std::string_view a, std::string_view b) noexcept;

/// An ordered list of HTTP header fields whose names compare without regard
/// to case. Repeated names are kept as separate entries, in arrival order.
class header_map {
 public:
  using value_type = std::pair<std::string, std::string>;
  using const_iterator = std::vector<value_type>::const_iterator;

  // -- lookup ----------------------------------------------------------------

  /// The value of the first field called `name`, or nullptr.
  const std::string* find(std::string_view name) const noexcept;

  /// True when a field called `name` exists.
  bool contains(std::string_view name) const noexcept { return find(name) != nullptr; }

  /// True when the field `name` holds `token` in its comma-separated list
  /// (case-insensitive), as in `Connection: keep-alive, Upgrade`.
  bool has_token(std::string_view name, std::string_view token) const noexcept;

  // -- modifiers -------------------------------------------------------------

  /// Appends a field, keeping any earlier one of the same name.
  void add(std::string name, std::string value);

  /// Replaces every field called `name` with one holding `value`.
  void set(std::string_view name, std::string value);

  /// Removes every field called `name`.
  void erase(std::string_view name);

  // -- iteration -------------------------------------------------------------

  const_iterator begin() const noexcept { return fields_.begin(); }
  const_iterator end() const noexcept { return fields_.end(); }
  size_t size() const noexcept { return fields_.size(); }
  bool empty() const noexcept { return fields_.empty(); }

 private:
  std::vector<value_type> fields_;
};

/// `s` without leading and trailing spaces and tabs.
std::string_view trim(std::string_view s) noexcept;

} // namespace conch::transports::http
