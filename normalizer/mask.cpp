#include "msptk/normalizer/mask.hpp"

#include "msptk/normalizer/corpus_file.hpp"

#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_locate.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace msptk {

bool MaskSpec::declares(std::string_view path) const {
  return std::any_of(declared.begin(), declared.end(), [&](const JsonPath& p) { return p.text() == path; });
}

PathCompare MaskSpec::compare_of(std::size_t declared_index) const {
  PathCompare how = declared_index < compare.size() ? compare[declared_index] : PathCompare{};
  if (mode == MaskMode::erase) how.mode = MaskMode::erase;
  return how;
}

bool MaskSpec::erases_any() const {
  for (std::size_t i = 0; i < declared.size(); ++i)
    if (compare_of(i).mode == MaskMode::erase) return true;
  return false;
}

std::optional<EntryRefusal> refuse_normalize_entry(const Registry& registry, std::string_view text) {
  if (auto parsed = JsonPath::parse(text); !parsed) return EntryRefusal{"manifest.normalize-path", parsed.error().message};
  if (registry.contains(text)) return std::nullopt;
  std::string allowed;
  for (const JsonPath& p : registry.paths()) allowed += (allowed.empty() ? "" : ", ") + p.text();
  const std::string where = registry.add_to().empty()
                                ? std::string("extend the registry with --registry FILE")
                                : fmt::format("declare it in {} (or give --registry FILE)", display_path(registry.add_to()));
  return EntryRefusal{"manifest.normalize-registry",
                      fmt::format("normalize path \"{}\" is not in the registry of allowed paths ({}); undeclared "
                                  "normalization is refused: {}",
                                  text, allowed, where)};
}

Result<MaskSpec> make_mask_spec(const Registry& registry, const std::vector<std::string>& manifest_paths,
                                const std::string& manifest_file, std::size_t manifest_line,
                                const std::vector<std::string>& explicit_paths, MaskMode mode) {
  MaskSpec spec;
  spec.mode = mode;
  for (const std::string& text : manifest_paths) {
    if (auto refused = refuse_normalize_entry(registry, text))
      return Error::malformed(manifest_file, manifest_line, std::move(refused->rule), std::move(refused->message));
    if (!spec.declares(text)) {
      spec.declared.push_back(*JsonPath::parse(text));
      spec.compare.push_back(registry.compare_of(text));
    }
  }
  for (const std::string& text : explicit_paths) {
    auto path = JsonPath::parse(text);
    if (!path) return Error::usage(fmt::format("--path: {}", path.error().message));
    if (!registry.contains(text)) {
      return Error::usage(fmt::format("--path \"{}\" is not in the registry of allowed paths "
                                      "(declare it in {}, or extend it with --registry FILE)",
                                      text, registry.add_to().empty() ? std::string(kCorpusFileName) : display_path(registry.add_to())));
    }
    if (!spec.declares(text)) {
      spec.declared.push_back(std::move(*path));
      spec.compare.push_back(registry.compare_of(text));
    }
  }
  return spec;
}

FrameRole FrameRole::of(Direction dir, const Envelope& envelope) {
  return FrameRole{dir, envelope.kind, envelope.kind == FrameKind::request && envelope.method == "initialize"};
}

Masker::Masker(MaskSpec spec) : spec_(std::move(spec)) {
  for (std::size_t i = 0; i < spec_.declared.size(); ++i) {
    const JsonPath& path = spec_.declared[i];
    depths_.push_back(path.steps().size());
    erase_.push_back(spec_.compare_of(i).mode == MaskMode::erase);
    max_depth_ = std::max(max_depth_, path.steps().size());
    if (path.text() == "id" && id_declared_ < 0) id_declared_ = static_cast<int>(i);
    if (path.text() == "params.commandId" && command_id_declared_ < 0) command_id_declared_ = static_cast<int>(i);
  }
}

std::string Masker::space_name(std::size_t space) const {
  switch (space) {
    case kClientRequestIds: return "client request ids";
    case kServerRequestIds: return "server request ids";
    case kClientCommandIds: return "client params.commandId";
    case kClientInfoName: return "client params.clientInfo.name";
    case kClientInfoVersion: return "client params.clientInfo.version";
    default: break;
  }
  const std::size_t n = spec_.declared.size();
  const std::size_t k = space - kFixedSpaces;
  if (k < n) return fmt::format("client frames' {}", spec_.declared[k].text());
  if (k < 2 * n) return fmt::format("server frames' {}", spec_.declared[k - n].text());
  return "unknown space";
}

