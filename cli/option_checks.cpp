#include "option_checks.hpp"

#include "msptk/transcript/display.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace msptk::cli {

namespace {

namespace fs = std::filesystem;

// The option's index-th check, null past the last (CLI11 2.1 throws there).
const CLI::Validator* validator_at(const CLI::Option& option, int index) {
  try {
    return const_cast<CLI::Option&>(option).get_validator(index);  // CLI11 2.1 has no const overload
  } catch (const CLI::OptionNotFound&) {
    return nullptr;
  }
}

constexpr std::string_view kPrefix = "msptk:";

std::string in_quotes(const std::string& value) { return "'" + display_text(value) + "'"; }

std::string range_text(std::int64_t min, std::int64_t max) {
  if (min == std::numeric_limits<std::int64_t>::min() && max == std::numeric_limits<std::int64_t>::max())
    return "a whole number that fits in 64 bits";
  // The upper end is said too: a number beyond it is "at least 1" and yet refused.
  return fmt::format("a whole number from {} to {}", min, max);
}

}  // namespace

CLI::Validator number_check(std::int64_t min, std::int64_t max) {
  return CLI::Validator(
      [min, max](std::string& value) -> std::string {
        if (value.empty()) return "an empty value: expected " + range_text(min, max);
        // Digits only, after one '-' where the range holds negative numbers (no '+', spaces, 0x, 1e3).
        const std::size_t first = (min < 0 && value.front() == '-') ? 1 : 0;
        const bool digits = value.size() > first &&
                            std::all_of(value.begin() + static_cast<std::ptrdiff_t>(first), value.end(),
                                        [](char c) { return c >= '0' && c <= '9'; });
        if (!digits) return in_quotes(value) + " is not " + range_text(min, max);
        std::int64_t n = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec != std::errc() || end != value.data() + value.size() || n < min || n > max)
          return in_quotes(value) + " is not " + range_text(min, max);
        return {};
      },
      "", std::string(kPrefix) + "number>=" + std::to_string(min));
}

CLI::Validator text_check() {
  return CLI::Validator(
      [](std::string& value) -> std::string { return value.empty() ? "an empty value: a value is required" : ""; }, "",
      std::string(kPrefix) + "text");
}

CLI::Validator file_check() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.empty()) return "an empty value: a file is expected";
        std::error_code ec;
        if (fs::is_directory(value, ec)) return in_quotes(value) + " is a folder: a file is expected";
        return {};
      },
      "", std::string(kPrefix) + "file");
}

CLI::Validator folder_check() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.empty()) return "an empty value: a folder is expected";
        std::error_code ec;
        if (fs::exists(value, ec) && !fs::is_directory(value, ec)) return in_quotes(value) + " is not a folder";
        return {};
      },
      "", std::string(kPrefix) + "folder");
}

CLI::Validator path_check() {
  return CLI::Validator(
      [](std::string& value) -> std::string { return value.empty() ? "an empty value: a file or folder is expected" : ""; },
      "", std::string(kPrefix) + "path");
}

bool takes_value(const CLI::Option& option) { return option.get_expected_max() != 0; }

std::string value_kind(const CLI::Option& option) {
  if (!takes_value(option)) return "";
  for (int i = 0;; ++i) {
    const CLI::Validator* validator = validator_at(option, i);
    if (!validator) break;
    const std::string& name = validator->get_name();
    if (name.rfind(kPrefix, 0) == 0) return name.substr(kPrefix.size());
  }
  if (option.get_type_name().find('{') != std::string::npos) return "choice";
  return "";
}

void finish_options(CLI::App& sub) {
  bool takes_command = false;
  for (const CLI::Option* option : sub.get_options())
    if (!option->nonpositional() && option->get_name(true) == "HOST") takes_command = true;
  for (CLI::Option* option : sub.get_options()) {
    if (!option->nonpositional() || !takes_value(*option)) continue;
    if (validator_at(*option, 0) == nullptr) option->check(text_check());
    if (takes_command && option->get_items_expected_max() > 1) option->allow_extra_args(false);
  }
}

}  // namespace msptk::cli
