#include "msptk/check/plan.hpp"

#include "msptk/transcript/scenario.hpp"

#include <fmt/format.h>

#include <charconv>
#include <set>
#include <system_error>

namespace msptk::check {

namespace fs = std::filesystem;

namespace {

// The last name of a path as the user spelled it, with "." and ".." resolved first:
// "corpus/" -> "corpus", "." -> the current folder's name.
std::string folder_name(const fs::path& path) {
  fs::path p = path.lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  if (p.empty() || p.filename() == "." || p.filename() == "..") {
    std::error_code ec;
    fs::path absolute = fs::absolute(path, ec).lexically_normal();
    if (!absolute.has_filename()) absolute = absolute.parent_path();
    return absolute.filename().string();
  }
  return p.filename().string();
}

// The identity of a folder for de-duplication.
std::string folder_key(const fs::path& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  return (ec ? path.lexically_normal() : canonical).string();
}

}  // namespace

Result<std::vector<ScenarioTask>> collect_scenarios(const std::vector<fs::path>& corpora) {
  std::vector<ScenarioTask> tasks;
  std::set<std::string> seen;
  auto add = [&](std::string corpus, const fs::path& dir) {
    if (!seen.insert(folder_key(dir)).second) return;
    ScenarioTask task;
    task.corpus = std::move(corpus);
    task.scenario = folder_name(dir);
    task.dir = dir;
    task.index = tasks.size();
    tasks.push_back(std::move(task));
  };
  for (const fs::path& path : corpora) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return Error::unreadable(path.string(), "no such file or folder");
    if (!fs::is_directory(path, ec))
      return Error::usage(fmt::format("{}: not a folder: check takes corpus folders and scenario folders",
                                      path.string()));
    auto kind = classify_path(path);
    if (!kind) return kind.error();
    if (*kind == PathKind::scenario) {
      fs::path normal = path.lexically_normal();
      if (!normal.has_filename()) normal = normal.parent_path();
      fs::path parent = normal.parent_path();
      add(parent.empty() ? folder_name(fs::path(".")) : folder_name(parent), path);
      continue;
    }
    auto scenarios = list_corpus(path);
    if (!scenarios) return scenarios.error();
    if (scenarios->empty())
      return Error::unreadable(path.string(),
                               "not a scenario or corpus folder (no manifest.json or transcript.ndjson, and no "
                               "subfolder with a manifest.json)");
    const std::string corpus = folder_name(path);
    for (const fs::path& dir : *scenarios) add(corpus, dir);
  }
  return tasks;
}

Result<Shard> parse_shard(std::string_view text) {
  auto bad = [&] {
    return Error::usage(fmt::format("--shard \"{}\": expected K/N with 1 <= K <= N (e.g. 2/4)", text));
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return bad();
  auto number = [](std::string_view digits, std::size_t& value) {
    if (digits.empty()) return false;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return ec == std::errc() && end == digits.data() + digits.size();
  };
  Shard shard;
  if (!number(text.substr(0, slash), shard.index) || !number(text.substr(slash + 1), shard.count)) return bad();
  if (shard.index < 1 || shard.count < 1 || shard.index > shard.count) return bad();
  return shard;
}

std::vector<ScenarioTask> select_shard(const std::vector<ScenarioTask>& tasks, const Shard& shard) {
  std::vector<ScenarioTask> out;
  for (const ScenarioTask& task : tasks)
    if (task.index % shard.count == shard.index - 1) out.push_back(task);
  return out;
}

}  // namespace msptk::check
