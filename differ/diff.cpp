#include "msptk/differ/diff.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/differ/align.hpp"
#include "msptk/differ/chunked_vector.hpp"
#include "msptk/differ/signature.hpp"
#include "msptk/transcript/text_key.hpp"
#include "msptk/transcript/body_scan.hpp"
#include "msptk/transcript/line_source.hpp"
#include "msptk/transcript/reader.hpp"


#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <memory>
#include <tuple>

namespace msptk {

namespace json = boost::json;

std::string_view to_string(Side side) {
  switch (side) {
    case Side::client: return "client";
    case Side::server: return "server";
    case Side::both: return "both";
  }
  return "both";
}

std::optional<Side> parse_side(std::string_view text) {
  if (text == "client") return Side::client;
  if (text == "server") return Side::server;
  if (text == "both") return Side::both;
  return std::nullopt;
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::identical: return "identical";
    case Verdict::equivalent: return "equivalent";
    case Verdict::divergent: return "divergent";
  }
  return "divergent";
}

std::string_view to_string(EntryKind kind) {
  switch (kind) {
    case EntryKind::identical: return "identical";
    case EntryKind::equivalent: return "equivalent";
    case EntryKind::divergent: return "divergent";
    case EntryKind::missing: return "missing";
    case EntryKind::extra: return "extra";
    case EntryKind::moved: return "moved";
  }
  return "divergent";
}

namespace {

bool on_side(Direction dir, Side side) {
  return side == Side::both || (side == Side::client) == (dir == Direction::client);
}

std::vector<std::size_t> select(const std::vector<Frame>& frames, Side side) {
  std::vector<std::size_t> out;
  out.reserve(frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i)
    if (on_side(frames[i].dir, side)) out.push_back(i);
  return out;
}

std::uint64_t combine(std::uint64_t a, std::uint64_t b) { return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2)); }

// What the differ keeps of one compared frame once it has seen it: where to find it again and
// what it is, not its bytes (2 x 1 GiB transcripts must not be held in memory). 20 bytes: the
// index, line and size as 32 bits and the offset as 48 (FrameRef::fits says what is refused).
class FrameRef {
 public:
  static constexpr std::uint64_t kMaxOffset = (std::uint64_t{1} << 48) - 1;
  static constexpr std::uint64_t kMax32 = UINT32_MAX - 1;  // UINT32_MAX is kept as "none"

  FrameRef() = default;
  FrameRef(std::size_t index, std::size_t line, std::uint64_t offset, std::uint64_t size, FrameRole role)
      : index_(static_cast<std::uint32_t>(index)),
        line_(static_cast<std::uint32_t>(line)),
        size_(static_cast<std::uint32_t>(size)),
        offset_low_(static_cast<std::uint32_t>(offset)),
        offset_high_(static_cast<std::uint16_t>(offset >> 32)),
        role_(static_cast<std::uint8_t>(static_cast<unsigned>(role.dir) | static_cast<unsigned>(role.kind) << 1 |
                                        (role.initialize ? 8u : 0u))) {}

  // Why a frame cannot be kept in a FrameRef (nullptr: it can).
  static const char* refuses(std::size_t index, std::size_t line, std::uint64_t offset, std::uint64_t size) {
    if (index > kMax32 || line > kMax32) return "more than 4294967294 lines";
    if (size > kMax32) return "a line of 4 GiB or more";
    if (offset > kMaxOffset) return "a line beyond 256 TiB into the file";
    return nullptr;
  }

  std::size_t index() const { return index_; }  // position in the transcript (frames of both sides)
  std::size_t line() const { return line_; }    // 1-based line
  std::uint64_t offset() const { return std::uint64_t{offset_high_} << 32 | offset_low_; }  // of the line
  std::size_t size() const { return size_; }   // of the line, without LF (file-based diffs)
  Direction dir() const { return static_cast<Direction>(role_ & 1u); }
  FrameRole role() const {
    return FrameRole{dir(), static_cast<FrameKind>((role_ >> 1) & 3u), (role_ & 8u) != 0};
  }

 private:
  std::uint32_t index_ = 0, line_ = 0, size_ = 0, offset_low_ = 0;
  std::uint16_t offset_high_ = 0;
  std::uint8_t role_ = 0;  // dir (bit 0), kind (bits 1-2), initialize (bit 3)
};
static_assert(sizeof(FrameRef) == 20);
static_assert(static_cast<unsigned>(FrameKind::invalid) < 4 && static_cast<unsigned>(Direction::server) < 2);

