// Showing a session: the frames of one transcript as a person reads them, a Row each, in
// transcript order. A row says who sent the frame (client → host, host → client), what it is
// (request, response, notification, server request, answer, error), its method — for a response
// the method of the request it answers, found by the Correlator —, its id and a one-line summary
// of its params, result or error (summary.hpp). A response directly after the request it
// answers is marked `under_request`; a request the transcript never answers (`unanswered`) and a
// response that answers no request in flight (`unmatched`) are marked so renderers can make them
// stand out. A run of three or more consecutive notifications of one method and direction is
// folded into one row (`count`, lines `line`–`last_line`) unless ShowOptions::fold is off.
//
// show_transcript streams: it reads the file twice (once to learn which requests stay
// unanswered: requests and responses only, notifications are not decoded; once to make the
// rows), so a pipe or FIFO is refused up front (input_file.hpp). It holds one frame at a time
// and hands each row to a RowSink as it is made, so memory does not grow with the transcript
// (the requests in flight and the folded run's first frame only), nor with a frame's count of
// values: a frame is checked with only its top level built and summarized from its pruned text
// (strings and containers cut to what a summary can show).
// With a wire log (`record --wire-log`) each row also gets its time since the recording
// started and a response its latency after its request (wirelog/timeline.hpp).
// Renderers (render.hpp) are RowSinks: text, JSON (docs/show-json.md) and HTML.
#pragma once

#include "msptk/transcript/error.hpp"
#include "msptk/transcript/frame.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::show {

enum class RowKind { request, response, notification, server_request, answer, error, invalid };
inline constexpr std::size_t kRowKinds = 7;

// "request", "response", "notification", "server request", "answer", "error", "invalid"
std::string_view to_string(RowKind kind);
// The JSON spelling: the same in camelCase ("serverRequest").
std::string_view json_name(RowKind kind);

struct Row {
  std::size_t line = 0;       // transcript line (the first of a folded run)
  std::size_t last_line = 0;  // the last line of a folded run (== line for one frame)
  std::size_t count = 1;      // frames this row stands for (> 1: a folded run)
  std::optional<Direction> dir;  // unset for a line that is not a frame at all
  RowKind kind = RowKind::invalid;
  std::string method;         // a response's: the method of the request it answers ("" when none)
  std::string id;             // the id as compact JSON ("3", "\"b9\"", "null"); "" when the frame has none
  std::string summary;        // one line (summary.hpp); for `invalid`: what is wrong
  bool under_request = false; // a response on the line right after the request it answers
  bool unanswered = false;    // a request no later frame answers
  bool unmatched = false;     // a response no request in flight has the id of
  std::size_t request_line = 0;  // a matched response: its request's line
  bool raw_base64 = false;    // the line carried rawBase64 (the wire bytes were not UTF-8)
  std::optional<std::int64_t> t_micros;        // --wire-log: when the frame was complete
  std::optional<std::int64_t> latency_micros;  // --wire-log, a matched response: after its request
  const Frame* frame = nullptr;  // the frame, valid only during RowSink::row / fold_member; null for a fold
};

struct Unanswered {
  std::size_t line = 0;
  Direction dir = Direction::client;
  std::string method;
  std::string id;
};

struct Totals {
  std::size_t frames = 0;                    // frames shown (after --method / --lines)
  std::array<std::size_t, kRowKinds> by_kind{};  // indexed by RowKind
  std::vector<Unanswered> unanswered;        // shown requests never answered, in order
  std::size_t count(RowKind kind) const { return by_kind[static_cast<std::size_t>(kind)]; }
};

struct LineRange {
  std::size_t first = 1;
  std::size_t last = 0;  // 0: to the end
  bool contains(std::size_t line) const { return line >= first && (last == 0 || line <= last); }
};

// "A-B", "A-", "A" (one line); an error (usage) otherwise.
Result<LineRange> parse_line_range(std::string_view text);

struct ShowOptions {
  std::vector<std::string> methods;  // shown methods: exact, or a prefix ending in '*' ("item/*"); empty: all
  std::optional<LineRange> lines;
  bool fold = true;                  // fold runs of one notification (--all: off)
  std::optional<std::filesystem::path> wire_log;

  bool shows_method(std::string_view method) const;
};

class RowSink {
 public:
  virtual ~RowSink() = default;
  // The transcript shown and the legs files beside it (a scenario folder's).
  virtual void begin(const std::string& file, const std::vector<std::string>& legs) = 0;
  // Whether Row::frame is wanted for every row (the HTML page shows each frame): the first frames
  // of a possible folded run are then kept until the run is known. Text and JSON need no frames.
  virtual bool wants_frames() const { return false; }
  // A frame that belongs to the folded run whose row comes next (each, in order, before row()).
  virtual void fold_member(const Row& /*row*/) {}
  virtual void row(const Row& row) = 0;
  virtual void end(const Totals& totals) = 0;
};

// Which file `path` shows: a scenario folder's transcript.ndjson (and its legs files), or the
// file itself (a transcript or a legs file).
struct ShowTarget {
  std::filesystem::path transcript;
  std::vector<std::filesystem::path> legs;
};
Result<ShowTarget> locate_target(const std::filesystem::path& path);

// Streams the rows of `target` to `sink`. Errors: the file or the wire log cannot be read
// (unreadable), a wire-log line is malformed, or the wire log has fewer frames than the
// transcript (malformed, rule `show.wire-log`). A transcript line that is not a frame is a row of
// kind `invalid` (its error in the summary), not an error.
Result<Totals> show_transcript(const ShowTarget& target, const ShowOptions& options, RowSink& sink);

// The frame on transcript line `line`, with its row (frame set): for `msptk show --frame N`.
struct FrameDetail {
  Row row;
  Frame frame;
};
Result<FrameDetail> find_frame(const std::filesystem::path& transcript, std::size_t line,
                               const std::optional<std::filesystem::path>& wire_log = std::nullopt);

}  // namespace msptk::show
