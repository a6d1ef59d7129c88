#include "option_checks.hpp"
#include "verbs.hpp"
#include "version.hpp"

#include "msptk/transcript/display.hpp"
#include "msptk/transcript/error.hpp"

#include <exception>
#include <filesystem>
#include <new>
#include <ostream>
#include <string_view>
#include <utility>
#include <vector>

namespace msptk::cli {

int report_error(Streams io, const Error& error) {
  io.err << "msptk: error: " << display_text(error.render()) << "\n";
  return exit_code(error.kind);
}

std::vector<std::pair<CLI::App*, Runner>> declare_verbs(CLI::App& app) {
  app.name("msptk");
  app.set_version_flag("--version", "msptk " MSPTK_VERSION " (commit " MSPTK_GIT_COMMIT ")");
  app.require_subcommand(1);
  app.fallthrough(false);

  std::vector<std::pair<CLI::App*, Runner>> verbs;
  auto add = [&](Runner (*setup)(CLI::App&)) {
    Runner runner = setup(app);
    finish_options(*app.get_subcommands({}).back());
    verbs.emplace_back(app.get_subcommands({}).back(), std::move(runner));
  };
  add(&setup_validate);
  add(&setup_normalize);
  add(&setup_diff);
  add(&setup_record);
  add(&setup_serve_fixture);
  add(&setup_replay);
  add(&setup_check);
  add(&setup_wire_log);
  add(&setup_coverage);
  add(&setup_show);
  add(&setup_review);
  add(&setup_staleness);
  add(&setup_repin);
  add(&setup_regen);
  add(&setup_shrink);
  add(&setup_learn);
  // Listed for --help and the verb list; run_conformance takes it over before parsing.
  app.add_subcommand("conformance", "Run as muse-conformance (validate, staleness, repin, replay, regen, serve-fixture "
                                    "over a schema/msp corpus): msptk conformance VERB --help")
      ->allow_extras();
  add(&setup_completions);
  return verbs;
}

int run(int argc, const char* const* argv, Streams io) {
  if (argc >= 1 && std::filesystem::path(argv[0]).filename() == "muse-conformance")
    return run_conformance(argc, argv, io, "muse-conformance");
  if (argc >= 2 && std::string_view(argv[1]) == "conformance")
    return run_conformance(argc - 1, argv + 1, io, "msptk conformance");
  CLI::App app{"msptk: record, validate, normalize, diff and replay MSP (Muse Session Protocol) transcripts"};
  std::vector<std::pair<CLI::App*, Runner>> verbs = declare_verbs(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      app.exit(e, io.out, io.err);
      return 0;
    }
    if (app.get_subcommands().empty()) {
      // No verb, or a first word that is not one: say so rather than "a subcommand is required".
      std::string known;  // in --help's order
      for (const CLI::App* sub : app.get_subcommands({})) known += (known.empty() ? "" : ", ") + sub->get_name();
      if (argc == 1) {
        io.err << "msptk: error: a verb is required (" << known << ")\n";
      } else if (argv[1][0] == '-') {
        io.err << "msptk: error: unknown option '" << argv[1] << "' (options go after the verb)\n";
      } else {
        io.err << "msptk: error: unknown verb '" << argv[1] << "' (verbs: " << known << ")\n";
      }
      io.err << "Run 'msptk --help' for usage.\n";
      return 2;
    }
    io.err << "msptk: error: " << e.what() << "\n";
    // A verb that spawns a host (record, replay, regen): an option msptk does not know is most
    // often the host's own, typed without the `--` that ends msptk's options.
    const CLI::App* verb = app.get_subcommands().front();
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && verb->get_option_no_throw("HOST") != nullptr)
      io.err << "msptk: put `--` before the host command: msptk " << verb->get_name()
             << " [OPTIONS] -- HOST [ARGS...]\n";
    io.err << "Run 'msptk " << (app.get_subcommands().empty() ? "" : app.get_subcommands().front()->get_name() + " ")
           << "--help' for usage.\n";
    return 2;
  }
  for (auto& [sub, runner] : verbs) {
    if (sub->parsed()) return run_guarded(runner, io);
  }
  return 2;
}

// The one top-level handler: whatever escapes a verb (an exception of the standard library, an
// allocation that failed, anything thrown) is "msptk: error: …" and exit 3, never a signal.
int run_guarded(const Runner& runner, Streams io) {
  try {
    return runner(io);
  } catch (const std::bad_alloc&) {
    io.err << "msptk: error: out of memory (an input needs more memory than msptk may use)\n";
  } catch (const std::filesystem::filesystem_error& e) {
    io.err << "msptk: error: " << e.what() << "\n";
  } catch (const std::exception& e) {
    io.err << "msptk: error: internal failure: " << e.what() << "\n";
  } catch (...) {
    io.err << "msptk: error: internal failure (an unknown exception)\n";
  }
  io.err.flush();
  return 3;
}

}  // namespace msptk::cli