// The alignment keys of the compared frames of one transcript: per frame its FrameRef, its
// signature's number and its strong key (signature + content); the weaker keys are derived.
// Each in fixed blocks (ChunkedVector): 32 bytes a frame, nothing more while a side is read.
struct Prepared {
  ChunkedVector<FrameRef> refs;
  ChunkedVector<std::uint32_t> signature;  // into names
  std::vector<std::string> names;          // each distinct signature text once
  std::vector<std::uint64_t> name_hash;    // of each name
  ChunkedVector<std::uint64_t> strong;
  // Per frame: the other side's frame at the same position (FrameRef::index) has the same line,
  // byte for byte (seen while both were read in step): paired with it, it is identical.
  std::vector<bool> twin;
  std::uint64_t salt = 0;                  // of this side's weak keys

  std::size_t size() const { return refs.size(); }
  const std::string& sig(std::size_t k) const { return names[signature[k]]; }
  // The signature alone.
  std::uint64_t medium(std::size_t k) const { return name_hash[signature[k]]; }
  // Only responses align on direction + kind (one whose id answers no request still pairs with
  // its counterpart); any other frame has a key of its own and stays missing or extra.
  std::uint64_t weak(std::size_t k) const {
    const FrameRole role = refs[k].role();
    return role.kind == FrameKind::response ? combine(static_cast<std::uint64_t>(role.dir) + 1, 0x7265737000ULL)
                                            : combine(salt, k + 1);
  }
};

// Builds a Prepared from the frames of one transcript, fed in wire order (every frame: responses
// need their requests); each frame is parsed once, here.
// The keys of notifications seen lately, by the hash of their JSON text: a notification sent
// identically on both sides (most of two recordings of one session) is parsed and keyed once.
// A notification's keys depend on nothing but its bytes and direction (no request to answer, no
// state), so a hit gives what parsing would. Direct-mapped with a fixed number of entries, so
// its memory does not grow with the transcripts; the two sides are prepared in step (by bytes
// read), so that what one side sent is still there when the other sends it. Like the alignment
// keys it rests on 64-bit hashes (with the text's length and direction).
class NotificationCache {
 public:
  struct Hit {
    const std::string* method;
    std::uint64_t content;
  };

