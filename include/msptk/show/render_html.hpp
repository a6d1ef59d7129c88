// The HTML form of a shown session: one self-contained page (html/page.hpp: no external
// resource) with a sequence view — a client column and a host column, an arrow per frame from
// its sender to its receiver, the frame's kind, method, id and summary beside it — where each
// frame expands to its pretty JSON, a folded run of notifications expands to its frames, and a
// filter box keeps the frames whose method holds the text typed (also from the page's address:
// `page.html#filter=turn/`; `#open=8,10` opens the rows of those lines). Error responses,
// unanswered requests and answers to no request are marked as in the text form; the totals line
// and the legs files head the page. The page holds at most the first `max_frames` frames (20,000
// by default) and says so when the transcript has more (the totals still count them all), so
// its size does not grow without bound.
#pragma once

#include "msptk/show/show.hpp"

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

 private:
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
};

}  // namespace msptk::show
