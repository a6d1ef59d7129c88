// The safety rules of a recording's folder and id, and the placeholders of the host's argv.
#include "msptk/recorder/recorder.hpp"
#include "msptk/transcript/display.hpp"

#include <fmt/format.h>

namespace msptk::recorder {

namespace fs = std::filesystem;

Result<void> check_scenario_id(std::string_view id) {
  if (id.empty()) return Error::usage("the scenario id is empty");
  if (const long c = first_control_character(id); c >= 0)
    return Error::usage(fmt::format("scenario id holds a control character ({})", c < 0x80 ? fmt::format("0x{:02x}", c)
                                                                                           : fmt::format("U+{:04X}", c)));
  for (unsigned char c : id) {
    if (c == '/' || c == '\\')
      return Error::usage(fmt::format("scenario id \"{}\" holds a path separator", id));
  }
  if (id.find("..") != std::string_view::npos) return Error::usage(fmt::format("scenario id \"{}\" holds \"..\"", id));
  if (id == ".") return Error::usage("scenario id \".\" names no folder: give the scenario's own name");
  return {};
}

std::vector<std::pair<std::string, std::string>> pinned_environment(const RecordOptions& options) {
  return {{"MSP_FRAME_LIMIT_BYTES", std::to_string(options.frame_limit_bytes)},
          {"MSP_ID_SEED", std::to_string(options.id_seed)},
          {"MSP_CLOCK_START_MS", std::to_string(options.clock_start_ms)}};
}

std::vector<std::string> expand_placeholders(const std::vector<std::string>& argv, const RecordOptions& options) {
  const std::pair<std::string_view, std::string> values[] = {
      {"{frameLimitBytes}", std::to_string(options.frame_limit_bytes)},
      {"{idSeed}", std::to_string(options.id_seed)},
      {"{clockStartMs}", std::to_string(options.clock_start_ms)},
  };
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (std::string arg : argv) {
    for (const auto& [name, value] : values) {
      for (std::size_t pos = arg.find(name); pos != std::string::npos; pos = arg.find(name, pos + value.size()))
        arg.replace(pos, name.size(), value);
    }
    out.push_back(std::move(arg));
  }
  return out;
}

std::string default_scenario_id(const fs::path& out) {
  if (out.empty()) return {};
  fs::path p = out.lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  if (p.filename() == "." || p.filename() == ".." || p.empty()) {
    std::error_code ec;
    fs::path abs = fs::absolute(p.empty() ? fs::path(".") : p, ec);
    if (ec) return {};
    p = abs.lexically_normal();
  }
  if (!p.has_filename()) p = p.parent_path();
  return p.filename().string();
}

Result<void> prepare_scenario_dir(const fs::path& out, bool force) {
  if (out.empty()) return Error::usage("--out is empty: give the scenario folder to record into");
  std::error_code ec;
  // A symbolic link is refused, dangling or not: msptk would otherwise write (and restrict to
  // 0700) wherever it points.
  const fs::file_status link = fs::symlink_status(out, ec);
  if (fs::is_symlink(link)) {
    const bool dangling = !fs::exists(fs::status(out, ec));
    return Error::usage(fmt::format("--out {}: is a symbolic link{}; give the folder itself", out.string(),
                                    dangling ? " to nothing (dangling)" : ""));
  }
  if (fs::exists(link)) {
    if (!fs::is_directory(link)) return Error::usage(fmt::format("--out {}: not a folder", out.string()));
    const bool empty = fs::is_empty(out, ec);
    if (ec) return Error::unreadable(out.string(), fmt::format("cannot read the folder: {}", ec.message()));
    if (!empty && !force)
      return Error::usage(fmt::format("--out {}: the folder is not empty (use --force to record into it anyway)",
                                      out.string()));
    return {};  // an existing folder keeps its permissions: it is the user's
  }
  if (out.has_parent_path() && !out.parent_path().empty()) {
    fs::create_directories(out.parent_path(), ec);
    if (ec) return Error::unreadable(out.parent_path().string(), fmt::format("cannot create: {}", ec.message()));
  }
  fs::create_directory(out, ec);
  if (ec) return Error::unreadable(out.string(), fmt::format("cannot create: {}", ec.message()));
  fs::permissions(out, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (ec) return Error::unreadable(out.string(), fmt::format("cannot restrict to 0700: {}", ec.message()));
  return {};
}

}  // namespace msptk::recorder
