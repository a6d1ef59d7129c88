// Helpers of the serve-fixture unit tests: scripts built in memory and played through the
// in-memory ByteSource/ByteSink seams (no process, no file).
#pragma once

#include "msptk/playback/serve_fixture.hpp"
#include "test_support.hpp"

#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace msptk::playback {

// A script from (direction, raw) pairs; lines numbered from 1.
inline FixtureScript script_of(std::vector<std::pair<Direction, std::string>> lines, std::size_t limit = 10485760) {
  FixtureScript s;
  s.scenario.manifest.scenario = "unit";
  s.transcript = "unit/transcript.ndjson";
  s.frame_limit = limit;
  for (auto& [dir, raw] : lines) {
    Frame f;
    f.dir = dir;
    f.raw = std::move(raw);
    f.line = s.frames.size() + 1;
    s.frames.push_back(std::move(f));
  }
  return s;
}

inline MaskSpec spec_of(std::vector<std::string> declared = {"id", "params.commandId"}, MaskMode mode = MaskMode::unify) {
  auto spec = make_mask_spec(Registry::builtin(), declared, "", 0, {}, mode);
  EXPECT_TRUE(spec);
  return *spec;
}

struct Played {
  ServeFixtureReport report;
  std::string out;
};

inline Played play(const FixtureScript& script, std::vector<std::string> chunks, const MaskSpec& spec = spec_of(),
         std::size_t sink_capacity = std::numeric_limits<std::size_t>::max(), const ServeOptions& options = {}) {
  MemorySource source(std::move(chunks));
  MemorySink sink(sink_capacity);
  Played run;
  run.report = serve_fixture(script, spec, source, sink, options);
  run.out = sink.bytes();
  return run;
}

inline std::string json_line(const ServeFixtureReport& report) {
  std::ostringstream out;
  render_report_json(out, report);
  return out.str();
}

inline const std::string kInit = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"conformance","version":"0.0.0"}}})";
inline const std::string kInitResult = R"({"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"muse"}}})";
inline const std::string kInitialized = R"({"jsonrpc":"2.0","method":"initialized"})";
inline const std::string kStart = R"({"jsonrpc":"2.0","id":2,"method":"session/start","params":{"commandId":"c-aaa","workspaceRoot":"/w"}})";
inline const std::string kStarted = R"({"jsonrpc":"2.0","method":"session/started","params":{"session":{"sessionId":"s1"},"commandId":"c-aaa"}})";
inline const std::string kStartResult = R"({"id":2,"jsonrpc":"2.0","result":{"session":{"sessionId":"s1","id":2}}})";

inline FixtureScript handshake() {
  return script_of({{Direction::client, kInit},
                    {Direction::server, kInitResult},
                    {Direction::client, kInitialized},
                    {Direction::client, kStart},
                    {Direction::server, kStarted},
                    {Direction::server, kStartResult}});
}

inline std::string lines(std::initializer_list<std::string> frames) {
  std::string out;
  for (const auto& f : frames) out += f + "\n";
  return out;
}


}  // namespace msptk::playback
