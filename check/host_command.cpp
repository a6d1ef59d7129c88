#include "msptk/check/host_command.hpp"

#include <fmt/format.h>

#include <system_error>

namespace msptk::check {

Result<std::vector<std::string>> split_command(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  auto bad = [&](std::string_view why) {
    return Error::usage(fmt::format("--host \"{}\": {} (the command is split like a shell would, without running one)",
                                    command, why));
  };
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word)), word.clear(), in_word = false;
    } else if (c == '\'') {
      const std::size_t end = command.find('\'', i + 1);
      if (end == std::string_view::npos) return bad("unterminated single quote");
      word.append(command.substr(i + 1, end - i - 1));
      in_word = true, i = end;
    } else if (c == '"') {
      in_word = true;
      for (++i;; ++i) {
        if (i >= command.size()) return bad("unterminated double quote");
        const char d = command[i];
        if (d == '"') break;
        if (d == '\\' && i + 1 < command.size() &&
            (command[i + 1] == '"' || command[i + 1] == '\\' || command[i + 1] == '$' || command[i + 1] == '`')) {
          word += command[++i];
        } else if (d == '\\' && i + 1 < command.size() && command[i + 1] == '\n') {
          ++i;  // line continuation
        } else {
          word += d;
        }
      }
    } else if (c == '\\') {
      if (i + 1 >= command.size()) return bad("trailing backslash");
      if (command[i + 1] != '\n') word += command[i + 1], in_word = true;
      ++i;
    } else {
      word += c, in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) return bad("no command");
  return words;
}

std::vector<std::string> expand_scenario(std::vector<std::string> argv, const std::filesystem::path& scenario) {
  static constexpr std::string_view kPlaceholder = "{scenario}";
  const std::string value = scenario.string();
  for (std::string& word : argv) {
    for (std::size_t at = word.find(kPlaceholder); at != std::string::npos;
         at = word.find(kPlaceholder, at + value.size()))
      word.replace(at, kPlaceholder.size(), value);
  }
  return argv;
}

std::string shell_quote(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) {
    if (!line.empty()) line += ' ';
    line += '\'';
    for (char c : word) {
      if (c == '\'') line += "'\\''";
      else line += c;
    }
    line += '\'';
  }
  return line;
}

std::vector<std::string> expand_host(std::vector<std::string> argv, const std::string& host_line) {
  static constexpr std::string_view kPlaceholder = "{host}";
  for (std::string& word : argv) {
    for (std::size_t at = word.find(kPlaceholder); at != std::string::npos;
         at = word.find(kPlaceholder, at + host_line.size()))
      word.replace(at, kPlaceholder.size(), host_line);
  }
  return argv;
}

Result<std::filesystem::path> self_executable() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return Error::unreadable("/proc/self/exe", fmt::format("cannot find the running msptk binary: {}", ec.message()));
  return self;
}

std::vector<std::string> canned_host_argv(const std::filesystem::path& self, const std::filesystem::path& scenario) {
  return {self.string(), "serve-fixture", "--transcript", scenario.string()};
}

}  // namespace msptk::check
