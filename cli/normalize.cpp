// `msptk normalize SCENARIO|TRANSCRIPT`: the transcript with masked values replaced by stable
// placeholders, in the same line format, so that plain `diff` can compare two recordings.
#include "masking.hpp"
#include "verbs.hpp"

#include "msptk/normalizer/placeholders.hpp"
#include "msptk/transcript/reader.hpp"
#include "msptk/transcript/writer.hpp"

#include <memory>

namespace msptk::cli {

namespace {

struct NormalizeCli {
  std::string input;
  MaskOptions mask;
  bool sort_members = false;
};

int run_normalize(const NormalizeCli& cli, Streams io) {
  auto scenario = load_scenario(cli.input);
  if (!scenario) return report_error(io, scenario.error());
  auto spec = mask_spec_for(*scenario, cli.mask);
  if (!spec) return report_error(io, spec.error());
  auto reader = TranscriptReader::open(scenario->files.transcript);
  if (!reader) return report_error(io, reader.error());

  Placeholders placeholders{Masker(*spec), cli.sort_members};
  while (auto item = reader->next()) {
    if (!*item) {
      io.out.flush();
      return report_error(io, item->error());
    }
    const Frame& frame = **item;
    const std::optional<std::string> rewritten = placeholders.rewritten(frame);
    // A canonical line whose frame nothing changed is written back as it is (it is what
    // canonical_line would write), without escaping it again.
    if (reader->facts().canonical && (!rewritten || *rewritten == frame.wire_bytes())) {
      io.out << reader->line_text() << '\n';
    } else {
      io.out << canonical_line(frame.dir, rewritten ? *rewritten : frame.wire_bytes()) << '\n';
    }
  }
  for (const MaskUse& use : placeholders.accounting()) {
    if (use.covered == 0) {
      io.err << "msptk: warning: declared path \"" << use.path << "\" selects no value in "
             << scenario->files.transcript.string() << " (stale declaration?)\n";
    }
  }
  return 0;
}

}  // namespace

Runner setup_normalize(CLI::App& app) {
  auto cli = std::make_shared<NormalizeCli>();
  CLI::App* sub =
      app.add_subcommand("normalize", "Write a transcript with masked values replaced by stable placeholders");
  sub->footer(
      "Masked values become \"<id:N>\" (JSON-RPC ids) or \"<value:N>\", numbered by first appearance, so that\n"
      "`diff <(msptk normalize a) <(msptk normalize b)` works with plain tools. Masked: client request ids and\n"
      "the responses to them, client params.commandId, initialize's clientInfo name and version (title is\n"
      "dropped), and the paths of the manifest's normalize list plus --path. In erase mode declared values\n"
      "become \"<value>\" and an erased id \"<id@N>\", N the lowest number free among the requests in flight\n"
      "of its sender (a response takes its request's; one answering no request gets \"<id>\"), so responses\n"
      "still pair with their requests.\n\n"
      "Exit status: 0 written, 2 usage error, 3 unreadable or malformed input.");
  sub->add_option("INPUT", cli->input, "A scenario folder or a transcript file")->required()->type_name("PATH");
  add_mask_options(*sub, cli->mask);
  sub->add_flag("--sort-members", cli->sort_members,
                "Also write every frame in canonical form (members sorted, numbers by value, no trailing CR), "
                "so member order does not show in a plain diff either");
  return [cli](Streams io) { return run_normalize(*cli, io); };
}

}  // namespace msptk::cli
