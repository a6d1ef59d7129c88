// Text and JSON renderers of the maintenance reports (render.hpp).
#include "msptk/maintenance/render.hpp"
#include "msptk/transcript/display.hpp"
#include "msptk/transcript/json_parse.hpp"

#include <boost/json.hpp>

#include <fmt/format.h>

#include <set>

namespace msptk::maintenance {

namespace json = boost::json;

namespace {

// Everything a text report quotes from input (paths, pins, pointers, ledger members) goes
// through display_text (transcript/display.hpp): control bytes and invalid UTF-8 escaped.

// The pin as a JSON value: the string, or the value a pin that is not a string was (its exact
// text: 1e400 stays 1e400).
json::value pin_json(std::string_view fingerprint, bool not_a_string) {
  if (!not_a_string) return json::value(fingerprint);
  auto parsed = parse_json(fingerprint);
  return parsed ? std::move(*parsed) : json::value(fingerprint);
}

// The fingerprints that are not current, in order of first appearance.
std::vector<std::string> drifted(const StalenessReport& report) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const Pin& p : report.pins)
    if (p.state != PinState::current && seen.insert(p.fingerprint).second) out.push_back(p.fingerprint);
  return out;
}

std::string searched(const BundleIndex& index) {
  std::string out;
  for (const auto& dir : index.searched) out += (out.empty() ? "" : ", ") + display_text(dir.string());
  return out.empty() ? std::string("no folder") : out;
}

std::string drift_line(const Drift& drift, const BundleIndex& index) {
  if (drift.kind == DriftClass::unclassified)
    return fmt::format("drift unclassified: no bundle with this fingerprint under {}", searched(index));
  return fmt::format("drift {} from {} to stable: {} changes ({} non-additive, {} annotations)", to_string(drift.kind),
                     display_text(drift.pinned_bundle->string()), drift.changes.size(), drift.non_additive(),
                     drift.annotations());
}

}  // namespace

std::string describe(const SchemaChange& change) {
  return fmt::format("{}: {} [{}]", display_text(change.pointer.empty() ? "(root)" : change.pointer),
                     display_text(change.detail), to_string(change.kind));
}

std::string shown_pin(const Pin& p) {
  if (p.not_a_string) return display_text(p.fingerprint) + " (not a string)";
  return p.fingerprint.empty() ? std::string("nothing") : display_text(p.fingerprint);
}

std::string staleness_summary(const StalenessReport& report) {
  std::size_t additive = 0, non_additive = 0, unclassified = 0;
  for (const auto& [fingerprint, drift] : report.drift) {
    if (drift.kind == DriftClass::additive) ++additive;
    else if (drift.kind == DriftClass::non_additive) ++non_additive;
    else ++unclassified;
  }
  return fmt::format("{} manifests: {} current, {} acknowledged, {} stale ({} drifted fingerprints: {} additive, {} "
                     "non-additive, {} unclassified)",
                     report.pins.size(), report.count(PinState::current), report.count(PinState::acknowledged),
                     report.count(PinState::stale), report.drift.size(), additive, non_additive, unclassified);
}