  static std::uint64_t hash(Direction dir, std::string_view text) {
    return hash_bytes(text) ^ (dir == Direction::client ? 0x636c69656e74ULL : 0x736572766572ULL);
  }
  std::optional<Hit> find(std::uint64_t hash, std::size_t size) const {
    const Entry& e = entries_[hash & (kEntries - 1)];
    if (e.method == kNone || e.hash != hash || e.size != size) return std::nullopt;
    return Hit{&methods_[e.method], e.content};
  }
  void put(std::uint64_t hash, std::size_t size, const std::string& method, std::uint64_t content) {
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

// Where one line of a transcript is: its position among all frames, its 1-based line, its byte
// offset and its size without LF (offset and size 0 for frames in memory).
struct Place {
  std::size_t index = 0, line = 0;
  std::uint64_t offset = 0, size = 0;
};

class Preparer {
 public:
  // `from_reader`: the frames come from a TranscriptReader, so their text is known to be UTF-8.
  Preparer(const Masker& masker, Side side, std::uint64_t salt, NotificationCache* cache = nullptr,
           bool from_reader = false)
      : masker_(masker), side_(side), cache_(cache) {
    p_.salt = salt;
    limits_.utf8_known = from_reader;
    // The text key (text_key.hpp) is a notification's content key where the mask masks nothing
    // in notifications of that direction, for text known to be UTF-8.
    for (Direction dir : {Direction::client, Direction::server}) {
      text_keys_[static_cast<int>(dir)] =
          from_reader && masker_.masks_nothing(FrameRole{dir, FrameKind::notification, false});
      exact_plain_[static_cast<int>(dir)] = masker_.masks_nothing(FrameRole{dir, FrameKind::notification, false}) &&
                                            masker_.masks_nothing(FrameRole{dir, FrameKind::invalid, false});
    }
  }

  // The other side's line at the same position holds the same bytes as the frame observed
  // (TranscriptReader::next_is): its keys are kept from the one parse of the frame.
  struct Twin {
    Preparer* preparer = nullptr;
    Place place;
    const std::string* file = nullptr;
    Result<void> kept;  // what keeping it gave (set by observe)
  };

  // Keeps the keys of `frame`, and those of its `twin` when there is one; an error when it
  // cannot be kept (FrameRef::refuses).
  Result<void> observe(const Frame& frame, const Place& at, const std::string& file, Twin* twin = nullptr) {
    if (auto refused = refuse(at, file)) return *refused;
    if (twin) {
      if (auto refused = refuse(twin->place, *twin->file)) {
        twin->kept = *refused;
        twin = nullptr;
      }
    }
    // A frame with a twin needs no cache: its twin is keyed here, and other copies rarely follow.
    const bool cached = cache_ && !frame.exact_bytes && !twin;
    std::uint64_t line_hash = 0;
    if (cached) {
      line_hash = NotificationCache::hash(frame.dir, frame.json_text());
      if (const auto hit = cache_->find(line_hash, frame.json_text().size())) {
        Envelope envelope;
        envelope.kind = FrameKind::notification;
        envelope.method = *hit->method;
        auto content = [&](const FrameRole&) { return hit->content; };
        keep(frame.dir, at, envelope, content, twin != nullptr);
        if (twin) twin->preparer->keep(frame.dir, twin->place, envelope, content, false);
        return {};
      }
    }
    if (text_keys_[static_cast<int>(frame.dir)] && !frame.exact_bytes) {
      // Most frames of a session: a notification keyed straight from its text, without a DOM
      // (the same keys as below; anything the text key does not take goes on below).
      if (const std::optional<TextKey> key = notification_text_key(frame.json_text())) {
        const Envelope envelope = key->envelope();
        if (cached) cache_->put(line_hash, frame.json_text().size(), envelope.method, key->content);
        auto content = [&](const FrameRole&) { return key->content; };
        keep(frame.dir, at, envelope, content, twin != nullptr);
        if (twin) twin->preparer->keep(frame.dir, twin->place, envelope, content, false);
        return {};
      }
    }
    thread_local JsonArena arena;  // the DOM lives for this frame only: keys and signatures are kept
    ArenaScope scope(arena);
    auto parsed = parse_json(frame.json_text(), scope.storage(), limits_);
    json::value message = parsed ? std::move(*parsed) : json::value();
    Envelope envelope;
    if (parsed) envelope = classify(message);
    // Frames that are not JSON, and rawBase64 lines (their bytes are the frame), key by bytes.
    const bool ec = !parsed || frame.exact_bytes;
    std::optional<std::uint64_t> known;  // the content key, once computed (the same for the twin)
    auto content = [&](const FrameRole& role) {
      if (known) return *known;
      known = ec ? hash_bytes(frame.wire_bytes()) : content_key(masker_, role, message);
      if (cached && !ec && envelope.kind == FrameKind::notification)
        cache_->put(line_hash, frame.json_text().size(), envelope.method, *known);
      return *known;
    };
    keep(frame.dir, at, envelope, content, twin != nullptr);
    if (twin) twin->preparer->keep(frame.dir, twin->place, envelope, content, false);
    return {};
  }

  // Whether a frame of `dir` that is not a request or a response (a notification or an invalid
  // frame) has nothing the mask masks: paired with a twin it is identical, keys or not.
  bool exact_unless_answering(Direction dir) const { return exact_plain_[static_cast<int>(dir)]; }

  // Keeps a frame of the common prefix without its keys (see diff_transcripts: it and its twin
  // are matched, in order, whatever their keys): a stand-in key equal to its twin's and a
  // signature never shown (an identical pair is not reported). Only for a frame that is neither
  // a request nor a response, so the tracker has nothing to learn from it.
  void keep_unkeyed(Direction dir, const Place& at, bool twin) {
    if (!on_side(dir, side_)) return;
    const auto [name, medium] = intern(Signature{dir, FrameKind::notification, "(a twin of the common prefix)"});
    p_.refs.push_back(FrameRef(at.index, at.line, at.offset, at.size, FrameRole{dir, FrameKind::notification, false}));
    p_.signature.push_back(name);
    p_.strong.push_back(kUnkeyed);
    p_.twin.push_back(twin);
  }

  // The number of frames kept, and the strong key of the last one.
  std::size_t size() const { return p_.size(); }
  std::uint64_t last_strong() const { return p_.strong[p_.size() - 1]; }

  Prepared take() { return std::move(p_); }

 private:
  static std::optional<Error> refuse(const Place& at, const std::string& file) {
    const char* why = FrameRef::refuses(at.index, at.line, at.offset, at.size);
    if (!why) return std::nullopt;
    return Error::unreadable(file, fmt::format("line {}: msptk diff compares transcripts of at most 4294967294 "
                                               "lines of less than 4 GiB each; this one has {}",
                                               at.line, why));
  }

  // `twin`: the other side's frame at the same position has the same bytes (Prepared::twin).
  template <class Content>
  void keep(Direction dir, const Place& at, const Envelope& envelope, const Content& content_of, bool twin) {
    Frame shell;  // what the tracker reads of a frame: its direction and line
    shell.dir = dir;
    shell.line = at.line;
    const Signature sig = tracker_.observe(shell, envelope);
    if (!on_side(dir, side_)) return;
    const auto [name, medium] = intern(sig);
    const FrameRole role = FrameRole::of(dir, envelope);
    const std::uint64_t content = content_of(role);
    p_.refs.push_back(FrameRef(at.index, at.line, at.offset, at.size, role));
    p_.signature.push_back(name);
    p_.strong.push_back(combine(medium, content));
    p_.twin.push_back(twin);
  }

  std::pair<std::uint32_t, std::uint64_t> intern(const Signature& sig) {
    auto key = std::make_tuple(sig.dir, sig.kind, sig.method);
    auto it = ids_.find(key);
    if (it == ids_.end()) {
      std::string text = sig.text();
      const auto id = static_cast<std::uint32_t>(p_.names.size());
      it = ids_.emplace(std::move(key), std::make_pair(id, hash_bytes(text))).first;
      p_.names.push_back(std::move(text));
      p_.name_hash.push_back(it->second.second);
    }
    return it->second;
  }

  const Masker& masker_;
  Side side_;
  NotificationCache* cache_ = nullptr;
  ParseLimits limits_;
  bool text_keys_[2] = {false, false};  // per Direction: notifications keyed by text_key.hpp
  bool exact_plain_[2] = {false, false};  // per Direction: exact_unless_answering
  static constexpr std::uint64_t kUnkeyed = 0x756e6b65796564ULL;
  SignatureTracker tracker_;
  std::map<std::tuple<Direction, FrameKind, std::string>, std::pair<std::uint32_t, std::uint64_t>> ids_;
  Prepared p_;
};

// Where the differ finds a compared frame again after the alignment: in memory, or re-read from
// its transcript file at the line's offset.
class FrameStore {
 public:
  virtual ~FrameStore() = default;
  // The frame `ref` names; valid until the next call.
  virtual Result<const Frame*> get(const FrameRef& ref) = 0;
  // The transcript line of `ref` as it is in the file (nullopt for frames in memory); valid
  // until the next call. Two equal lines hold the same frame.
  virtual Result<std::optional<std::string_view>> line_text(const FrameRef&) { return std::optional<std::string_view>(); }
};

class MemoryStore final : public FrameStore {
 public:
  explicit MemoryStore(const std::vector<Frame>& frames) : frames_(frames) {}
  Result<const Frame*> get(const FrameRef& ref) override { return &frames_[ref.index()]; }

 private:
  const std::vector<Frame>& frames_;
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
    std::string_view text = **got;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    Result<Frame> frame = parse_transcript_line(text, source_.file(), ref.line());
    if (!frame) return changed(ref);
    frame_ = std::move(*frame);
    return &frame_;
  }

 private:
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
};

// The alignment of two Prepared sides as one bit per frame: frame i of EXPECTED is matched when
// matched_e[i] is set, and since matches increase on both sides the k-th matched frame of one
// side is paired with the k-th matched frame of the other (2 bits a frame pair, no list of pairs).
struct Alignment {
  std::vector<bool> matched_e, matched_a;
};

// The first matched position in [from, to) (`to` when none).
std::size_t next_matched(const std::vector<bool>& bits, std::size_t from, std::size_t to) {
  while (from < to && !bits[from]) ++from;
  return from;
}

// Three-level alignment (see diff.hpp) of a[alo, ahi) with b[blo, bhi): the matches of this
// level are marked, then each gap between two of them is aligned on the next level's keys.
void align(const Prepared& a, const Prepared& b, int level, std::size_t alo, std::size_t ahi, std::size_t blo,
           std::size_t bhi, Alignment& out) {
  if (alo >= ahi || blo >= bhi) return;
  auto mark = [&](std::size_t i, std::size_t j) {
    out.matched_e[alo + i] = true;
    out.matched_a[blo + j] = true;
  };
  // Each level's keys are read in place or derived as they are compared: no window is copied.
  if (level == 0) {
    for_each_common([&](std::size_t i) { return a.strong[alo + i]; }, ahi - alo,
                    [&](std::size_t j) { return b.strong[blo + j]; }, bhi - blo, mark);
  } else if (level == 1) {
    for_each_common([&](std::size_t i) { return a.medium(alo + i); }, ahi - alo,
                    [&](std::size_t j) { return b.medium(blo + j); }, bhi - blo, mark);
  } else {
    for_each_common([&](std::size_t i) { return a.weak(alo + i); }, ahi - alo,
                    [&](std::size_t j) { return b.weak(blo + j); }, bhi - blo, mark);
  }
  if (level == 2) return;
  // The gaps: before the first match, between two, after the last (a match of this level ends
  // each; a gap holds no match yet, and aligning it marks only inside it).
  std::size_t i = alo, j = blo;
  while (true) {
    const std::size_t mi = next_matched(out.matched_e, i, ahi);
    const std::size_t mj = next_matched(out.matched_a, j, bhi);
    align(a, b, level + 1, i, mi, j, mj, out);
    if (mi == ahi || mj == bhi) break;
    i = mi + 1;
    j = mj + 1;
  }
}

// Finds the declared paths that select no value in a transcript (stale declarations). Frames are
// parsed only while some path is still unmatched, so usually only the first few are.
class StaleScan {
 public:
  StaleScan(const MaskSpec& spec, const std::vector<MaskUse>& masks) {
    for (std::size_t i = 0; i < spec.declared.size(); ++i)
      if (i >= masks.size() || masks[i].covered == 0) open_.push_back(i);
  }
  StaleScan(const MaskSpec& spec) : StaleScan(spec, {}) {}

