// Staged folder + one exchanging rename (folder_rewrite.hpp).
#include "msptk/transcript/folder_rewrite.hpp"

#include "msptk/transcript/json_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
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

Result<StagingFolder> StagingFolder::create(const fs::path& folder, std::string_view purpose) {
  const fs::path parent = folder.parent_path().empty() ? fs::path(".") : folder.parent_path();
  std::string tmpl = (parent / fmt::format(".{}.{}-XXXXXX", folder.filename().string(), purpose)).string();
  if (!::mkdtemp(tmpl.data()))
    return Error::unreadable(parent.string(), fmt::format("cannot create a staging folder: {}", std::strerror(errno)));
  StagingFolder s;
  s.dir_ = tmpl;
  return s;
}

StagingFolder::StagingFolder(StagingFolder&& other) noexcept : dir_(std::move(other.dir_)) { other.dir_.clear(); }

StagingFolder::~StagingFolder() {
  if (dir_.empty()) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);
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
  return {};
}

}  // namespace msptk
