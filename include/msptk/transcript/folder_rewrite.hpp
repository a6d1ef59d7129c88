// A folder rewrite replaces a scenario folder as a whole, so that a reader (or a crash, or a
// full disk) sees the folder either entirely old or entirely new, never a mix: the folder is
// copied into a staging folder beside it (same file system; names in `skip` left out), the new
// files are written there, and the staged folder is exchanged with the original in one
// renameat2(RENAME_EXCHANGE); what the exchange moved aside (the old contents) is removed
// afterwards; a staging folder that cannot be removed is an error naming it (the rewrite itself
// took place), never left silently. Any failure before the exchange leaves the original
// untouched and removes the staging folder. regen (maintenance/) and review's accept (review/)
// rewrite scenarios this way; a folder holding a mount point (a `.pending` on another file
// system) is refused before anything is staged, since the exchange would carry the mount point
// into a staging folder that could then never be removed.
//
// Every staging folder is named `.<name>.<purpose>.msptk-<pid>-<start>-XXXXXX`: the pid and the
// start time (in clock ticks since boot, /proc/<pid>/stat) of the msptk process that made it.
// A process killed outright (SIGKILL, a power cut) leaves its staging folder behind; the next
// review, check or validate of the corpus sweeps them (sweep_staging): one whose process is
// gone (no such pid, or a pid with another start time) is provably msptk's and stale, and is
// removed; one of a live process is left to it; any other folder of the older pattern
// `.<name>.<purpose>-XXXXXX` or that cannot be removed is reported.
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

// A fresh folder beside `folder` (`.<name>.<purpose>.msptk-<pid>-<start>-XXXXXX` in its parent,
// so renames between the two stay on one file system), removed with everything in it when the
// object goes (unless released).
class StagingFolder {
 public:
  static Result<StagingFolder> create(const std::filesystem::path& folder, std::string_view purpose);
  // `.<stem>.msptk-<pid>-<start>-XXXXXX` in `parent`.
  static Result<StagingFolder> create_in(const std::filesystem::path& parent, std::string_view stem);
  StagingFolder() = default;
  StagingFolder(StagingFolder&& other) noexcept;
  StagingFolder& operator=(StagingFolder&&) = delete;
  ~StagingFolder();
  const std::filesystem::path& dir() const { return dir_; }
  // Removes the folder now; an error names what could not be removed.
  Result<void> remove();
  // The folder is the caller's from now on (renamed into place): it is no longer removed.
  void release() { dir_.clear(); }

 private:
  std::filesystem::path dir_;
};

// A staging folder found by sweep_staging, and what became of it.
struct StagingLeftover {
  enum class Fate { removed, in_use, reported };
  std::filesystem::path path;
  Fate fate = Fate::reported;
  std::string why;  // removed: whose it was; reported: why it was left
};

// Looks in each folder of `dirs` (not below) for staging folders (the names above) and removes
// those provably msptk's and stale; returns every one found, with its fate.
std::vector<StagingLeftover> sweep_staging(const std::vector<std::filesystem::path>& dirs);
// The folders where staging folders of the scenarios `path` names may lie: a scenario folder
// and its parent, or a corpus folder and each scenario folder in it.
std::vector<std::filesystem::path> staging_places(const std::filesystem::path& path);
// One line per leftover for msptk's stderr ("msptk: note: ..." / "msptk: warning: ..."); none
// for a folder in use.
std::string describe_leftovers(const std::vector<StagingLeftover>& found);

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
