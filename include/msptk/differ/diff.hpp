// The offline differ compares two whole transcripts (MATCHING.md §5): it aligns the two frame
// sequences, then compares the aligned pairs in order with one FrameComparer, so that one
// missing or extra frame is reported as such instead of making every later frame look
// different, and a frame present on both sides at another position is reported as moved.
//
// Bytes first: when both transcripts hold the same frames byte for byte, nothing is parsed
// (equal transcripts cost little more than reading them). Otherwise frames are keyed by their
// signature (signature.hpp), once for both sides when the two have the same line at the same place
// (a twin, identical when aligned; one is keyed only if compared with another frame or needed
// in wire order, and the twins after the last difference are read as one run, counted unread
// when nothing in them can differ: differ/file_diff.cpp), and aligned in three passes: on signature + content key (the
// same frames), then within the gaps on signature alone (the same frame with other values:
// divergent), then responses alone on direction + kind (a response whose id answers no request). Frames
// left over are missing or extra; a missing and an extra frame with the same signature and
// content key are one moved frame. A DiffResult is data; render it with render.hpp.
#pragma once

#include "msptk/differ/comparer.hpp"
#include "msptk/normalizer/mask.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/normalizer/unifier.hpp"
#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/scenario.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace msptk {

enum class Side { client, server, both };
std::string_view to_string(Side side);
std::optional<Side> parse_side(std::string_view text);

enum class Verdict { identical, equivalent, divergent };
std::string_view to_string(Verdict verdict);

enum class EntryKind { identical, equivalent, divergent, missing, extra, moved };
std::string_view to_string(EntryKind kind);

struct DiffEntry;
struct DiffResult;

// Where a diff may hand each entry as it is found instead of keeping it in DiffResult::entries:
// a report of two unrelated 100 MB sessions has a hundred thousand entries and the values of
// every divergent place, so a renderer that writes them out as they come (render.hpp's
// SpooledReport) keeps the differ's memory independent of how much differs.
class EntrySink {
 public:
  virtual ~EntrySink() = default;
  // A comparison of two transcripts starts (diff_transcripts, diff_frames: once each, in order).
  virtual void begin() = 0;
  // The next entry of the comparison `result` is building (its file names, side and mode are
  // set; its counts, masks and verdict are not final yet).
  virtual void entry(const DiffResult& result, DiffEntry&& entry) = 0;
};

struct DiffOptions {
  MaskSpec mask;
  Side side = Side::both;  // which frames are compared (the others are left out entirely)
  bool warn_stale = true;  // warn about declared paths that select no value in EXPECTED
  // When set, every entry goes to the sink and DiffResult::entries stays empty.
  EntrySink* sink = nullptr;
};

// One frame of the comparison that is not identical.
struct DiffEntry {
  EntryKind kind = EntryKind::divergent;
  std::size_t expected_line = 0;  // 0: no expected frame (extra)
  std::size_t actual_line = 0;    // 0: no actual frame (missing)
  std::string signature;          // of the expected frame (of the actual one for extra)
  std::string actual_signature;   // set only when the aligned actual frame's signature differs
  std::vector<PathDivergence> divergences;
};

struct DiffCounts {
  std::size_t identical = 0, equivalent = 0, divergent = 0, missing = 0, extra = 0, moved = 0;
  std::size_t frames() const { return identical + equivalent + divergent + missing + extra + moved; }
};

struct DiffResult {
  std::string expected_file, actual_file;
  Side side = Side::both;
  Verdict verdict = Verdict::identical;
  DiffCounts counts;
  std::vector<DiffEntry> entries;  // every frame that is not identical, in transcript order
                                   // (empty when they went to DiffOptions::sink)
  MaskMode mode = MaskMode::unify;
  std::vector<MaskUse> masks;      // per declared path
  std::vector<PathDivergence> client_info;  // clientInfo values that differ (unified: client_info_changes)
  bool byte_identical = false;     // the byte fast path: no frame parsed, masks counted nothing
  std::vector<std::string> warnings;  // stale declarations
};

DiffResult diff_frames(const std::vector<Frame>& expected, const std::vector<Frame>& actual, const DiffOptions& options,
                       std::string expected_file = "expected", std::string actual_file = "actual");

// Reads both transcript files (an unreadable file or a malformed line is an error) and diffs them.
Result<DiffResult> diff_transcripts(const std::filesystem::path& expected, const std::filesystem::path& actual,
                                    const DiffOptions& options);

// A legs file only one of two scenarios has.
struct UnpairedFile {
  bool in_expected = true;  // true: only EXPECTED has it (missing); false: only ACTUAL (extra)
  std::string file;
};

// The comparison of two scenarios: the main transcripts, then each *-legs.ndjson file both
// scenarios have (by name, each its own run with its own bijections: legs are separate
// captures). A legs file on one side only is listed in `unpaired` and does not change the
// verdict: legs are captures a scenario's author kept beside the connection (the corpus's
// model-command-legs.ndjson is the source lines 6-9 and 11-12 were copied from), not part of
// the connection, so a live recording (record, replay --record) never has them.
struct DiffReport {
  std::vector<DiffResult> comparisons;
  std::vector<UnpairedFile> unpaired;

  Verdict verdict() const;
  DiffCounts total() const;
};

Result<DiffReport> diff_scenarios(const ScenarioFiles& expected, const ScenarioFiles& actual,
                                  const DiffOptions& options);

// How to compare two paths as users give them.
struct PathDiffOptions {
  Registry registry = Registry::builtin();
  std::vector<std::string> extra_paths;  // normalized besides EXPECTED's manifest list
  MaskMode mode = MaskMode::unify;
  Side side = Side::both;
  EntrySink* sink = nullptr;  // DiffOptions::sink of every comparison
};

// Diffs EXPECTED and ACTUAL (scenario folders or transcript files) under the normalize list of
// EXPECTED's manifest plus `extra_paths`. When both are scenario folders their legs files are
// compared too (diff_scenarios); otherwise the two transcripts alone.
Result<DiffReport> diff_paths(const std::filesystem::path& expected, const std::filesystem::path& actual,
                              const PathDiffOptions& options);

}  // namespace msptk
