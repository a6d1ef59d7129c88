// `msptk completions bash|zsh`: the shell completion script, generated from this very command
// line (completion.hpp), so a new verb or option is completed without a second edit.
#include "completion.hpp"
#include "verbs.hpp"

#include <memory>
#include <ostream>

namespace msptk::cli {

Runner setup_completions(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("completions", "Print the bash or zsh completion script for msptk");
  sub->footer(
      "bash: source it, or install it as share/bash-completion/completions/msptk (the .deb does):\n"
      "  source <(msptk completions bash)\n"
      "zsh: save it as _msptk in a folder of $fpath (the .deb installs share/zsh/vendor-completions/_msptk).\n\n"
      "Exit status: 0 printed, 2 usage error.");
  sub->add_option("SHELL", *shell, "The shell: bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  const CLI::App* root = &app;
  return [shell, root](Streams io) {
    const CommandLineSpec spec = describe_command_line(*root);
    if (*shell == "zsh") {
      render_zsh(io.out, spec);
    } else {
      render_bash(io.out, spec);
    }
    return 0;
  };
}

}  // namespace msptk::cli
