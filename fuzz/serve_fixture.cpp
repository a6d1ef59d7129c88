// Fuzz target: serve-fixture's client-frame matcher (playback/serve_fixture.hpp), the whole
// session over in-memory byte streams. Input: three header bytes — flags (mask, see
// fuzz_support.hpp; 0x40 --keep-going, 0x80 --follow-minted), frameLimitBytes (0: the default 10 MiB, else 4 × the byte) and the
// client's write size (0: everything at once, else that many bytes per read) — then the
// recorded transcript, then optionally a NUL and the bytes the client writes.
// Invariants:
// - the report renders as exactly one line of valid JSON;
// - without client bytes the client plays the recorded client lines themselves (wire bytes +
//   LF); when each is one line a client can send (not empty, no LF, not a lone CR), the run is
//   complete, has matched every client line and written every server line (whatever the
//   options; --follow-minted then substitutes nothing: every pairing is the identity);
// - --keep-going lists at most kReportDivergences differences.
#include "fuzz_support.hpp"

#include "msptk/playback/serve_fixture.hpp"

#include "msptk/transcript/json_parse.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace msptk;
  using namespace msptk::playback;
  if (size < 3) return 0;
  const std::uint8_t flags = data[0], limit = data[1], chunk = data[2];
  const auto [script_text, client_text] = fuzz::split_at_nul(fuzz::as_text(data + 3, size - 3));

  FixtureScript script;
  script.transcript = "transcript.ndjson";
  script.frame_limit = limit == 0 ? static_cast<std::size_t>(kDefaultFrameLimitBytes) : 4u * limit;
  script.frames = fuzz::frames_of(script_text);

  std::string client;
  bool playable = true;
  std::size_t client_lines = 0, server_lines = 0;
  if (client_text) {
    client = std::string(*client_text);
  } else {
    for (const Frame& f : script.frames) {
      if (f.dir == Direction::server) {
        ++server_lines;
        continue;
      }
      ++client_lines;
      const std::string& bytes = f.wire_bytes();
      if (bytes.empty() || bytes == "\r" || bytes.find('\n') != std::string::npos) playable = false;
      client += bytes;
      client += '\n';
    }
  }
  std::vector<std::string> chunks;
  const std::size_t step = chunk == 0 ? client.size() : chunk;
  for (std::size_t at = 0; at < client.size(); at += step) chunks.push_back(client.substr(at, step));

  MemorySource source(std::move(chunks));
  MemorySink sink;
  ServeOptions options;
  options.keep_going = (flags & 0x40) != 0;
  options.follow_minted = (flags & 0x80) != 0;
  const ServeFixtureReport report = serve_fixture(script, fuzz::mask_from_flags(flags), source, sink, options);
  if (report.keep_going)
    MSPTK_FUZZ_CHECK(report.keep_going->differences.size() <= kReportDivergences, "{} differences listed",
                     report.keep_going->differences.size());

  std::ostringstream rendered;
  render_report_json(rendered, report);
  const std::string line = rendered.str();
  MSPTK_FUZZ_CHECK(!line.empty() && line.back() == '\n' && line.find('\n') == line.size() - 1,
                   "the report is not one line: {}", line);
  auto parsed = parse_json(line);
  MSPTK_FUZZ_CHECK(parsed.has_value(), "the report is not JSON ({}): {}", parsed ? "" : parsed.error().describe(), line);

  if (!client_text && playable) {
    MSPTK_FUZZ_CHECK(report.complete(), "a client playing the recorded client lines failed: {}", line);
    MSPTK_FUZZ_CHECK(report.client_frames == client_lines && report.server_frames == server_lines,
                     "{} of {} client and {} of {} server frames played", report.client_frames, client_lines,
                     report.server_frames, server_lines);
    MSPTK_FUZZ_CHECK(!report.substitutions || *report.substitutions == 0, "{} substitutions of identical values",
                     *report.substitutions);
  }
  return 0;
}
