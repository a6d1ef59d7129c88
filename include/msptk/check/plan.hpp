// The plan of a check run: which scenarios, in which order, and which of them this shard runs.
//
// Every CORPUS argument is a corpus folder (its scenario subfolders, sorted by name) or one
// scenario folder (its corpus is the folder it sits in). The run's order is the order of the
// arguments, then the sorted scenarios of each; a scenario reached twice is checked once.
// A scenario's corpus name is the name of the folder the user gave (`corpus/` → `corpus`,
// `../shared/msp-corpus/transcripts` → `transcripts`).
//
// Shards: `K/N` selects the scenarios whose 0-based position in the whole run is congruent to
// K-1 modulo N (round robin). The N slices partition the run exactly, differ in size by at most
// one, and depend only on the list of scenarios, so parallel CI jobs given the same corpora
// agree on them without talking to each other.
#pragma once

#include "msptk/check/outcome.hpp"
#include "msptk/transcript/error.hpp"

#include <filesystem>
#include <string_view>
#include <vector>

namespace msptk::check {

// The scenarios of the CORPUS arguments, in run order with their indices set. A path that does
// not exist or cannot be listed, or a folder holding no scenario, is an `unreadable` error; a
// file (not a folder) is a `usage` error.
Result<std::vector<ScenarioTask>> collect_scenarios(const std::vector<std::filesystem::path>& corpora);

// Parses "K/N" (1 <= K <= N). Errors are `usage` errors.
Result<Shard> parse_shard(std::string_view text);

// The tasks of shard K/N, in run order.
std::vector<ScenarioTask> select_shard(const std::vector<ScenarioTask>& tasks, const Shard& shard);

}  // namespace msptk::check
