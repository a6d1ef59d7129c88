// diff_transcripts: the offline differ over two transcript files, and the shortcuts that make a
// diff cost reading both files plus the work for the lines that differ. The algorithm (keys,
// alignment, comparison of the aligned pairs) is diff.cpp's, the same for frames in memory; this
// file only decides how the files are read and which frames need their keys:
//
// - two files with the same lines byte for byte are compared without parsing a frame
//   (diff_identical_files), and two whose compared frames are the same bytes (another side
//   filtered out, other line forms) without keeping any (the streaming byte path);
// - otherwise both files are read in step, a line of each at a time. A line the actual side has
//   at the same place byte for byte is a twin (TranscriptReader::next_is, without decoding it
//   again). A twin that cannot name an `id` (canonical_line_may_name_id; no request, no
//   response, so nothing a tracker learns) is kept on both sides without decoding or keying it:
//   its keys are deferred (diff_parts.hpp) and settled only if the alignment compares it with a
//   frame other than its twin, whatever came before it (a clientInfo change, re-minted ids, an
//   unpaired id). When such a twin names no place the mask masks either
//   (names_masked_without_id: no `"commandId"` in a client frame, no member of a declared path),
//   paired with its twin it is identical without being read again; otherwise its masked values
//   are paired with themselves from the expected side's line alone (FrameComparer::
//   compare_same), so the bijections and the mask accounting are what reading both gives. A twin
//   that may name an id (a request, a response) is kept *pending* (diff_parts.hpp): its keys
//   need each side's tracker in wire order, so every pending twin is keyed (read again, decoded
//   once for both sides, each tracker naming it after its own requests) before any frame read
//   after it is keyed (PendingTwins); those after the last difference stay unkeyed unless the
//   comparison needs them. Once more than a few places read on both sides hold frames with other
//   keys (differences scattered through the session, which the alignment compares around),
//   twins are keyed as they are read instead. A notification both sides sent elsewhere is keyed
//   once (NotificationCache);
// - after a few twins in a row (twin_run_threshold) the two files are read on as a *run*: line
//   against line, each checked canonical and compared byte for byte, nothing kept or decoded.
//   When both files end inside the run and both trackers name what follows alike, the run is
//   the tail (TailRun): the frames before it are aligned and compared alone (the run is their
//   common suffix), and the run is counted identical unread when no value its frames can hold is
//   contested (TailTwins), else kept and compared a frame at a time. A run cut short (another
//   line, one in another form, an error) is kept as reading it a line at a time would have,
//   re-read from EXPECTED with its id twins keyed in order from the lines in hand, and the
//   threshold doubles: a cut run costs one more read of its lines. Not with declared paths (the
//   mask accounting counts every frame holding one);
// - after the alignment the paired lines that are not twins are read again through the first
//   pass's sources, forward when near each other and at their offset when far apart (FileStore).
// tests/unit/fast_path_test.cpp holds every path to diff_frames over the same frames in memory.
#include "diff_parts.hpp"

#include "msptk/transcript/body_scan.hpp"
#include "msptk/transcript/line_encoder.hpp"
#include "msptk/transcript/line_source.hpp"
#include "msptk/transcript/reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <bitset>
#include <unordered_map>

namespace msptk {

using namespace diff_parts;

namespace {

// The keys of notifications seen lately, by the hash of their JSON text: a notification sent
// identically on both sides (most of two recordings of one session) is parsed and keyed once.
// A notification's keys depend on nothing but its bytes and direction (no request to answer, no
// state), so a hit gives what parsing would. Direct-mapped with a fixed number of entries, so
// its memory does not grow with the transcripts; the two sides are prepared in step (by bytes
// read), so that what one side sent is still there when the other sends it. Like the alignment
// keys it rests on 64-bit hashes (with the text's length and direction).
class NotificationCache final : public KeyCache {
 public:
  std::uint64_t hash(Direction dir, std::string_view text) const override {
    return hash_bytes(text) ^ (dir == Direction::client ? 0x636c69656e74ULL : 0x736572766572ULL);
  }
  std::optional<Hit> find(std::uint64_t hash, std::size_t size) const override {
    const Entry& e = entries_[hash & (kEntries - 1)];
    if (e.method == kNone || e.hash != hash || e.size != size) return std::nullopt;
    return Hit{&methods_[e.method], e.content};
  }
  void put(std::uint64_t hash, std::size_t size, const std::string& method, std::uint64_t content) override {
    auto [it, added] = method_ids_.try_emplace(method, static_cast<std::uint32_t>(methods_.size()));
    if (added) methods_.push_back(method);
    entries_[hash & (kEntries - 1)] = Entry{hash, size, content, it->second};
  }

