// GoogleTest assertions for users' own tests: compare a golden scenario with a recording the way
// `msptk diff` does (MATCHING.md: structural, ids unified, EXPECTED's manifest normalize list
// applied) and, on failure, print the path-level report.
//
//   EXPECT_TRANSCRIPT_EQUIVALENT("golden/session-start", "out/session-start");
//   ASSERT_TRANSCRIPT_EQUIVALENT(golden_dir, recording_dir);
//
// Each argument is a scenario folder or a transcript file (anything convertible to
// std::filesystem::path). Identical and equivalent pass; divergent fails with the report;
// an unreadable or malformed input fails with the error. Header-only: link GTest and
// msptk::msptk.
#pragma once

#include "msptk/differ/diff.hpp"
#include "msptk/differ/render.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

namespace msptk::testing {

inline ::testing::AssertionResult TranscriptEquivalent(const char* golden_expr, const char* actual_expr,
                                                       const std::filesystem::path& golden,
                                                       const std::filesystem::path& actual) {
  auto report = diff_paths(golden, actual, PathDiffOptions{});
  if (!report) {
    return ::testing::AssertionFailure() << "cannot compare " << golden_expr << " with " << actual_expr << ": "
                                         << report.error().render();
  }
  if (report->verdict() != Verdict::divergent) return ::testing::AssertionSuccess();
  std::ostringstream text;
  render_text(text, *report);
  return ::testing::AssertionFailure() << actual_expr << " (" << actual.string() << ") diverges from "
                                       << golden_expr << " (" << golden.string() << "):\n"
                                       << text.str();
}

}  // namespace msptk::testing

#define EXPECT_TRANSCRIPT_EQUIVALENT(golden, actual) \
  EXPECT_PRED_FORMAT2(::msptk::testing::TranscriptEquivalent, golden, actual)
#define ASSERT_TRANSCRIPT_EQUIVALENT(golden, actual) \
  ASSERT_PRED_FORMAT2(::msptk::testing::TranscriptEquivalent, golden, actual)