  void observe(const MaskSpec& spec, const Frame& frame) {
    if (open_.empty()) return;
    thread_local JsonArena arena;
    ArenaScope scope(arena);
    auto parsed = parse_json(frame.json_text(), scope.storage());
    if (!parsed) return;
    const json::value& message = *parsed;
    std::erase_if(open_, [&](std::size_t i) {
      bool found = false;
      spec.declared[i].for_each_match(message, [&](const json::value&, const std::string&) { found = true; });
      return found;
    });
  }

  void warn(DiffResult& result) const {
    for (std::size_t i : open_)
      result.warnings.push_back(fmt::format("declared path \"{}\" selects no value in {} (stale declaration?)",
                                            result.masks[i].path, result.expected_file));
  }

  bool done() const { return open_.empty(); }

 private:
  std::vector<std::size_t> open_;
};

class Builder {
 public:
  Builder(DiffResult& result, const DiffOptions& options)
      : result_(result), sink_(options.sink), comparer_(options.mask) {}

  FrameComparer& comparer() { return comparer_; }

  void pair(const Frame& e, const FrameRole& role, const std::string& esig, const Frame& a, const std::string& asig,
            bool moved) {
    FrameComparison cmp = comparer_.compare(e, a, role);
    EntryKind kind = moved ? EntryKind::moved
                           : cmp.outcome == FrameOutcome::identical   ? EntryKind::identical
                           : cmp.outcome == FrameOutcome::equivalent ? EntryKind::equivalent
                                                                     : EntryKind::divergent;
    count(kind);
    if (kind == EntryKind::identical) return;
    emit(DiffEntry{kind, e.line, a.line, esig, esig == asig ? std::string() : asig, std::move(cmp.divergences)});
  }

