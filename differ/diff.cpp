#include "msptk/differ/diff.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/differ/align.hpp"
#include "msptk/differ/signature.hpp"
#include "msptk/transcript/reader.hpp"


#include <fmt/format.h>

#include <deque>
#include <functional>
#include <map>

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

std::uint64_t hash_text(std::string_view s) { return std::hash<std::string_view>{}(s); }
std::uint64_t combine(std::uint64_t a, std::uint64_t b) { return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2)); }

// The alignment keys of the compared frames of one transcript.
struct Prepared {
  std::vector<std::size_t> index;  // into the transcript's frames
  std::vector<std::string> signature;
  std::vector<std::uint64_t> strong, medium, weak;
};

Prepared prepare(const std::vector<Frame>& frames, const Masker& masker, Side side, std::uint64_t salt) {
  Prepared p;
  SignatureTracker tracker;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const Frame& frame = frames[i];
    auto parsed = parse_json(frame.json_text());
    json::value message = parsed ? std::move(*parsed) : json::value();
    Envelope envelope;
    if (parsed) envelope = classify(message);
    // Frames that are not JSON, and rawBase64 lines (their bytes are the frame), key by bytes.
    const bool ec = !parsed || frame.exact_bytes;
    const Signature sig = tracker.observe(frame, envelope);  // every frame: responses need their requests
    if (!on_side(frame.dir, side)) continue;
    std::string text = sig.text();
    const std::uint64_t medium = hash_text(text);
    const std::uint64_t content =
        ec ? hash_text(frame.wire_bytes()) : content_key(masker, FrameRole::of(frame.dir, envelope), message);
    p.index.push_back(i);
    p.signature.push_back(std::move(text));
    p.medium.push_back(medium);
    p.strong.push_back(combine(medium, content));
    // Only responses align on direction + kind (one whose id answers no request still pairs with
    // its counterpart); any other frame gets a key of its own and stays missing or extra.
    p.weak.push_back(envelope.kind == FrameKind::response
                         ? combine(static_cast<std::uint64_t>(frame.dir) + 1, 0x7265737000ULL)
                         : combine(salt, p.index.size()));
  }
  return p;
}