 private:
  static constexpr std::size_t kEntries = std::size_t{1} << 15;
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  struct Entry {
    std::uint64_t hash = 0;
    std::uint64_t size = 0;
    std::uint64_t content = 0;
    std::uint32_t method = kNone;
  };
  std::vector<Entry> entries_ = std::vector<Entry>(kEntries);
  std::vector<std::string> methods_;
  std::unordered_map<std::string, std::uint32_t> method_ids_;
};

// Reads forward through the file for frames asked for in order and near each other (the usual
// case when frames differ), and at the line's offset for one asked for out of order (a moved
// frame) or far ahead (most frames between were twins: identical without being read again).
class FileStore final : public FrameStore {
 public:
  explicit FileStore(LineSource source) : source_(std::move(source)) {}

  Result<std::optional<std::string_view>> line_text(const FrameRef& ref) override {
    if (ref.index() + 1 == next_ && current_) return current_;
    if (ref.index() >= next_ && ref.offset() - read_to_ <= kReadOn) {
      while (next_ <= ref.index()) {
        auto line = source_.next();
        if (!line) return changed(ref);
        if (!*line) return line->error();
        ++next_;
        current_ = (*line)->text;
        read_to_ = (*line)->offset + (*line)->length + 1;
      }
    } else {
      if (auto again = source_.read_at(ref.offset(), ref.size(), held_); !again) return again.error();
      current_.reset();  // the source has not moved: it still holds line next_ - 1
      return std::optional<std::string_view>(held_);
    }
    return current_;
  }

  Result<const Frame*> get(const FrameRef& ref) override {
    auto got = line_text(ref);
    if (!got) return got.error();
    return parse(**got, ref, frame_);
  }

  Result<const Frame*> get_aside(const FrameRef& ref) override {
    if (auto again = source_.read_at(ref.offset(), ref.size(), aside_); !again) return again.error();
    return parse(aside_, ref, aside_frame_);
  }

 private:
  Result<const Frame*> parse(std::string_view text, const FrameRef& ref, Frame& into) const {
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    Result<Frame> frame = parse_transcript_line(text, source_.file(), ref.line());
    if (!frame) return changed(ref);
    into = std::move(*frame);
    return &into;
  }

  Error changed(const FrameRef& ref) const {
    return Error::unreadable(source_.file(), fmt::format("line {} changed while it was being diffed", ref.line()));
  }

  // Reading on through up to this many bytes beats reading the line at its offset.
  static constexpr std::uint64_t kReadOn = 256 * 1024;
  LineSource source_;
  std::size_t next_ = 0;                     // index of the next line source_ hands out
  std::uint64_t read_to_ = 0;                // file offset of that line
  std::optional<std::string_view> current_;  // the text of line next_ - 1, while source_ holds it
  std::string held_;
  Frame frame_;
  std::string aside_;  // get_aside's line and frame (get's stay valid)
  Frame aside_frame_;
};

// The twins kept pending (diff_parts.hpp), in wire order, each keyed in that order: all of them
// before any frame read after them is keyed, and up to a given one when the alignment or the
// comparison needs it. Only the twins of the tail after the last difference are usually left:
// their lines are read again (a pread each) only if needed. 32 bytes a twin.
class PendingTwins final : public PendingKeys {
 public:
  PendingTwins(std::filesystem::path expected, Preparer& e, Preparer& a)
      : expected_(std::move(expected)), e_(e), a_(a) {}

  // A twin at `at` of EXPECTED (its slot there, if any) and on line `a_line` of ACTUAL (its slot).
  void add(const Place& at, std::optional<std::size_t> e_slot, std::size_t a_line, std::optional<std::size_t> a_slot) {
    entries_.push_back(Entry{FrameRef(at.index, at.line, at.offset, at.size, FrameRole{}),
                             static_cast<std::uint32_t>(a_line), slot(e_slot), slot(a_slot)});
  }
  bool empty() const override { return next_ == entries_.size(); }

