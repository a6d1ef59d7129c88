// The pieces of the offline differ (diff.hpp) that its two ways in share: diff_frames over frames
// in memory (diff.cpp) and diff_transcripts over files (file_diff.cpp). A compared frame is kept
// as its keys and where it is (FrameRef in a Prepared side), built by a Preparer in wire order;
// diff_prepared aligns two sides and compares the aligned pairs, reaching the frames again
// through FrameStores (the frames in memory, or the files read again).
//
// A frame's keys may be *deferred*: the keys of a frame that cannot name an `id` (so no request
// and no response: nothing a SignatureTracker learns from) depend on its bytes and direction
// alone, so they can be computed at any time, out of order. The file reader keeps such a frame
// without keys when the other side has the same line at the same place (a twin: the two have
// the same keys), and the alignment settles them (reads the line again and keys it) only when it
// compares the frame with a frame other than its twin, or leaves it unmatched. Two deferred twins
// compared with each other are the same frame without their keys.
//
// A twin that may name an id (a request, a response) may be kept *pending* instead: deferred too,
// but its keys need each side's SignatureTracker in wire order (a response is named after its
// request), so it is keyed only in order, through the run's PendingKeys, never by settle. Every
// pending twin is keyed before any later frame is; pending twins left at the end of both
// transcripts (the tail after the last difference), when both trackers would name what follows
// alike, get the same keys on both sides and are only keyed if the comparison needs them.
// Private to the differ.
#pragma once

#include "msptk/differ/chunked_vector.hpp"
#include "msptk/differ/comparer.hpp"
#include "msptk/differ/diff.hpp"
#include "msptk/differ/signature.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace msptk::diff_parts {

inline bool on_side(Direction dir, Side side) {
  return side == Side::both || (side == Side::client) == (dir == Direction::client);
}

// Whether `text` holds `needle` (memmem: many bytes a cycle, where string_view::find goes a byte
// at a time between matches of the needle's first byte).
inline bool holds(std::string_view text, std::string_view needle) {
  return ::memmem(text.data(), text.size(), needle.data(), needle.size()) != nullptr;
}

inline std::uint64_t combine(std::uint64_t a, std::uint64_t b) {
  return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
}

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
  // No member initializers: a ChunkedVector's block of 16,384 FrameRefs is then not written when it
  // is allocated (a diff of a dozen frames wrote 320 KiB a side); FrameRef{} is still all zeros.
  std::uint32_t index_, line_, size_, offset_low_;
  std::uint16_t offset_high_;
  std::uint8_t role_;  // dir (bit 0), kind (bits 1-2), initialize (bit 3)
};
static_assert(std::is_trivially_default_constructible_v<FrameRef>);
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
  // Per frame, one byte of flags (one vector: keeping a frame pushes one byte):
  // - twin: the other side's frame at the same position (FrameRef::index) has the same line, byte
  //   for byte (seen while both were read in step): paired with it, it is identical but for the
  //   values it names at masked places (which `quiet` rules out);
  // - deferred: its keys are not known yet (see above: its signature and strong key are
  //   stand-ins and its role a notification of its direction until Preparer::settle);
  // - quiet: a twin whose frame names no place the mask masks (nothing to pair or count when
  //   paired with its twin): identical to it without being read again;
  // - pending: a deferred twin kept pending (see above): keyed in order by PendingKeys only.
  //   Until then its `quiet` says instead that it is no initialize request (a client frame whose
  //   line does not spell "initialize"), so that it holds no clientInfo.
  enum Flag : std::uint8_t { kTwin = 1, kDeferred = 2, kQuiet = 4, kPending = 8 };
  std::vector<std::uint8_t> flags;
  bool twin(std::size_t k) const { return (flags[k] & kTwin) != 0; }
  bool deferred(std::size_t k) const { return (flags[k] & kDeferred) != 0; }
  bool quiet(std::size_t k) const { return (flags[k] & kQuiet) != 0; }
  bool pending(std::size_t k) const { return (flags[k] & kPending) != 0; }
  std::uint64_t salt = 0;                  // of this side's weak keys

  std::size_t size() const { return refs.size(); }
  const std::string& sig(std::size_t k) const { return names[signature[k]]; }
  // The signature alone.
  std::uint64_t medium(std::size_t k) const { return name_hash[signature[k]]; }
  // Only responses align on direction + kind (one whose id answers no request still pairs with
  // its counterpart); any other frame has a key of its own and stays missing or extra. (A
  // deferred frame is no response: its weak key needs no settling.)
  std::uint64_t weak(std::size_t k) const {
    const FrameRole role = refs[k].role();
    return role.kind == FrameKind::response ? combine(static_cast<std::uint64_t>(role.dir) + 1, 0x7265737000ULL)
                                            : combine(salt, k + 1);
  }
};

