// `msptk learn REC1 REC2 [REC...] [--write]`: the declarations that make recordings of the same
// script against a host that is not fully seeded diff equivalent, found and proved (learn/).
// Prints them; --write writes each recording's manifest `normalize` and the corpus file of the
// recordings' nearest common folder. What cannot be declared away is exit 1, nothing written.
#include "verbs.hpp"

#include "msptk/learn/learn.hpp"

#include <memory>

namespace msptk::cli {

namespace {

struct LearnCli {
  std::vector<std::string> recordings;
  bool write = false;
};

int run_learn(const LearnCli& cli, Streams io) {
  std::vector<std::filesystem::path> recordings(cli.recordings.begin(), cli.recordings.end());
  auto result = learn::learn(recordings);
  if (!result) return report_error(io, result.error());
  if (!result->ok()) {
    learn::render_text(io.out, *result, false);
    return 1;
  }
  if (cli.write) {
    if (auto written = learn::write_declarations(*result); !written) return report_error(io, written.error());
  }
  learn::render_text(io.out, *result, cli.write);
  return 0;
}

}  // namespace

Runner setup_learn(CLI::App& app) {
  auto cli = std::make_shared<LearnCli>();
  CLI::App* sub = app.add_subcommand(
      "learn", "Find and prove the normalize declarations of recordings of the same script (record it 3 times)");
  sub->footer(
      "Each path whose values differ between the runs is declared: unify (the same one-to-one correspondence in\n"
      "every run), rfc3339 or non-negative-integer (times, durations, counters: erased, the type checked), uuid or\n"
      "erase (the rest). With them every pair of recordings diffs equivalent, and each is needed. What cannot be\n"
      "declared away (another number of frames, a path that varies in some frames and not in others) is listed\n"
      "with the host pins that remove it: exit 1, nothing written.\n"
      "Exit status: 0 learned, 1 cannot be declared away, 2 usage error, 3 unreadable recording.\n"
      "Example: msptk learn runs/1 runs/2 runs/3 --write && msptk check runs --host 'my-host --stdio'");
  sub->add_option("RECORDING", cli->recordings, "A scenario folder recorded from the script (two or more)")
      ->type_name("")
      ->required();
  sub->add_flag("--write", cli->write,
                "Write the declarations: each recording's manifest normalize, and the msptk-corpus.json of their "
                "nearest common folder (created there when none is found above it)");
  return [cli](Streams io) { return run_learn(*cli, io); };
}

}  // namespace msptk::cli