  Result<void> key_all() {
    while (!empty())
      if (auto keyed = key_next(); !keyed) return keyed;
    return {};
  }
  Result<void> key_e(std::size_t i) override { return key_through(e_, i, &Entry::e_slot); }
  Result<void> key_a(std::size_t j) override { return key_through(a_, j, &Entry::a_slot); }

  // A source over EXPECTED for reading lines again (opened once; read_at does not move it).
  Result<LineSource*> source() {
    if (!source_) {
      auto opened = LineSource::open(expected_);
      if (!opened) return opened.error();
      source_.emplace(std::move(*opened));
    }
    return &*source_;
  }

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  struct Entry {
    FrameRef e;  // where EXPECTED has it
    std::uint32_t a_line, e_slot, a_slot;
  };
  static std::uint32_t slot(std::optional<std::size_t> k) { return k ? static_cast<std::uint32_t>(*k) : kNone; }
  static std::optional<std::size_t> slot(std::uint32_t k) {
    return k == kNone ? std::nullopt : std::optional<std::size_t>(k);
  }

  Result<void> key_through(const Preparer& side, std::size_t k, std::uint32_t Entry::*which) {
    if (!side.prepared().pending(k)) return {};
    while (!empty()) {
      const bool last = entries_[next_].*which == k;
      if (auto keyed = key_next(); !keyed) return keyed;
      if (last) break;
    }
    return {};
  }

  Result<void> key_next() {
    const Entry entry = entries_[next_];
    if (auto opened = source(); !opened) return opened.error();
    if (auto read = source_->read_at(entry.e.offset(), entry.e.size(), line_); !read) return read.error();
    std::string_view text = line_;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    Result<Frame> frame = parse_transcript_line(text, source_->file(), entry.e.line());
    if (!frame)
      return Error::unreadable(source_->file(),
                               fmt::format("line {} changed while it was being diffed", entry.e.line()));
    e_.observe_pending(*frame, entry.e.line(), slot(entry.e_slot), a_, entry.a_line, slot(entry.a_slot));
    if (++next_ == entries_.size()) {  // all keyed: the memory is given back
      entries_.clear();
      next_ = 0;
    }
    return {};
  }

  std::filesystem::path expected_;
  Preparer& e_;
  Preparer& a_;
  std::vector<Entry> entries_;
  std::size_t next_ = 0;
  std::optional<LineSource> source_;
  std::string line_;
};

// The member names of which a frame of direction `dir` with no member "id" at any depth (so no
// request and no response) must hold at least one for Masker::rule_for to give anything but
// `exact` (or `ignore`) at a place of it: "commandId" in client frames (params.commandId; the
// clientInfo rules are initialize's, a request), and one member name of each declared path.
// nullopt when no such list exists (a declared path without a member name JSON spells as it
// is). The names are ASCII letters, digits, '_', '-' and '$', which JSON text spells as they are
// or with \u escapes.
std::optional<std::vector<std::string>> names_masked_without_id(const Masker& masker, Direction dir) {
  std::vector<std::string> names;
  if (dir == Direction::client) names.emplace_back("commandId");
  auto plain = [](const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
             c == '$';
    });
  };
  for (const JsonPath& path : masker.spec().declared) {
    // A place the path selects lies under a member of each of its named steps (the last one
    // named: the rarest as a rule).
    const auto& steps = path.steps();
    auto named = std::find_if(steps.rbegin(), steps.rend(), [&](const JsonPath::Step& step) {
      return step.kind == JsonPath::Step::Kind::member && plain(step.name);
    });
    if (named == steps.rend()) return std::nullopt;
    if (std::find(names.begin(), names.end(), named->name) == names.end()) names.push_back(named->name);
  }
  return names;
}