// The strong key a deferred frame holds until it is settled (a settled frame may hold it too:
// Prepared::deferred decides; the alignment looks at the bits only for frames holding it).
inline constexpr std::uint64_t kDeferredKey = 0x756e6b65796564ULL;

// Where one line of a transcript is: its position among all frames, its 1-based line, its byte
// offset and its size without LF (offset and size 0 for frames in memory).
struct Place {
  std::size_t index = 0, line = 0;
  std::uint64_t offset = 0, size = 0;
};

// A notification's keys by the hash of its JSON text, for a frame sent identically elsewhere
// (file_diff.cpp's NotificationCache). A hit gives what keying the frame would.
class KeyCache {
 public:
  struct Hit {
    const std::string* method;
    std::uint64_t content;
  };
  virtual ~KeyCache() = default;
  virtual std::uint64_t hash(Direction dir, std::string_view text) const = 0;
  virtual std::optional<Hit> find(std::uint64_t hash, std::size_t size) const = 0;
  virtual void put(std::uint64_t hash, std::size_t size, const std::string& method, std::uint64_t content) = 0;
};

// Where the differ finds a compared frame again after the alignment: in memory, or re-read from
// its transcript file at the line's offset.
class FrameStore {
 public:
  virtual ~FrameStore() = default;
  // The frame `ref` names; valid until the next call.
  virtual Result<const Frame*> get(const FrameRef& ref) = 0;
  // The same, read where it is without moving a file store's forward reading (to settle a
  // deferred frame's keys while the pairs are still to be read in order).
  virtual Result<const Frame*> get_aside(const FrameRef& ref) { return get(ref); }
  // The transcript line of `ref` as it is in the file (nullopt for frames in memory); valid
  // until the next call. Two equal lines hold the same frame.
  virtual Result<std::optional<std::string_view>> line_text(const FrameRef&) { return std::optional<std::string_view>(); }
};

// Builds a Prepared from the frames of one transcript, fed in wire order (every frame: responses
// need their requests); each frame is parsed once, here, unless its keys are deferred.
class Preparer {
 public:
  // `from_reader`: the frames come from a TranscriptReader, so their text is known to be UTF-8.
  Preparer(const Masker& masker, Side side, std::uint64_t salt, KeyCache* cache = nullptr, bool from_reader = false);

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
  Result<void> observe(const Frame& frame, const Place& at, const std::string& file, Twin* twin = nullptr);

  // Keeps a frame of direction `dir` that cannot name an id (may_name_id is false) and whose
  // twin the other side keeps deferred too, without its keys (see above); `twin` and `quiet` as
  // in Prepared. The caller checked FrameRef::refuses.
  void keep_deferred(Direction dir, const Place& at, bool twin, bool quiet);

  // Keeps a twin that may name an id, read in wire order, without its keys (pending, see above):
  // its slot, or nullopt when it is not on the compared side (it is still observed by
  // observe_pending, for the tracker). `may_initialize`: its line may be an initialize request.
  // The caller checked FrameRef::refuses.
  std::optional<std::size_t> keep_pending(Direction dir, const Place& at, bool twin, bool may_initialize);
  // Keys pending frame `frame` (line `line`, in `slot` when on the compared side) and its twin,
  // each side's tracker observing it now: the caller keys pending twins in wire order, before
  // any frame read after them.
  void observe_pending(const Frame& frame, std::size_t line, std::optional<std::size_t> slot, Preparer& twin,
                       std::size_t twin_line, std::optional<std::size_t> twin_slot);
  // Whether the same frames observed from here on get the same keys on both sides (both trackers
  // name responses alike).
  bool keys_like(const Preparer& other) const { return tracker_.names_like(other.tracker_); }

