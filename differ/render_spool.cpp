#include "msptk/differ/render.hpp"
#include "render_parts.hpp"

#include "msptk/transcript/json_io.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace msptk {

namespace json = boost::json;

namespace {

Error spool_error(std::string_view what) {
  return Error::unreadable("(temporary file)", fmt::format("cannot {} the diff report's spool: {}", what,
                                                             std::strerror(errno)));
}

}  // namespace

Result<std::unique_ptr<SpooledReport>> SpooledReport::create(ReportFormat format, TextStyle style) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) {
    errno = ec.value();
    return spool_error("create");
  }
  std::string name = (dir / "msptk-diff-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return spool_error("create");
  ::unlink(name.c_str());  // gone with the process, whatever happens
  std::FILE* file = ::fdopen(fd, "w+b");
  if (!file) {
    const int err = errno;
    ::close(fd);
    errno = err;
    return spool_error("create");
  }
  return std::make_unique<SpooledReport>(format, style, file);
}

SpooledReport::SpooledReport(ReportFormat format, TextStyle style, std::FILE* file)
    : format_(format), style_(style), file_(file) {}

SpooledReport::~SpooledReport() { std::fclose(file_); }

void SpooledReport::begin() {
  starts_.push_back(failed_ ? 0 : std::ftell(file_));
  counts_.push_back(0);
}

void SpooledReport::entry(const DiffResult& result, DiffEntry&& entry) {
  if (failed_ || starts_.empty()) return;
  std::ostringstream out;
  if (format_ == ReportFormat::text) {
    render_parts::text_entry(out, result, entry, style_);
  } else {
    if (counts_.back() > 0) out << ",\n";
    out << "        ";  // an element of "frames" (indent 6) of a comparison (indent 4)
    write_pretty(out, render_parts::frame_json(result, entry), 8);
  }
  ++counts_.back();
  buffer_ = std::move(out).str();
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
    failed_ = spool_error("write");
}

Result<void> SpooledReport::copy(std::ostream& out, std::size_t comparison) {
  const long end = comparison + 1 < starts_.size() ? starts_[comparison + 1] : std::ftell(file_);
  if (end < 0 || std::fseek(file_, starts_[comparison], SEEK_SET) != 0) return spool_error("read");
  buffer_.resize(1 << 16);
  for (long left = end - starts_[comparison]; left > 0;) {
    const std::size_t want = std::min<std::size_t>(buffer_.size(), static_cast<std::size_t>(left));
    const std::size_t got = std::fread(buffer_.data(), 1, want, file_);
    if (got != want) return spool_error("read");
    out.write(buffer_.data(), static_cast<std::streamsize>(got));
    left -= static_cast<long>(got);
  }
  return {};
}

Result<void> SpooledReport::finish(std::ostream& out, const DiffReport& report) {
  if (failed_) return *failed_;
  if (std::fflush(file_) != 0) return spool_error("write");
  if (starts_.size() != report.comparisons.size())
    return Error::usage(fmt::format("a spooled diff report saw {} comparisons, the report has {}", starts_.size(),
                                    report.comparisons.size()));
  // Copying moves the file position: the end of the last comparison's entries is taken first.
  starts_.push_back(std::ftell(file_));
  if (format_ == ReportFormat::text) {
    for (std::size_t k = 0; k < report.comparisons.size(); ++k) {
      const DiffResult& r = report.comparisons[k];
      render_parts::text_head(out, report, r, style_);
      if (auto done = copy(out, k); !done) return done.error();
      render_parts::text_tail(out, report, r, style_);
    }
    render_parts::text_end(out, report, style_);
    return {};
  }
  // render_json's document, with each comparison's "frames" array (its last member) copied from
  // the spool. Only fixed text precedes "comparisons" (kind, schemaVersion, verdict, counts).
  json::value top = to_json(report);
  top.as_object()["comparisons"] = json::array();
  const std::string outer = pretty(top);
  const std::string_view marker = "\"comparisons\": []";
  const std::size_t at = outer.find(marker);
  if (at == std::string::npos) return Error::usage("a spooled diff report lost its comparisons");
  out << std::string_view(outer).substr(0, at) << "\"comparisons\": ";
  if (report.comparisons.empty()) out << "[]";
  for (std::size_t k = 0; k < report.comparisons.size(); ++k) {
    out << (k == 0 ? "[\n" : ",\n") << "    ";
    std::ostringstream one;
    write_pretty(one, to_json(report.comparisons[k]), 4);
    const std::string text = std::move(one).str();
    const std::string_view tail = "[]\n    }";  // its "frames", empty: the entries are spooled
    if (!std::string_view(text).ends_with(tail)) return Error::usage("a spooled diff report lost its frames");
    out << std::string_view(text).substr(0, text.size() - tail.size());
    if (counts_[k] == 0) {
      out << "[]";
    } else {
      out << "[\n";
      if (auto done = copy(out, k); !done) return done.error();
      out << "\n      ]";
    }
    out << "\n    }";
  }
  if (!report.comparisons.empty()) out << "\n  ]";
  out << std::string_view(outer).substr(at + marker.size()) << "\n";
  return {};
}

}  // namespace msptk
