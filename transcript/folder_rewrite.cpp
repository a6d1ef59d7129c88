// Staged folder + one exchanging rename (folder_rewrite.hpp).
#include "msptk/transcript/folder_rewrite.hpp"

#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace msptk {

namespace fs = std::filesystem;

Result<fs::path> resolve_folder(const fs::path& folder) {
  std::error_code ec;
  fs::path resolved = fs::canonical(folder.empty() ? fs::path(".") : folder, ec);
  if (ec) return Error::unreadable(folder.string(), fmt::format("cannot resolve the folder: {}", ec.message()));
  if (!fs::is_directory(resolved, ec)) return Error::unreadable(folder.string(), "not a folder");
  if (!resolved.has_filename()) resolved = resolved.parent_path();  // canonical never ends in '/' but "/"
  return resolved;
}

namespace {

constexpr std::string_view kOwnerTag = ".msptk-";

// The start time of process `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat), or
// nullopt when there is no such process.
std::optional<std::uint64_t> process_start(long pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat;
  if (!in || !std::getline(in, stat)) return std::nullopt;
  const std::size_t close = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return std::nullopt;
  // `at` is the space before field `field + 1` (field 3, the state, follows the name).
  std::size_t field = 2, at = close + 1;
  while (field < 21 && at < stat.size()) {
    at = stat.find(' ', at + 1);
    if (at == std::string::npos) return std::nullopt;
    ++field;
  }
  std::uint64_t start = 0;
  bool digits = false;
  for (std::size_t i = at + 1; i < stat.size() && stat[i] >= '0' && stat[i] <= '9'; ++i) {
    start = start * 10 + static_cast<std::uint64_t>(stat[i] - '0');
    digits = true;
  }
  if (!digits) return std::nullopt;
  return start;
}

std::uint64_t own_start() {
  static const std::uint64_t start = process_start(static_cast<long>(::getpid())).value_or(0);
  return start;
}

bool all_of_class(std::string_view s, bool (*ok)(char)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), ok);
}
bool is_digit_char(char c) { return c >= '0' && c <= '9'; }
bool is_alnum_char(char c) { return is_digit_char(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

struct Owner {
  long pid = 0;
  std::uint64_t start = 0;
};

// `.<stem>.msptk-<pid>-<start>-XXXXXX`: the process that made it.
std::optional<Owner> owner_of(std::string_view name) {
  if (name.size() < 2 || name.front() != '.') return std::nullopt;
  const std::size_t tag = name.rfind(kOwnerTag);
  if (tag == std::string_view::npos || tag == 0) return std::nullopt;
  std::string_view rest = name.substr(tag + kOwnerTag.size());
  const std::size_t d1 = rest.find('-');
  if (d1 == std::string_view::npos) return std::nullopt;
  const std::size_t d2 = rest.find('-', d1 + 1);
  if (d2 == std::string_view::npos) return std::nullopt;
  const std::string_view pid = rest.substr(0, d1), start = rest.substr(d1 + 1, d2 - d1 - 1), suffix = rest.substr(d2 + 1);
  if (!all_of_class(pid, is_digit_char) || pid.size() > 10 || !all_of_class(start, is_digit_char) || start.size() > 19 ||
      suffix.size() != 6 || !all_of_class(suffix, is_alnum_char))
    return std::nullopt;
  Owner owner;
  owner.pid = std::stol(std::string(pid));
  owner.start = std::stoull(std::string(start));
  return owner;
}

// A staging folder of the older pattern, which names no process: `.<name>.rewrite-XXXXXX`,
// `.<name>.regen-XXXXXX` or `.pending-new-XXXXXX`.
bool older_staging(std::string_view name) {
  if (name.size() < 8 || name.front() != '.' || name[name.size() - 7] != '-' ||
      !all_of_class(name.substr(name.size() - 6), is_alnum_char))
    return false;
  const std::string_view head = name.substr(0, name.size() - 7);
  return head == ".pending-new" || head.ends_with(".rewrite") || head.ends_with(".regen");
}

}  // namespace

Result<StagingFolder> StagingFolder::create(const fs::path& folder, std::string_view purpose) {
  const fs::path parent = folder.parent_path().empty() ? fs::path(".") : folder.parent_path();
  return create_in(parent, fmt::format("{}.{}", folder.filename().string(), purpose));
}

Result<StagingFolder> StagingFolder::create_in(const fs::path& parent, std::string_view stem) {
  std::string tmpl =
      (parent / fmt::format(".{}{}{}-{}-XXXXXX", stem, kOwnerTag, static_cast<long>(::getpid()), own_start())).string();
  if (!::mkdtemp(tmpl.data()))
    return Error::unreadable(parent.string(), fmt::format("cannot create a staging folder: {}", std::strerror(errno)));
  StagingFolder s;
  s.dir_ = tmpl;
  return s;
}

StagingFolder::StagingFolder(StagingFolder&& other) noexcept : dir_(std::move(other.dir_)) { other.dir_.clear(); }

StagingFolder::~StagingFolder() { (void)remove(); }

Result<void> StagingFolder::remove() {
  if (dir_.empty()) return {};
  std::error_code ec;
  fs::remove_all(dir_, ec);
  if (ec)
    return Error::unreadable(dir_.string(), fmt::format("cannot remove the staging folder: {}", ec.message()));
  dir_.clear();
  return {};
}

std::vector<StagingLeftover> sweep_staging(const std::vector<fs::path>& dirs) {
  std::vector<StagingLeftover> found;
  const bool proc = fs::exists("/proc/self/stat");
  for (const fs::path& dir : dirs) {
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      std::error_code type_ec;
      if (!entry.is_directory(type_ec) || entry.is_symlink(type_ec)) continue;
      StagingLeftover leftover;
      leftover.path = entry.path();
      if (auto owner = owner_of(name)) {
        const auto alive = proc ? process_start(owner->pid) : std::nullopt;
        if (!proc) {
          leftover.why = "a staging folder of msptk whose process cannot be looked up (no /proc)";
        } else if (alive && *alive == owner->start) {
          leftover.fate = StagingLeftover::Fate::in_use;
          leftover.why = fmt::format("in use by msptk process {}", owner->pid);
        } else {
          std::error_code rm;
          fs::remove_all(entry.path(), rm);
          if (rm) {
            leftover.why = fmt::format("a staging folder left by msptk process {} (gone) that cannot be removed: {}",
                                       owner->pid, rm.message());
          } else {
            leftover.fate = StagingLeftover::Fate::removed;
            leftover.why = fmt::format("a staging folder left by msptk process {}, which ended before removing it",
                                       owner->pid);
          }
        }
      } else if (older_staging(name)) {
        leftover.why = "a staging folder of an older msptk (its name does not say which process made it)";
      } else {
        continue;
      }
      found.push_back(std::move(leftover));
    }
  }
  return found;
}