  // Gives deferred frame k its keys, reading it through `store` (nothing when they are known).
  // Not for a pending frame (PendingKeys keys those).
  Result<void> settle(std::size_t k, FrameStore& store);
  // The frames whose keys are still deferred.
  std::size_t deferred() const { return deferred_; }

  // The number of frames kept, and the strong key of the last one.
  std::size_t size() const { return p_.size(); }
  std::uint64_t last_strong() const { return p_.strong[p_.size() - 1]; }
  const Prepared& prepared() const { return p_; }

  static std::optional<Error> refuse(const Place& at, const std::string& file);

 private:
  // Keeps `frame`'s keys through keep(dir, envelope, content) (see observe).
  template <class Keep>
  void key(const Frame& frame, bool cached, Keep&& keep);
  // `twin`: the other side's frame at the same position has the same bytes (Prepared::twin).
  // `slot`: the deferred frame whose keys these are (nullopt: a new frame, observed in order).
  template <class Content>
  void keep(Direction dir, const Place& at, const Envelope& envelope, const Content& content_of, bool twin,
            std::optional<std::size_t> slot = std::nullopt);
  // Keeps a frame without its keys (deferred, with these other flags): stand-in keys and role.
  void keep_unkeyed(Direction dir, const Place& at, std::uint8_t flags);
  // Fills pending `slot` (nothing kept when nullopt: off-side) with keys its tracker gives now.
  template <class Content>
  void fill(Direction dir, std::size_t line, const Envelope& envelope, const Content& content_of,
            std::optional<std::size_t> slot);
  std::pair<std::uint32_t, std::uint64_t> intern(const Signature& sig);

  const Masker& masker_;
  Side side_;
  KeyCache* cache_ = nullptr;
  ParseLimits limits_;
  bool text_keys_[2] = {false, false};  // per Direction: notifications keyed by text_key.hpp
  std::uint32_t deferred_name_[2] = {UINT32_MAX, UINT32_MAX};  // per Direction: keep_deferred's stand-in
  std::size_t deferred_ = 0;
  SignatureTracker tracker_;
  std::map<std::tuple<Direction, FrameKind, std::string>, std::pair<std::uint32_t, std::uint64_t>> ids_;
  Prepared p_;
};

// Finds the declared paths that select no value in a transcript (stale declarations). Frames are
// parsed only while some path is still unmatched, so usually only the first few are.
class StaleScan {
 public:
  StaleScan(const MaskSpec& spec, const std::vector<MaskUse>& masks);
  explicit StaleScan(const MaskSpec& spec) : StaleScan(spec, {}) {}

  void observe(const MaskSpec& spec, const Frame& frame);
  void warn(DiffResult& result) const;
  bool done() const { return open_.empty(); }

 private:
  std::vector<std::size_t> open_;
};

// Counts the pairs of a comparison and hands each entry that is not identical to the result or
// its sink, holding the run's one FrameComparer.
class Builder {
 public:
  Builder(DiffResult& result, const DiffOptions& options)
      : result_(result), sink_(options.sink), comparer_(options.mask) {}

  FrameComparer& comparer() { return comparer_; }

  void pair(const Frame& e, const FrameRole& role, const std::string& esig, const Frame& a, const std::string& asig,
            bool moved);
  // Two frames with the same bytes (twins), the actual one on line `actual_line`: what pair()
  // says of them, reading only the expected frame (FrameComparer::compare_same, with the
  // expected frame's role when it is known). `sigs()` gives their signatures, asked only when
  // the pair is not identical.
  void same(const Frame& e, const std::optional<FrameRole>& role, std::size_t actual_line,
            const std::function<Result<std::pair<std::string, std::string>>()>& sigs, Result<void>& failed);
  void missing(std::size_t line, const std::string& sig);
  void extra(std::size_t line, const std::string& sig);
  void count(EntryKind kind, std::size_t frames = 1);

