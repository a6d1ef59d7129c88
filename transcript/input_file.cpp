#include "msptk/transcript/input_file.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

namespace msptk {

Result<void> require_rereadable(const std::filesystem::path& path, std::string_view verb) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return {};
  const char* what = S_ISFIFO(st.st_mode) ? "a pipe or FIFO" : S_ISCHR(st.st_mode) ? "a character device" : "not a regular file";
  return Error::unreadable(path.string(), fmt::format("{}: {} reads its input more than once, and a stream can be read "
                                                      "only once (save it to a file first)",
                                                      what, verb));
}

}  // namespace msptk
