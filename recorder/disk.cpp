#include "msptk/recorder/disk.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace msptk::recorder {

namespace fs = std::filesystem;

namespace {

Error io_error(const fs::path& path, std::string_view what, int err) {
  return Error::unreadable(path.string(), fmt::format("cannot {}: {}", what, std::strerror(err)));
}

class PosixFile final : public OutFile {
 public:
  PosixFile(fs::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Result<void> write(std::string_view bytes) override {
    if (fd_ < 0) return io_error(path_, "write", EBADF);
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error(path_, "write", errno);
      if (n == 0) return io_error(path_, "write", EIO);
      bytes.remove_prefix(static_cast<std::size_t>(n));
      size_ += static_cast<std::uint64_t>(n);
    }
    return {};
  }

  Result<void> sync() override {
    if (fd_ < 0) return io_error(path_, "sync", EBADF);
    if (::fsync(fd_) != 0 && errno != EINVAL) return io_error(path_, "sync", errno);
    return {};
  }

  Result<void> truncate(std::uint64_t size) override {
    if (fd_ < 0) return io_error(path_, "truncate", EBADF);
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return io_error(path_, "truncate", errno);
    if (::lseek(fd_, static_cast<off_t>(size), SEEK_SET) < 0) return io_error(path_, "seek in", errno);
    size_ = size;
    return {};
  }

  Result<void> close() override {
    if (fd_ < 0) return {};
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0 && errno != EINTR) return io_error(path_, "close", errno);
    return {};
  }

  const fs::path& path() const override { return path_; }
  std::uint64_t size() const override { return size_; }
  int descriptor() const override { return readable_ ? fd_ : -1; }
  void set_readable() { readable_ = true; }

 private:
  fs::path path_;
  int fd_;
  std::uint64_t size_ = 0;
  bool readable_ = false;
};

class PosixDisk final : public Disk {
 public:
  Result<std::unique_ptr<OutFile>> create(const fs::path& path, fs::perms perms) override {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, static_cast<mode_t>(perms));
    if (fd < 0) return io_error(path, "create", errno);
    return std::unique_ptr<OutFile>(std::make_unique<PosixFile>(path, fd));
  }
  Result<std::unique_ptr<OutFile>> create_unnamed(const fs::path& dir, const fs::path& label, fs::perms perms) override {
    const fs::path folder = dir.empty() ? fs::path(".") : dir;
    int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, static_cast<mode_t>(perms));
    if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
      // No O_TMPFILE here: a name for as short a time as it takes to remove it.
      fd = ::open(label.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, static_cast<mode_t>(perms));
      if (fd >= 0) ::unlink(label.c_str());
    }
    if (fd < 0) return io_error(label, "create", errno);
    auto file = std::make_unique<PosixFile>(label, fd);
    file->set_readable();
    return std::unique_ptr<OutFile>(std::move(file));
  }
  Result<void> rename(const fs::path& from, const fs::path& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return io_error(to, fmt::format("rename {} to", from.string()), errno);
    return {};
  }
  void remove(const fs::path& path) override { ::unlink(path.c_str()); }
  Result<void> sync_dir(const fs::path& dir) override {
    const fs::path d = dir.empty() ? fs::path(".") : dir;
    const int fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return io_error(d, "open the folder", errno);
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0 && err != EINVAL) return io_error(d, "sync the folder", err);
    return {};
  }
};

}  // namespace

Result<void> Disk::replace(const fs::path& path, std::string_view contents, fs::perms perms) {
  fs::path tmp = path;
  tmp += fmt::format(".tmp.{}", ::getpid());
  auto file = create(tmp, perms);
  if (!file) return file.error();
  auto fail = [&](Error e) -> Result<void> {
    (void)(*file)->close();
    remove(tmp);
    return e;
  };
  if (auto ok = (*file)->write(contents); !ok) return fail(ok.error());
  if (auto ok = (*file)->sync(); !ok) return fail(ok.error());
  if (auto ok = (*file)->close(); !ok) return fail(ok.error());
  if (auto ok = rename(tmp, path); !ok) return fail(ok.error());
  return sync_dir(path.parent_path());
}

Disk& system_disk() {
  static PosixDisk disk;
  return disk;
}

}  // namespace msptk::recorder