 private:
  void emit(DiffEntry&& entry);

  DiffResult& result_;
  EntrySink* sink_;
  FrameComparer comparer_;
};

void decide(DiffResult& result);

// Calls observe(frame) for the expected transcript's frames in order until it returns false.
using ExpectedFrames = std::function<Result<void>(const std::function<bool(const Frame&)>& observe)>;

// Decides the verdict and warns about stale declarations.
Result<void> finish(DiffResult& result, const ExpectedFrames& expected, const DiffOptions& options);

DiffResult new_result(std::string expected_file, std::string actual_file, const DiffOptions& options);
// A result for two transcripts with the same frames byte for byte (no frame parsed, masks count nothing).
DiffResult byte_identical_result(std::string expected_file, std::string actual_file, const DiffOptions& options);

// Keys the pending twins (see above) in wire order, up to a given one, for the alignment and the
// comparison (a pending twin's keys or role are needed: it is compared with a frame other than
// its twin, left unmatched, or its masked values may matter).
class PendingKeys {
 public:
  virtual ~PendingKeys() = default;
  // Keys every pending twin up to and including EXPECTED's frame i (key_e) or ACTUAL's frame j
  // (key_a); nothing when it is keyed already.
  virtual Result<void> key_e(std::size_t i) = 0;
  virtual Result<void> key_a(std::size_t j) = 0;
  // Whether no twin is pending any more.
  virtual bool empty() const = 0;
};

// The last lines of both transcripts when they are twins read in step and kept as a run, not a
// frame at a time (file_diff.cpp): after the other frames, each pairs with its twin. Such a run
// starts where both trackers name what follows alike, so its frames have the same keys on both
// sides and the alignment of the frames before it is that of the whole transcripts (the run is
// matched as their common suffix).
class TailRun {
 public:
  virtual ~TailRun() = default;
  // The run's frames on the compared side.
  virtual std::size_t compared() const = 0;
  // What the run has: server frames, client frames, and client frames whose line may be an
  // initialize request (spells "initialize", as it is or with \u escapes): which contested values
  // it may hold (a clientInfo only in an initialize request, a commandId only in a client frame).
  struct Holders {
    bool server = false, client = false, initialize = false;
  };
  virtual Holders holders() const = 0;
  // Keeps the run's frames in both preparers after the others, as reading them a frame at a
  // time would have (when the comparison must look into them).
  virtual Result<void> keep() = 0;
};

// Aligns the prepared keys (settling deferred ones as the alignment needs them, or all of them
// first with `settle_first`: few of them, or differences scattered everywhere), then compares
// the aligned pairs in transcript order, reaching each paired frame again through its store
// (MATCHING.md §5; see diff.hpp).
Result<void> diff_prepared(DiffResult& result, Builder& builder, Preparer& ve, Preparer& va, FrameStore& se,
                           FrameStore& sa, bool settle_first = false, PendingKeys* pending = nullptr,
                           TailRun* tail_run = nullptr);

// What the preparers of this thread did, for the tests that hold the file path to its promise
// (twins after a difference are not keyed): frames keyed in wire order (pending ones included),
// frames kept deferred, deferred frames settled, twins kept pending.
struct KeyWork {
  std::size_t keyed = 0, deferred = 0, settled = 0;
  std::size_t pending = 0;  // twins kept pending (once for both sides); keyed later counts in `keyed`
  std::size_t run = 0;      // twins read as a tail run and never kept a frame at a time (once for both)
  std::size_t twins_keyed = 0;  // twins keyed as they were read, once for both (counted in `keyed` too)
};
KeyWork& key_work();
// After how many twins in a row the file differ reads on as a run (file_diff.cpp); the tests set
// it low to hold every path to the same report.
std::size_t& twin_run_threshold();

inline constexpr std::uint64_t kExpectedSalt = 0x65787065637465ULL, kActualSalt = 0x61637475616cULL;

}  // namespace msptk::diff_parts