// Which twins are kept without their keys, and which of those need not be read again (see the
// top of this file). A member name JSON text holds either as it is, `"name"` (in a canonical
// line `\"name\"`: the writer escapes a quote as \" and leaves the names' characters as they
// are), or with some of its characters as \u escapes. So a text with no `"id` and no \u escape
// of an `i` or a `d` has no member "id" (canonical_line_may_name_id asks the cheaper question, no
// `\"id` and no \u at all, first), and one with no `"name"` and no \u escape of a character of
// the name has no member `name` (names_masked_without_id, per direction).
class TwinProof {
 public:
  explicit TwinProof(const Masker& masker) {
    for (Direction dir : {Direction::client, Direction::server}) {
      Needles& n = needles_[static_cast<int>(dir)];
      const auto names = names_masked_without_id(masker, dir);
      n.provable = names.has_value();
      if (!names) continue;
      for (const std::string& name : *names) {
        n.in_line.push_back("\\\"" + name + "\\\"");
        n.in_json.push_back("\"" + name + "\"");
        for (char c : name) n.spelled.set(static_cast<unsigned char>(c));
      }
    }
  }

  // For the frame `reader` has just read (undecoded when canonical): nullopt when it may name an
  // id (keyed now), else whether it is quiet (Prepared::quiet).
  std::optional<bool> deferrable(TranscriptReader& reader, Frame& frame) const {
    if (reader.facts().canonical) return deferrable_line(frame.dir, reader.line_text());
    const Needles& n = needles_[static_cast<int>(frame.dir)];
    reader.decode(frame);
    return deferrable(frame.json_text(), "\"id", "\\u", n.in_json, n);
  }
  // The same for a line in the canonical form, of direction `dir`.
  std::optional<bool> deferrable_line(Direction dir, std::string_view line) const {
    const Needles& n = needles_[static_cast<int>(dir)];
    if (!canonical_line_may_name_id(line)) return n.provable && !holds_any(line, n.in_line);
    return deferrable(line, "\\\"id", "\\\\u", n.in_line, n);
  }

 private:
  using Chars = std::bitset<128>;
  struct Needles {
    bool provable = false;
    std::vector<std::string> in_line, in_json;
    Chars spelled;  // the characters of the names
  };

  // `quote_id` is how `"id` is written in `text`, `escape` how a \u escape starts.
  static std::optional<bool> deferrable(std::string_view text, std::string_view quote_id, std::string_view escape,
                                        const std::vector<std::string>& names, const Needles& n) {
    if (holds(text, quote_id)) return std::nullopt;
    const Chars escaped = escaped_chars(text, escape);
    if (escaped.test('i') || escaped.test('d')) return std::nullopt;
    return n.provable && (escaped & n.spelled).none() && !holds_any(text, names);
  }

  // The ASCII characters \u escapes of `text` may spell (every one after a backslash that might
  // itself be escaped, too: more is only more careful).
  static Chars escaped_chars(std::string_view text, std::string_view escape) {
    Chars out;
    auto find = [&](std::size_t from) {
      const void* hit = ::memmem(text.data() + from, text.size() - from, escape.data(), escape.size());
      return hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - text.data()) : std::string_view::npos;
    };
    for (std::size_t at = find(0); at != std::string_view::npos; at = find(at + 1)) {
      const std::size_t hex = at + escape.size();
      unsigned value = 0;
      bool ok = hex + 4 <= text.size();
      for (std::size_t k = 0; ok && k < 4; ++k) {
        const char c = text[hex + k];
        const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        ok = digit >= 0;
        value = value * 16 + static_cast<unsigned>(digit);
      }
      if (ok && value < 128) out.set(value);  // (not four hex digits: no escape, the text is valid JSON)
    }
    return out;
  }

  static bool holds_any(std::string_view text, const std::vector<std::string>& needles) {
    for (const std::string& needle : needles)
      if (holds(text, needle)) return true;
    return false;
  }

  Needles needles_[2];
};

// The tail run (diff_parts.hpp) of a file diff: its compared frames, and how to keep them.
class KeptAsRun final : public TailRun {
 public:
  KeptAsRun(std::size_t compared, Holders holders, std::function<Result<void>()> keep)
      : compared_(compared), holders_(holders), keep_(std::move(keep)) {}
  std::size_t compared() const override { return compared_; }
  Holders holders() const override { return holders_; }
  Result<void> keep() override { return keep_(); }

 private:
  std::size_t compared_;
  Holders holders_;
  std::function<Result<void>()> keep_;
};

// Whether a client line may be an initialize request: it spells "initialize" as it is or with
// \u escapes.
bool may_initialize(std::string_view line) { return holds(line, "initialize") || holds(line, "\\u"); }

