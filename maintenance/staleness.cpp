// Every manifest's pin against the stable fingerprint, waived only by the ledger (staleness.hpp).
#include "msptk/maintenance/staleness.hpp"

#include "msptk/transcript/display.hpp"
#include "msptk/transcript/json_io.hpp"
#include "msptk/transcript/json_parse.hpp"
#include "msptk/transcript/json_locate.hpp"

#include <boost/json.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace msptk::maintenance {

namespace fs = std::filesystem;
namespace json = boost::json;

std::string_view to_string(PinState state) {
  switch (state) {
    case PinState::current: return "current";
    case PinState::acknowledged: return "acknowledged";
    case PinState::stale: return "stale";
  }
  return "stale";
}

std::size_t StalenessReport::count(PinState state) const {
  return static_cast<std::size_t>(std::count_if(pins.begin(), pins.end(), [&](const Pin& p) { return p.state == state; }));
}

std::vector<const Pin*> StalenessReport::pins_at(const std::string& fingerprint) const {
  std::vector<const Pin*> out;
  for (const Pin& p : pins)
    if (p.fingerprint == fingerprint) out.push_back(&p);
  return out;
}

namespace {

// A manifest's pin: a string's value, or (`json` set) the JSON text of a pin that is not a
// string (1e400 is written back as 1e400: an exact number's text, never a rounded double or the
// parser's marker byte).
struct PinValue {
  std::string text;
  bool json = false;
  bool present = false;
};

Result<PinValue> fingerprint_of(const fs::path& manifest) {
  auto doc = parse_json_file(manifest);
  if (!doc) return doc.error();
  if (!doc->is_object()) return Error::malformed(manifest.string(), 1, "manifest.type", "the manifest is not a JSON object");
  const json::value* f = doc->get_object().if_contains("fingerprint");
  if (!f) return PinValue{};
  if (is_json_string(*f)) return PinValue{std::string(f->get_string()), false, true};
  return PinValue{serialize_json(*f), true, true};
}

std::vector<fs::path> default_bundles(const CorpusRoot& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(root.msp, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;
    if (it->is_directory(e) && fs::is_regular_file(it->path() / "manifest.json", e) &&
        fs::is_regular_file(it->path() / "msp.schema.json", e))
      out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<StalenessReport> check_staleness(const StalenessOptions& options) {
  auto root = locate_corpus_root(options.root);
  if (!root) return root.error();
  StalenessReport report;
  report.root = *root;
  report.stable_manifest = root->stable() / "manifest.json";
  std::error_code ec;
  if (!fs::exists(report.stable_manifest, ec))
    return Error::unreadable(report.stable_manifest.string(),
                             "missing: staleness compares every pin with the stable bundle's fingerprint");
  auto stable = fingerprint_of(report.stable_manifest);
  if (!stable) return stable.error();
  if (!stable->present || stable->json) {
    auto text = read_file(report.stable_manifest);
    return Error::malformed(report.stable_manifest.string(), text ? line_of_path(*text, "fingerprint") : 1,
                            "manifest.fingerprint",
                            stable->present ? fmt::format("the stable manifest's fingerprint is {}, not a string",
                                                          display_text(stable->text))
                                            : std::string("the stable manifest has no fingerprint"));
  }
  report.stable_fingerprint = stable->text;
  auto ledger = read_ledger(root->ledger());
  if (!ledger) return ledger.error();
  report.ledger = std::move(*ledger);
  report.bundles = index_bundles(options.bundles.empty() ? default_bundles(*root) : options.bundles);

  for (const fs::path& dir : root->scenarios()) {
    Pin pin;
    pin.scenario = dir.filename().string();
    pin.manifest = dir / "manifest.json";
    pin.ledger_path = "schema/msp/transcripts/" + pin.scenario + "/manifest.json";
    auto text = read_file(pin.manifest);
    if (!text) return text.error();
    auto f = fingerprint_of(pin.manifest);
    if (!f) return f.error();
    pin.fingerprint = f->text;
    pin.not_a_string = f->json;
    pin.line = line_of_path(*text, "fingerprint");
    if (pin.fingerprint == report.stable_fingerprint && !pin.not_a_string) {
      pin.state = PinState::current;
    } else if (const Acknowledgment* a =
                   report.ledger.waiver(pin.scenario, pin.fingerprint, report.stable_fingerprint)) {
      pin.state = PinState::acknowledged;
      pin.acknowledgment = *a;
    } else {
      pin.state = PinState::stale;
    }
    if (pin.state != PinState::current && !report.drift.contains(pin.fingerprint)) {
      auto drift = pin.not_a_string ? Result<Drift>(Drift{}) : report.bundles.drift(pin.fingerprint, root->stable());
      if (!drift) return drift.error();
      report.drift.emplace(pin.fingerprint, std::move(*drift));
    }
    report.pins.push_back(std::move(pin));
  }
  return report;
}

}  // namespace msptk::maintenance