void render_staleness_text(const StalenessReport& report, std::ostream& out) {
  out << fmt::format("stable fingerprint {} ({})\n", display_text(report.stable_fingerprint),
                     display_text(report.stable_manifest.string()));
  for (const std::string& fingerprint : drifted(report)) {
    const auto pins = report.pins_at(fingerprint);
    std::size_t stale = 0;
    for (const Pin* p : pins) stale += p->state == PinState::stale;
    const Drift& drift = report.drift.at(fingerprint);
    out << fmt::format("{}: {} manifests, {} stale, {} acknowledged; {}\n",
                       fingerprint.empty() && !pins.front()->not_a_string ? std::string("(no fingerprint)")
                                                                          : shown_pin(*pins.front()),
                       pins.size(),
                       stale, pins.size() - stale, drift_line(drift, report.bundles));
    // Where the ledger does acknowledge these pins: towards other stable fingerprints.
    std::set<std::string> elsewhere;
    for (const Acknowledgment& a : report.ledger.entries) {
      if (a.from != fingerprint || a.to == report.stable_fingerprint) continue;
      for (const Pin* p : pins)
        if (report.ledger.waiver(p->scenario, a.from, a.to)) elsewhere.insert(a.to);
    }
    if (stale > 0 && !elsewhere.empty())
      out << fmt::format("  ledger: acknowledges this pin towards {} other stable fingerprints, not {}\n",
                         elsewhere.size(), display_text(report.stable_fingerprint));
    for (const SchemaChange& c : drift.changes)
      if (c.kind != ChangeKind::annotation) out << "  " << (is_additive(c.kind) ? "+ " : "! ") << describe(c) << "\n";
    if (drift.annotations() > 0)
      out << fmt::format("  ~ {} annotation changes (description, title, $comment, examples)\n", drift.annotations());
    for (const Pin* p : pins) {
      if (p->state == PinState::stale) {
        out << fmt::format("{}:{}: error: pinned at {}, stable is {}; no acknowledgment in {} waives it [staleness.stale]\n",
                           display_text(p->manifest.string()), p->line,
                           shown_pin(*p),
                           display_text(report.stable_fingerprint),
                           report.ledger.present ? display_text(report.ledger.file) : std::string("the ledger (absent)"));
      } else {
        const Acknowledgment& a = *p->acknowledgment;
        out << fmt::format("{}:{}: note: pinned at {}, acknowledged by {}:{} (entry {}, {}) [staleness.acknowledged]\n",
                           display_text(p->manifest.string()), p->line, shown_pin(*p),
                           display_text(report.ledger.file), a.line, a.index + 1, display_text(a.tracking_issue));
      }
    }
  }
  out << staleness_summary(report) << "\n";
}

void render_staleness_json(const StalenessReport& report, std::ostream& out) {
  json::array pins;
  for (const Pin& p : report.pins) {
    json::object o{{"scenario", p.scenario},
                   {"manifest", p.manifest.string()},
                   {"line", p.line},
                   {"fingerprint", pin_json(p.fingerprint, p.not_a_string)},
                   {"state", to_string(p.state)}};
    if (p.acknowledgment)
      o["acknowledgment"] = json::object{{"entry", p.acknowledgment->index + 1},
                                         {"line", p.acknowledgment->line},
                                         {"trackingIssue", p.acknowledgment->tracking_issue},
                                         {"rationale", p.acknowledgment->rationale}};
    pins.push_back(std::move(o));
  }
  json::array drifts;
  for (const std::string& fingerprint : drifted(report)) {
    const Drift& d = report.drift.at(fingerprint);
    json::array changes;
    for (const SchemaChange& c : d.changes)
      changes.push_back(json::object{{"pointer", c.pointer},
                                     {"change", to_string(c.kind)},
                                     {"additive", is_additive(c.kind)},
                                     {"detail", c.detail}});
    const auto group = report.pins_at(fingerprint);
    json::object o{{"fingerprint", pin_json(fingerprint, !group.empty() && group.front()->not_a_string)},
                   {"classification", to_string(d.kind)},
                   {"pinnedBundle", d.pinned_bundle ? json::value(d.pinned_bundle->string()) : json::value(nullptr)},
                   {"manifests", report.pins_at(fingerprint).size()},
                   {"changes", std::move(changes)}};
    drifts.push_back(std::move(o));
  }
  json::array bundles;
  for (const auto& [fingerprint, dir] : report.bundles.by_fingerprint)
    bundles.push_back(json::object{{"fingerprint", fingerprint}, {"folder", dir.string()}});
  json::object doc{{"stable", json::object{{"fingerprint", report.stable_fingerprint},
                                           {"manifest", report.stable_manifest.string()}}},
                   {"ledger", json::object{{"file", report.ledger.file},
                                           {"present", report.ledger.present},
                                           {"acknowledgments", report.ledger.entries.size()}}},
                   {"bundles", std::move(bundles)},
                   {"pins", std::move(pins)},
                   {"drift", std::move(drifts)},
                   {"summary", json::object{{"manifests", report.pins.size()},
                                            {"current", report.count(PinState::current)},
                                            {"acknowledged", report.count(PinState::acknowledged)},
                                            {"stale", report.count(PinState::stale)},
                                            {"passed", report.passed()}}}};
  out << serialize_json(doc) << "\n";
}

}  // namespace msptk::maintenance
