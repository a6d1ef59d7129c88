// `msptk show PATH`: a transcript as a person reads it, a line per frame (show/show.hpp), or one
// frame pretty-printed (--frame N), as text, JSON (docs/show-json.md) or one HTML page.
#include "option_checks.hpp"
#include "terminal.hpp"
#include "verbs.hpp"

#include "msptk/show/render.hpp"
#include "msptk/show/render_html.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>

namespace msptk::cli {

namespace {

struct ShowCli {
  std::string path;
  std::size_t frame = 0;
  std::vector<std::string> methods;
  std::string lines;
  bool all = false;
  std::string color = "auto";
  std::string wire_log;
  std::string format = "text";
  std::optional<std::size_t> width;
};

// --width, else the terminal's width, else $COLUMNS, else no cut.
std::size_t line_width(const ShowCli& cli, const std::ostream& out) {
  if (cli.width) return *cli.width;
  winsize size{};
  if (on_terminal(out) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS"); columns && *columns) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(columns, &end, 10);
    if (end && *end == '\0' && n > 0 && n < 100000) return n;
  }
  return 0;
}

int run_show(const ShowCli& cli, Streams io) {
  auto target = show::locate_target(cli.path);
  if (!target) return report_error(io, target.error());
  std::optional<std::filesystem::path> wire_log;
  if (!cli.wire_log.empty()) wire_log = cli.wire_log;
  if (cli.frame) {
    if (!cli.methods.empty() || !cli.lines.empty() || cli.all)
      return report_error(io, Error::usage("--frame shows one frame: --method, --lines and --all do not apply"));
    if (cli.format == "html") return report_error(io, Error::usage("--frame writes text or json, not html"));
    auto detail = show::find_frame(target->transcript, cli.frame, wire_log);
    if (!detail) return report_error(io, detail.error());
    if (cli.format == "json") show::render_frame_json(io.out, *detail);
    else show::render_frame_text(io.out, *detail);
    return 0;
  }
  show::ShowOptions options;
  options.methods = cli.methods;
  if (!cli.lines.empty()) {
    auto range = show::parse_line_range(cli.lines);
    if (!range) return report_error(io, range.error());
    options.lines = *range;
  }
  options.fold = !cli.all;
  options.wire_log = wire_log;
  std::unique_ptr<show::RowSink> sink;
  if (cli.format == "json") sink = std::make_unique<show::JsonRenderer>(io.out);
  else if (cli.format == "html") sink = std::make_unique<show::HtmlRenderer>(io.out);
  else sink = std::make_unique<show::TextRenderer>(io.out, show::TextOptions{line_width(cli, io.out), use_color(cli.color, io.out)});
  auto totals = show::show_transcript(*target, options, *sink);
  io.out << std::flush;
  if (!totals) return report_error(io, totals.error());
  return 0;
}

}  // namespace

Runner setup_show(CLI::App& app) {
  auto cli = std::make_shared<ShowCli>();
  CLI::App* sub = app.add_subcommand("show", "Show a transcript as a person reads it: a line per frame, or one frame pretty-printed");
  sub->footer(
      "Each line: the transcript line, the direction, the kind (request, response, notification, server request,\n"
      "answer, error), the method (a response: its request's), the id and a summary of params/result/error cut to\n"
      "the width. A response right after its request is put under it (an arrow on a UTF-8 terminal); runs of three\n"
      "or more notifications of one method are folded (item/delta x37, lines A-B) unless --all; error responses,\n"
      "unanswered requests and answers to no request stand out. The last line counts frames by kind and lists the requests left unanswered.\n"
      "Text and JSON are streamed: memory does not grow with the transcript.\n\n"
      "Exit status: 0 shown, 2 usage error, 3 unreadable input or wire log.\n"
      "Examples: msptk show corpus/handshake-request-before-initialize\n"
      "          msptk show session/ --method 'turn/*' --lines 100-200\n"
      "          msptk show session/ --frame 12");
  sub->add_option("PATH", cli->path, "A scenario folder (its transcript.ndjson) or a transcript file (a legs file too)")
      ->required()
      ->type_name("PATH");
  sub->add_option("--frame", cli->frame, "Pretty-print the frame of transcript line N (2-space JSON, tokens as sent)")
      ->check(number_check(1))
      ->type_name("N");
  sub->add_option("--method", cli->methods, "Show only frames of method M (a response: of its request); 'item/*' a prefix; repeatable")
      ->type_name("M");
  sub->add_option("--lines", cli->lines, "Show only transcript lines A to B (A-B, A-, or one line A)")->type_name("A-B");
  sub->add_flag("--all", cli->all, "Do not fold runs of one notification");
  sub->add_option("--wire-log", cli->wire_log,
                  "The recording's wire log (record --wire-log): each frame's time since the start, each response's latency")
      ->check(file_check())
      ->type_name("FILE");
  sub->add_option("--format", cli->format, "Output: text (default), json (docs/show-json.md) or html (one self-contained page, the first 20,000 frames)")
      ->check(CLI::IsMember({"text", "json", "html"}))
      ->default_str("text")
      ->type_name("FORMAT");
  sub->add_option("--color", cli->color, "Colour the text: auto (only on a terminal, and never when NO_COLOR is set), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->default_str("auto")
      ->type_name("WHEN");
  sub->add_option("--width", cli->width, "Cut text lines to N columns (0: never); default: the terminal's width, else $COLUMNS")
      ->check(number_check(0, 100000))
      ->type_name("N");
  return [cli](Streams io) { return run_show(*cli, io); };
}

}  // namespace msptk::cli
