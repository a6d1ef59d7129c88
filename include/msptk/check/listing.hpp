// `msptk check --list CORPUS...`: the scenarios a run would check, without running them, for a
// test framework to parametrize over (pytest, node:test, CTest through msptk_add_corpus_tests):
// each scenario's id ("corpus/scenario"), folder, manifest provenance, whether the baseline
// lists it, and the reason the run would skip it ("" when it would be played: in client mode
// nothing is skipped; in host mode sdk-tolerance scenarios are). The same plan as the run
// (plan.hpp): the corpora's scenarios in run order, then the shard. A manifest that cannot be
// read is listed with provenance "" (the run reports it as an error).
//
// Text: one line per scenario, tab-separated: ID, FOLDER, PROVENANCE and, when skipped,
// "skip: REASON". JSON (docs/check-json.md, "--list"): {"kind":"msptkCheckList",
// "schemaVersion":1,"mode":"host"|"client","scenarios":[{"id","corpus","scenario","folder",
// "provenance","inBaseline","skip"}]} with skip null when played.
#pragma once

#include "msptk/check/runner.hpp"

#include <boost/json/value.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace msptk::check {

struct ListedScenario {
  ScenarioTask task;
  std::string provenance;
  std::string skip;  // "" when the run would play it
};

enum class RunMode { host, client };

Result<std::vector<ListedScenario>> list_scenarios(const CheckOptions& options, RunMode mode);

void render_list_text(std::ostream& out, const std::vector<ListedScenario>& list);
boost::json::value list_to_json(const std::vector<ListedScenario>& list, RunMode mode);

}  // namespace msptk::check
