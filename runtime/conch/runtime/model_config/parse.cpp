#include "conch/runtime/model_config/parse.hpp"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <system_error>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

namespace conch::runtime::model_config {

namespace {

// protobuf's tokenizer advances the column to the next multiple of 8 on a tab.
constexpr int tab_width = 8;

// The byte offset in `line` of the tokenizer's (tab-expanded) `column`.
size_t byte_offset(std::string_view line, int column) {
  int visual = 0;
  size_t i = 0;
  for (; i < line.size() && visual < column; ++i)
    visual += line[i] == '\t' ? tab_width - visual % tab_width : 1;
  return i;
}

// protobuf reports an unknown name at the token after it. When the message
// quotes the word just before that position, the column of the word itself
// is what a reader looks for.
int column_of_quoted_word(std::string_view line, int column, const std::string& message) {
  size_t end = byte_offset(line, column);
  while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t' || line[end - 1] == ':'))
    --end;
  size_t begin = end;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(line[begin - 1])) ||
                       line[begin - 1] == '_'))
    --begin;
  if (begin == end)
    return column;
  auto quoted = "\"" + std::string(line.substr(begin, end - begin)) + "\"";
  if (message.find(quoted) == std::string::npos)
    return column;
  int visual = 0;
  for (size_t i = 0; i < begin; ++i)
    visual += line[i] == '\t' ? tab_width - visual % tab_width : 1;
  return visual;
}

// Collects the parser's complaints with their positions instead of letting
// protobuf print them to stderr.
class error_list : public google::protobuf::io::ErrorCollector {
 public:
  explicit error_list(std::string_view text) : text_in_(text) {}

  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    column = column_of_quoted_word(line_text(line), column, message);
    if (!text_.empty())
      text_ += "; ";
    // protobuf counts from zero; editors count from one.
    text_ += "line " + std::to_string(line + 1) + " column " + std::to_string(column + 1) +
             ": " + message;
  }

  const std::string& text() const noexcept { return text_; }

 private:
  std::string_view line_text(int line) const {
    size_t begin = 0;
    for (int i = 0; i < line && begin != std::string_view::npos; ++i) {
      begin = text_in_.find('\n', begin);
      begin = begin == std::string_view::npos ? begin : begin + 1;
    }
    if (begin == std::string_view::npos || begin > text_in_.size())
      return {};
    auto end = text_in_.find('\n', begin);
    return text_in_.substr(begin, end == std::string_view::npos ? end : end - begin);
  }

  std::string_view text_in_;
  std::string text_;
};

} // namespace

result<inference::ModelConfig> parse_text(std::string_view text, const std::string& file) {
  if (text.size() > static_cast<size_t>(INT_MAX))
    return invalid_argument("failed to parse " + file + ": the file is larger than 2 GiB");
  inference::ModelConfig config;
  error_list errors(text);
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  google::protobuf::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  bool parsed = false;
  try {
    parsed = parser.Parse(&input, &config);
  } catch (const std::exception& e) {
    return internal_error("failed to parse " + file + ": " + e.what());
  }
  if (!parsed) {
    auto detail = errors.text().empty() ? std::string{"malformed text"} : errors.text();
    return invalid_argument("failed to parse " + file + ": " + detail);
  }
  return config;
}

result<inference::ModelConfig> read_file(const std::filesystem::path& path) {
  const auto name = path.string();
  std::error_code ec;
  auto kind = std::filesystem::status(path, ec).type();
  if (kind == std::filesystem::file_type::not_found)
    return not_found("model configuration file " + name + " does not exist");
  if (ec)
    return internal_error("cannot read model configuration file " + name + ": " + ec.message());
  if (kind != std::filesystem::file_type::regular)
    return invalid_argument("model configuration file " + name + " is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return internal_error("cannot open model configuration file " + name + ": " +
                          std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad())
    return internal_error("cannot read model configuration file " + name);
  return parse_text(content.str(), name);
}

} // namespace conch::runtime::model_config
