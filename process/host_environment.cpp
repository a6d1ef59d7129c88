#include "msptk/process/host_environment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string_view>
#include <sys/stat.h>
#include <unordered_map>
#include <unordered_set>

namespace msptk::process {

namespace fs = std::filesystem;

namespace {

constexpr std::array<std::string_view, 3> kPinNames = {"MSP_FRAME_LIMIT_BYTES", "MSP_ID_SEED", "MSP_CLOCK_START_MS"};

// A name as an error shows it: a NUL byte (which a terminal would not show) spelled \0.
std::string display_name(std::string_view name) {
  std::string out;
  for (char c : name) out += c == '\0' ? std::string("\\0") : std::string(1, c);
  return out;
}

bool valid_name(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  });
}

// Variables by name, each set in constant time: a later NAME replaces an earlier one in place,
// so n items take O(n) whatever their number (an env file of hundreds of thousands of lines).
class VarTable {
 public:
  explicit VarTable(EnvVars& vars) : vars_(vars) {
    index_.reserve(vars_.size());
    for (std::size_t i = 0; i < vars_.size(); ++i) index_.emplace(vars_[i].first, i);
  }
  void set(std::string name, std::string value) {
    auto [it, fresh] = index_.try_emplace(name, vars_.size());
    if (fresh) vars_.emplace_back(std::move(name), std::move(value));
    else vars_[it->second].second = std::move(value);
  }

 private:
  EnvVars& vars_;
  std::unordered_map<std::string, std::size_t> index_;
};

// Where an item came from, for errors: "--env", or FILE:LINE of an env file.
struct ItemSource {
  const fs::path* file = nullptr;
  std::size_t line = 0;
  std::string describe() const { return file ? fmt::format("{}:{}", file->string(), line) : "--env"; }
};

// One `NAME` or `NAME=VALUE` item.
Result<void> add_item(VarTable& vars, std::string_view item, const ItemSource& where, const EnvLookup& lookup) {
  const std::size_t eq = item.find('=');
  const std::string_view name_view = item.substr(0, eq);
  if (!valid_name(name_view))
    return Error::usage(fmt::format("{}: \"{}\" is not a variable name (letters, digits and _, not starting with a digit)",
                                    where.describe(), display_name(name_view)));
  std::string name(name_view);
  if (std::find(kPinNames.begin(), kPinNames.end(), name) != kPinNames.end())
    return Error::usage(fmt::format("{}: {} is a pinned value; it comes from the pins (--frame-limit-bytes, --id-seed, "
                                    "--clock-start-ms or the manifest)",
                                    where.describe(), name));
  if (eq != std::string_view::npos) {
    const std::string_view value = item.substr(eq + 1);
    if (const std::size_t nul = value.find('\0'); nul != std::string_view::npos)
      return Error::usage(fmt::format("{}: the value of {} holds a NUL byte (at byte {} of the value): an environment "
                                      "value cannot hold one, and it would be cut there",
                                      where.describe(), name, nul + 1));
    vars.set(std::move(name), std::string(value));
    return {};
  }
  auto value = lookup(name);
  if (!value)
    return Error::usage(fmt::format("{}: {} is not set in msptk's environment (give a value: {}=VALUE)", where.describe(),
                                    name, name));
  vars.set(std::move(name), std::move(*value));
  return {};
}

// The env file: one item a line, read in one pass (a FIFO or process substitution too). A
// folder, a read error, a NUL byte are errors naming the file (and line).
Result<void> read_env_file(VarTable& vars, const fs::path& file, const EnvLookup& lookup) {
  std::error_code ec;
  if (fs::is_directory(file, ec))
    return Error::usage(fmt::format("--env-file {}: is a folder, not an env file (one NAME or NAME=VALUE a line)",
                                    file.string()));
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error::unreadable(file.string(), fmt::format("cannot read the env file: {}", std::strerror(errno)));
  std::string line;
  ItemSource where{&file, 0};
  while (std::getline(in, line)) {
    ++where.line;
    std::string_view text = line;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    if (text.empty() || text.front() == '#') continue;
    if (auto ok = add_item(vars, text, where, lookup); !ok) return ok.error();
  }
  if (in.bad())
    return Error::unreadable(file.string(), fmt::format("cannot read the env file after line {}: {}", where.line,
                                                        std::strerror(errno)));
  return {};
}

Result<void> make_private_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error::unreadable(dir.string(), fmt::format("cannot create: {}", ec.message()));
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (ec) return Error::unreadable(dir.string(), fmt::format("cannot restrict to 0700: {}", ec.message()));
  return {};
}

}  // namespace

std::vector<std::string> EnvironmentPlan::names() const {
  std::vector<std::string> out;
  for (const auto& [name, value] : variables) out.push_back(name);
  return out;
}

EnvLookup own_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

