#include "msptk/review/session.hpp"

#include "msptk/differ/render.hpp"
#include "msptk/transcript/display.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <sstream>

namespace msptk::review {

namespace json = boost::json;

namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// The first frame that is not identical, as "FILE:LINE: kind signature at path".
std::string first_difference(const DiffReport& report) {
  for (const DiffResult& comparison : report.comparisons)
    for (const DiffEntry& entry : comparison.entries) {
      if (entry.kind == EntryKind::identical) continue;
      std::string text = fmt::format("{}:{}: {} {}", comparison.expected_file, entry.expected_line,
                                     to_string(entry.kind), entry.signature);
      if (!entry.divergences.empty() && !entry.divergences.front().path.empty())
        text += " at " + entry.divergences.front().path;
      return text;
    }
  return "";
}

void failed(ReviewEntry& entry, const Error& error) {
  entry.error = error.render();
  entry.failure = error;
}

ReviewEntry assessed(const Candidate& candidate, const ReviewOptions& options, Assessment& out) {
  ReviewEntry entry;
  entry.candidate = candidate;
  auto assessment = assess(candidate, options.registry);
  if (!assessment) {
    failed(entry, assessment.error());
    return entry;
  }
  entry.verdict = assessment->verdict;
  entry.first_difference = first_difference(assessment->diff);
  if (assessment->refusal) entry.notes.push_back("cannot be accepted: " + *assessment->refusal);
  if (assessment->fingerprint)
    entry.notes.push_back(fmt::format("fingerprint: the host reported {}, the golden is pinned to {} (not a transcript "
                                      "change: accepting keeps the pin; msptk staleness and repin move it)",
                                      assessment->fingerprint->candidate, assessment->fingerprint->golden));
  out = std::move(*assessment);
  return entry;
}

// Asks until the answer is not empty; nullopt at end of input.
std::optional<std::string> ask_non_empty(Terminal& terminal, const std::string& member) {
  while (true) {
    auto answer = terminal.ask(fmt::format("{}: ", member));
    if (!answer) return std::nullopt;
    if (!is_blank(*answer)) return trim(*answer);
    terminal.show(fmt::format("{} cannot be empty.\n", member));
  }
}

}  // namespace

std::size_t ReviewSummary::count(const std::string& decision) const {
  return static_cast<std::size_t>(
      std::count_if(entries.begin(), entries.end(), [&](const ReviewEntry& e) { return e.decision == decision; }));
}

ReviewSummary run_review(const std::vector<Candidate>& candidates, Terminal& terminal, const ReviewOptions& options) {
  ReviewSummary summary;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Assessment assessment;
    if (summary.quit) {
      summary.entries.push_back(assessed(candidates[i], options, assessment));
      continue;
    }
    ReviewEntry entry = assessed(candidates[i], options, assessment);
    std::ostringstream text;
    text << display_text(fmt::format("[{}/{}] {}  ({} vs {})", i + 1, candidates.size(), entry.candidate.id(),
                                     entry.candidate.golden.string(), entry.candidate.pending.string()))
         << "\n";
    if (!entry.verdict) {
      text << "cannot assess: " << display_text(entry.error) << "\n";
      terminal.show(text.str());
      summary.entries.push_back(std::move(entry));
      continue;
    }
    TextStyle style;
    style.color = options.color;
    render_text(text, assessment.diff, style);
    for (const std::string& note : entry.notes) text << display_text(note) << "\n";
    terminal.show(text.str());

    const bool divergent = *entry.verdict == Verdict::divergent;
    while (true) {
      auto answer = terminal.ask(divergent ? "divergent: accept (with a justification), reject, skip, quit? [a/r/s/q] "
                                           : fmt::format("{}: accept, reject, skip, quit? [a/r/s/q] ",
                                                         to_string(*entry.verdict)));
      const std::string choice = answer ? trim(*answer) : "q";
      if (choice == "q") {
        summary.quit = true;
        break;
      }
      if (choice == "s") break;
      if (choice == "r") {
        if (auto ok = reject(entry.candidate); !ok) failed(entry, ok.error());
        else entry.decision = "rejected";
        break;
      }
      if (choice == "a") {
        std::optional<Justification> justification;
        if (assessment.refusal) {
          terminal.show("cannot be accepted: " + display_text(*assessment.refusal) + "\n");
          continue;
        }
        if (divergent) {
          terminal.show("A divergent candidate changes what the golden transcript says: justify it "
                        "(written to the manifest's regenerationJustification).\n");
          auto cite = ask_non_empty(terminal, "cite");
          auto rationale = cite ? ask_non_empty(terminal, "rationale") : std::nullopt;
          auto tracking = rationale ? ask_non_empty(terminal, "trackingIssue") : std::nullopt;
          if (!tracking) {
            summary.quit = true;
            break;
          }
          justification = Justification{*cite, *rationale, *tracking, {}};
        }
        if (auto ok = accept(entry.candidate, assessment, justification ? &*justification : nullptr, options.rewrite);
            !ok) {
          failed(entry, ok.error());
          terminal.show("error: " + entry.error + "\n");
        } else {
          entry.decision = "accepted";
        }
        break;
      }
      terminal.show("Answer a (accept), r (reject), s (skip) or q (quit).\n");
    }
    summary.entries.push_back(std::move(entry));
  }
  return summary;
}

