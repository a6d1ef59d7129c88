// The HTML form of a shown session: one self-contained page (html/page.hpp: no external
// resource) titled with the scenario (its manifest's provenance, fingerprint and pins under the
// title when the scenario has one), then a sequence view — a client column and a host column, an arrow per frame from
// its sender to its receiver, the frame's kind, method, id and summary beside it — where each
// frame expands (a ▸ marks it) to its pretty JSON, a folded run of notifications expands to its frames, and a
// filter box keeps the frames whose method holds the text typed (also from the page's address:
// `page.html#filter=turn/`; `#open=8,10` opens the rows of those lines). Error responses,
// unanswered requests and answers to no request are marked as in the text form; the totals line
// and the legs files head the page. The page holds at most the first `max_frames` frames (20,000
// by default) and says so when the transcript has more (the totals still count them all), so
// its size does not grow without bound.
#pragma once

#include "msptk/show/show.hpp"
#include "msptk/transcript/manifest.hpp"

#include <ostream>

namespace msptk::show {

class HtmlRenderer final : public RowSink {
 public:
  static constexpr std::size_t kDefaultMaxFrames = 20000;
  explicit HtmlRenderer(std::ostream& out, std::size_t max_frames = kDefaultMaxFrames) : out_(out), max_frames_(max_frames) {}
  void begin(const std::string& file, const std::vector<std::string>& legs) override;
  bool wants_frames() const override { return true; }
  void fold_member(const Row& row) override;
  void row(const Row& row) override;
  void end(const Totals& totals) override;
  // The scenario's manifest (the page's title and heading name it), or why it could not be read.
  void set_manifest(Manifest manifest) { manifest_ = std::move(manifest); }
  void set_manifest_problem(std::string problem) { manifest_problem_ = std::move(problem); }

 private:
  void write_heading(const Totals& totals);

  std::string frame_html(const Row& row) const;

  std::ostream& out_;
  std::size_t max_frames_;
  std::string file_;
  std::vector<std::string> legs_;
  std::string body_;     // the sequence, written out by end() under the totals
  std::string members_;  // the frames of the folded run in progress
  std::size_t frames_ = 0;    // frames on the page
  std::size_t left_out_ = 0;  // frames beyond max_frames
  bool timings_ = false;
  std::optional<Manifest> manifest_;
  std::string manifest_problem_;
};

}  // namespace msptk::show
