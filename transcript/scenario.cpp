#include "msptk/transcript/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace msptk {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Result<PathKind> classify_path(const fs::path& path) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return Error::unreadable(path.string(), "no such file or folder");
  if (fs::is_regular_file(status)) return PathKind::transcript;
  // A pipe, a FIFO, `<(...)`, /dev/stdin on a pipe: a transcript read as it streams in (the verbs
  // that would read it twice refuse it: input_file.hpp).
  if (fs::is_fifo(status) || fs::is_socket(status)) return PathKind::transcript;
  if (!fs::is_directory(status)) return Error::unreadable(path.string(), "not a file or a folder");
  if (fs::exists(path / "manifest.json", ec) || fs::exists(path / "transcript.ndjson", ec)) return PathKind::scenario;
  return PathKind::corpus;
}

Result<std::vector<fs::path>> list_corpus(const fs::path& corpus) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::directory_iterator it(corpus, ec);
  if (ec) return Error::unreadable(corpus.string(), fmt::format("cannot list folder: {}", ec.message()));
  for (const auto& entry : it) {
    // `.pending` holds a review candidate (check --update), never a scenario of the corpus.
    if (entry.path().filename() == ".pending") continue;
    if (entry.is_directory(ec) && fs::exists(entry.path() / "manifest.json", ec)) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<ScenarioFiles> locate_scenario(const fs::path& path) {
  auto kind = classify_path(path);
  if (!kind) return kind.error();
  ScenarioFiles files;
  std::error_code ec;
  if (*kind == PathKind::transcript) {
    files.transcript = path;
    files.dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    if (path.filename() == "transcript.ndjson" && fs::exists(files.dir / "manifest.json", ec)) {
      files.manifest = files.dir / "manifest.json";
    }
    return files;
  }
  if (*kind == PathKind::corpus) {
    return Error::unreadable(path.string(), "not a scenario folder (no manifest.json or transcript.ndjson in it)");
  }
  files.dir = path;
  files.transcript = path / "transcript.ndjson";
  if (!fs::exists(files.transcript, ec)) {
    return Error::unreadable(files.transcript.string(), "scenario folder has no transcript.ndjson");
  }
  if (fs::exists(path / "manifest.json", ec)) files.manifest = path / "manifest.json";
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    const std::string name = entry.path().filename().string();
    if (ends_with(name, "-legs.ndjson") && entry.is_regular_file(ec)) files.legs.push_back(entry.path());
  }
  std::sort(files.legs.begin(), files.legs.end());
  return files;
}

Result<Scenario> load_scenario(const fs::path& path) {
  auto files = locate_scenario(path);
  if (!files) return files.error();
  Scenario scenario;
  scenario.files = std::move(*files);
  if (scenario.files.manifest) {
    auto parsed = read_manifest(*scenario.files.manifest);
    if (!parsed) return parsed.error();
    scenario.manifest = std::move(parsed->manifest);
    scenario.manifest_problems = std::move(parsed->problems);
  } else {
    scenario.manifest.scenario = scenario.files.dir.filename().string();
  }
  return scenario;
}

}  // namespace msptk
