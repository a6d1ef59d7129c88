// msptk wire-log FILE [--check TRANSCRIPT] [--rebuild OUT] [--format text|json]: show a
// recording's raw wire log (record --wire-log) as a table of chunks, rebuild its frames and
// check them against a transcript.
#include "option_checks.hpp"
#include "verbs.hpp"

#include "msptk/transcript/display.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/scenario.hpp"
#include "msptk/transcript/writer.hpp"
#include "msptk/wirelog/render.hpp"
#include "msptk/wirelog/wire_log.hpp"

#include <memory>

namespace msptk::cli {

namespace {

struct WireLogCli {
  std::string file;
  std::string check;
  std::string rebuild;
  std::string format = "text";
};

int run_wire_log(const WireLogCli& cli, Streams io) {
  auto chunks = wirelog::read_wire_log(cli.file);
  if (!chunks) return report_error(io, chunks.error());
  const wirelog::WireAnalysis analysis = wirelog::analyze(*chunks);

  std::optional<ScenarioFiles> checked;
  if (!cli.check.empty()) {
    auto files = locate_scenario(cli.check);
    if (!files) return report_error(io, files.error());
    checked = std::move(*files);
  }
  if (!cli.rebuild.empty()) {
    std::vector<std::filesystem::path> inputs{cli.file};
    if (checked) inputs.push_back(checked->transcript);
    if (auto ok = wirelog::write_rebuilt(analysis, cli.rebuild, inputs); !ok) return report_error(io, ok.error());
  }

  std::optional<wirelog::RebuildCheck> check;
  std::string transcript;
  if (checked) {
    transcript = checked->transcript.string();
    auto frames = read_transcript(checked->transcript);
    if (!frames) return report_error(io, frames.error());
    check = wirelog::compare_with_transcript(analysis, *frames);
  }

  if (cli.format == "json") {
    wirelog::render_json(io.out, cli.file, analysis, check ? &*check : nullptr, transcript);
  } else if (check) {
    wirelog::render_check(io.out, cli.file, *check, transcript);
  } else if (cli.rebuild.empty()) {
    wirelog::render_table(io.out, cli.file, analysis);
  } else {
    io.out << display_text(cli.file) << ": " << analysis.frames.size() << " frames rebuilt into "
           << display_text(cli.rebuild) << "\n";
  }
  return check && !check->same() ? 1 : 0;
}

}  // namespace

Runner setup_wire_log(CLI::App& app) {
  auto cli = std::make_shared<WireLogCli>();
  CLI::App* sub = app.add_subcommand(
      "wire-log", "Show a recording's raw wire log (record --wire-log FILE): chunks, gaps, where frames were cut");
  sub->footer(
      "The table has one row per chunk as the recorder read it: seq, dir (client: read from the client,\n"
      "server: read from the host), tMicros since the recording started, the gap since the previous chunk,\n"
      "its size, how many frames its LFs completed, and whether it ended inside a frame (and inside a UTF-8\n"
      "code point). --check rebuilds the frames exactly as the recorder cut them and compares them, frame for\n"
      "frame, with a transcript.\n\n"
      "Exit status: 0 ok (rebuilt frames identical with --check), 1 the rebuilt frames differ, 2 usage error,\n"
      "3 unreadable or malformed wire log or transcript.\n"
      "Example: msptk record --out s --wire-log s.wire -- muse serve; msptk wire-log s.wire --check s");
  sub->add_option("FILE", cli->file, "The wire log (one JSON line per chunk)")->required()->type_name("");
  sub->add_option("--check", cli->check, "Compare the rebuilt frames with this scenario folder or transcript")
      ->check(path_check())
      ->type_name("TRANSCRIPT");
  sub->add_option("--rebuild", cli->rebuild,
                  "Write the rebuilt frames as a transcript (ndjson) to OUT (0600: recorded bytes; never FILE itself)")
      ->check(file_check())
      ->type_name("OUT");
  sub->add_option("--format", cli->format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->default_str("text")
      ->type_name("FORMAT");
  return [cli](Streams io) { return run_wire_log(*cli, io); };
}

}  // namespace msptk::cli
