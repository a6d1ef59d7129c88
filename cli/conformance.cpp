// `muse-conformance <verb> [--root DIR] ...` (msptk run under that name, or `msptk conformance
// ...`): the command line of the upstream conformance harness, for SDKs and scripts that spawn
// it by name. Each verb maps onto the msptk verb that does the work, with msptk's reports and
// exit codes (0 conformant, 1 conformance failure, 2 usage, 3 infrastructure):
//   validate       msptk validate ROOT/transcripts --stable-manifest ... --schema ROOT/stable/msp.schema.json
//   staleness      msptk staleness --root ROOT
//   repin          msptk repin --root ROOT
//   replay|regen   msptk replay|regen --transcript DIR -- MUSE_BIN serve   (the pinned configuration)
//   serve-fixture  msptk serve-fixture
// Options a verb does not declare here are handed to the msptk verb unchanged.
#include "verbs.hpp"
#include "version.hpp"

#include "msptk/maintenance/corpus_root.hpp"

#include <filesystem>
#include <memory>

namespace msptk::cli {

namespace fs = std::filesystem;

namespace {

struct ConformanceCli {
  std::string root;        // --root ("" = not given: the current folder)
  std::string transcript;  // --transcript
  std::string muse_bin = "muse";
};

// --transcript DIR as given when it exists, else a scenario of ROOT's transcripts/ by that name.
std::string resolve_transcript(const ConformanceCli& cli) {
  std::error_code ec;
  if (cli.transcript.empty() || fs::exists(cli.transcript, ec)) return cli.transcript;
  if (auto root = maintenance::locate_corpus_root(cli.root.empty() ? "." : cli.root)) {
    const fs::path named = root->transcripts() / cli.transcript;
    if (fs::exists(named, ec)) return named.string();
  }
  return cli.transcript;
}

int run_msptk(std::vector<std::string> args, Streams io) {
  std::vector<const char*> argv;
  argv.push_back("msptk");
  for (const std::string& a : args) argv.push_back(a.c_str());
  return run(static_cast<int>(argv.size()), argv.data(), io);
}

}  // namespace

ConformanceCommand translate_conformance(int argc, const char* const* argv, Streams io, const std::string& name) {
  CLI::App app{"The MSP conformance harness (msptk's implementation of muse-conformance): validate, staleness, repin, "
               "replay, regen and serve-fixture over a schema/msp corpus"};
  app.name(name);
  app.set_version_flag("--version", "muse-conformance (msptk " MSPTK_VERSION ", commit " MSPTK_GIT_COMMIT ")");
  app.require_subcommand(1);
  app.footer(
      "Each verb runs the msptk verb that does the work (msptk VERB --help lists the options it passes through).\n"
      "Exit status: 0 conformant, 1 conformance failure, 2 usage error, 3 infrastructure.");
  auto cli = std::make_shared<ConformanceCli>();
  auto verb = [&](const char* verb_name, const char* description, const char* maps_to) {
    CLI::App* sub = app.add_subcommand(verb_name, description);
    sub->allow_extras();
    sub->footer(std::string("Runs ") + maps_to + "; any other option is passed to it unchanged.");
    return sub;
  };
  auto root_option = [&](CLI::App* sub) {
    sub->add_option("--root", cli->root,
                    "A source tree holding schema/msp/, or a schema/msp folder itself (default: the current folder)")
        ->type_name("DIR");
  };
  auto transcript_option = [&](CLI::App* sub, bool required) {
    auto* opt = sub->add_option("--transcript", cli->transcript,
                                "The scenario folder (or a scenario name under ROOT's transcripts/)")
                    ->type_name("DIR");
    if (required) opt->required();
  };
  auto muse_option = [&](CLI::App* sub) {
    sub->add_option("--muse-bin", cli->muse_bin, "The host to spawn, as `PATH serve` with the pinned configuration")
        ->default_str("muse")
        ->type_name("PATH");
  };
  CLI::App* validate = verb("validate", "Validate every scenario against the format rules and the stable bundle",
                            "msptk validate ROOT/transcripts --stable-manifest ... --schema ...");
  root_option(validate);
  transcript_option(validate, false);
  CLI::App* staleness = verb("staleness", "Check every fingerprint pin against the stable bundle", "msptk staleness");
  root_option(staleness);
  CLI::App* repin = verb("repin", "Repin additive-stale manifests to the stable fingerprint", "msptk repin");
  root_option(repin);
  CLI::App* replay = verb("replay", "Replay a scenario's client side against `MUSE_BIN serve`", "msptk replay");
  root_option(replay);
  transcript_option(replay, true);
  muse_option(replay);
  CLI::App* regen = verb("regen", "Regenerate a scenario from `MUSE_BIN serve`", "msptk regen");
  root_option(regen);
  transcript_option(regen, true);
  muse_option(regen);
  CLI::App* serve = verb("serve-fixture", "Play a scenario's server side to a client (a canned host)", "msptk serve-fixture");
  root_option(serve);
  transcript_option(serve, false);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      app.exit(e, io.out, io.err);
      return {0, {}};
    }
    if (app.get_subcommands().empty()) {
      std::string verbs;
      for (const CLI::App* sub : app.get_subcommands({})) verbs += (verbs.empty() ? "" : ", ") + sub->get_name();
      if (argc < 2) io.err << name << ": error: a verb is required (" << verbs << ")\n";
      else if (argv[1][0] == '-') io.err << name << ": error: unknown option '" << argv[1] << "' (options go after the verb)\n";
      else io.err << name << ": error: unknown verb '" << argv[1] << "' (verbs: " << verbs << ")\n";
    } else {
      io.err << name << ": error: " << e.what() << "\n";
    }
    io.err << "Run '" << name << " --help' for usage.\n";
    return {2, {}};
  }
  CLI::App* chosen = app.get_subcommands().front();
  std::vector<std::string> extras = chosen->remaining();
  std::vector<std::string> args;
  const std::string root = cli->root.empty() ? "." : cli->root;
  if (chosen == validate) {
    auto located = maintenance::locate_corpus_root(root);
    if (!located) return {report_error(io, located.error()), {}};
    args = {"validate", cli->transcript.empty() ? located->transcripts().string() : resolve_transcript(*cli)};
    std::error_code ec;
    if (fs::exists(located->stable() / "manifest.json", ec))
      args.insert(args.end(), {"--stable-manifest", (located->stable() / "manifest.json").string()});
    if (fs::exists(located->stable() / "msp.schema.json", ec))
      args.insert(args.end(), {"--schema", (located->stable() / "msp.schema.json").string()});
  } else if (chosen == staleness || chosen == repin) {
    args = {chosen->get_name(), "--root", root};
  } else if (chosen == replay || chosen == regen) {
    args = {chosen->get_name(), "--transcript", resolve_transcript(*cli)};
  } else {
    args = {"serve-fixture"};
    if (!cli->transcript.empty()) args.insert(args.end(), {"--transcript", resolve_transcript(*cli)});
  }
  args.insert(args.end(), extras.begin(), extras.end());
  if (chosen == replay || chosen == regen) args.insert(args.end(), {"--", cli->muse_bin, "serve"});
  return {0, std::move(args)};
}

int run_conformance(int argc, const char* const* argv, Streams io, const std::string& name) {
  ConformanceCommand command = translate_conformance(argc, argv, io, name);
  if (command.msptk_args.empty()) return command.exit_code;
  return run_msptk(std::move(command.msptk_args), io);
}

}  // namespace msptk::cli
