// Disk is the recorder's file seam: every byte `msptk record` writes into a scenario folder
// (transcript, host-stderr.log, side files, manifest) goes through it, so a failed write can
// never go unnoticed and tests can inject one. Every write is checked: short writes are
// continued, EINTR is retried, and a failure (ENOSPC, EIO, ...) comes back as an `unreadable`
// error naming the file (exit 3). close() reports a failed close; sync() is fsync(2).
// `replace` writes a whole file atomically: a temporary file beside it, fsync, rename over the
// target, fsync of the folder, so a reader sees the old file or the new one, never half.
//
// `create_unnamed` makes a file with no name (O_TMPFILE): it lives only as long as its OutFile,
// and nothing of it is left on disk when msptk dies, SIGKILL included. Under --redact the
// frame in progress spills there (pending_frame.hpp): its bytes are not yet redacted.
//
// system_disk() is the real one (POSIX descriptors). Not thread-safe; one recorder uses it.
#pragma once

#include "msptk/transcript/error.hpp"

#include <filesystem>
#include <memory>
#include <string_view>

namespace msptk::recorder {

class OutFile {
 public:
  virtual ~OutFile() = default;
  // Appends all of `bytes`.
  virtual Result<void> write(std::string_view bytes) = 0;
  virtual Result<void> sync() = 0;
  // Cuts the file back to `size` bytes (and writes go on from there): what a failed write left
  // of a line is taken back, so the file holds whole lines only.
  virtual Result<void> truncate(std::uint64_t size) = 0;
  // Closes the file (idempotent); a failure to close is an error like a failed write.
  virtual Result<void> close() = 0;
  virtual const std::filesystem::path& path() const = 0;
  // Bytes in the file: what was written since it was created (after truncate: its new size).
  virtual std::uint64_t size() const = 0;
  // A descriptor open for reading too (pread), or -1. Set for the files of create_unnamed,
  // which cannot be opened again by a name.
  virtual int descriptor() const { return -1; }
};

class Disk {
 public:
  virtual ~Disk() = default;
  // Creates (or truncates) a file with the given permission bits.
  virtual Result<std::unique_ptr<OutFile>> create(const std::filesystem::path& path, std::filesystem::perms perms) = 0;
  // A file without a name in folder `dir`, open for reading and writing (descriptor() set);
  // `label` names it in errors. Where the file system has no O_TMPFILE, the file is created
  // under `label` and unlinked at once.
  virtual Result<std::unique_ptr<OutFile>> create_unnamed(const std::filesystem::path& dir,
                                                          const std::filesystem::path& label,
                                                          std::filesystem::perms perms) = 0;
  virtual Result<void> rename(const std::filesystem::path& from, const std::filesystem::path& to) = 0;
  // Removes a file; a file that is not there is not an error.
  virtual void remove(const std::filesystem::path& path) = 0;
  // fsync(2) of a folder, so a rename in it survives a crash of the machine.
  virtual Result<void> sync_dir(const std::filesystem::path& dir) = 0;

  // The whole file at once, atomically (see above).
  Result<void> replace(const std::filesystem::path& path, std::string_view contents, std::filesystem::perms perms);
};

Disk& system_disk();

}  // namespace msptk::recorder
