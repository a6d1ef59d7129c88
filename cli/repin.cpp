// msptk repin [--root DIR] [--bundles DIR]... [--dry-run]: move additive-stale pins to the
// stable fingerprint, editing only the pin's token in each manifest (maintenance/repin.hpp).
#include "verbs.hpp"

#include "msptk/maintenance/repin.hpp"

#include <memory>

namespace msptk::cli {

namespace {

struct RepinCli {
  std::string root = ".";
  std::vector<std::string> bundles;
  bool dry_run = false;
};

int run_repin(const RepinCli& cli, Streams io) {
  maintenance::RepinOptions options;
  options.staleness.root = cli.root;
  for (const auto& b : cli.bundles) options.staleness.bundles.emplace_back(b);
  options.dry_run = cli.dry_run;
  auto report = maintenance::repin(options);
  if (!report) return report_error(io, report.error());
  maintenance::render_repin_text(*report, io.out);
  return report->exit_code();
}

}  // namespace

Runner setup_repin(CLI::App& app) {
  auto cli = std::make_shared<RepinCli>();
  CLI::App* sub = app.add_subcommand("repin", "Rewrite the fingerprint of additive-stale manifests to the stable one");
  sub->footer(
      "A stale pin whose drift to the stable bundle is additive (only added methods, definitions, optional members,\n"
      "open-enum values) gets the stable fingerprint: only that token of manifest.json is replaced, atomically.\n"
      "Acknowledged pins are skipped; non-additive or unclassified drift is listed for a person. Transcripts, the\n"
      "ledger and bundles are never edited.\n\n"
      "Exit status: 0 nothing left for a person, 1 pins left (non-additive or unclassified drift), 2 usage error or\n"
      "malformed ledger, 3 unreadable input or a failed write.");
  add_root_option(*sub, cli->root);
  add_bundles_option(*sub, cli->bundles);
  sub->add_flag("--dry-run", cli->dry_run, "Print what would change and write nothing");
  return [cli](Streams io) { return run_repin(*cli, io); };
}

}  // namespace msptk::cli
