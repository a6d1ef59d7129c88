// A CLI11 check that an integer option's value is exactly a whole number its type holds. CLI11's
// own conversion saturates a number beyond the type (9223372036854775808 becomes INT64_MAX for an
// int64, 1e30 digits become the maximum) and reads "-1" as 2^64 - 1 for an unsigned type; with
// this check such a value is exit 2 naming the option, before anything is spawned.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <string>

namespace msptk::cli {

template <class T>
CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        T value{};
        const char* end = text.data() + text.size();
        const bool sign_ok = std::numeric_limits<T>::is_signed || (!text.empty() && text.front() != '-');
        auto [at, ec] = std::from_chars(text.data(), end, value);
        if (sign_ok && ec == std::errc() && at == end) return {};
        return fmt::format("{} is not a whole number from {} to {}", text, std::numeric_limits<T>::min(),
                           std::numeric_limits<T>::max());
      },
      "", "whole number");
}

}  // namespace msptk::cli