// The whole-file fast path: two files with the same lines byte for byte, every one of them in
// the canonical form (so each is a valid line whose frame is its bytes), hold the same frames:
// nothing is parsed but for the stale-declaration scan, which stops once every declared path
// has selected a value. nullopt when the files differ anywhere or a line is not canonical: the
// general path decides (tests/unit/fast_path_test.cpp holds the two to the same results).
std::optional<DiffResult> diff_identical_files(const std::filesystem::path& expected,
                                               const std::filesystem::path& actual, const DiffOptions& options) {
  auto e = LineSource::open(expected);
  auto a = LineSource::open(actual);
  if (!e || !a) return std::nullopt;
  DiffResult result = byte_identical_result(expected.string(), actual.string(), options);
  StaleScan scan(options.mask);
  std::size_t line = 0;
  while (true) {
    auto le = e->next();
    auto la = a->next();
    if (!le || !la) {
      if (le || la) return std::nullopt;
      break;
    }
    if (!*le || !*la) return std::nullopt;
    const std::string_view text = (*le)->text;
    if (text != (*la)->text || (*le)->lf_terminated != (*la)->lf_terminated) return std::nullopt;
    ++line;
    const bool scanning = options.warn_stale && !scan.done();
    std::optional<Frame> frame = parse_canonical_line(text, line, scanning);
    if (!frame) return std::nullopt;
    if (on_side(frame->dir, options.side)) ++result.counts.identical;
    if (scanning) scan.observe(options.mask, *frame);
  }
  decide(result);
  if (options.warn_stale) scan.warn(result);
  return result;
}

// The byte fast path, streaming: both files in lockstep, nothing kept, nothing parsed (but for
// the stale-declaration scan, which stops once every declared path has selected a value).
// nullopt when a compared frame differs: the general path decides.
Result<std::optional<DiffResult>> diff_same_frames(const std::filesystem::path& expected,
                                                   const std::filesystem::path& actual, const DiffOptions& options) {
  auto e = TranscriptReader::open(expected);
  if (!e) return e.error();
  auto a = TranscriptReader::open(actual);
  if (!a) return a.error();
  DiffResult result = byte_identical_result(expected.string(), actual.string(), options);
  StaleScan scan(options.mask);
  auto next = [&](TranscriptReader& reader, bool scan_skipped) -> std::optional<Result<Frame>> {
    while (auto item = reader.next()) {
      if (!*item || on_side((*item)->dir, options.side)) return item;
      if (scan_skipped && options.warn_stale) scan.observe(options.mask, **item);
    }
    return std::nullopt;
  };
  while (true) {
    auto fe = next(*e, true);
    auto fa = next(*a, false);
    if (!fe || !fa) {
      if (fe || fa) return std::optional<DiffResult>();
      break;
    }
    if (!*fe) return fe->error();
    if (!*fa) return fa->error();
    if ((*fe)->dir != (*fa)->dir || (*fe)->wire_bytes() != (*fa)->wire_bytes()) return std::optional<DiffResult>();
    ++result.counts.identical;
    if (options.warn_stale) scan.observe(options.mask, **fe);
  }
  decide(result);
  if (options.warn_stale) scan.warn(result);
  return std::optional<DiffResult>(std::move(result));
}

}  // namespace

