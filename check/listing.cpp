#include "msptk/check/listing.hpp"

#include "msptk/check/plan.hpp"
#include "msptk/check/replay_runner.hpp"
#include "msptk/transcript/display.hpp"
#include "msptk/transcript/manifest.hpp"

#include <boost/json.hpp>

namespace msptk::check {

namespace json = boost::json;

Result<std::vector<ListedScenario>> list_scenarios(const CheckOptions& options, RunMode mode) {
  auto all = collect_scenarios(options.corpora);
  if (!all) return all.error();
  if (options.baseline)
    for (ScenarioTask& task : *all) task.in_baseline = options.baseline->lists(task);
  const std::vector<ScenarioTask> tasks = options.shard ? select_shard(*all, *options.shard) : std::move(*all);
  std::vector<ListedScenario> out;
  out.reserve(tasks.size());
  for (const ScenarioTask& task : tasks) {
    ListedScenario listed{task, {}, {}};
    if (auto manifest = read_manifest(task.dir / "manifest.json")) listed.provenance = manifest->manifest.provenance;
    if (mode == RunMode::host && listed.provenance == "sdk-tolerance") listed.skip = std::string(kSdkToleranceSkip);
    out.push_back(std::move(listed));
  }
  return out;
}

void render_list_text(std::ostream& out, const std::vector<ListedScenario>& list) {
  for (const ListedScenario& s : list) {
    out << display_text(s.task.id()) << '\t' << display_text(s.task.dir.string()) << '\t' << display_text(s.provenance);
    if (!s.skip.empty()) out << "\tskip: " << s.skip;
    out << '\n';
  }
}

json::value list_to_json(const std::vector<ListedScenario>& list, RunMode mode) {
  json::array scenarios;
  for (const ListedScenario& s : list)
    scenarios.push_back(json::object{{"id", s.task.id()},
                                     {"corpus", s.task.corpus},
                                     {"scenario", s.task.scenario},
                                     {"folder", s.task.dir.string()},
                                     {"provenance", s.provenance},
                                     {"inBaseline", s.task.in_baseline},
                                     {"skip", s.skip.empty() ? json::value(nullptr) : json::value(s.skip)}});
  return json::object{{"kind", "msptkCheckList"},
                      {"schemaVersion", 1},
                      {"mode", mode == RunMode::host ? "host" : "client"},
                      {"scenarios", std::move(scenarios)}};
}

}  // namespace msptk::check
