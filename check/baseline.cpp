#include "msptk/check/baseline.hpp"

#include "msptk/transcript/json_io.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace msptk::check {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

// The line without its comment: '#' at the start or after a blank.
std::string_view strip_comment(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i)
    if (line[i] == '#' && (i == 0 || is_blank(line[i - 1]))) return line.substr(0, i);
  return line;
}

bool matches(const std::string& entry, const ScenarioTask& task) {
  return entry.find('/') == std::string::npos ? entry == task.scenario : entry == task.id();
}

}  // namespace

Result<Baseline> Baseline::parse(std::string_view text, const std::string& file) {
  Baseline baseline;
  baseline.file_ = file;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++number;
    const std::string_view entry = trim(strip_comment(line));
    if (entry.empty()) continue;
    auto bad = [&](std::string_view why) {
      return Error::malformed(file, number, "baseline.entry",
                              fmt::format("baseline entry \"{}\" {}: expected one scenario id per line, "
                                          "corpus/scenario or scenario (# starts a comment)",
                                          entry, why));
    };
    if (std::any_of(entry.begin(), entry.end(), [](char c) { return is_blank(c) || static_cast<unsigned char>(c) < 0x20; }))
      return bad("holds a space or a control character");
    const std::size_t slash = entry.find('/');
    if (slash != std::string_view::npos &&
        (slash == 0 || slash + 1 == entry.size() || entry.find('/', slash + 1) != std::string_view::npos))
      return bad("is not corpus/scenario");
    baseline.entries_.push_back(Entry{std::string(entry), number});
  }
  return baseline;
}

Result<Baseline> Baseline::read(const std::filesystem::path& file) {
  auto text = read_file(file);
  if (!text) return text.error();
  return parse(*text, file.string());
}

bool Baseline::lists(const ScenarioTask& task) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return matches(e.id, task); });
}

std::vector<std::string> Baseline::unmatched(const std::vector<ScenarioTask>& tasks) const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) {
    if (std::none_of(tasks.begin(), tasks.end(), [&](const ScenarioTask& t) { return matches(e.id, t); }))
      out.push_back(fmt::format("{}:{}: baseline entry \"{}\" names no scenario of this run", file_, e.line, e.id));
  }
  return out;
}

}  // namespace msptk::check