MaskRule Masker::rule_for(const FrameRole& role, std::string_view location, std::size_t depth) const {
  MaskRule rule;
  if (depth == 0 || depth > max_depth_) return rule;
  const bool erase = spec_.mode == MaskMode::erase;
  const bool client = role.dir == Direction::client;

  // The first declared path that selects this place (for accounting, and for its space).
  for (std::size_t i = 0; i < spec_.declared.size(); ++i) {
    if (depths_[i] == depth && spec_.declared[i].matches_location(location)) {
      rule.declared = static_cast<int>(i);
      break;
    }
  }
  const bool declared = rule.declared >= 0;
  auto erased = [&](int index) { return erase || (index >= 0 && erase_[static_cast<std::size_t>(index)]); };
  auto masked = [&](std::size_t space) {
    rule.space = space;
    rule.treatment = (declared && erased(rule.declared)) ? Treatment::erase : Treatment::unify;
    return rule;
  };

  if (depth == 1 && location == "id") {
    rule.is_id = true;
    const bool id_declared = id_declared_ >= 0;
    if (id_declared) rule.declared = id_declared_;
    const bool client_request = client && role.kind == FrameKind::request;
    const bool server_response = !client && role.kind == FrameKind::response;
    if (client_request || server_response) {
      rule.declared = id_declared ? id_declared_ : -1;
      rule.space = kClientRequestIds;
      rule.treatment = (id_declared && erased(id_declared_)) ? Treatment::erase : Treatment::unify;
      return rule;
    }
    const bool server_request = !client && role.kind == FrameKind::request;
    const bool client_answer = client && role.kind == FrameKind::response;
    if ((server_request || client_answer) && id_declared) {
      rule.space = kServerRequestIds;
      rule.treatment = erased(id_declared_) ? Treatment::erase : Treatment::unify;
      return rule;
    }
    rule.declared = -1;
    return rule;  // learned ids (and ids of invalid frames) are exact
  }
  if (client && depth == 2 && location == "params.commandId") {
    if (command_id_declared_ >= 0) rule.declared = command_id_declared_;
    rule.space = kClientCommandIds;
    rule.treatment = (command_id_declared_ >= 0 && erased(command_id_declared_)) ? Treatment::erase : Treatment::unify;
    return rule;
  }
  if (client && role.initialize && depth == 3 && location.starts_with("params.clientInfo.")) {
    std::string_view member = location.substr(18);
    if (member == "title") {
      rule.treatment = Treatment::ignore;
      return rule;
    }
    if (member == "name") return masked(kClientInfoName);
    if (member == "version") return masked(kClientInfoVersion);
  }
  if (declared) return masked(declared_space(role.dir, static_cast<std::size_t>(rule.declared)));
  return rule;
}

Result<MaskSpec> mask_spec_for(const Scenario& scenario, const Registry& explicit_registry,
                               const std::vector<std::string>& explicit_paths, MaskMode mode) {
  auto resolved = resolve_registry(scenario.files.dir, explicit_registry);
  if (!resolved) return resolved.error();
  const Registry& registry = *resolved;
  std::string manifest_file;
  std::size_t manifest_line = 0;
  std::vector<std::string> declared;
  if (scenario.files.manifest) {
    manifest_file = scenario.files.manifest->string();
    declared = scenario.manifest.normalize;
    auto read = read_file(*scenario.files.manifest);
    const std::string text = read ? std::move(*read) : std::string();
    manifest_line = line_of_path(text, "normalize");
    for (const ManifestProblem& problem : scenario.manifest_problems) {
      if (problem.member.starts_with("normalize") && problem.rule != "manifest.required")
        return Error::malformed(manifest_file, line_of_path(text, problem.member), problem.rule, problem.message);
    }
    // Each entry refused on its own line, as validate says it.
    for (std::size_t i = 0; i < declared.size(); ++i) {
      if (auto refused = refuse_normalize_entry(registry, declared[i]))
        return Error::malformed(manifest_file, line_of_path(text, fmt::format("normalize[{}]", i)),
                                std::move(refused->rule), std::move(refused->message));
    }
  }
  return make_mask_spec(registry, declared, manifest_file, manifest_line, explicit_paths, mode);
}

}  // namespace msptk