Result<EnvironmentPlan> plan_environment(const EnvironmentOptions& options, const EnvLookup& lookup) {
  EnvironmentPlan plan;
  plan.hermetic = options.hermetic;
  if (!options.hermetic && !options.env_path.empty())
    return Error::usage("--env-path extends the hermetic PATH: it needs --hermetic");
  if (!options.hermetic && !options.keep_env.empty())
    return Error::usage("--keep-env keeps the hermetic HOME and XDG folders: it needs --hermetic");
  VarTable vars(plan.variables);
  for (const fs::path& file : options.env_files)
    if (auto ok = read_env_file(vars, file, lookup); !ok) return ok.error();
  for (const std::string& item : options.env)
    if (auto ok = add_item(vars, item, ItemSource{}, lookup); !ok) return ok.error();
  for (const std::string& dir : options.env_path) {
    if (dir.empty() || dir.find(':') != std::string::npos)
      return Error::usage(fmt::format("--env-path \"{}\": a folder, not empty and without ':'", dir));
    plan.extra_path.push_back(dir);
  }
  plan.keep_dir = options.keep_env;
  return plan;
}

Result<HostEnvironment> HostEnvironment::prepare(const EnvironmentPlan& plan, const std::string& program,
                                                 const EnvVars& pins, const fs::path& keep_dir) {
  HostEnvironment env;
  env.hermetic_ = plan.hermetic;
  env.given_ = plan.names();
  if (!plan.hermetic) {
    env.vars_ = plan.variables;
    VarTable vars(env.vars_);
    for (const auto& [name, value] : pins) vars.set(name, value);
    return env;
  }

  if (!keep_dir.empty()) {
    std::error_code ec;
    if (fs::exists(keep_dir, ec) && (!fs::is_directory(keep_dir, ec) || !fs::is_empty(keep_dir, ec)))
      return Error::usage(fmt::format("--keep-env {}: not an empty folder (choose a new folder, or empty it first)",
                                      keep_dir.string()));
    if (auto ok = make_private_dir(keep_dir); !ok) return ok.error();
    env.folder_ = keep_dir;
  } else {
    std::error_code ec;
    std::string pattern = (fs::temp_directory_path(ec) / "msptk-env-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      return Error::unreadable(pattern, fmt::format("cannot create the hermetic folder: {}", std::strerror(errno)));
    env.folder_ = pattern;
    env.temporary_ = true;
  }
  const std::pair<const char*, const char*> folders[] = {{"HOME", "home"},
                                                         {"XDG_CONFIG_HOME", "config"},
                                                         {"XDG_DATA_HOME", "data"},
                                                         {"XDG_CACHE_HOME", "cache"},
                                                         {"XDG_STATE_HOME", "state"}};
  for (const auto& [name, sub] : folders) {
    const fs::path dir = fs::absolute(env.folder_) / sub;
    if (auto ok = make_private_dir(dir); !ok) return ok.error();
    env.vars_.emplace_back(name, dir.string());
  }
  std::string path;
  auto add_path = [&](const std::string& dir) {
    if (dir.empty()) return;
    for (std::size_t start = 0; start <= path.size();) {  // skip duplicates
      std::size_t end = path.find(':', start);
      if (end == std::string::npos) end = path.size();
      if (path.compare(start, end - start, dir) == 0 && end - start == dir.size()) return;
      start = end + 1;
    }
    path += (path.empty() ? "" : ":") + dir;
  };
  if (auto resolved = resolve_program(program)) add_path(fs::absolute(*resolved).lexically_normal().parent_path().string());
  add_path("/usr/bin");
  add_path("/bin");
  for (const std::string& dir : plan.extra_path) add_path(dir);
  env.vars_.emplace_back("PATH", path);
  env.vars_.emplace_back("TZ", "UTC");
  env.vars_.emplace_back("LC_ALL", "C.UTF-8");
  VarTable vars(env.vars_);
  for (const auto& [name, value] : plan.variables) vars.set(name, value);
  for (const auto& [name, value] : pins) vars.set(name, value);
  return env;
}

HostEnvironment::HostEnvironment(HostEnvironment&& other) noexcept
    : hermetic_(other.hermetic_),
      vars_(std::move(other.vars_)),
      given_(std::move(other.given_)),
      folder_(std::move(other.folder_)),
      temporary_(std::exchange(other.temporary_, false)) {}

HostEnvironment::~HostEnvironment() {
  if (!temporary_ || folder_.empty()) return;
  std::error_code ec;
  fs::remove_all(folder_, ec);
}

void HostEnvironment::apply(SpawnSpec& spec) const {
  spec.env = vars_;
  spec.inherit_environment = !hermetic_;
}

}  // namespace msptk::process

namespace msptk::process {

std::vector<std::string> environment_block(const char* const* base, const EnvVars& vars) {
  std::unordered_set<std::string_view> given;
  given.reserve(vars.size());
  for (const auto& [name, value] : vars) given.insert(name);
  std::vector<std::string> block;
  for (const char* const* entry = base; entry && *entry; ++entry) {
    const std::string_view item(*entry);
    const std::size_t eq = item.find('=');
    if (given.count(item.substr(0, eq))) continue;  // replaced below
    block.emplace_back(item);
  }
  block.reserve(block.size() + vars.size());
  for (const auto& [name, value] : vars) block.push_back(name + "=" + value);
  return block;
}

}  // namespace msptk::process