std::vector<fs::path> staging_places(const fs::path& path) {
  std::vector<fs::path> places;
  auto kind = classify_path(path);
  if (!kind || *kind == PathKind::transcript) return places;
  places.push_back(path);
  if (*kind == PathKind::scenario) {
    auto folder = resolve_folder(path);
    if (folder && folder->has_parent_path()) places.push_back(folder->parent_path());
    return places;
  }
  if (auto scenarios = list_corpus(path)) places.insert(places.end(), scenarios->begin(), scenarios->end());
  return places;
}

std::string describe_leftovers(const std::vector<StagingLeftover>& found) {
  std::string out;
  for (const StagingLeftover& l : found) {
    if (l.fate == StagingLeftover::Fate::removed)
      out += fmt::format("msptk: note: removed {}: {}\n", l.path.string(), l.why);
    else if (l.fate == StagingLeftover::Fate::reported)
      out += fmt::format("msptk: warning: {}: {}; remove it by hand\n", l.path.string(), l.why);
  }
  return out;
}

Result<void> exchange_folders(const fs::path& staged, const fs::path& folder) {
  if (::renameat2(AT_FDCWD, staged.c_str(), AT_FDCWD, folder.c_str(), RENAME_EXCHANGE) != 0)
    return Error::unreadable(folder.string(), fmt::format("cannot exchange the rewritten folder {} with it: {}",
                                                          staged.string(), std::strerror(errno)));
  return {};
}

Result<void> rewrite_folder(const fs::path& spelled, const std::vector<NewFile>& files,
                            const std::vector<std::string>& skip, const FolderRewriteSeams& seams) {
  auto folder = resolve_folder(spelled);
  if (!folder) return folder.error();
  // A mount point in the folder would go with the old contents into the staging folder, which
  // could then never be removed: refused before anything is staged.
  struct stat folder_st{};
  if (::stat(folder->c_str(), &folder_st) == 0) {
    std::error_code list_ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(*folder, list_ec)) {
      struct stat st{};
      if (::lstat(entry.path().c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev != folder_st.st_dev)
        return Error::unreadable(entry.path().string(),
                                 fmt::format("is on another file system (a mount point): {} cannot be rewritten as a "
                                             "whole with it inside; nothing was changed (move it into the folder's own "
                                             "file system, or unmount it)",
                                             folder->string()));
    }
  }
  auto staging = StagingFolder::create(*folder, "rewrite");
  if (!staging) return staging.error();
  const fs::path staged = staging->dir() / "folder";
  std::error_code ec;
  fs::create_directory(staged, ec);
  if (ec) return Error::unreadable(staged.string(), fmt::format("cannot stage the folder: {}", ec.message()));
  for (const fs::directory_entry& entry : fs::directory_iterator(*folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
    if (std::any_of(files.begin(), files.end(), [&](const NewFile& f) { return f.name == name; })) continue;
    std::error_code copy_ec;
    fs::copy(entry.path(), staged / name, fs::copy_options::recursive | fs::copy_options::copy_symlinks, copy_ec);
    if (copy_ec)
      return Error::unreadable((staged / name).string(), fmt::format("cannot stage {}: {}", entry.path().string(),
                                                                     copy_ec.message()));
  }
  if (ec) return Error::unreadable(folder->string(), fmt::format("cannot list the folder: {}", ec.message()));
  for (const NewFile& file : files) {
    std::error_code perms_ec;
    fs::perms perms = fs::status(*folder / file.name, perms_ec).permissions() & fs::perms::all;
    if (perms_ec || perms == fs::perms::none)
      perms = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
    auto written = seams.write ? seams.write(staged / file.name, file.contents, perms)
                               : write_file_atomic(staged / file.name, file.contents, perms);
    if (!written) return written.error();
  }
  std::error_code perms_ec;  // the folder's mode, once everything is in it (a read-only folder too)
  fs::permissions(staged, fs::status(*folder, perms_ec).permissions() & fs::perms::mask, perms_ec);
  // One rename: before it the old folder is whole, after it the new one is. The old contents
  // end up in the staging folder, removed with it.
  auto exchanged = seams.exchange ? seams.exchange(staged, *folder) : exchange_folders(staged, *folder);
  if (!exchanged) return exchanged.error();
  if (auto removed = staging->remove(); !removed)
    return Error::unreadable(removed.error().file,
                             fmt::format("{} was rewritten, but its old contents could not be removed: {}",
                                         folder->string(), removed.error().message));
  return {};
}

}  // namespace msptk
