// Holds a SpooledReport (render.hpp: entries rendered as the diff finds them, into a temporary
// file) to the reports render_text and render_json write for the same diff with its entries
// kept: byte for byte, text with and without colors, and JSON.
#pragma once

#include "msptk/differ/render.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>

namespace msptk::test {

// `diff(sink)` runs the same diff, its entries kept (sink null) or handed to the sink.
inline void expect_spooled_same(const std::function<Result<DiffReport>(EntrySink*)>& diff, const std::string& name) {
  auto kept = diff(nullptr);
  ASSERT_TRUE(kept) << name << ": " << kept.error().render();
  auto check = [&](ReportFormat format, bool color) {
    const TextStyle style{color};
    std::ostringstream want;
    if (format == ReportFormat::json) {
      render_json(want, *kept);
    } else {
      render_text(want, *kept, style);
    }
    auto spool = SpooledReport::create(format, style);
    ASSERT_TRUE(spool) << spool.error().render();
    auto spooled = diff(spool->get());
    ASSERT_TRUE(spooled) << name << ": " << spooled.error().render();
    for (const DiffResult& r : spooled->comparisons) EXPECT_TRUE(r.entries.empty()) << name;
    std::ostringstream got;
    auto written = (*spool)->finish(got, *spooled);
    ASSERT_TRUE(written) << name << ": " << written.error().render();
    EXPECT_EQ(got.str(), want.str()) << name << (format == ReportFormat::json ? " (json)" : " (text)")
                                     << (color ? " (color)" : "");
  };
  check(ReportFormat::text, false);
  check(ReportFormat::text, true);
  check(ReportFormat::json, false);
}

}  // namespace msptk::test
