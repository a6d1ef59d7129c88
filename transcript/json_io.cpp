#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace msptk {

namespace json = boost::json;

Result<std::string> read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error::unreadable(path.string(), "is a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::unreadable(path.string(), fmt::format("cannot open: {}", std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Error::unreadable(path.string(), "read error");
  return buffer.str();
}

Result<json::value> parse_json_file(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_json_text(*text, path.string());
}

Result<json::value> parse_json_text(std::string_view bytes, const std::string& file) {
  const std::string_view* text = &bytes;
  auto value = parse_json(bytes);
  if (!value) {
    const JsonError& e = value.error();
    const std::size_t offset = std::min(e.offset, text->size());
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(text->begin(), text->begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
    // Read after "<what> is ", e.g. "manifest is not valid JSON: syntax error".
    std::string message;
    switch (e.kind) {
      case JsonErrorKind::not_json: message = "not valid JSON: " + e.message; break;
      case JsonErrorKind::too_deep: message = e.message; break;
      case JsonErrorKind::duplicate_member: message = "JSON with a " + e.message; break;
      case JsonErrorKind::unsupported: message = "JSON that " + e.message; break;
    }
    return Error::malformed(file, line, "json.syntax", std::move(message));
  }
  return std::move(*value);
}

void write_pretty(std::ostream& out, const json::value& value, int indent) {
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  const std::string close(static_cast<std::size_t>(indent), ' ');
  if (const json::object* obj = value.if_object()) {
    if (obj->empty()) {
      out << "{}";
      return;
    }
    out << "{\n";
    bool first = true;
    for (const auto& member : *obj) {
      if (!first) out << ",\n";
      first = false;
      std::string key;
      append_json_string(key, std::string_view(member.key().data(), member.key().size()));
      out << pad << key << ": ";
      write_pretty(out, member.value(), indent + 2);
    }
    out << "\n" << close << "}";
  } else if (const json::array* arr = value.if_array()) {
    if (arr->empty()) {
      out << "[]";
      return;
    }
    out << "[\n";
    bool first = true;
    for (const auto& element : *arr) {
      if (!first) out << ",\n";
      first = false;
      out << pad;
      write_pretty(out, element, indent + 2);
    }
    out << "\n" << close << "]";
  } else {
    out << serialize_json(value);
  }
}

std::string pretty(const json::value& value) {
  std::ostringstream out;
  write_pretty(out, value);
  out << "\n";
  return out.str();
}

Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view contents,
                               std::filesystem::perms perms) {
  std::filesystem::path tmp = path;
  tmp += fmt::format(".tmp.{}", ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, static_cast<mode_t>(perms));
  if (fd < 0) return Error::unreadable(tmp.string(), fmt::format("cannot create: {}", std::strerror(errno)));
  std::string_view rest = contents;
  while (!rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Error::unreadable(tmp.string(), fmt::format("cannot write: {}", std::strerror(err)));
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  // A failed fsync or close means the bytes may not be on disk: never replace the old file then.
  const int synced = ::fsync(fd) == 0 || errno == EINVAL ? 0 : errno;
  const int closed = ::close(fd) == 0 || errno == EINTR ? 0 : errno;
  if (synced || closed) {
    ::unlink(tmp.c_str());
    return Error::unreadable(tmp.string(), fmt::format("cannot {}: {}", synced ? "sync" : "close",
                                                      std::strerror(synced ? synced : closed)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Error::unreadable(path.string(), fmt::format("cannot replace: {}", std::strerror(err)));
  }
  return {};
}

}  // namespace msptk
