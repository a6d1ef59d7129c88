// msptk review [CORPUS...]: decide, one by one, which pending candidates (check --update) become
// the golden recordings: accept, reject, skip, quit. Non-interactive: --list, --accept-equivalent,
// --reject-all, --format json; a stdin that is not a terminal never prompts (it lists).
#include "masking.hpp"
#include "verbs.hpp"
#include "staging_sweep.hpp"

#include "msptk/review/session.hpp"
#include "msptk/transcript/json_io.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sys/ioctl.h>
#include <unistd.h>

namespace msptk::cli {

namespace {

struct ReviewCli {
  std::vector<std::string> corpora;
  bool accept_equivalent = false, reject_all = false, list = false;
  std::string format = "text";
  std::string registry;  // --registry
};

// The person at msptk's terminal: answers are lines of stdin; text longer than the screen goes
// through $PAGER (default `less -R`) when stdout is a terminal.
class RealTerminal final : public review::Terminal {
 public:
  explicit RealTerminal(Streams io) : io_(io) {}

  void show(const std::string& text) override {
    io_.out << std::flush;
    winsize size{};
    const bool tty = &io_.out == &std::cout && ::isatty(STDOUT_FILENO);
    const bool sized = tty && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_row > 0;
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    if (sized && lines + 2 > size.ws_row) {
      const char* pager = std::getenv("PAGER");
      const std::string command = pager && *pager ? pager : "less -R";
      if (FILE* pipe = ::popen(command.c_str(), "w")) {
        std::fwrite(text.data(), 1, text.size(), pipe);
        if (::pclose(pipe) != -1) return;
      }
    }
    io_.out << text << std::flush;
  }

  std::optional<std::string> ask(const std::string& prompt) override {
    io_.out << prompt << std::flush;
    std::string line;
    if (!std::getline(std::cin, line)) {
      io_.out << "\n";
      return std::nullopt;
    }
    return line;
  }

 private:
  Streams io_;
};

int finish(const ReviewCli& cli, const review::ReviewSummary& summary, Streams io) {
  if (cli.format == "json") io.out << boost::json::serialize(review::to_json(summary)) << "\n";
  else review::render_text(io.out, summary);
  io.out << std::flush;
  // The report stays on stdout; every decision that could not be made or written is an error.
  bool failed = false;
  for (const review::ReviewEntry& entry : summary.entries) {
    if (!entry.failure) continue;
    report_error(io, *entry.failure);
    failed = true;
  }
  if (failed) return 3;
  return summary.pending() ? 1 : 0;
}

int run_review(const ReviewCli& cli, Streams io) {
  if (cli.accept_equivalent + cli.reject_all + cli.list > 1)
    return report_error(io, Error::usage("choose one of --list, --accept-equivalent and --reject-all"));
  std::vector<std::filesystem::path> paths(cli.corpora.begin(), cli.corpora.end());
  if (paths.empty()) paths.emplace_back(".");
  sweep_staging_leftovers({paths.begin(), paths.end()}, io);
  auto candidates = review::find_candidates(paths);
  if (!candidates) return report_error(io, candidates.error());
  review::ReviewOptions options;
  auto registry = explicit_registry(cli.registry);
  if (!registry) return report_error(io, registry.error());
  options.registry = std::move(*registry);
  if (candidates->empty()) {
    if (cli.format == "json") io.out << boost::json::serialize(review::to_json({})) << "\n";
    else io.out << "no candidates pending review (msptk check CORPUS --update leaves them)\n";
    return 0;
  }
  if (cli.accept_equivalent) return finish(cli, review::run_bulk(*candidates, review::BulkAction::accept_equivalent, options), io);
  if (cli.reject_all) return finish(cli, review::run_bulk(*candidates, review::BulkAction::reject_all, options), io);
  const bool interactive = !cli.list && cli.format == "text" && ::isatty(STDIN_FILENO) && &io.out == &std::cout;
  if (!interactive) return finish(cli, review::run_bulk(*candidates, review::BulkAction::list, options), io);
  options.color = ::isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
  RealTerminal terminal(io);
  review::ReviewSummary summary = review::run_review(*candidates, terminal, options);
  io.out << "\n";
  return finish(cli, summary, io);
}

}  // namespace

Runner setup_review(CLI::App& app) {
  auto cli = std::make_shared<ReviewCli>();
  CLI::App* sub = app.add_subcommand(
      "review", "Accept or reject the pending candidates that `msptk check --update` left beside golden scenarios");
  sub->footer(
      "For each <scenario>/.pending/ under CORPUS (default: the current folder) review shows the verdict of\n"
      "the candidate against the golden scenario and the path-level diff, and asks: a(ccept), r(eject),\n"
      "s(kip), q(uit). Accepting an identical or equivalent candidate replaces the golden transcript.ndjson\n"
      "(provenance host-generated); accepting a divergent one first asks for cite, rationale and trackingIssue\n"
      "(none may be blank), written to the manifest's regenerationJustification. Rejecting deletes the\n"
      "candidate. Accepting rewrites the scenario folder as a whole (one exchanging rename), writes exactly\n"
      "the bytes shown, keeps the golden's fingerprint pin, and refuses a candidate changed since it was\n"
      "shown, a capture cut short, or another scenario's recording. A stdin that is not a terminal never\n"
      "prompts: review lists.\n\n"
      "Exit status: 0 nothing left pending, 1 candidates still pending, 2 usage error, 3 unreadable scenario\n"
      "or a decision that could not be made or written (reported on stderr).");
  sub->add_option("CORPUS", cli->corpora, "A corpus folder or a scenario folder (default: .)")->type_name("");
  sub->add_flag("--list", cli->list, "List the candidates and their verdicts; decide nothing");
  sub->add_flag("--accept-equivalent", cli->accept_equivalent,
                "Accept every identical or equivalent candidate; leave divergent ones pending");
  sub->add_flag("--reject-all", cli->reject_all, "Delete every candidate");
  sub->add_option("--format", cli->format, "Output format: text or json (json never prompts)")
      ->check(CLI::IsMember({"text", "json"}))
      ->default_str("text")
      ->type_name("FORMAT");
  add_registry_option(*sub, cli->registry);
  return [cli](Streams io) { return run_review(*cli, io); };
}

}  // namespace msptk::cli