  void missing(std::size_t line, const std::string& sig) {
    count(EntryKind::missing);
    emit(DiffEntry{EntryKind::missing, line, 0, sig, {}, {}});
  }

  void extra(std::size_t line, const std::string& sig) {
    count(EntryKind::extra);
    emit(DiffEntry{EntryKind::extra, 0, line, sig, {}, {}});
  }

  void count(EntryKind kind) {
    DiffCounts& c = result_.counts;
    switch (kind) {
      case EntryKind::identical: ++c.identical; break;
      case EntryKind::equivalent: ++c.equivalent; break;
      case EntryKind::divergent: ++c.divergent; break;
      case EntryKind::missing: ++c.missing; break;
      case EntryKind::extra: ++c.extra; break;
      case EntryKind::moved: ++c.moved; break;
    }
  }

 private:
  void emit(DiffEntry&& entry) {
    if (sink_) {
      sink_->entry(result_, std::move(entry));
    } else {
      result_.entries.push_back(std::move(entry));
    }
  }

  DiffResult& result_;
  EntrySink* sink_;
  FrameComparer comparer_;
};

void decide(DiffResult& result) {
  const DiffCounts& c = result.counts;
  if (c.divergent + c.missing + c.extra + c.moved > 0) {
    result.verdict = Verdict::divergent;
  } else if (c.equivalent > 0) {
    result.verdict = Verdict::equivalent;
  } else {
    result.verdict = Verdict::identical;
  }
}

// Calls observe(frame) for the expected transcript's frames in order until it returns false.
using ExpectedFrames = std::function<Result<void>(const std::function<bool(const Frame&)>& observe)>;

Result<void> finish(DiffResult& result, const ExpectedFrames& expected, const DiffOptions& options) {
  decide(result);
  if (!options.warn_stale) return {};
  StaleScan scan(options.mask, result.masks);
  if (!scan.done()) {
    auto walked = expected([&](const Frame& frame) {
      scan.observe(options.mask, frame);
      return !scan.done();
    });
    if (!walked) return walked.error();
  }
  scan.warn(result);
  return {};
}

DiffResult new_result(std::string expected_file, std::string actual_file, const DiffOptions& options) {
  DiffResult result;
  result.expected_file = std::move(expected_file);
  result.actual_file = std::move(actual_file);
  result.side = options.side;
  result.mode = options.mask.mode;
  for (const JsonPath& path : options.mask.declared) result.masks.push_back(MaskUse{path.text(), 0, 0});
  return result;
}

// Aligns the prepared keys, then compares the aligned pairs in transcript order, reaching each
// paired frame again through its store (MATCHING.md §5; see diff.hpp).
Result<void> diff_prepared(DiffResult& result, Builder& builder, const Prepared& pe, const Prepared& pa,
                           FrameStore& se, FrameStore& sa) {
  Alignment alignment{std::vector<bool>(pe.size()), std::vector<bool>(pa.size())};
  align(pe, pa, 0, 0, pe.size(), 0, pa.size(), alignment);
  const std::vector<bool>& matched_e = alignment.matched_e;
  const std::vector<bool>& matched_a = alignment.matched_a;

  // Frames left over on both sides with the same signature and content key: moved.
  // Each expected frame left over takes the first actual frame left over with its key that no
  // earlier one took. The leftovers' indices sorted by (key, index), and per run of one key how
  // many are taken: 8 bytes per leftover frame (a map of queues cost ~600 bytes per distinct
  // key, which two unrelated sessions have one of per frame).
  std::size_t leftover = 0;
  for (std::size_t j = 0; j < pa.size(); ++j) leftover += matched_a[j] ? 0 : 1;
  std::vector<std::uint32_t> extras;  // FrameRef::refuses keeps indices below UINT32_MAX
  extras.reserve(leftover);
  for (std::size_t j = 0; j < pa.size(); ++j)
    if (!matched_a[j]) extras.push_back(static_cast<std::uint32_t>(j));
  auto by_key = [&](std::uint32_t x, std::uint32_t y) {
    return pa.strong[x] != pa.strong[y] ? pa.strong[x] < pa.strong[y] : x < y;
  };
  std::sort(extras.begin(), extras.end(), by_key);
  std::vector<std::uint32_t> taken(extras.size());  // at the first of each run of one key
  constexpr std::uint32_t kNotMoved = UINT32_MAX;
  std::vector<std::uint32_t> moved_to(pe.size(), kNotMoved);
  std::vector<bool> consumed(pa.size());
  for (std::size_t i = 0; i < pe.size(); ++i) {
    if (matched_e[i]) continue;
    const std::uint64_t key = pe.strong[i];
    const auto first = std::partition_point(extras.begin(), extras.end(),
                                            [&](std::uint32_t x) { return pa.strong[x] < key; });
    if (first == extras.end() || pa.strong[*first] != key) continue;
    const std::size_t run = static_cast<std::size_t>(first - extras.begin());
    const std::size_t next = run + taken[run];
    if (next >= extras.size() || pa.strong[extras[next]] != key) continue;
    ++taken[run];
    moved_to[i] = extras[next];
    consumed[extras[next]] = true;
  }
  extras = {};
  taken = {};

  // Compare in transcript order.
  auto pair = [&](std::size_t i, std::size_t j, bool moved) -> Result<void> {
    const FrameRef& re = pe.refs[i];
    const FrameRef& ra = pa.refs[j];
    // The same line on both sides, in a role the mask masks nothing of: identical, nothing to
    // parse (FrameComparer::compare with a known role says the same; see comparer.hpp).
    if (!moved && re.dir() == ra.dir() && builder.comparer().masker().masks_nothing(re.role())) {
      if (pe.twin[i] && re.index() == ra.index()) {  // the same line, seen while both were read
        builder.count(EntryKind::identical);
        return {};
      }
      auto te = se.line_text(re);
      if (!te) return te.error();
      auto ta = sa.line_text(ra);
      if (!ta) return ta.error();
      if (*te && *ta && **te == **ta) {
        builder.count(EntryKind::identical);
        return {};
      }
    }
    auto e = se.get(re);
    if (!e) return e.error();
    auto a = sa.get(ra);
    if (!a) return a.error();
    builder.pair(**e, re.role(), pe.sig(i), **a, pa.sig(j), moved);
    return {};
  };
  // The k-th matched frame of EXPECTED pairs with the k-th matched frame of ACTUAL.
  std::size_t i = 0, j = 0;
  while (true) {
    const std::size_t ma = next_matched(matched_e, i, pe.size());
    const std::size_t mb = next_matched(matched_a, j, pa.size());
    for (; i < ma; ++i) {
      if (moved_to[i] != kNotMoved) {
        if (auto done = pair(i, moved_to[i], true); !done) return done.error();
      } else {
        builder.missing(pe.refs[i].line(), pe.sig(i));
      }
    }
    for (; j < mb; ++j)
      if (!consumed[j]) builder.extra(pa.refs[j].line(), pa.sig(j));
    if (ma == pe.size() || mb == pa.size()) break;
    if (auto done = pair(ma, mb, false); !done) return done.error();
    ++i;
    ++j;
  }
  result.masks = builder.comparer().accounting();
  result.client_info = client_info_changes(builder.comparer());
  return {};
}

constexpr std::uint64_t kExpectedSalt = 0x65787065637465ULL, kActualSalt = 0x61637475616cULL;

}  // namespace

