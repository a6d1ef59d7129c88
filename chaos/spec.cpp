// The --chaos spec parser (spec.hpp).
#include "msptk/chaos/spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <random>
#include <vector>

namespace msptk::chaos {

namespace {

constexpr std::string_view kKnown = "split, merge, delay=MS, cr, stall=MS, close-after=N";

Error bad(std::string_view text, std::string_view part, std::string why) {
  return Error::usage(fmt::format("--chaos \"{}\": \"{}\" {} (perturbations: {}, comma-separated)", text, part,
                                  why, kKnown));
}

std::optional<std::uint64_t> number(std::string_view digits) {
  if (digits.empty() || digits.size() > 20) return std::nullopt;
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

}  // namespace

Result<ChaosSpec> parse_chaos_spec(std::string_view text, ChaosRole role) {
  ChaosSpec spec;
  if (text.empty()) return Error::usage(fmt::format("--chaos needs at least one perturbation ({})", kKnown));
  std::vector<std::string> seen;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    const std::size_t eq = part.find('=');
    const std::string_view name = part.substr(0, eq);
    const bool has_value = eq != std::string_view::npos;
    const std::string_view value = has_value ? part.substr(eq + 1) : std::string_view();
    if (part.empty()) return bad(text, part, "is empty: a perturbation is missing between commas");
    for (const std::string& s : seen)
      if (s == name) return bad(text, part, "is given twice");
    seen.emplace_back(name);
    auto ms = [&]() -> Result<unsigned> {
      if (!has_value || value.empty()) return bad(text, part, fmt::format("needs a value: {}=MS", name));
      auto n = number(value);
      if (!n) return bad(text, part, "has a value that is not a whole number of milliseconds");
      if (*n > kMaxChaosMs) return bad(text, part, fmt::format("is over the most, {} ms", kMaxChaosMs));
      return static_cast<unsigned>(*n);
    };
    if (name == "split" || name == "merge" || name == "cr") {
      if (has_value) return bad(text, part, fmt::format("takes no value: write \"{}\"", name));
      if (name == "split") spec.split = true;
      if (name == "merge") spec.merge = true;
      if (name == "cr") {
        if (role != ChaosRole::client)
          return bad(text, part, "applies to replay only: msptk sends the CR LF when it is the client");
        spec.cr = true;
      }
    } else if (name == "delay") {
      auto v = ms();
      if (!v) return v.error();
      spec.delay_ms = *v;
    } else if (name == "stall") {
      auto v = ms();
      if (!v) return v.error();
      spec.stall_ms = *v;
    } else if (name == "close-after") {
      if (!has_value || value.empty()) return bad(text, part, "needs a value: close-after=N (N frames)");
      auto n = number(value);
      if (!n) return bad(text, part, "has a value that is not a whole number of frames");
      if (*n == 0) return bad(text, part, "must be at least 1 (the frames delivered before the peer's input is closed)");
      spec.close_after = static_cast<std::size_t>(*n);
    } else {
      return bad(text, part, "is not a perturbation");
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return spec;
}

std::string to_string(const ChaosSpec& spec) {
  std::vector<std::string> parts;
  if (spec.split) parts.emplace_back("split");
  if (spec.merge) parts.emplace_back("merge");
  if (spec.cr) parts.emplace_back("cr");
  if (spec.delay_ms) parts.push_back(fmt::format("delay={}", *spec.delay_ms));
  if (spec.stall_ms) parts.push_back(fmt::format("stall={}", *spec.stall_ms));
  if (spec.close_after) parts.push_back(fmt::format("close-after={}", *spec.close_after));
  return fmt::format("{}", fmt::join(parts, ","));
}

Result<std::uint64_t> parse_chaos_seed(std::string_view text) {
  if (auto n = number(text)) return *n;
  return Error::usage(fmt::format("--chaos-seed \"{}\" is not a seed: a whole number from 0 to 18446744073709551615",
                                  text));
}

std::uint64_t random_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

std::string ChaosRun::label() const { return fmt::format("{} (seed {})", to_string(spec), seed); }

}  // namespace msptk::chaos
