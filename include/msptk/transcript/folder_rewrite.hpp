// A folder rewrite replaces a scenario folder as a whole, so that a reader (or a crash, or a
// full disk) sees the folder either entirely old or entirely new, never a mix: the folder is
// copied into a staging folder beside it (same file system; names in `skip` left out), the new
// files are written there, and the staged folder is exchanged with the original in one
// renameat2(RENAME_EXCHANGE); what the exchange moved aside (the old contents) is removed
// afterwards. Any failure before the exchange leaves the original untouched and removes the
// staging folder. regen (maintenance/) and review's accept (review/) rewrite scenarios this way.
// The writes and the exchange are seams, so tests can fill the disk between two writes or
// interrupt the rewrite just before the exchange.
#pragma once

#include "msptk/transcript/error.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk {

// The folder any spelling names (`DIR/`, `.`, `a/../DIR`, relative, absolute, a symlink to
// it): its canonical absolute path, without a trailing separator. Errors name the path.
Result<std::filesystem::path> resolve_folder(const std::filesystem::path& folder);

// A fresh folder beside `folder` (`.<name>.<purpose>-XXXXXX` in its parent, so renames between
// the two stay on one file system), removed with everything in it when the object goes.
class StagingFolder {
 public:
  static Result<StagingFolder> create(const std::filesystem::path& folder, std::string_view purpose);
  StagingFolder() = default;
  StagingFolder(StagingFolder&& other) noexcept;
  StagingFolder& operator=(StagingFolder&&) = delete;
  ~StagingFolder();
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

struct FolderRewriteSeams {
  // Writes one file of the staged folder (default: write_file_atomic). Tests inject a full disk.
  std::function<Result<void>(const std::filesystem::path& file, std::string_view contents, std::filesystem::perms perms)>
      write;
  // Exchanges the staged folder with the original (default: one renameat2(RENAME_EXCHANGE)).
  std::function<Result<void>(const std::filesystem::path& staged, const std::filesystem::path& folder)> exchange;
};

struct NewFile {
  std::string name;      // a file name in the folder ("transcript.ndjson")
  std::string contents;  // its new bytes; the file keeps its mode (0644 when it is new)
};

// The one exchange: renameat2(staged, folder, RENAME_EXCHANGE).
Result<void> exchange_folders(const std::filesystem::path& staged, const std::filesystem::path& folder);

// Rewrites `folder` (any spelling, resolve_folder) as a whole, as described above.
Result<void> rewrite_folder(const std::filesystem::path& folder, const std::vector<NewFile>& files,
                            const std::vector<std::string>& skip = {}, const FolderRewriteSeams& seams = {});

}  // namespace msptk
