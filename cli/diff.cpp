// `msptk diff EXPECTED ACTUAL`: the structural diff of two transcripts (MATCHING.md).
#include "masking.hpp"
#include "terminal.hpp"
#include "verbs.hpp"

#include "msptk/differ/html.hpp"
#include "msptk/differ/render.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>

namespace msptk::cli {

namespace {

struct DiffCli {
  std::string expected, actual;
  MaskOptions mask;
  std::string side = "both";
  std::string format = "text";
  std::string color = "auto";
};

// The HTML page: the diff keeps only the entries the page shows (differ/html.hpp), then the page
// renders the report's JSON form, reading the frames it shows from the two files.
int run_diff_html(const DiffCli& cli, Registry registry, Streams io) {
  const HtmlDiffLimits limits;
  KeptEntries kept(limits.entries);
  PathDiffOptions options{std::move(registry), cli.mask.paths, parse_mask_mode(cli.mask.mode).value_or(MaskMode::unify),
                          parse_side(cli.side).value_or(Side::both), &kept};
  auto report = diff_paths(cli.expected, cli.actual, options);
  if (!report) return report_error(io, report.error());
  kept.restore(*report);
  render_diff_html(io.out, to_json(*report), limits);
  return report->verdict() == Verdict::divergent ? 1 : 0;
}

int run_diff(const DiffCli& cli, Streams io) {
  auto registry = registry_for(cli.mask);
  if (!registry) return report_error(io, registry.error());
  if (cli.format == "html") return run_diff_html(cli, std::move(*registry), io);
  const ReportFormat format = cli.format == "json" ? ReportFormat::json : ReportFormat::text;
  const TextStyle style{use_color(cli.color, io.out)};
  // The report's entries are rendered as the diff finds them, into a temporary file (render.hpp):
  // memory does not grow with how much the two transcripts differ. Without a temporary file (none
  // can be created, or the disk filled up), the diff runs again with its entries kept.
  auto spool = SpooledReport::create(format, style);
  std::unique_ptr<SpooledReport> sink = spool ? std::move(*spool) : nullptr;
  PathDiffOptions options{std::move(*registry), cli.mask.paths,
                          parse_mask_mode(cli.mask.mode).value_or(MaskMode::unify),
                          parse_side(cli.side).value_or(Side::both), sink.get()};
  auto report = diff_paths(cli.expected, cli.actual, options);
  if (!report) return report_error(io, report.error());
  if (sink && !sink->failed()) {
    if (auto written = sink->finish(io.out, *report); !written) return report_error(io, written.error());
  } else {
    if (sink) {
      options.sink = nullptr;
      report = diff_paths(cli.expected, cli.actual, options);
      if (!report) return report_error(io, report.error());
    }
    if (format == ReportFormat::json) {
      render_json(io.out, *report);
    } else {
      render_text(io.out, *report, style);
    }
  }
  return report->verdict() == Verdict::divergent ? 1 : 0;
}

}  // namespace

Runner setup_diff(CLI::App& app) {
  auto cli = std::make_shared<DiffCli>();
  CLI::App* sub = app.add_subcommand("diff", "Compare two transcripts structurally: identical, equivalent or divergent");
  sub->footer(
      "Client frames are compared as parsed JSON (member order, whitespace and a trailing CR free); server\n"
      "frames byte for byte first, then structurally. Values the client mints (request ids and the server's\n"
      "responses to them, params.commandId, clientInfo name/version) and the paths of EXPECTED's manifest\n"
      "normalize list (plus --path) are unified through one-to-one pairings. Frames are aligned first, so a\n"
      "missing, extra or moved frame is reported as such. Two scenario folders: their *-legs.ndjson files of\n"
      "the same name are compared too.\n\n"
      "Exit status: 0 identical or equivalent, 1 divergent, 2 usage error, 3 unreadable or malformed input.");
  sub->add_option("EXPECTED", cli->expected,
                  "The reference: a scenario folder or a transcript file; its manifest's normalize list applies")
      ->required()
      ->type_name("PATH");
  sub->add_option("ACTUAL", cli->actual, "The transcript to check: a scenario folder or a transcript file")
      ->required()
      ->type_name("PATH");
  add_mask_options(*sub, cli->mask);
  sub->add_option("--side", cli->side, "Which frames to compare: client, server or both")
      ->check(CLI::IsMember({"client", "server", "both"}))
      ->default_str("both")
      ->type_name("SIDE");
  sub->add_option("--format", cli->format, "Report format: text, json (schema: docs/diff-json.md) or html (one self-contained page: the frames "
                  "side by side, the differing places highlighted)")
      ->check(CLI::IsMember({"text", "json", "html"}))
      ->default_str("text")
      ->type_name("FORMAT");
  sub->add_option("--color", cli->color,
                  "Color the text report: auto (only on a terminal, and never when NO_COLOR is set), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->default_str("auto")
      ->type_name("WHEN");
  return [cli](Streams io) { return run_diff(*cli, io); };
}

}  // namespace msptk::cli