DiffResult diff_frames(const std::vector<Frame>& expected, const std::vector<Frame>& actual, const DiffOptions& options,
                       std::string expected_file, std::string actual_file) {
  if (options.sink) options.sink->begin();
  DiffResult result = new_result(std::move(expected_file), std::move(actual_file), options);
  ExpectedFrames walk = [&](const std::function<bool(const Frame&)>& observe) -> Result<void> {
    for (const Frame& frame : expected)
      if (!observe(frame)) break;
    return {};
  };

  // The byte fast path: the same frames byte for byte, nothing parsed.
  const std::vector<std::size_t> es = select(expected, options.side);
  const std::vector<std::size_t> as = select(actual, options.side);
  bool same = es.size() == as.size();
  for (std::size_t k = 0; same && k < es.size(); ++k) {
    const Frame& e = expected[es[k]];
    const Frame& a = actual[as[k]];
    same = e.dir == a.dir && e.wire_bytes() == a.wire_bytes();
  }
  if (same) {
    result.byte_identical = true;
    result.counts.identical = es.size();
    (void)finish(result, walk, options);
    return result;
  }

  Builder builder(result, options);
  const Masker& masker = builder.comparer().masker();
  Preparer ve(masker, options.side, kExpectedSalt), va(masker, options.side, kActualSalt);
  // Frames in memory are never refused: their number fits in 32 bits long before their bytes do
  // in memory, and their line numbers come from files the differ could read.
  for (std::size_t k = 0; k < expected.size(); ++k)
    (void)ve.observe(expected[k], Place{k, expected[k].line, 0, 0}, result.expected_file);
  for (std::size_t k = 0; k < actual.size(); ++k)
    (void)va.observe(actual[k], Place{k, actual[k].line, 0, 0}, result.actual_file);
  const Prepared pe = ve.take(), pa = va.take();
  MemoryStore se(expected), sa(actual);
  (void)diff_prepared(result, builder, pe, pa, se, sa);  // memory stores never fail
  (void)finish(result, walk, options);
  return result;
}

