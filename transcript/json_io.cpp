#include "msptk/transcript/json_io.hpp"

#include <boost/json/stream_parser.hpp>
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
  json::stream_parser parser;
  boost::system::error_code ec;
  std::size_t consumed = parser.write_some(text->data(), text->size(), ec);
  if (!ec) parser.finish(ec);
  if (!ec && consumed < text->size() &&
      text->find_first_not_of(" \t\r\n", consumed) != std::string::npos) {
    ec = json::error::extra_data;
  }
  if (ec) {
    std::size_t line = 1 + static_cast<std::size_t>(std::count(text->begin(), text->begin() + consumed, '\n'));
    return Error::malformed(path.string(), line, "json.syntax", "not valid JSON: " + ec.message());
  }
  return parser.release();
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
      out << pad << json::serialize(json::string_view(member.key())) << ": ";
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
    out << json::serialize(value);
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
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Error::unreadable(path.string(), fmt::format("cannot replace: {}", std::strerror(err)));
  }
  return {};
}

std::size_t line_of_member(std::string_view text, std::string_view member) {
  const std::string needle = fmt::format("\"{}\"", member);
  std::size_t pos = text.find(needle);
  if (pos == std::string_view::npos) return 1;
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

}  // namespace msptk
