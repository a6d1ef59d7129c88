#include "msptk/wirelog/wire_log.hpp"

#include "msptk/transcript/framing.hpp"
#include "msptk/transcript/writer.hpp"

#include "msptk/transcript/json_parse.hpp"
#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace msptk::wirelog {

namespace json = boost::json;
namespace fs = std::filesystem;

std::string wire_log_line(std::uint64_t seq, Direction dir, std::int64_t t_micros, std::string_view bytes) {
  return fmt::format("{{\"seq\":{},\"dir\":\"{}\",\"tMicros\":{},\"bytes\":\"{}\"}}\n", seq, to_string(dir), t_micros,
                     base64_encode(bytes));
}

Result<WireLogWriter> WireLogWriter::create(const fs::path& path, std::function<std::int64_t()> micros, bool replace) {
  WireLogWriter writer;
  writer.path_ = path.string();
  if (path.empty()) return Error::usage("--wire-log is empty: give the file to write the wire log to");
  struct stat st {};
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    return Error::usage(fmt::format("--wire-log {}: is a folder (give a file name)", writer.path_));
  if (exists && !replace)
    return Error::usage(fmt::format("--wire-log {}: already exists (a wire log is written to a new file; --force "
                                    "replaces it)",
                                    writer.path_));
  // With `replace`, a new file beside FILE (O_EXCL: never an existing one), renamed over FILE by commit().
  writer.created_ = exists ? fmt::format("{}.tmp.{}", writer.path_, ::getpid()) : writer.path_;
  writer.fd_ = ::open(writer.created_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (writer.fd_ < 0 && errno == EEXIST && !exists)
    return Error::usage(fmt::format("--wire-log {}: already exists (a wire log is written to a new file; --force "
                                    "replaces it)",
                                    writer.path_));
  if (writer.fd_ < 0) {
    const int err = errno;
    writer.created_.clear();
    return Error::unreadable(writer.path_, fmt::format("cannot create the wire log: {}", std::strerror(err)));
  }
  if (!micros) {
    const auto start = std::chrono::steady_clock::now();
    micros = [start] {
      return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
    };
  }
  writer.micros_ = std::move(micros);
  return writer;
}

WireLogWriter::WireLogWriter(WireLogWriter&& other) noexcept
    : path_(std::move(other.path_)),
      created_(std::exchange(other.created_, {})),
      fd_(std::exchange(other.fd_, -1)),
      seq_(other.seq_),
      micros_(std::move(other.micros_)),
      failure_(std::move(other.failure_)) {}

WireLogWriter::~WireLogWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!created_.empty()) ::unlink(created_.c_str());  // never committed: FILE is as it was
}

Result<void> WireLogWriter::commit() {
  if (created_.empty()) return {};
  if (created_ != path_ && ::rename(created_.c_str(), path_.c_str()) != 0)
    return Error::unreadable(path_, fmt::format("cannot replace the wire log: {}", std::strerror(errno)));
  created_.clear();
  return {};
}

