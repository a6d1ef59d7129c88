// Renderers of a shown session (show.hpp), each a RowSink writing to a std::ostream as rows come:
//   text  one line per row —
//             12  client → host  request         turn/start               id 3      sessionId="…" …
//             13  host → client  response      ↳ turn/start               id 3      status="accepted" …
//             14  host → client  notification    item/delta ×37           lines 14–50  itemId="…" delta="Hel"
//         the line, the direction, the kind, `↳` for a response right under its request, the
//         method, the id (a folded run: its lines), with a wire log the time since the start
//         (`0.412s`) and a response's latency (`+12.3ms`), tags ([unanswered], [answers no
//         request], [rawBase64]) and the summary cut to the width; an error response, an
//         unanswered request and an answer to no request in colour when asked. The last line
//         counts the frames by kind and lists the requests left unanswered.
//   json  one document, a row a line (docs/show-json.md)
//   html  one self-contained page (render_html.hpp)
// render_frame_text writes one frame for `msptk show --frame N`: its pretty JSON (pretty.hpp:
// tokens as sent; bytes that are not UTF-8 shown as \xNN, control bytes escaped) to `out`, and
// the header line (line, direction, kind, method, id, pairing, time) and any note (rawBase64, why
// the line is not a frame) to `notes` — the same stream on a terminal; stderr when stdout is
// piped, so `msptk show S --frame 8 | jq .result` reads JSON only.
#pragma once

#include "msptk/show/show.hpp"

#include <ostream>

namespace msptk::show {

struct TextOptions {
  std::size_t width = 0;  // terminal columns a line may take; 0: no cut
  bool color = false;     // ANSI colours
};

class TextRenderer final : public RowSink {
 public:
  TextRenderer(std::ostream& out, TextOptions options) : out_(out), options_(options) {}
  void begin(const std::string& file, const std::vector<std::string>& legs) override;
  void row(const Row& row) override;
  void end(const Totals& totals) override;

 private:
  std::ostream& out_;
  TextOptions options_;
  std::vector<std::string> legs_;
};

class JsonRenderer final : public RowSink {
 public:
  explicit JsonRenderer(std::ostream& out) : out_(out) {}
  void begin(const std::string& file, const std::vector<std::string>& legs) override;
  void row(const Row& row) override;
  void end(const Totals& totals) override;

 private:
  std::ostream& out_;
  bool first_ = true;
};

// The last line of the text form: "19 frames: 6 requests, 6 responses, …; unanswered: …".
std::string totals_line(const Totals& totals);
// A row as the JSON object docs/show-json.md describes (compact, one line).
std::string row_json(const Row& row);

// "line 8 · host → client · response turn/start · id 3 · answers line 7"
std::string frame_header(const FrameDetail& detail);
void render_frame_text(std::ostream& out, const FrameDetail& detail, std::ostream& notes);
void render_frame_json(std::ostream& out, const FrameDetail& detail);

}  // namespace msptk::show
