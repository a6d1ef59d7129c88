#include "msptk/show/show.hpp"

#include "msptk/show/prune.hpp"
#include "msptk/show/summary.hpp"
#include "msptk/transcript/body_scan.hpp"
#include "msptk/transcript/correlator.hpp"
#include "msptk/transcript/input_file.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/line_encoder.hpp"
#include "msptk/transcript/line_source.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/text_key.hpp"
#include "msptk/transcript/scenario.hpp"
#include "msptk/wirelog/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

namespace msptk::show {

namespace fs = std::filesystem;
namespace json = boost::json;

std::string_view to_string(RowKind kind) {
  switch (kind) {
    case RowKind::request: return "request";
    case RowKind::response: return "response";
    case RowKind::notification: return "notification";
    case RowKind::server_request: return "server request";
    case RowKind::answer: return "answer";
    case RowKind::error: return "error";
    case RowKind::invalid: return "invalid";
  }
  return "invalid";
}

std::string_view json_name(RowKind kind) { return kind == RowKind::server_request ? "serverRequest" : to_string(kind); }

Result<LineRange> parse_line_range(std::string_view text) {
  auto number = [](std::string_view s, std::size_t& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && out > 0;
  };
  LineRange range;
  const std::size_t dash = text.find('-');
  bool ok = false;
  if (dash == std::string_view::npos) {
    ok = number(text, range.first);
    range.last = range.first;
  } else {
    ok = number(text.substr(0, dash), range.first) &&
         (dash + 1 == text.size() || number(text.substr(dash + 1), range.last)) &&
         (range.last == 0 || range.last >= range.first);
  }
  if (!ok) return Error::usage(fmt::format("--lines {}: expected A-B, A- or A (1-based transcript lines, A <= B)", text));
  return range;
}

bool ShowOptions::shows_method(std::string_view method) const {
  if (methods.empty()) return true;
  return std::any_of(methods.begin(), methods.end(), [&](const std::string& m) {
    if (!m.empty() && m.back() == '*') return method.substr(0, m.size() - 1) == std::string_view(m).substr(0, m.size() - 1);
    return method == m;
  });
}

Result<ShowTarget> locate_target(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Error::unreadable(path.string(), "no such file or folder");
  if (!fs::is_directory(path, ec)) return ShowTarget{path, {}};
  auto files = locate_scenario(path);
  if (!files) return files.error();
  if (!fs::exists(files->transcript, ec))
    return Error::unreadable(path.string(), "not a scenario folder (no transcript.ndjson): give a scenario folder or a transcript file");
  return ShowTarget{files->transcript, files->legs};
}

namespace {

// A frame's text larger than this is checked with only its top level built and looked at through
// its pruned text (prune.hpp): its DOM would take many times its size.
constexpr std::size_t kPruneAbove = 64 * 1024;

// The DOM show looks at for the frame text `text` (classify, summarize), in `storage`: the text's
// own, or beyond kPruneAbove its pruned text's (written into `pruned`) once parse_json_top has
// checked the whole text exactly as parse_json would.
JsonResult<json::value> parse_for_row(std::string_view text, json::storage_ptr storage, std::string& pruned) {
  const ParseLimits limits{.utf8_known = true};
  if (text.size() <= kPruneAbove) return parse_json(text, std::move(storage), limits);
  if (auto checked = parse_json_top(text, storage, limits); !checked) return checked.error();
  prune_for_summary(text, pruned);
  return parse_json(pruned, std::move(storage), limits);
}

// Whether the transcript line `text` may hold a frame with a member named "id" (so a request or
// a response). A line whose frame is in `raw` (it starts as the writer writes one) is looked at
// undecoded (body_scan.hpp); any other line (rawBase64, other spacing or member order) is decoded
// to find out.
bool frame_may_name_id(std::string_view text) {
  if (!canonical_head_dir(text)) return true;
  return line_may_name_id(text.substr(kCanonicalHeadSize));
}

// The requests of `file` no later frame answers, by line. Only lines that may name an id are
// decoded and parsed (frame_may_name_id): the others cannot change what a Correlator knows.
Result<std::vector<std::size_t>> unanswered_lines(const fs::path& file) {
  auto source = LineSource::open(file);
  if (!source) return source.error();
  Correlator correlator;
  JsonArena arena;
  std::string pruned;
  std::size_t number = 0;
  while (auto line = source->next()) {
    ++number;
    if (!*line) return line->error();
    if ((*line)->oversized || !frame_may_name_id((*line)->text)) continue;
    std::string_view text = (*line)->text;
    if (text.ends_with('\r')) text.remove_suffix(1);  // as the reader reads a CR LF line
    auto frame = parse_transcript_line(text, file.string(), number);
    if (!frame) continue;
    ArenaScope scope(arena);
    auto value = parse_for_row(frame->json_text(), scope.storage(), pruned);
    release_large(pruned);
    if (!value) continue;
    correlator.observe(frame->dir, classify(*value), number);
  }
  std::vector<std::size_t> lines;
  for (const Correlator::Request& r : correlator.in_flight()) lines.push_back(r.line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// Makes the rows of one transcript, one frame at a time.
class RowMaker {
 public:
  RowMaker(std::vector<std::size_t> unanswered) : unanswered_(std::move(unanswered)) {}

  // The row of `frame`; its summary only when `needs_summary(row)` says so once the row's kind,
  // direction and method are known (a member of a folded run, a row filtered out). When
  // `likely_unsummarized` a frame the scan declines is first checked with only its top level
  // built (parse_json_top: the same verdict on the text, no memory for its body): a request or a
  // notification (classify looks no deeper for those) that needs no summary is done there.
  template <class NeedsSummary>
  Row make(const Frame& frame, const NeedsSummary& needs_summary, bool likely_unsummarized) {
    // Almost every frame of a session is a notification text_key.hpp's scan accepts: valid JSON,
    // a notification by classify (exactly the verdict of the parse below). Its summary, when one
    // is shown, comes from the pruned text (strings cut to one column more than a summary shows),
    // not from a parse of a text of megabytes.
    if (const std::optional<TextKey> key = notification_text_key_pruned(frame.json_text(), kSummaryTextColumns + 1, pruned_)) {
      Row row = base_row(frame);
      const Envelope envelope = key->envelope();
      fill(row, frame, envelope);
      correlator_.observe(frame.dir, envelope, frame.line);
      if (needs_summary(row)) {
        ArenaScope scope(arena_);
        if (auto value = parse_json(pruned_, scope.storage(), ParseLimits{.utf8_known = true}))
          row.summary = summarize(*value, envelope);
      }
      release_large(pruned_);
      return row;
    }
    if (likely_unsummarized) {
      if (std::optional<Row> row = unsummarized_row(frame, needs_summary)) return *row;
    }
    Row row = base_row(frame);
    ArenaScope scope(arena_);
    auto value = parse_for_row(frame.json_text(), scope.storage(), pruned_);
    if (!value) {
      row.kind = RowKind::invalid;
      row.summary = value.error().about("the frame");
      correlator_.observe(frame.dir, Envelope{}, frame.line);
      return row;
    }
    const Envelope envelope = classify(*value);
    const Correlator::Outcome outcome = correlator_.observe(frame.dir, envelope, frame.line);
    fill(row, frame, envelope);
    if (envelope.kind == FrameKind::response) {
      if (outcome.status == Correlator::Status::unmatched || !outcome.answered) {
        row.unmatched = true;
      } else {
        row.method = outcome.answered->method;
        row.request_line = outcome.answered->line;
        row.under_request = outcome.answered->line + 1 == frame.line;
      }
    }
    if (needs_summary(row)) row.summary = summarize(*value, envelope);
    release_large(pruned_);
    return row;
  }

 private:
  // The row of a request or notification that needs no summary, from the frame's top level only;
  // nullopt when it is neither or needs a summary.
  template <class NeedsSummary>
  std::optional<Row> unsummarized_row(const Frame& frame, const NeedsSummary& needs_summary) {
    ArenaScope scope(arena_);
    auto top = parse_json_top(frame.json_text(), scope.storage(), ParseLimits{.utf8_known = true});
    if (!top) return std::nullopt;
    const Envelope envelope = classify(*top);
    if (envelope.kind != FrameKind::request && envelope.kind != FrameKind::notification) return std::nullopt;
    Row row = base_row(frame);
    fill(row, frame, envelope);
    if (needs_summary(row)) return std::nullopt;
    correlator_.observe(frame.dir, envelope, frame.line);
    return row;
  }

  static Row base_row(const Frame& frame) {
    Row row;
    row.line = row.last_line = frame.line;
    row.dir = frame.dir;
    row.raw_base64 = frame.exact_bytes.has_value();
    row.frame = &frame;
    return row;
  }

  // What the envelope says of the row: its kind, id and method (a response's method is its
  // request's, which the correlator knows).
  void fill(Row& row, const Frame& frame, const Envelope& envelope) const {
    if (envelope.id) row.id = id_key(*envelope.id);
    switch (envelope.kind) {
      case FrameKind::request:
        row.kind = frame.dir == Direction::client ? RowKind::request : RowKind::server_request;
        row.method = envelope.method;
        row.unanswered = std::binary_search(unanswered_.begin(), unanswered_.end(), frame.line);
        break;
      case FrameKind::notification:
        row.kind = RowKind::notification;
        row.method = envelope.method;
        break;
      case FrameKind::response:
        row.kind = envelope.is_error ? RowKind::error : frame.dir == Direction::server ? RowKind::response : RowKind::answer;
        break;
      case FrameKind::invalid:
        row.kind = RowKind::invalid;
        break;
    }
  }

  std::vector<std::size_t> unanswered_;
  std::string pruned_;  // the frame's pruned text (notification_text_key_pruned)
  Correlator correlator_;
  JsonArena arena_;
};

// Folds runs of one notification and counts what it passes on.
class Folder {
 public:
  Folder(RowSink& sink, bool fold, Totals& totals) : sink_(sink), fold_(fold), totals_(totals) {}

  void add(Row row) {
    count(row);
    if (!fold_) return sink_.row(row);
    if (!pending_.empty() && !same_run(pending_.front(), row)) flush();
    if (row.kind != RowKind::notification) return sink_.row(row);
    if (!pending_.empty() && pending_.front().count > 1) {  // a fold in progress
      sink_.fold_member(row);
      pending_.front().count += 1;
      pending_.front().last_line = row.line;
      return;
    }
    if (pending_.size() < 2) {
      row.frame = nullptr;  // valid only now: kept rows may not point at it
      pending_.push_back(std::move(row));
      if (sink_.wants_frames() && row_frame_copy_) pending_frames_.push_back(*row_frame_copy_);
      return;
    }
    if (pending_.size() == 2) {  // the third of a run: a fold from now on
      for (std::size_t i = 0; i < 2; ++i) {
        pending_[i].frame = frame_of(i);
        sink_.fold_member(pending_[i]);
        pending_[i].frame = nullptr;
      }
      pending_.resize(1);
      pending_frames_.clear();
      pending_.front().count = 2;
    }
    sink_.fold_member(row);
    Row& fold = pending_.front();
    fold.count += 1;
    fold.last_line = row.line;
  }

  // Whether add(row) would only count `row` into the folded run in progress (its summary is then
  // not shown, unless the sink shows every frame).
  bool absorbs(const Row& row) const {
    return fold_ && !sink_.wants_frames() && !pending_.empty() && same_run(pending_.front(), row) &&
           (pending_.front().count > 1 || pending_.size() == 2);
  }

  // Whether a run is folding notifications from `dir`: the next one of its method is absorbed.
  bool folding(Direction dir) const {
    return fold_ && !sink_.wants_frames() && !pending_.empty() && pending_.front().dir == dir &&
           (pending_.front().count > 1 || pending_.size() == 2);
  }

  // The frame of the row add() is given next (it must outlive the call): the folder copies the
  // first two frames of a possible run, so a fold member can still show them.
  void set_frame(const Frame* frame) { row_frame_copy_ = frame; }

  void flush() {
    if (pending_.empty()) return;
    if (pending_.front().count > 1) {
      sink_.row(pending_.front());
    } else {
      for (std::size_t i = 0; i < pending_.size(); ++i) {
        pending_[i].frame = frame_of(i);
        sink_.row(pending_[i]);
      }
    }
    pending_.clear();
    pending_frames_.clear();
  }

 private:
  const Frame* frame_of(std::size_t i) const { return i < pending_frames_.size() ? &pending_frames_[i] : nullptr; }
  static bool same_run(const Row& a, const Row& b) {
    return b.kind == RowKind::notification && a.dir == b.dir && a.method == b.method;
  }
  void count(const Row& row) {
    ++totals_.frames;
    ++totals_.by_kind[static_cast<std::size_t>(row.kind)];
    if (row.unanswered) totals_.unanswered.push_back(Unanswered{row.line, *row.dir, row.method, row.id});
  }

  RowSink& sink_;
  bool fold_;
  Totals& totals_;
  std::vector<Row> pending_;  // the run so far: one or two rows, or one fold row (count > 1)
  std::vector<Frame> pending_frames_;
  const Frame* row_frame_copy_ = nullptr;
};

bool shown_row(const ShowOptions& options, const Row& row) {
  return (!options.lines || options.lines->contains(row.line)) && (options.methods.empty() || options.shows_method(row.method));
}

Error wire_log_short(const std::string& file, std::size_t line) {
  return Error::malformed(file, line, "show.wire-log",
                          "the wire log has no frame for this transcript line (is it the wire log of this recording?)");
}

}  // namespace

Result<Totals> show_transcript(const ShowTarget& target, const ShowOptions& options, RowSink& sink) {
  if (auto ok = require_rereadable(target.transcript, "show"); !ok) return ok.error();
  auto unanswered = unanswered_lines(target.transcript);
  if (!unanswered) return unanswered.error();
  auto reader = TranscriptReader::open(target.transcript);
  if (!reader) return reader.error();
  std::optional<wirelog::FrameTimeline> timeline;
  if (options.wire_log) {
    auto opened = wirelog::FrameTimeline::open(*options.wire_log);
    if (!opened) return opened.error();
    timeline = std::move(*opened);
  }
  std::vector<std::string> legs;
  for (const fs::path& l : target.legs) legs.push_back(l.string());
  sink.begin(target.transcript.string(), legs);
  Totals totals;
  RowMaker maker(std::move(*unanswered));
  Folder folder(sink, options.fold, totals);
  std::map<std::size_t, std::int64_t> request_times;  // requests in flight: line → time
  while (auto item = reader->next()) {
    if (options.lines && options.lines->last && reader->line() > options.lines->last) break;
    std::optional<wirelog::FrameTime> time;
    if (item->has_value() && timeline) {
      auto next = timeline->next();
      if (!next) return wire_log_short(target.transcript.string(), reader->line());
      if (!*next) return next->error();
      time = **next;
    }
    Row row;
    Frame frame;
    if (!*item) {
      const Error& e = item->error();
      if (e.kind == ErrorKind::unreadable && e.line == 0) return e;
      row.line = row.last_line = reader->line();
      row.kind = RowKind::invalid;
      row.summary = e.message + (e.rule.empty() ? "" : " [" + e.rule + "]");
    } else {
      frame = std::move(**item);
      const bool filtered = options.lines || !options.methods.empty();
      row = maker.make(frame, [&](const Row& r) { return shown_row(options, r) && !folder.absorbs(r); },
                       filtered || folder.folding(frame.dir));
    }
    if (time) {
      row.t_micros = time->micros;
      if (row.kind == RowKind::request || row.kind == RowKind::server_request) request_times[row.line] = time->micros;
      if (row.request_line) {
        if (auto it = request_times.find(row.request_line); it != request_times.end()) {
          row.latency_micros = time->micros - it->second;
          request_times.erase(it);
        }
      }
    }
    if (shown_row(options, row)) {
      folder.set_frame(&frame);
      folder.add(std::move(row));
    }
    reader->recycle(std::move(frame));
  }
  folder.flush();
  sink.end(totals);
  return totals;
}

namespace {

class Capture final : public RowSink {
 public:
  void begin(const std::string&, const std::vector<std::string>&) override {}
  void row(const Row& row) override {
    detail = FrameDetail{row, row.frame ? *row.frame : Frame{}};
    detail->row.frame = nullptr;
  }
  void end(const Totals&) override {}
  std::optional<FrameDetail> detail;
};

}  // namespace

Result<FrameDetail> find_frame(const fs::path& transcript, std::size_t line, const std::optional<fs::path>& wire_log) {
  ShowOptions options;
  options.lines = LineRange{line, line};
  options.fold = false;
  options.wire_log = wire_log;
  Capture capture;
  auto totals = show_transcript(ShowTarget{transcript, {}}, options, capture);
  if (!totals) return totals.error();
  if (!capture.detail)
    return Error::usage(fmt::format("--frame {}: {} has no line {}", line, transcript.string(), line));
  return std::move(*capture.detail);
}

}  // namespace msptk::show
