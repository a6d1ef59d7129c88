#include "msptk/differ/diff.hpp"

#include "diff_parts.hpp"
#include "msptk/differ/align.hpp"
#include "msptk/transcript/input_file.hpp"
#include "msptk/transcript/text_key.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
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

namespace diff_parts {

Preparer::Preparer(const Masker& masker, Side side, std::uint64_t salt, KeyCache* cache, bool from_reader)
    : masker_(masker), side_(side), cache_(cache) {
  p_.salt = salt;
  limits_.utf8_known = from_reader;
  // The text key (text_key.hpp) is a notification's content key where the mask masks nothing
  // in notifications of that direction, for text known to be UTF-8.
  for (Direction dir : {Direction::client, Direction::server})
    text_keys_[static_cast<int>(dir)] =
        from_reader && masker_.masks_nothing(FrameRole{dir, FrameKind::notification, false});
}

std::optional<Error> Preparer::refuse(const Place& at, const std::string& file) {
  const char* why = FrameRef::refuses(at.index, at.line, at.offset, at.size);
  if (!why) return std::nullopt;
  return Error::unreadable(file, fmt::format("line {}: msptk diff compares transcripts of at most 4294967294 "
                                             "lines of less than 4 GiB each; this one has {}",
                                             at.line, why));
}

KeyWork& key_work() {
  thread_local KeyWork work;
  return work;
}

std::size_t& twin_run_threshold() {
  thread_local std::size_t threshold = 64;
  return threshold;
}

Result<void> Preparer::observe(const Frame& frame, const Place& at, const std::string& file, Twin* twin) {
  if (auto refused = refuse(at, file)) return *refused;
  ++key_work().keyed;
  if (twin) {
    ++key_work().twins_keyed;
    if (auto refused = refuse(twin->place, *twin->file)) {
      twin->kept = *refused;
      twin = nullptr;
    }
  }
  // A frame with a twin needs no cache: its twin is keyed here, and other copies rarely follow.
  key(frame, cache_ && !twin, [&](const Envelope& envelope, const auto& content) {
    keep(frame.dir, at, envelope, content, twin != nullptr);
    if (twin) twin->preparer->keep(frame.dir, twin->place, envelope, content, false);
  });
  return {};
}

template <class Keep>
void Preparer::key(const Frame& frame, bool cached, Keep&& keep_keys) {
  cached = cached && !frame.exact_bytes;
  std::uint64_t line_hash = 0;
  if (cached) {
    line_hash = cache_->hash(frame.dir, frame.json_text());
    if (const auto hit = cache_->find(line_hash, frame.json_text().size())) {
      Envelope envelope;
      envelope.kind = FrameKind::notification;
      envelope.method = *hit->method;
      keep_keys(envelope, [&](const FrameRole&) { return hit->content; });
      return;
    }
  }
  if (text_keys_[static_cast<int>(frame.dir)] && !frame.exact_bytes) {
    // Most frames of a session: a notification keyed straight from its text, without a DOM
    // (the same keys as below; anything the text key does not take goes on below).
    if (const std::optional<TextKey> key = notification_text_key(frame.json_text())) {
      const Envelope envelope = key->envelope();
      if (cached) cache_->put(line_hash, frame.json_text().size(), envelope.method, key->content);
      keep_keys(envelope, [&](const FrameRole&) { return key->content; });
      return;
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
  keep_keys(envelope, [&](const FrameRole& role) {
    if (known) return *known;
    known = ec ? hash_bytes(frame.wire_bytes()) : content_key(masker_, role, message);
    if (cached && !ec && envelope.kind == FrameKind::notification)
      cache_->put(line_hash, frame.json_text().size(), envelope.method, *known);
    return *known;
  });
}

void Preparer::keep_deferred(Direction dir, const Place& at, bool twin, bool quiet) {
  if (!on_side(dir, side_)) return;
  ++key_work().deferred;
  keep_unkeyed(dir, at, static_cast<std::uint8_t>((twin ? Prepared::kTwin : 0) | (quiet ? Prepared::kQuiet : 0)));
}

std::optional<std::size_t> Preparer::keep_pending(Direction dir, const Place& at, bool twin, bool may_initialize) {
  if (!on_side(dir, side_)) return std::nullopt;
  keep_unkeyed(dir, at,
               static_cast<std::uint8_t>((twin ? Prepared::kTwin : 0) |
                                         (dir == Direction::client && !may_initialize ? Prepared::kQuiet : 0) |
                                         Prepared::kPending));
  return p_.size() - 1;
}

void Preparer::keep_unkeyed(Direction dir, const Place& at, std::uint8_t flags) {
  ++deferred_;
  std::uint32_t& name = deferred_name_[static_cast<int>(dir)];  // interned once
  if (name == UINT32_MAX) name = intern(Signature{dir, FrameKind::notification, "(a twin, keys deferred)"}).first;
  p_.refs.push_back(FrameRef(at.index, at.line, at.offset, at.size, FrameRole{dir, FrameKind::notification, false}));
  p_.signature.push_back(name);
  p_.strong.push_back(kDeferredKey);
  p_.flags.push_back(static_cast<std::uint8_t>(flags | Prepared::kDeferred));
}

template <class Content>
void Preparer::fill(Direction dir, std::size_t line, const Envelope& envelope, const Content& content_of,
                    std::optional<std::size_t> slot) {
  Frame shell;  // what the tracker reads of a frame: its direction and line
  shell.dir = dir;
  shell.line = line;
  const Signature sig = tracker_.observe(shell, envelope);
  if (!slot) return;
  const auto [name, medium] = intern(sig);
  const FrameRole role = FrameRole::of(dir, envelope);
  const FrameRef was = p_.refs[*slot];
  p_.refs[*slot] = FrameRef(was.index(), was.line(), was.offset(), was.size(), role);
  p_.signature[*slot] = name;
  p_.strong[*slot] = combine(medium, content_of(role));
  p_.flags[*slot] &= Prepared::kTwin;  // keyed: no longer deferred, pending or quiet
  --deferred_;
}

void Preparer::observe_pending(const Frame& frame, std::size_t line, std::optional<std::size_t> slot, Preparer& twin,
                               std::size_t twin_line, std::optional<std::size_t> twin_slot) {
  ++key_work().keyed;
  key(frame, false, [&](const Envelope& envelope, const auto& content) {
    fill(frame.dir, line, envelope, content, slot);
    twin.fill(frame.dir, twin_line, envelope, content, twin_slot);
  });
}

Result<void> Preparer::settle(std::size_t k, FrameStore& store) {
  if (!p_.deferred(k)) return {};
  if (p_.pending(k))  // keyed in wire order only (PendingKeys): a caller's mistake, not the input's
    return Error::unreadable("msptk diff", "internal: a pending frame was settled out of wire order");
  ++key_work().settled;
  --deferred_;
  const FrameRef ref = p_.refs[k];
  auto frame = store.get_aside(ref);
  if (!frame) return frame.error();
  const Place at{ref.index(), ref.line(), ref.offset(), ref.size()};
  key(**frame, cache_ != nullptr, [&](const Envelope& envelope, const auto& content) {
    keep((*frame)->dir, at, envelope, content, p_.twin(k), k);
  });
  return {};
}

template <class Content>
void Preparer::keep(Direction dir, const Place& at, const Envelope& envelope, const Content& content_of, bool twin,
                    std::optional<std::size_t> slot) {
  Signature sig;
  if (slot) {
    // A deferred frame is no request or response: its signature is what a tracker would give,
    // without it (nothing to learn, and it is not read in wire order).
    sig = Signature{dir, envelope.kind, envelope.method};
  } else {
    Frame shell;  // what the tracker reads of a frame: its direction and line
    shell.dir = dir;
    shell.line = at.line;
    sig = tracker_.observe(shell, envelope);
  }
  if (!on_side(dir, side_)) return;
  const auto [name, medium] = intern(sig);
  const FrameRole role = FrameRole::of(dir, envelope);
  const std::uint64_t content = content_of(role);
  const FrameRef ref(at.index, at.line, at.offset, at.size, role);
  if (slot) {
    p_.refs[*slot] = ref;
    p_.signature[*slot] = name;
    p_.strong[*slot] = combine(medium, content);
    p_.flags[*slot] &= static_cast<std::uint8_t>(~Prepared::kDeferred);
    return;
  }
  p_.refs.push_back(ref);
  p_.signature.push_back(name);
  p_.strong.push_back(combine(medium, content));
  p_.flags.push_back(twin ? Prepared::kTwin : 0);
}

std::pair<std::uint32_t, std::uint64_t> Preparer::intern(const Signature& sig) {
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

StaleScan::StaleScan(const MaskSpec& spec, const std::vector<MaskUse>& masks) {
  for (std::size_t i = 0; i < spec.declared.size(); ++i)
    if (i >= masks.size() || masks[i].covered == 0) open_.push_back(i);
}

void StaleScan::observe(const MaskSpec& spec, const Frame& frame) {
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

void StaleScan::warn(DiffResult& result) const {
  for (std::size_t i : open_)
    result.warnings.push_back(fmt::format("declared path \"{}\" selects no value in {} (stale declaration?)",
                                          result.masks[i].path, result.expected_file));
}

void Builder::pair(const Frame& e, const FrameRole& role, const std::string& esig, const Frame& a,
                   const std::string& asig, bool moved) {
  FrameComparison cmp = comparer_.compare(e, a, role);
  EntryKind kind = moved ? EntryKind::moved
                         : cmp.outcome == FrameOutcome::identical   ? EntryKind::identical
                         : cmp.outcome == FrameOutcome::equivalent ? EntryKind::equivalent
                                                                   : EntryKind::divergent;
  count(kind);
  if (kind == EntryKind::identical) return;
  emit(DiffEntry{kind, e.line, a.line, esig, esig == asig ? std::string() : asig, std::move(cmp.divergences)});
}

void Builder::same(const Frame& e, const std::optional<FrameRole>& role, std::size_t actual_line,
                   const std::function<Result<std::pair<std::string, std::string>>()>& sigs, Result<void>& failed) {
  // compare(e, a, role) of two frames with the same bytes and direction is compare_same.
  FrameComparison cmp = role ? comparer_.compare_same(e, actual_line, *role) : comparer_.compare_same(e, actual_line);
  // The same bytes are never equivalent: identical, or divergent where a pairing conflicts.
  const EntryKind kind = cmp.outcome == FrameOutcome::identical ? EntryKind::identical : EntryKind::divergent;
  count(kind);
  if (kind == EntryKind::identical) return;
  const std::size_t expected_line = e.line;  // `e` may be the store's, which sigs() may read again
  auto names = sigs();
  if (!names) {
    failed = names.error();
    return;
  }
  auto& [esig, asig] = *names;
  emit(DiffEntry{kind, expected_line, actual_line, esig, esig == asig ? std::string() : asig, std::move(cmp.divergences)});
}

void Builder::missing(std::size_t line, const std::string& sig) {
  count(EntryKind::missing);
  emit(DiffEntry{EntryKind::missing, line, 0, sig, {}, {}});
}

void Builder::extra(std::size_t line, const std::string& sig) {
  count(EntryKind::extra);
  emit(DiffEntry{EntryKind::extra, 0, line, sig, {}, {}});
}

void Builder::count(EntryKind kind, std::size_t frames) {
  DiffCounts& c = result_.counts;
  switch (kind) {
    case EntryKind::identical: c.identical += frames; break;
    case EntryKind::equivalent: c.equivalent += frames; break;
    case EntryKind::divergent: c.divergent += frames; break;
    case EntryKind::missing: c.missing += frames; break;
    case EntryKind::extra: c.extra += frames; break;
    case EntryKind::moved: c.moved += frames; break;
  }
}

void Builder::emit(DiffEntry&& entry) {
  if (sink_) {
    sink_->entry(result_, std::move(entry));
  } else {
    result_.entries.push_back(std::move(entry));
  }
}

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

DiffResult byte_identical_result(std::string expected_file, std::string actual_file, const DiffOptions& options) {
  DiffResult result = new_result(std::move(expected_file), std::move(actual_file), options);
  result.byte_identical = true;
  return result;
}

namespace {

std::vector<std::size_t> select(const std::vector<Frame>& frames, Side side) {
  std::vector<std::size_t> out;
  out.reserve(frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i)
    if (on_side(frames[i].dir, side)) out.push_back(i);
  return out;
}

class MemoryStore final : public FrameStore {
 public:
  explicit MemoryStore(const std::vector<Frame>& frames) : frames_(frames) {}
  Result<const Frame*> get(const FrameRef& ref) override { return &frames_[ref.index()]; }

 private:
  const std::vector<Frame>& frames_;
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

// The two sides being compared, with their deferred keys (diff_parts.hpp) settled when first
// needed: when the alignment compares a deferred frame with a frame other than its twin, and for
// the frames it leaves unmatched. Two deferred twins are the same frame keys or not (the same
// bytes, and no request or response, so the same signature and content on both sides). A line
// that cannot be read again is kept as the error, and the comparison stops after the alignment.
class Sides {
 public:
  Sides(Preparer& ve, Preparer& va, FrameStore& se, FrameStore& sa, PendingKeys* pending)
      : e(ve.prepared()), a(va.prepared()), ve_(ve), va_(va), se_(se), sa_(sa), pending_(pending) {}

  const Prepared& e;
  const Prepared& a;

  // Frame i of EXPECTED and frame j of ACTUAL are deferred twins of each other.
  bool twins(std::size_t i, std::size_t j) const {
    return e.deferred(i) && a.deferred(j) && e.refs[i].index() == a.refs[j].index();
  }
  // Whether some frame is still pending (keyed in order by PendingKeys).
  bool pending() const { return pending_ && !pending_->empty(); }
  void settle_e(std::size_t i) {
    if (e.pending(i)) return key_pending(i, true);
    settle(ve_, se_, i);
  }
  void settle_a(std::size_t j) {
    if (a.pending(j)) return key_pending(j, false);
    settle(va_, sa_, j);
  }
  // Settles the deferred frames that are not pending (those are keyed in order, when needed).
  void settle_unpending() {
    for (std::size_t i = 0; i < e.size() && ve_.deferred(); ++i)
      if (!e.pending(i)) settle(ve_, se_, i);
    for (std::size_t j = 0; j < a.size() && va_.deferred(); ++j)
      if (!a.pending(j)) settle(va_, sa_, j);
  }

  bool same_strong(std::size_t i, std::size_t j) {
    const std::uint64_t ki = e.strong[i], kj = a.strong[j];
    if (ki != kDeferredKey && kj != kDeferredKey) return ki == kj;  // both known: most comparisons
    if (twins(i, j)) return true;
    settle_e(i);
    settle_a(j);
    return e.strong[i] == a.strong[j];
  }
  bool same_signature(std::size_t i, std::size_t j) {
    if (e.strong[i] != kDeferredKey && a.strong[j] != kDeferredKey) return e.medium(i) == a.medium(j);
    if (twins(i, j)) return true;
    settle_e(i);
    settle_a(j);
    return e.medium(i) == a.medium(j);
  }

  const std::optional<Error>& error() const { return error_; }
  // Whether some frame's keys are still deferred.
  bool deferred() const { return ve_.deferred() + va_.deferred() > 0; }

 private:
  void settle(Preparer& preparer, FrameStore& store, std::size_t k) {
    if (error_ || !preparer.prepared().deferred(k)) return;
    if (auto settled = preparer.settle(k, store); !settled) error_ = settled.error();
  }
  void key_pending(std::size_t k, bool expected) {
    if (error_) return;
    if (!pending_) {
      error_ = Error::unreadable(expected ? "expected" : "actual", "a pending frame with no one to key it");
      return;
    }
    if (auto keyed = expected ? pending_->key_e(k) : pending_->key_a(k); !keyed) error_ = keyed.error();
  }

  Preparer& ve_;
  Preparer& va_;
  FrameStore& se_;
  FrameStore& sa_;
  PendingKeys* pending_;
  std::optional<Error> error_;
};

// Three-level alignment (see diff.hpp) of a[alo, ahi) with b[blo, bhi): the matches of this
// level are marked, then each gap between two of them is aligned on the next level's keys.
void align(Sides& sides, int level, std::size_t alo, std::size_t ahi, std::size_t blo, std::size_t bhi,
           Alignment& out) {
  if (alo >= ahi || blo >= bhi) return;
  auto mark = [&](std::size_t i, std::size_t j) {
    out.matched_e[alo + i] = true;
    out.matched_a[blo + j] = true;
  };
  // Each level's keys are read in place or derived as they are compared: no window is copied.
  // Keys alone once none is deferred.
  const Prepared& a = sides.e;
  const Prepared& b = sides.a;
  const bool keyed = !sides.deferred();
  if (level == 0 && keyed) {
    for_each_common([&](std::size_t i) { return a.strong[alo + i]; }, ahi - alo,
                    [&](std::size_t j) { return b.strong[blo + j]; }, bhi - blo, mark);
  } else if (level == 0) {
    for_each_common_by([&](std::size_t i, std::size_t j) { return sides.same_strong(alo + i, blo + j); }, ahi - alo,
                       bhi - blo, mark);
  } else if (level == 1 && keyed) {
    for_each_common([&](std::size_t i) { return a.medium(alo + i); }, ahi - alo,
                    [&](std::size_t j) { return b.medium(blo + j); }, bhi - blo, mark);
  } else if (level == 1) {
    for_each_common_by([&](std::size_t i, std::size_t j) { return sides.same_signature(alo + i, blo + j); },
                       ahi - alo, bhi - blo, mark);
  } else {
    // A pending frame may be a response, whose weak key is its kind's: keyed first.
    for (std::size_t i = alo; i < ahi && sides.pending(); ++i)
      if (a.pending(i)) sides.settle_e(i);
    for (std::size_t j = blo; j < bhi && sides.pending(); ++j)
      if (b.pending(j)) sides.settle_a(j);
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
    align(sides, level + 1, i, mi, j, mj, out);
    if (mi == ahi || mj == bhi) break;
    i = mi + 1;
    j = mj + 1;
  }
}

// The twins after the last pair that can change the pairings (the tail: no pair but twins in
// place follows), and whether each needs reading. Compared with its twin, a frame only pairs the
// values it holds at unified places with themselves (compare_same): that is a divergence only
// where such a value is already paired with another value, and otherwise adds pairings of a
// value with itself, which only a later pair of other frames could contradict — in the tail none
// comes, and twins never pair a value with another one, so the contested values stay those at
// the tail's start. A twin whose line holds none of them (a handful of memmem) is identical
// without being parsed: each contested value is a JSON string with no quote, backslash or
// control character, which a line without \u and \/ escapes spells verbatim between the frame's
// quotes as the line's `raw` string escapes them (\"value\"), and with none contested a twin of
// the tail is identical unread. Declared paths are counted for every frame (the mask
// accounting), so with any declared the tail is read as before.
class TailTwins {
 public:
  TailTwins(const Prepared& pe, const Prepared& pa, const std::vector<bool>& matched_e,
            const std::vector<bool>& matched_a, const std::vector<std::uint32_t>& moved_to, std::uint32_t not_moved,
            bool declared) {
    if (declared) return;
    std::size_t i = 0, j = 0, last = 0;
    bool any = false;
    while (true) {
      const std::size_t ma = next_matched(matched_e, i, pe.size());
      const std::size_t mb = next_matched(matched_a, j, pa.size());
      for (; i < ma; ++i)
        if (moved_to[i] != not_moved) any = true, last = i;
      if (ma == pe.size() || mb == pa.size()) break;
      if (!(pe.twin(ma) && pe.refs[ma].index() == pa.refs[mb].index())) any = true, last = ma;
      i = ma + 1;
      j = mb + 1;
    }
    from_ = any ? last + 1 : 0;
    enabled_ = true;
  }

  // Whether the twin at expected index `i` is in the tail.
  bool from(std::size_t i) const { return enabled_ && i >= from_; }

  // Which bijection spaces a twin can hold a value of (mask.hpp): a server frame only request
  // ids; a client frame commandIds too, and an initialize request its clientInfo. The contested
  // values of other spaces cannot be in it.
  enum class Holder { server, client, initialize };
  // The holder twin i of `pe` is: a deferred twin is no request; a pending one is an initialize
  // request only if its line may say so (Prepared::quiet, see keep_pending).
  static Holder holder(const Prepared& pe, std::size_t i) {
    const FrameRef& ref = pe.refs[i];
    if (ref.dir() == Direction::server) return Holder::server;
    const bool initialize = pe.pending(i) ? !pe.quiet(i) : ref.role().initialize;
    return initialize ? Holder::initialize : Holder::client;
  }

  // Whether every twin of a tail run with these holders is identical unread: nothing declared,
  // and no value such frames can hold contested.
  bool uncontested_all(const TailRun::Holders& holders, const FrameComparer& comparer) {
    if (!enabled_) return false;
    for (Holder h : {Holder::server, Holder::client, Holder::initialize}) {
      const bool present = h == Holder::server ? holders.server : h == Holder::client ? holders.client : holders.initialize;
      if (!present) continue;
      const auto& needles = needles_for(h, comparer);
      if (!needles || !needles->empty()) return false;
    }
    return true;
  }
  // Whether that twin is identical without reading it at all: in the tail, with no value it can
  // hold contested (nothing in it can be paired with another value).
  bool uncontested(std::size_t i, Holder holder, const FrameComparer& comparer) {
    if (!from(i)) return false;
    const auto& needles = needles_for(holder, comparer);
    return needles && needles->empty();
  }
  // Whether that twin, whose line is `line`, is identical without reading it further.
  bool identical(std::size_t i, Holder holder, std::string_view line, const FrameComparer& comparer) {
    if (!from(i)) return false;
    const auto& needles = needles_for(holder, comparer);
    if (!needles) return false;
    // The only escapes that spell a character a contested value can hold (no quote, backslash
    // or control character) are \uXXXX and \/, at whatever level of nesting.
    if (holds(line, "\"rawBase64\"") || holds(line, "\\u") || holds(line, "\\/")) return false;
    for (const std::string& needle : *needles)
      if (holds(line, needle)) return false;
    return true;
  }

 private:
  using Needles = std::optional<std::vector<std::string>>;

  const Needles& needles_for(Holder holder, const FrameComparer& comparer) {
    if (!needles_) {
      needles_.emplace();
      for (Holder h : {Holder::server, Holder::client, Holder::initialize})
        (*needles_)[static_cast<int>(h)] = contested(comparer, h);
    }
    return (*needles_)[static_cast<int>(holder)];
  }

  static bool can_hold(Holder holder, std::size_t space) {
    if (space == kClientRequestIds || space == kServerRequestIds) return true;
    if (holder == Holder::server) return false;
    if (space == kClientInfoName || space == kClientInfoVersion) return holder == Holder::initialize;
    return true;  // commandIds (declared paths turn the tail off)
  }

  // The values a `holder` can hold that are paired with another value, as a transcript line
  // spells them (a string token of the frame inside the line's `raw` string: its quotes
  // escaped); nullopt when one cannot be looked for that way (not a string, empty, escaped) or
  // too many.
  static Needles contested(const FrameComparer& comparer, Holder holder) {
    std::vector<std::string> out;
    const Unifier& unifier = comparer.unifier();
    for (std::size_t space = 0; space < comparer.masker().space_count(); ++space) {
      if (!can_hold(holder, space)) continue;
      const Bijection& b = unifier.bijection(space);
      if (b.identity()) continue;
      for (const auto& [expected, pairing] : b.pairings()) {
        if (pairing.actual == expected) continue;
        for (const std::string* text : {&expected, &pairing.actual}) {
          if (text->size() < 3 || text->front() != '"' || text->back() != '"' ||
              text->find('\\') != std::string::npos || out.size() >= kMaxNeedles)
            return std::nullopt;
          out.push_back("\\\"" + text->substr(1, text->size() - 2) + "\\\"");
        }
      }
    }
    return out;
  }

  static constexpr std::size_t kMaxNeedles = 32;
  bool enabled_ = false;
  std::size_t from_ = 0;
  std::optional<std::array<Needles, 3>> needles_;
};

}  // namespace

Result<void> diff_prepared(DiffResult& result, Builder& builder, Preparer& ve, Preparer& va, FrameStore& se,
                           FrameStore& sa, bool settle_first, PendingKeys* pending, TailRun* tail_run) {
  Sides sides(ve, va, se, sa, pending);
  const Prepared& pe = sides.e;
  const Prepared& pa = sides.a;
  if (settle_first) {
    sides.settle_unpending();
    if (sides.error()) return *sides.error();
  }
  Alignment alignment{std::vector<bool>(pe.size()), std::vector<bool>(pa.size())};
  align(sides, 0, 0, pe.size(), 0, pa.size(), alignment);
  const std::vector<bool>& matched_e = alignment.matched_e;
  const std::vector<bool>& matched_a = alignment.matched_a;
  // The frames left over are paired by their keys and reported with their signatures.
  for (std::size_t i = 0; i < pe.size(); ++i)
    if (!matched_e[i]) sides.settle_e(i);
  for (std::size_t j = 0; j < pa.size(); ++j)
    if (!matched_a[j]) sides.settle_a(j);
  if (sides.error()) return *sides.error();

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
  TailTwins tail(pe, pa, matched_e, matched_a, moved_to, kNotMoved,
                 !builder.comparer().masker().spec().declared.empty());

  // Compare in transcript order.
  auto pair = [&](std::size_t i, std::size_t j, bool moved) -> Result<void> {
    if (!moved && pe.twin(i) && pe.refs[i].index() == pa.refs[j].index()) {
      // Twins: the same line on both sides. Nothing to compare in the tail when no value is
      // contested (see TailTwins), in a frame that names no masked place (quiet), or in a role
      // the mask masks nothing of (FrameComparer::compare with a known role says the same; see
      // comparer.hpp); else its masked values are paired with themselves, reading only the
      // expected side. A pending twin is compared without its keys (the comparer finds its
      // role), and keyed only for the signatures of a divergence.
      if (tail.from(i) && tail.uncontested(i, TailTwins::holder(pe, i), builder.comparer())) {
        builder.count(EntryKind::identical);
        return {};
      }
      const bool unkeyed = pe.pending(i);  // (its quiet says something else)
      const FrameRef re = pe.refs[i];
      if (!unkeyed && (pe.quiet(i) || builder.comparer().masker().masks_nothing(re.role()))) {
        builder.count(EntryKind::identical);
        return {};
      }
      if (tail.from(i)) {
        auto line = se.line_text(re);
        if (!line) return line.error();
        if (*line && tail.identical(i, TailTwins::holder(pe, i), **line, builder.comparer())) {
          builder.count(EntryKind::identical);
          return {};
        }
      }
      auto e = se.get(re);
      if (!e) return e.error();
      Result<void> failed;
      builder.same(**e, unkeyed ? std::nullopt : std::optional<FrameRole>(re.role()), pa.refs[j].line(),
                   [&]() -> Result<std::pair<std::string, std::string>> {
                     sides.settle_e(i);
                     sides.settle_a(j);
                     if (sides.error()) return *sides.error();
                     return std::pair(pe.sig(i), pa.sig(j));
                   },
                   failed);
      return failed;
    }
    // Any other pair was compared by its keys (settled) in the alignment; settled here too, in
    // case (nothing when they are known).
    sides.settle_e(i);
    sides.settle_a(j);
    if (sides.error()) return *sides.error();
    const FrameRef& re = pe.refs[i];
    const FrameRef& ra = pa.refs[j];
    // The same line on both sides, in a role the mask masks nothing of: identical, nothing to
    // parse (FrameComparer::compare with a known role says the same; see comparer.hpp).
    if (!moved && re.dir() == ra.dir() && builder.comparer().masker().masks_nothing(re.role())) {
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
  // The tail run pairs in place after everything else: identical unread when none of its frames
  // can hold a contested value, else kept now and compared a pair at a time.
  if (tail_run && tail_run->compared() > 0) {
    if (tail.uncontested_all(tail_run->holders(), builder.comparer())) {
      builder.count(EntryKind::identical, tail_run->compared());
    } else {
      const std::size_t i0 = pe.size(), j0 = pa.size();
      if (auto kept = tail_run->keep(); !kept) return kept.error();
      if (pe.size() - i0 != pa.size() - j0)
        return Error::unreadable(result.expected_file, "the tail both transcripts share changed while it was diffed");
      for (std::size_t k = 0; i0 + k < pe.size(); ++k)
        if (auto done = pair(i0 + k, j0 + k, false); !done) return done.error();
    }
  }
  result.masks = builder.comparer().accounting();
  result.client_info = client_info_changes(builder.comparer());
  return {};
}

}  // namespace diff_parts

using namespace diff_parts;

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
  MemoryStore se(expected), sa(actual);
  (void)diff_prepared(result, builder, ve, va, se, sa);  // memory stores never fail
  (void)finish(result, walk, options);
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
  for (const std::filesystem::path* file : {&golden->files.transcript, &other->transcript})
    if (auto ok = require_rereadable(*file, "diff"); !ok) return ok.error();
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