Result<DiffResult> diff_transcripts(const std::filesystem::path& expected, const std::filesystem::path& actual,
                                    const DiffOptions& options) {
  if (options.sink) options.sink->begin();
  if (std::optional<DiffResult> same = diff_identical_files(expected, actual, options)) return std::move(*same);
  {
    auto same = diff_same_frames(expected, actual, options);
    if (!same) return same.error();
    if (*same) return std::move(**same);
  }
  // The general path, holding per frame its keys and where it is, not its bytes.
  DiffResult result = new_result(expected.string(), actual.string(), options);
  Builder builder(result, options);
  const Masker& masker = builder.comparer().masker();
  const TwinProof proof(masker);
  // Both sides are prepared in step, a line of each at a time (see the top of this file). Errors
  // come out as if the expected side were read whole first: one of its own wins over any of the
  // actual side's.
  NotificationCache cache;
  struct Reading {
    std::optional<TranscriptReader> reader;
    std::optional<Error> error;
    Preparer preparer;
    std::size_t index = 0;
    bool done = false;

    Place place() const { return Place{index, reader->line(), reader->offset(), reader->size()}; }
    bool refuses() const {
      return FrameRef::refuses(index, reader->line(), reader->offset(), reader->size()) != nullptr;
    }
  };
  auto open_side = [&](const std::filesystem::path& path, std::uint64_t salt) {
    Reading side{std::nullopt, std::nullopt, Preparer(masker, options.side, salt, &cache, true)};
    auto reader = TranscriptReader::open(path);
    if (reader) side.reader.emplace(std::move(*reader));
    else side.error = reader.error();
    side.done = !reader;
    return side;
  };
  Reading e = open_side(expected, kExpectedSalt);
  if (e.error) return *e.error;
  Reading a = open_side(actual, kActualSalt);
  // Twins are deferred while at most kScattered places read on both sides (not twins) had frames
  // with other keys. Past that the differences are scattered through the session, and Myers,
  // which compares frames up to D positions apart around each difference, would compare most
  // twins with other frames: keying each as it is read (once for both sides) is then cheaper
  // than settling it later from its offset. One early difference, a clientInfo, re-minted ids
  // (whose keys are equal) never turn deferring off.
  constexpr std::size_t kScattered = 16;
  std::size_t differing = 0;
  bool defer = true;
  // Reads the next line of `side`; when `other` is given, also its next line if that is a twin.
  // Returns whether a twin was taken.
  // The expected side's line is read undecoded (decoded later if need be) while its lines were
  // twins lately: a line that is no twin is decoded at once, in one scan.
  bool lazy = true;
  PendingTwins pending(expected, e.preparer, a.preparer);
  // Keeps a twin of EXPECTED's line `line` (at `at_e`) and ACTUAL's (at `at_a`) without its keys:
  // deferred when it cannot name an id (`quiet` as TwinProof says), else pending.
  auto keep_twin = [&e, &a, &pending](Direction dir, std::string_view line, std::optional<bool> quiet,
                                      const Place& at_e, const Place& at_a) {
    if (quiet) {
      e.preparer.keep_deferred(dir, at_e, true, *quiet);
      a.preparer.keep_deferred(dir, at_a, false, *quiet);
      return;
    }
    // A line that spells "initialize" neither as it is nor with \u escapes is no initialize
    // request (TailTwins looks for the contested clientInfo only in those).
    const bool initialize = dir == Direction::client && may_initialize(line);
    const auto e_slot = e.preparer.keep_pending(dir, at_e, true, initialize);
    const auto a_slot = a.preparer.keep_pending(dir, at_a, false, initialize);
    pending.add(at_e, e_slot, at_a.line, a_slot);
    ++key_work().pending;
  };
  auto step = [&proof, &defer, &lazy, &pending, &keep_twin](Reading& side, Reading* other) {
    auto item = other && lazy && defer ? side.reader->next_undecoded() : side.reader->next();
    if (!item) {
      side.done = true;
      return false;
    }
    if (!*item) {
      side.error = item->error();
      side.done = true;
      return false;
    }
    Frame& frame = **item;
    std::optional<Preparer::Twin> twin;
    if (other && !other->done && other->reader->next_is(side.reader->line_text(), side.reader->facts()))
      twin = Preparer::Twin{&other->preparer, other->place(), &other->reader->file(), {}};
    if (twin && defer && !frame.exact_bytes && !side.refuses() && !other->refuses()) {
      // (A twin is only found reading EXPECTED, `side`, with ACTUAL as `other`.) One that may
      // name an id is pending: keyed in wire order if anything comes after it.
      keep_twin(frame.dir, side.reader->line_text(), proof.deferrable(*side.reader, frame), side.place(),
                other->place());
      ++side.index;
      ++other->index;
      side.reader->recycle(std::move(frame));
      return true;
    }
    // This frame is keyed now, in wire order: every pending twin before it first.
    if (auto keyed = pending.key_all(); !keyed) {
      side.error = keyed.error();
      side.done = true;
      return false;
    }
    side.reader->decode(frame);
    if (auto kept = side.preparer.observe(frame, side.place(), side.reader->file(), twin ? &*twin : nullptr); !kept) {
      side.error = kept.error();
      side.done = true;
    }
    ++side.index;
    side.reader->recycle(std::move(frame));
    if (!twin) return false;
    ++other->index;
    if (!twin->kept) {
      other->error = twin->kept.error();
      other->done = true;
    }
    return true;
  };
  // Reading on as a run (see the top of this file): after `threshold` twins in a row, while
  // deferring and with nothing declared (TailTwins reads every frame then).
  std::size_t threshold = std::max<std::size_t>(twin_run_threshold(), 1), streak = 0;
  const bool runs = masker.spec().declared.empty();
  struct Run {
    Place e, a;  // its first line on each side (its size unused)
    std::size_t lines = 0, compared = 0;
    std::uint64_t e_end = 0;   // EXPECTED's offset just past its last line's LF
    TailRun::Holders holders;  // of the compared frames
  };
  std::optional<Run> tail;
  // Keeps the first `count` lines of `run` in both preparers as step would have, reading them
  // again from EXPECTED (each is in the canonical form; ACTUAL has the same bytes after its
  // own start).
  // `keyed`: a frame after the run is keyed next (the run was cut short by another line), so each
  // twin that may name an id is keyed now, in order, from the line in hand, rather than left
  // pending to be read again at once.
  auto keep_run = [&](const Run& run, std::size_t count, bool keyed) -> Result<void> {
    if (keyed)
      if (auto done = pending.key_all(); !done) return done.error();
    auto source = pending.source();
    if (!source) return source.error();
    if (auto sought = (*source)->seek(run.e.offset); !sought) return sought.error();
    // The lines read again must lie where they were read the first time, each a canonical line.
    std::uint64_t at = run.e.offset;
    for (std::size_t k = 0; k < count; ++k) {
      auto line = (*source)->next();
      if (!line || !*line || (*line)->oversized || (*line)->offset != at ||
          (k + 1 == count && (*line)->offset + (*line)->text.size() + 1 != run.e_end) ||
          !((*line)->text.starts_with(kCanonicalClientHead) || (*line)->text.starts_with(kCanonicalServerHead)))
        return Error::unreadable(expected.string(),
                                 fmt::format("line {} changed while it was being diffed", run.e.line + k));
      at += (*line)->text.size() + 1;
      const std::string_view text = (*line)->text;
      const Direction dir = text.starts_with(kCanonicalClientHead) ? Direction::client : Direction::server;
      const Place at_e{run.e.index + k, run.e.line + k, (*line)->offset, text.size()};
      const Place at_a{run.a.index + k, run.a.line + k, run.a.offset + ((*line)->offset - run.e.offset), text.size()};
      const std::optional<bool> quiet = proof.deferrable_line(dir, text);
      if (quiet || !keyed) {
        keep_twin(dir, text, quiet, at_e, at_a);
        continue;
      }
      std::optional<Frame> frame = parse_canonical_line(text, at_e.line);
      if (!frame)
        return Error::unreadable(expected.string(),
                                 fmt::format("line {} changed while it was being diffed", at_e.line));
      Preparer::Twin twin{&a.preparer, at_a, &a.reader->file(), {}};
      if (auto kept = e.preparer.observe(*frame, at_e, e.reader->file(), &twin); !kept) return kept.error();
      if (!twin.kept) return twin.kept.error();
    }
    return {};
  };
  // Reads on in step while both sides have the same line in the canonical form, keeping nothing.
  // Both ended so: the run is the tail. Else (another line, one that is not canonical, an error)
  // the run's lines are kept as step would have, and both readers go back to the line that
  // ended it. Returns false on an error (in e.error).
  auto read_run = [&]() -> bool {
    Run run;
    run.e = Place{e.index, e.reader->line() + 1, e.reader->offset() + e.reader->size() + 1, 0};
    run.a = Place{a.index, a.reader->line() + 1, a.reader->offset() + a.reader->size() + 1, 0};
    std::uint64_t e_next = run.e.offset, a_next = run.a.offset;
    bool ended = false;
    while (true) {
      auto item = e.reader->next_undecoded();
      if (!item) {
        ended = !a.reader->next();
        break;
      }
      if (!*item || !e.reader->facts().canonical) break;
      if (!a.reader->next_is(e.reader->line_text(), e.reader->facts())) break;
      const std::size_t k = run.lines;
      if (e.reader->line() != run.e.line + k || a.reader->line() != run.a.line + k ||
          e.reader->offset() != e_next || a.reader->offset() != a_next ||
          FrameRef::refuses(run.e.index + k, e.reader->line(), e.reader->offset(), e.reader->size()) ||
          FrameRef::refuses(run.a.index + k, a.reader->line(), a.reader->offset(), a.reader->size()))
        break;
      if (on_side((*item)->dir, options.side)) {
        ++run.compared;
        if ((*item)->dir == Direction::server) {
          run.holders.server = true;
        } else {
          run.holders.client = true;
          if (!run.holders.initialize) run.holders.initialize = may_initialize(e.reader->line_text());
        }
      }
      ++run.lines;
      e_next += e.reader->size() + 1;
      a_next += a.reader->size() + 1;
      e.reader->recycle(std::move(**item));
    }
    run.e_end = e_next;
    // Both ended in the run, and the trackers name what follows alike: it stays a run.
    if (ended && e.preparer.keys_like(a.preparer)) {
      key_work().run += run.lines;
      tail = run;
      e.done = a.done = true;
      return true;
    }
    if (auto kept = keep_run(run, run.lines, true); !kept) {
      e.error = kept.error();
      e.done = true;
      return false;
    }
    e.index += run.lines;
    a.index += run.lines;
    if (auto back = e.reader->seek(e_next, run.e.line + run.lines); !back) {
      e.error = back.error();
      e.done = true;
      return false;
    }
    if (auto back = a.reader->seek(a_next, run.a.line + run.lines); !back) {
      e.error = back.error();
      e.done = true;
      return false;
    }
    threshold = std::max(threshold * 2, run.lines);  // a run cut short cost a second read of its lines
    return true;
  };
  while (!e.done) {
    lazy = step(e, &a);
    if (lazy && ++streak >= threshold && defer && runs && !e.done && !a.done) {
      streak = 0;
      read_run();
      continue;
    }
    if (lazy || a.done) continue;
    streak = 0;
    step(a, nullptr);
    const std::size_t n = e.preparer.size();
    if (defer && (n != a.preparer.size() || (n > 0 && e.preparer.last_strong() != a.preparer.last_strong())))
      defer = ++differing <= kScattered;
  }
  if (e.error) return *e.error;
  while (!a.done) step(a, nullptr);
  if (a.error) return *a.error;
  // The twins still pending are the last frames of both sides. Unless both trackers would name
  // them alike (then they have the same keys on both sides), they are keyed now.
  if (!e.preparer.keys_like(a.preparer))
    if (auto keyed = pending.key_all(); !keyed) return keyed.error();
  // The paired lines are read again through the same sources, started over (their buffers, grown
  // to the longest line, are kept).
  auto ee = std::move(*e.reader).rewound_source();
  if (!ee) return ee.error();
  auto aa = std::move(*a.reader).rewound_source();
  if (!aa) return aa.error();
  e.reader.reset();
  a.reader.reset();
  FileStore se(std::move(*ee)), sa(std::move(*aa));
  // A few deferred frames are settled at once (a pread each), and all of them when differences
  // are scattered (the alignment would compare most): then the alignment compares keys alone.
  // (Not with a tail run: the frames before it are the few a difference left around, and their
  // twins pair in place.)
  const bool settle_first = !tail && (!defer || e.preparer.deferred() + a.preparer.deferred() <= 256);
  std::optional<KeptAsRun> tail_run;
  if (tail)
    tail_run.emplace(tail->compared, tail->holders, [&, run = *tail]() -> Result<void> {
      key_work().run -= run.lines;
      return keep_run(run, run.lines, false);
    });
  if (auto done = diff_prepared(result, builder, e.preparer, a.preparer, se, sa, settle_first, &pending,
                                tail_run ? &*tail_run : nullptr);
      !done)
    return done.error();
  ExpectedFrames walk = [&](const std::function<bool(const Frame&)>& observe) -> Result<void> {
    auto reader = TranscriptReader::open(expected);
    if (!reader) return reader.error();
    while (auto item = reader->next()) {
      if (!*item) return item->error();
      if (!observe(**item)) break;
    }
    return {};
  };
  if (auto done = finish(result, walk, options); !done) return done.error();
  return result;
}

}  // namespace msptk
