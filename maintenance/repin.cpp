// Repin: the pin's value token replaced in the manifest's text, nothing else (repin.hpp).
#include "msptk/maintenance/repin.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/maintenance/render.hpp"
#include "msptk/playback/member_scan.hpp"
#include "msptk/transcript/display.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_locate.hpp"

#include <boost/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

namespace msptk::maintenance {

namespace fs = std::filesystem;
namespace json = boost::json;

std::string_view to_string(RepinAction action) {
  switch (action) {
    case RepinAction::repinned: return "repinned";
    case RepinAction::current: return "current";
    case RepinAction::acknowledged: return "acknowledged";
    case RepinAction::left: return "left";
  }
  return "left";
}

std::size_t RepinReport::count(RepinAction action) const {
  return static_cast<std::size_t>(
      std::count_if(entries.begin(), entries.end(), [&](const RepinEntry& e) { return e.action == action; }));
}

Result<std::string> with_fingerprint(std::string_view text, std::string_view fingerprint, const std::string& file) {
  const playback::MemberScan scan = playback::scan_members(text);
  if (!scan.object || !scan.closed || scan.malformed)
    return Error::malformed(file, 1, "manifest.type", "not a JSON object: the pin cannot be rewritten in place");
  const auto n = std::count_if(scan.members.begin(), scan.members.end(),
                               [](const playback::MemberToken& t) { return t.name == "fingerprint"; });
  if (n != 1)
    return Error::malformed(file, line_of_path(text, "fingerprint"), "manifest.fingerprint",
                            n == 0 ? "no top-level \"fingerprint\" member to rewrite"
                                   : "\"fingerprint\" appears more than once: which pin is meant is ambiguous");
  const std::string_view token = *scan.token(text, "fingerprint");
  if (token.empty() || token.front() != '"')
    return Error::malformed(file, line_of_path(text, "fingerprint"), "manifest.fingerprint",
                            "the fingerprint is not a string");
  return *playback::splice_member(text, "fingerprint", serialize_json(json::string(fingerprint)));
}

Result<RepinReport> repin(const RepinOptions& options) {
  auto staleness = check_staleness(options.staleness);
  if (!staleness) return staleness.error();
  RepinReport report;
  report.dry_run = options.dry_run;
  report.staleness = std::move(*staleness);
  const std::string& stable = report.staleness.stable_fingerprint;
  for (const Pin& pin : report.staleness.pins) {
    RepinEntry entry{pin, RepinAction::left, DriftClass::unclassified};
    if (pin.state == PinState::current) {
      entry.action = RepinAction::current;
    } else {
      entry.drift = report.staleness.drift.at(pin.fingerprint).kind;
      if (pin.state == PinState::acknowledged) entry.action = RepinAction::acknowledged;
      else if (entry.drift == DriftClass::additive) entry.action = RepinAction::repinned;
    }
    if (entry.action == RepinAction::repinned) {
      auto text = read_file(pin.manifest);
      if (!text) return text.error();
      auto edited = with_fingerprint(*text, stable, pin.manifest.string());
      if (!edited) return edited.error();
      if (!options.dry_run) {
        Result<void> ok = options.write ? options.write(pin.manifest, *edited) : [&]() -> Result<void> {
          std::error_code ec;
          const fs::perms perms = fs::status(pin.manifest, ec).permissions();
          return write_file_atomic(pin.manifest, *edited, ec ? fs::perms::owner_read | fs::perms::owner_write : perms);
        }();
        if (!ok) return ok.error();
      }
    }
    report.entries.push_back(std::move(entry));
  }
  return report;
}

void render_repin_text(const RepinReport& report, std::ostream& out) {
  const StalenessReport& s = report.staleness;
  for (const RepinEntry& e : report.entries) {
    const std::string where = fmt::format("{}:{}", display_text(e.pin.manifest.string()), e.pin.line);
    switch (e.action) {
      case RepinAction::current: break;
      case RepinAction::acknowledged:
        out << fmt::format("{}: note: pinned at {}, acknowledged by the ledger (entry {}): left as it is "
                           "[repin.acknowledged]\n",
                           where, shown_pin(e.pin), e.pin.acknowledgment->index + 1);
        break;
      case RepinAction::repinned:
        out << fmt::format("{}: {} {} -> {} (additive drift: {} changes) [repin.additive]\n", where,
                           report.dry_run ? "would repin" : "repinned", shown_pin(e.pin),
                           display_text(s.stable_fingerprint),
                           s.drift.at(e.pin.fingerprint).changes.size());
        break;
      case RepinAction::left: {
        const Drift& d = s.drift.at(e.pin.fingerprint);
        std::string why;
        if (d.kind == DriftClass::unclassified) {
          why = "its bundle is not at hand, so the drift is unclassified";
        } else {
          std::string pointers;
          std::size_t shown = 0;
          for (const SchemaChange& c : d.changes) {
            if (is_additive(c.kind)) continue;
            if (shown++ < 3)
              pointers += (pointers.empty() ? "" : ", ") + (c.pointer.empty() ? "(root)" : display_text(c.pointer));
          }
          why = fmt::format("the drift is non-additive ({} changes: {}{})", d.non_additive(), pointers,
                            d.non_additive() > 3 ? ", ..." : "");
        }
        out << fmt::format("{}: error: pinned at {}: {}; left for a person (regen, or an acknowledgment) "
                           "[repin.{}]\n",
                           where, shown_pin(e.pin), why,
                           d.kind == DriftClass::unclassified ? "unclassified" : "non-additive");
        break;
      }
    }
  }
  out << fmt::format("{} manifests: {} {}, {} current, {} acknowledged, {} left for a person{}\n", report.entries.size(),
                     report.count(RepinAction::repinned), report.dry_run ? "would be repinned" : "repinned",
                     report.count(RepinAction::current), report.count(RepinAction::acknowledged),
                     report.count(RepinAction::left), report.dry_run ? " (dry run: nothing written)" : "");
}

}  // namespace msptk::maintenance