// Three-level alignment (see diff.hpp) of a[alo, ahi) with b[blo, bhi).
void align(const Prepared& a, const Prepared& b, int level, std::size_t alo, std::size_t ahi, std::size_t blo,
           std::size_t bhi, std::vector<Match>& out) {
  if (alo >= ahi || blo >= bhi) return;
  const auto& ka = level == 0 ? a.strong : level == 1 ? a.medium : a.weak;
  const auto& kb = level == 0 ? b.strong : level == 1 ? b.medium : b.weak;
  std::vector<Match> matches = longest_common_subsequence(std::span(ka).subspan(alo, ahi - alo),
                                                          std::span(kb).subspan(blo, bhi - blo));
  std::size_t i = alo, j = blo;
  for (const auto& [ma, mb] : matches) {
    if (level < 2) align(a, b, level + 1, i, alo + ma, j, blo + mb, out);
    out.emplace_back(alo + ma, blo + mb);
    i = alo + ma + 1;
    j = blo + mb + 1;
  }
  if (level < 2) align(a, b, level + 1, i, ahi, j, bhi, out);
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
    auto parsed = parse_json(frame.json_text());
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
  Builder(DiffResult& result, const DiffOptions& options) : result_(result), comparer_(options.mask) {}

  FrameComparer& comparer() { return comparer_; }

  void pair(const Frame& e, const std::string& esig, const Frame& a, const std::string& asig, bool moved) {
    FrameComparison cmp = comparer_.compare(e, a);
    EntryKind kind = moved ? EntryKind::moved
                           : cmp.outcome == FrameOutcome::identical   ? EntryKind::identical
                           : cmp.outcome == FrameOutcome::equivalent ? EntryKind::equivalent
                                                                     : EntryKind::divergent;
    count(kind);
    if (kind == EntryKind::identical) return;
    DiffEntry entry{kind, e.line, a.line, esig, esig == asig ? std::string() : asig, std::move(cmp.divergences)};
    result_.entries.push_back(std::move(entry));
  }

  void missing(const Frame& e, const std::string& sig) {
    count(EntryKind::missing);
    result_.entries.push_back(DiffEntry{EntryKind::missing, e.line, 0, sig, {}, {}});
  }

  void extra(const Frame& a, const std::string& sig) {
    count(EntryKind::extra);
    result_.entries.push_back(DiffEntry{EntryKind::extra, 0, a.line, sig, {}, {}});
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
  DiffResult& result_;
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

void finish(DiffResult& result, const std::vector<Frame>& expected, const DiffOptions& options) {
  decide(result);
  if (!options.warn_stale) return;
  StaleScan scan(options.mask, result.masks);
  for (std::size_t i = 0; i < expected.size() && !scan.done(); ++i) scan.observe(options.mask, expected[i]);
  scan.warn(result);
}

}  // namespace

DiffResult diff_frames(const std::vector<Frame>& expected, const std::vector<Frame>& actual, const DiffOptions& options,
                       std::string expected_file, std::string actual_file) {
  DiffResult result;
  result.expected_file = std::move(expected_file);
  result.actual_file = std::move(actual_file);
  result.side = options.side;
  result.mode = options.mask.mode;
  for (const JsonPath& path : options.mask.declared) result.masks.push_back(MaskUse{path.text(), 0, 0});

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
    finish(result, expected, options);
    return result;
  }

  Builder builder(result, options);
  const Masker& masker = builder.comparer().masker();
  const Prepared pe = prepare(expected, masker, options.side, 0x65787065637465ULL);
  const Prepared pa = prepare(actual, masker, options.side, 0x61637475616cULL);
  std::vector<Match> matches;
  align(pe, pa, 0, 0, pe.index.size(), 0, pa.index.size(), matches);

  // Frames left over on both sides with the same signature and content key: moved.
  std::vector<bool> matched_e(pe.index.size()), matched_a(pa.index.size());
  for (const auto& [i, j] : matches) matched_e[i] = matched_a[j] = true;
  std::map<std::uint64_t, std::deque<std::size_t>> extras;
  for (std::size_t j = 0; j < pa.index.size(); ++j)
    if (!matched_a[j]) extras[pa.strong[j]].push_back(j);
  std::vector<std::optional<std::size_t>> moved_to(pe.index.size());
  std::vector<bool> consumed(pa.index.size());
  for (std::size_t i = 0; i < pe.index.size(); ++i) {
    if (matched_e[i]) continue;
    auto it = extras.find(pe.strong[i]);
    if (it == extras.end() || it->second.empty()) continue;
    moved_to[i] = it->second.front();
    consumed[it->second.front()] = true;
    it->second.pop_front();
  }

  // Compare in transcript order.
  auto frame_e = [&](std::size_t i) -> const Frame& { return expected[pe.index[i]]; };
  auto frame_a = [&](std::size_t j) -> const Frame& { return actual[pa.index[j]]; };
  std::size_t i = 0, j = 0;
  for (std::size_t m = 0; m <= matches.size(); ++m) {
    const std::size_t ma = m < matches.size() ? matches[m].first : pe.index.size();
    const std::size_t mb = m < matches.size() ? matches[m].second : pa.index.size();
    for (; i < ma; ++i) {
      if (moved_to[i]) {
        builder.pair(frame_e(i), pe.signature[i], frame_a(*moved_to[i]), pa.signature[*moved_to[i]], true);
      } else {
        builder.missing(frame_e(i), pe.signature[i]);
      }
    }
    for (; j < mb; ++j)
      if (!consumed[j]) builder.extra(frame_a(j), pa.signature[j]);
    if (m < matches.size()) {
      builder.pair(frame_e(ma), pe.signature[ma], frame_a(mb), pa.signature[mb], false);
      ++i;
      ++j;
    }
  }
  result.masks = builder.comparer().accounting();
  finish(result, expected, options);
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

Result<DiffResult> diff_transcripts(const std::filesystem::path& expected, const std::filesystem::path& actual,
                                    const DiffOptions& options) {
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
  auto e = read_transcript(expected);
  if (!e) return e.error();
  auto a = read_transcript(actual);
  if (!a) return a.error();
  return diff_frames(*e, *a, options, expected.string(), actual.string());
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