DiffResult byte_identical_result(std::string expected_file, std::string actual_file, const DiffOptions& options) {
  DiffResult result;
  result.expected_file = std::move(expected_file);
  result.actual_file = std::move(actual_file);
  result.side = options.side;
  result.mode = options.mask.mode;
  result.byte_identical = true;
  for (const JsonPath& path : options.mask.declared) result.masks.push_back(MaskUse{path.text(), 0, 0});
  return result;
}

namespace {

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

}  // namespace

Result<DiffResult> diff_transcripts(const std::filesystem::path& expected, const std::filesystem::path& actual,
                                    const DiffOptions& options) {
  if (options.sink) options.sink->begin();
  if (std::optional<DiffResult> same = diff_identical_files(expected, actual, options)) return std::move(*same);
  // The byte fast path, streaming: both files in lockstep, nothing kept, nothing parsed (but for
  // the stale-declaration scan, which stops once every declared path has selected a value).
  {
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
    bool same = true;
    while (same) {
      auto fe = next(*e, true);
      auto fa = next(*a, false);
      if (!fe || !fa) {
        same = !fe && !fa;
        break;
      }
      if (!*fe) return fe->error();
      if (!*fa) return fa->error();
      same = (*fe)->dir == (*fa)->dir && (*fe)->wire_bytes() == (*fa)->wire_bytes();
      if (!same) break;
      ++result.counts.identical;
      if (options.warn_stale) scan.observe(options.mask, **fe);
    }
    if (same) {
      decide(result);
      if (options.warn_stale) scan.warn(result);
      return result;
    }
  }
  // The general path, holding per frame its keys and where it is, not its bytes.
  DiffResult result = new_result(expected.string(), actual.string(), options);
  Builder builder(result, options);
  const Masker& masker = builder.comparer().masker();
  // Both sides are prepared in step, a line of each at a time. A line the actual side has at the
  // same position byte for byte (most lines of two recordings of one session) is decoded and
  // parsed once for both, and marked as a twin (Prepared::twin): when the alignment pairs the two
  // they are identical, without reading them again. A notification both sent elsewhere is keyed
  // once too (NotificationCache). Errors come out as if the expected side were read whole first:
  // one of its own wins over any of the actual side's.
  NotificationCache cache;
  struct Reading {
    std::optional<TranscriptReader> reader;
    std::optional<Error> error;
    Preparer preparer;
    std::size_t index = 0;
    bool done = false;

    Place place() const { return Place{index, reader->line(), reader->offset(), reader->size()}; }
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
  // While every pair of frames read so far has equal keys (the common prefix, which the
  // alignment matches frame by frame whatever the keys are), a twin that is neither a request nor
  // a response (its line cannot name an `id`) in a role the mask masks nothing of is kept
  // without decoding, parsing or keying it: identical to its twin, and nothing for a tracker.
  bool in_prefix = true;
  // Reads the next line of `side`; when `other` is given, also its next line if that is a twin.
  // Returns whether a twin was taken.
  auto step = [&in_prefix](Reading& side, Reading* other) {
    const bool unkeyed_ok = in_prefix && other;
    auto item = unkeyed_ok ? side.reader->next_undecoded() : side.reader->next();
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
    if (twin && unkeyed_ok && side.reader->facts().canonical && side.preparer.exact_unless_answering(frame.dir) &&
        !canonical_line_may_name_id(side.reader->line_text()) && !FrameRef::refuses(side.index, frame.line,
        side.reader->offset(), side.reader->size()) && !FrameRef::refuses(other->index, other->reader->line(),
        other->reader->offset(), other->reader->size())) {
      side.preparer.keep_unkeyed(frame.dir, side.place(), true);
      other->preparer.keep_unkeyed(frame.dir, other->place(), false);
      ++side.index;
      ++other->index;
      return true;
    }
    side.reader->decode(frame);
    if (auto kept = side.preparer.observe(frame, side.place(), side.reader->file(), twin ? &*twin : nullptr); !kept) {
      side.error = kept.error();
      side.done = true;
    }
    ++side.index;
    side.reader->recycle(std::move(**item));
    if (!twin) return false;
    ++other->index;
    if (!twin->kept) {
      other->error = twin->kept.error();
      other->done = true;
    }
    return true;
  };
  while (!e.done) {
    if (!step(e, &a) && !a.done) step(a, nullptr);
    if (in_prefix) {
      const std::size_t n = e.preparer.size();
      in_prefix = !e.error && !a.error && n == a.preparer.size() &&
                  (n == 0 || e.preparer.last_strong() == a.preparer.last_strong());
    }
  }
  if (e.error) return *e.error;
  while (!a.done) step(a, nullptr);
  if (a.error) return *a.error;
  std::optional<Prepared> pe = e.preparer.take(), pa = a.preparer.take();
  // The paired lines are read again through the same sources, started over (their buffers, grown
  // to the longest line, are kept).
  auto ee = std::move(*e.reader).rewound_source();
  if (!ee) return ee.error();
  auto aa = std::move(*a.reader).rewound_source();
  if (!aa) return aa.error();
  e.reader.reset();
  a.reader.reset();
  FileStore se(std::move(*ee)), sa(std::move(*aa));
  if (auto done = diff_prepared(result, builder, *pe, *pa, se, sa); !done) return done.error();
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

Verdict DiffReport::verdict() const {
  Verdict verdict = Verdict::identical;
  for (const DiffResult& r : comparisons) verdict = std::max(verdict, r.verdict);
  return verdict;
}

DiffCounts DiffReport::total() const {
  DiffCounts t;
  for (const DiffResult& r : comparisons) {
    t.identical += r.counts.identical;
    t.equivalent += r.counts.equivalent;
    t.divergent += r.counts.divergent;
    t.missing += r.counts.missing;
    t.extra += r.counts.extra;
    t.moved += r.counts.moved;
  }
  return t;
}

Result<DiffReport> diff_scenarios(const ScenarioFiles& expected, const ScenarioFiles& actual,
                                  const DiffOptions& options) {
  DiffReport report;
  auto main = diff_transcripts(expected.transcript, actual.transcript, options);
  if (!main) return main.error();
  report.comparisons.push_back(std::move(*main));
  std::map<std::string, std::filesystem::path> theirs;
  for (const auto& leg : actual.legs) theirs.emplace(leg.filename().string(), leg);
  for (const auto& leg : expected.legs) {
    auto it = theirs.find(leg.filename().string());
    if (it == theirs.end()) {
      report.unpaired.push_back(UnpairedFile{true, leg.string()});
      continue;
    }
    DiffOptions leg_options = options;
    leg_options.warn_stale = false;  // a declaration is about the scenario, not each legs file
    auto result = diff_transcripts(leg, it->second, leg_options);
    if (!result) return result.error();
    report.comparisons.push_back(std::move(*result));
    theirs.erase(it);
  }
  for (const auto& [name, leg] : theirs) report.unpaired.push_back(UnpairedFile{false, leg.string()});
  return report;
}

Result<DiffReport> diff_paths(const std::filesystem::path& expected, const std::filesystem::path& actual,
                              const PathDiffOptions& options) {
  auto golden = load_scenario(expected);
  if (!golden) return golden.error();
  auto other = locate_scenario(actual);
  if (!other) return other.error();
  auto spec = mask_spec_for(*golden, options.registry, options.extra_paths, options.mode);
  if (!spec) return spec.error();
  DiffOptions diff_options{std::move(*spec), options.side};
  diff_options.sink = options.sink;
  std::error_code ec;
  if (std::filesystem::is_directory(expected, ec) && std::filesystem::is_directory(actual, ec)) {
    return diff_scenarios(golden->files, *other, diff_options);
  }
  auto single = diff_transcripts(golden->files.transcript, other->transcript, diff_options);
  if (!single) return single.error();
  DiffReport report;
  report.comparisons.push_back(std::move(*single));
  return report;
}

}  // namespace msptk
