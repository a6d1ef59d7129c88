#include "msptk/normalizer/corpus_file.hpp"

#include "msptk/transcript/json_io.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <system_error>

namespace msptk {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

fs::path absolute_of(const fs::path& dir) {
  std::error_code ec;
  fs::path abs = fs::absolute(dir, ec);
  if (ec) abs = dir;
  abs = abs.lexically_normal();
  if (!abs.has_filename() && abs.has_parent_path() && abs != abs.root_path()) abs = abs.parent_path();  // "a/b/"
  return abs;
}

}  // namespace

std::string display_path(const fs::path& file) {
  std::error_code ec;
  const fs::path relative = file.lexically_proximate(fs::current_path(ec));
  return !ec && !relative.empty() && *relative.begin() != ".." ? relative.string() : file.string();
}

std::optional<fs::path> find_corpus_file(const fs::path& scenario_dir) {
  std::error_code ec;
  for (fs::path dir = absolute_of(scenario_dir);; dir = dir.parent_path()) {
    const fs::path candidate = dir / kCorpusFileName;
    if (fs::is_regular_file(candidate, ec)) return candidate;
    if (fs::exists(dir / ".git", ec)) return std::nullopt;  // the repository root: no further
    if (dir == dir.parent_path() || dir.empty()) return std::nullopt;
  }
}

fs::path corpus_file_for(const fs::path& scenario_dir) {
  if (auto found = find_corpus_file(scenario_dir)) return *found;
  const fs::path dir = absolute_of(scenario_dir);
  return (dir.has_parent_path() ? dir.parent_path() : dir) / kCorpusFileName;
}

Result<Registry> resolve_registry(const fs::path& scenario_dir, const Registry& explicit_registry) {
  Registry registry = Registry::builtin();
  if (auto found = find_corpus_file(scenario_dir)) {
    if (auto read = registry.extend_from_file(*found); !read) return read.error();
    registry.set_add_to(*found);
  } else {
    registry.set_add_to(corpus_file_for(scenario_dir));
  }
  const fs::path add_to = registry.add_to();
  registry.merge(explicit_registry);
  registry.set_add_to(add_to);
  return registry;
}

Result<std::vector<std::string>> read_path_list(const fs::path& file) {
  auto text = read_file(file);
  if (!text) return text.error();
  std::vector<std::string> paths;
  std::size_t line = 0, at = 0;
  const std::string_view all = *text;
  while (at < all.size()) {
    std::size_t end = all.find('\n', at);
    if (end == std::string_view::npos) end = all.size();
    std::string_view row = all.substr(at, end - at);
    at = end + 1;
    ++line;
    while (!row.empty() && (row.front() == ' ' || row.front() == '\t')) row.remove_prefix(1);
    while (!row.empty() && (row.back() == ' ' || row.back() == '\t' || row.back() == '\r')) row.remove_suffix(1);
    if (row.empty() || row.front() == '#') continue;
    if (auto path = JsonPath::parse(row); !path)
      return Error::usage(fmt::format("{}:{}: {}", file.string(), line, path.error().message));
    paths.emplace_back(row);
  }
  return paths;
}

Result<void> write_corpus_file(const fs::path& file, const std::vector<std::pair<std::string, PathCompare>>& declarations) {
  json::object doc{{"kind", "msptkCorpus"}, {"paths", json::object{}}};
  std::error_code ec;
  if (fs::exists(file, ec)) {
    Registry check;
    if (auto ok = check.extend_from_file(file); !ok) return ok.error();  // a malformed file is not overwritten
    auto value = parse_json_file(file);
    if (!value) return value.error();
    doc = value->get_object();
    doc["kind"] = "msptkCorpus";
    if (!doc.contains("paths")) doc["paths"] = json::object{};
  }
  json::object& paths = doc["paths"].as_object();
  for (const auto& [path, how] : declarations) paths[path] = to_string(how);
  return write_file_atomic(file, pretty(doc) + "\n",
                           fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
}

}  // namespace msptk