ReviewSummary run_bulk(const std::vector<Candidate>& candidates, BulkAction action, const ReviewOptions& options) {
  ReviewSummary summary;
  for (const Candidate& candidate : candidates) {
    Assessment assessment;
    ReviewEntry entry = assessed(candidate, options, assessment);
    if (action == BulkAction::reject_all) {
      if (auto ok = reject(candidate); !ok) failed(entry, ok.error());
      else entry.decision = "rejected";
    } else if (action == BulkAction::accept_equivalent && entry.verdict && *entry.verdict != Verdict::divergent) {
      if (auto ok = accept(candidate, assessment, nullptr, options.rewrite); !ok) failed(entry, ok.error());
      else entry.decision = "accepted";
    }
    summary.entries.push_back(std::move(entry));
  }
  return summary;
}

void render_text(std::ostream& out, const ReviewSummary& summary) {
  for (const ReviewEntry& e : summary.entries) {
    std::string decision = e.decision;
    std::transform(decision.begin(), decision.end(), decision.begin(), [](unsigned char c) { return std::toupper(c); });
    std::string line = fmt::format("{} {}", decision, e.candidate.id());
    if (e.verdict) line += fmt::format(": {}", to_string(*e.verdict));
    if (e.verdict && *e.verdict == Verdict::divergent && !e.first_difference.empty())
      line += fmt::format(" ({})", e.first_difference);
    if (!e.error.empty()) line += fmt::format(": error: {}", e.error);
    out << display_text(line) << "\n";  // names and messages quote input
    for (const std::string& note : e.notes) out << "  " << display_text(note) << "\n";
  }
  out << fmt::format("{} candidate{}: {} accepted, {} rejected, {} pending\n", summary.entries.size(),
                     summary.entries.size() == 1 ? "" : "s", summary.count("accepted"), summary.count("rejected"),
                     summary.pending());
}

json::value to_json(const ReviewSummary& summary) {
  json::array candidates;
  for (const ReviewEntry& e : summary.entries)
    candidates.emplace_back(json::object{{"id", e.candidate.id()},
                                         {"corpus", e.candidate.corpus},
                                         {"scenario", e.candidate.scenario},
                                         {"golden", e.candidate.golden.string()},
                                         {"pending", e.candidate.pending.string()},
                                         {"verdict", e.verdict ? json::value(to_string(*e.verdict)) : json::value(nullptr)},
                                         {"firstDifference", e.first_difference},
                                         {"decision", e.decision},
                                         {"notes", json::array(e.notes.begin(), e.notes.end())},
                                         {"error", e.error.empty() ? json::value(nullptr) : json::value(e.error)}});
  return json::object{{"candidates", std::move(candidates)},
                      {"accepted", summary.count("accepted")},
                      {"rejected", summary.count("rejected")},
                      {"pending", summary.pending()},
                      {"quit", summary.quit}};
}

}  // namespace msptk::review