void WireLogWriter::append(Direction dir, std::string_view chunk) {
  if (fd_ < 0 || failure_) return;
  const std::string line = wire_log_line(++seq_, dir, micros_(), chunk);
  std::string_view rest = line;
  while (!rest.empty()) {
    const ssize_t n = ::write(fd_, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      failure_ = Error::unreadable(path_, fmt::format("cannot write the wire log: {}", std::strerror(errno)));
      return;
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

Result<WireLogReader> WireLogReader::open(const fs::path& path) {
  WireLogReader reader;
  reader.file_ = path.string();
  reader.in_ = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*reader.in_) return Error::unreadable(reader.file_, fmt::format("cannot read: {}", std::strerror(errno)));
  return reader;
}

std::optional<Result<WireChunk>> WireLogReader::next() {
  if (done_) return std::nullopt;
  std::string text;
  while (std::getline(*in_, text)) {
    const std::size_t line = ++line_;
    if (text.empty()) continue;
    auto bad = [&](const std::string& why) -> std::optional<Result<WireChunk>> {
      done_ = true;
      return Result<WireChunk>(Error::malformed(file_, line, "wirelog.line", why));
    };
    auto parsed = parse_json(text);
    if (!parsed) return bad(fmt::format("not JSON: {}", parsed.error().describe()));
    const json::value& value = *parsed;
    if (!value.is_object()) return bad("not a JSON object");
    const json::object& object = value.get_object();
    WireChunk chunk;
    chunk.line = line;
    const json::value* seq = object.if_contains("seq");
    if (!seq || !(seq->is_int64() || seq->is_uint64()) || seq->to_number<std::int64_t>() <= 0)
      return bad("\"seq\" must be a positive integer");
    chunk.seq = seq->to_number<std::uint64_t>();
    const std::uint64_t expected = last_seq_ + 1;
    if (chunk.seq != expected) return bad(fmt::format("\"seq\" is {}, expected {} (a chunk is missing)", chunk.seq, expected));
    const json::value* dir = object.if_contains("dir");
    std::optional<Direction> direction = dir && dir->is_string() ? parse_direction(dir->get_string()) : std::nullopt;
    if (!direction) return bad("\"dir\" must be \"client\" or \"server\"");
    chunk.dir = *direction;
    const json::value* t = object.if_contains("tMicros");
    if (!t || !t->is_int64()) return bad("\"tMicros\" must be an integer");
    chunk.t_micros = t->get_int64();
    auto bad_time = [&](const std::string& why) -> std::optional<Result<WireChunk>> {
      done_ = true;
      return Result<WireChunk>(Error::malformed(file_, line, "wirelog.time", why));
    };
    if (chunk.t_micros < 0)
      return bad_time(fmt::format("\"tMicros\" is {}: a time since the recording started is never negative",
                                  chunk.t_micros));
    if (last_seq_ > 0 && chunk.t_micros < last_t_micros_)
      return bad_time(fmt::format("\"tMicros\" is {}, before the {} of chunk {} (line {}): the times of reads "
                                  "in order never go backwards",
                                  chunk.t_micros, last_t_micros_, last_seq_, last_line_));
    const json::value* bytes = object.if_contains("bytes");
    if (!bytes || !is_json_string(*bytes)) return bad("\"bytes\" must be a base64 string");
    auto decoded = base64_decode(bytes->get_string());
    if (!decoded) return bad("\"bytes\" is not valid base64");
    chunk.bytes = std::move(*decoded);
    last_seq_ = chunk.seq;
    last_t_micros_ = chunk.t_micros;
    last_line_ = line;
    return Result<WireChunk>(std::move(chunk));
  }
  done_ = true;
  if (in_->bad()) return Result<WireChunk>(Error::unreadable(file_, "read error"));
  return std::nullopt;
}

Result<std::vector<WireChunk>> read_wire_log(const fs::path& path) {
  auto reader = WireLogReader::open(path);
  if (!reader) return reader.error();
  std::vector<WireChunk> chunks;
  while (auto chunk = reader->next()) {
    if (!*chunk) return chunk->error();
    chunks.push_back(std::move(**chunk));
  }
  return chunks;
}

namespace {

// True when `bytes` ends inside a UTF-8 multi-byte sequence.
bool ends_inside_code_point(std::string_view bytes) {
  // Look back over at most 3 continuation bytes for the lead byte.
  std::size_t continuation = 0;
  for (std::size_t i = bytes.size(); i > 0 && continuation < 4; --i) {
    const auto c = static_cast<unsigned char>(bytes[i - 1]);
    if ((c & 0xC0) == 0x80) {
      ++continuation;
      continue;
    }
    std::size_t length = 1;
    if ((c & 0xE0) == 0xC0) length = 2;
    else if ((c & 0xF0) == 0xE0) length = 3;
    else if ((c & 0xF8) == 0xF0) length = 4;
    return length > 1 && continuation + 1 < length;
  }
  return false;
}

}  // namespace

WireAnalysis analyze(const std::vector<WireChunk>& chunks) {
  WireAnalysis out;
  LineFramer client_framer, server_framer;
  std::uint64_t client_start = 0, server_start = 0;  // seq of the chunk an open frame began in
  std::string client_tail, server_tail;              // the last bytes of each direction (code points)
  std::int64_t previous_t = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const WireChunk& chunk = chunks[i];
    const bool client = chunk.dir == Direction::client;
    LineFramer& framer = client ? client_framer : server_framer;
    std::uint64_t& start = client ? client_start : server_start;
    DirectionTotals& totals = client ? out.client : out.server;
    ChunkRow row;
    row.seq = chunk.seq;
    row.dir = chunk.dir;
    row.t_micros = chunk.t_micros;
    row.gap_micros = i == 0 ? 0 : chunk.t_micros - previous_t;
    row.bytes = chunk.bytes.size();
    previous_t = chunk.t_micros;
    if (i > 0 && row.gap_micros > out.largest_gap_micros) {
      out.largest_gap_micros = row.gap_micros;
      out.largest_gap_before_seq = chunk.seq;
    }
    if (framer.pending_size() == 0) start = chunk.seq;
    framer.feed(chunk.bytes, [&](const FramedLine& line) {
      if (line.bytes.empty() || line.bytes == "\r") {
        ++row.empty_lines;
        ++totals.empty_lines;
      } else {
        RebuiltFrame frame{chunk.dir, std::string(line.bytes), start == 0 ? chunk.seq : start, chunk.seq};
        if (frame.cut()) ++totals.cut_frames;
        out.frames.push_back(std::move(frame));
        ++row.frames_completed;
        ++totals.frames;
      }
      start = chunk.seq;  // the next frame begins in this chunk
    });
    row.open_bytes = framer.pending_size();
    if (row.open_bytes == 0) start = 0;
    // A code point may be split only inside a frame; look at the pending tail (or the chunk).
    row.splits_code_point = row.open_bytes > 0 && ends_inside_code_point(framer.pending());
    ++totals.chunks;
    totals.bytes += chunk.bytes.size();
    out.rows.push_back(row);
  }
  out.client.unterminated = client_framer.pending_size();
  out.server.unterminated = server_framer.pending_size();
  return out;
}

Result<void> write_rebuilt(const WireAnalysis& analysis, const fs::path& out, const std::vector<fs::path>& inputs) {
  if (out.empty()) return Error::usage("--rebuild is empty: give the transcript file to write");
  struct stat target {};
  if (::stat(out.c_str(), &target) == 0) {
    if (S_ISDIR(target.st_mode)) return Error::usage(fmt::format("--rebuild {}: is a folder (give a file name)", out.string()));
    for (const fs::path& input : inputs) {
      struct stat in {};
      if (::stat(input.c_str(), &in) == 0 && in.st_dev == target.st_dev && in.st_ino == target.st_ino)
        return Error::usage(fmt::format("--rebuild {} is {} itself (the same file): writing it would destroy what is "
                                        "read; choose another OUT",
                                        out.string(), input.string()));
    }
  }
  const fs::path staged = fs::path(fmt::format("{}.tmp.{}", out.string(), ::getpid()));
  ::unlink(staged.c_str());
  auto fail = [&](Error e) -> Result<void> {
    ::unlink(staged.c_str());
    return e;
  };
  {
    auto writer = TranscriptWriter::create(staged, fs::perms::owner_read | fs::perms::owner_write);
    if (!writer) return fail(writer.error());
    for (const RebuiltFrame& frame : analysis.frames)
      if (auto ok = writer->append(frame.dir, frame.bytes); !ok) return fail(ok.error());
  }
  if (::rename(staged.c_str(), out.c_str()) != 0)
    return fail(Error::unreadable(out.string(), fmt::format("cannot write: {}", std::strerror(errno))));
  return {};
}

RebuildCheck compare_with_transcript(const WireAnalysis& analysis, const std::vector<Frame>& transcript,
                                     std::size_t limit) {
  RebuildCheck check;
  auto add = [&](FrameMismatch mismatch) {
    if (check.mismatches.size() < limit) check.mismatches.push_back(std::move(mismatch));
    else ++check.more;
  };
  const std::size_t n = std::min(analysis.frames.size(), transcript.size());
  for (std::size_t i = 0; i < n; ++i) {
    const RebuiltFrame& rebuilt = analysis.frames[i];
    const Frame& recorded = transcript[i];
    ++check.compared;
    const std::string chunks = rebuilt.cut() ? fmt::format("chunks {}-{}", rebuilt.first_seq, rebuilt.last_seq)
                                             : fmt::format("chunk {}", rebuilt.first_seq);
    if (rebuilt.dir != recorded.dir) {
      add({recorded.line, i + 1,
           fmt::format("rebuilt frame {} ({}) is a {} frame, the transcript has a {} frame", i + 1, chunks,
                       to_string(rebuilt.dir), to_string(recorded.dir))});
      continue;
    }
    const std::string& bytes = recorded.wire_bytes();
    if (rebuilt.bytes != bytes) {
      std::size_t at = 0;
      while (at < bytes.size() && at < rebuilt.bytes.size() && bytes[at] == rebuilt.bytes[at]) ++at;
      add({recorded.line, i + 1,
           fmt::format("rebuilt {} frame {} ({}, {} bytes) differs from the transcript's ({} bytes) at byte {}",
                       to_string(rebuilt.dir), i + 1, chunks, rebuilt.bytes.size(), bytes.size(), at + 1)});
    }
  }
  for (std::size_t i = n; i < analysis.frames.size(); ++i)
    add({0, i + 1,
         fmt::format("rebuilt {} frame {} (chunk {}) is not in the transcript", to_string(analysis.frames[i].dir), i + 1,
                     analysis.frames[i].last_seq)});
  for (std::size_t i = n; i < transcript.size(); ++i)
    add({transcript[i].line, 0,
         fmt::format("the transcript's {} frame is not in the wire log", to_string(transcript[i].dir))});
  return check;
}

}  // namespace msptk::wirelog
