#include "msptk/validator/rules.hpp"

#include <array>

namespace msptk {

namespace {

constexpr std::array kRules = {
    // file: each line of a transcript file
    RuleInfo{"file.json", "error", "each line is a JSON object"},
    RuleInfo{"file.members", "error", "a line holds exactly \"dir\" and \"raw\", each once (raw a string; rawBase64 optional, and when present the frame's bytes, which raw holds as lossy UTF-8)"},
    RuleInfo{"file.dir", "error", "\"dir\" is \"client\" or \"server\""},
    RuleInfo{"file.utf8", "error", "lines and the frames they hold are valid UTF-8 (a rawBase64 line holds a frame that is not)"},
    RuleInfo{"file.blank-line", "error", "no blank lines"},
    RuleInfo{"file.lf", "error", "every line, the last one included, ends with LF"},
    RuleInfo{"file.crlf", "error", "lines end with LF, not CR LF"},
    // frame: each frame's raw bytes
    RuleInfo{"frame.json", "error", "raw is JSON, nested at most 10,000 levels deep"},
    RuleInfo{"frame.duplicate-member", "error", "no object in raw names a member twice (peers disagree on which one counts)"},
    RuleInfo{"frame.object", "error", "raw is a JSON object"},
    RuleInfo{"frame.jsonrpc", "error", "raw carries \"jsonrpc\":\"2.0\""},
    RuleInfo{"frame.envelope", "error", "raw is a request, a notification or a response (method a string, id an integer or string, params an object or array)"},
    RuleInfo{"frame.response", "error", "a response carries exactly one of result and error"},
    RuleInfo{"frame.error", "error", "a response's error is an object with an integer code and a string message"},
    RuleInfo{"frame.server-cr", "error", "no server raw ends in CR"},
    RuleInfo{"frame.newline", "error", "no raw contains a raw LF byte"},
    RuleInfo{"frame.too-large", "error", "no frame is over serverConfig.frameLimitBytes (a client frame may be, when the server rejects it)"},
    RuleInfo{"frame.rejection", "error", "a server rejection of a broken client frame has the shape seed 000 gives (-32700 with id null, -32002 with data.limitBytes, -32600)"},
    RuleInfo{"frame.schema", "error", "params, result and error objects satisfy their schema in the bundle (needs --schema)"},
    RuleInfo{"frame.schema-depth", "warning", "a params, result or error object nested deeper than 64 levels is not checked against the schema (the check is recursive; needs --schema)"},
    RuleInfo{"frame.redacted", "note", "a schema finding at a \"<redacted:N>\" placeholder (record --redact) is a note: the recorded value was replaced (needs --schema)"},
    RuleInfo{"frame.unknown-method", "note/warning", "the method is in the schema bundle's tables (a note in sdk-tolerance scenarios, else a warning; needs --schema)"},
    RuleInfo{"frame.unknown-enum", "note/warning", "a string outside an enum marked x-msp-openness open is tolerated with a warning (a note in sdk-tolerance scenarios, where any enum's unknown strings are notes; other enum values are frame.schema errors; needs --schema)"},
    RuleInfo{"frame.error-kind", "error", "an error code of the bundle's errors table carries its kind (or an override kind) in data.kind (needs --schema)"},
    RuleInfo{"frame.unknown-error-code", "note/warning", "an error code is in the bundle's errors table (a note in sdk-tolerance scenarios, else a warning; needs --schema)"},
    // session: the main transcript
    RuleInfo{"session.initialize-first", "error", "the first client message is initialize; a request before it is rejected with -32600 data.kind notInitialized"},
    RuleInfo{"session.before-initialized", "error", "the server sends no notification or request before the client's initialized"},
    RuleInfo{"session.unmatched-response", "error", "every response answers a request in flight from the other side"},
    RuleInfo{"session.answered-twice", "error", "a request is answered once"},
    RuleInfo{"session.duplicate-id", "error", "a request id is unique among its sender's requests in flight"},
    RuleInfo{"session.unanswered", "warning", "every request is answered"},
    // manifest
    RuleInfo{"manifest.missing", "error", "a scenario folder has a manifest.json"},
    RuleInfo{"manifest.required", "error", "required members are present"},
    RuleInfo{"manifest.type", "error", "members have their types"},
    RuleInfo{"manifest.kind", "error", "kind is \"mspTranscript\""},
    RuleInfo{"manifest.schema-version", "error", "schemaVersion is 1"},
    RuleInfo{"manifest.scenario", "error", "scenario equals the folder name and holds no control character"},
    RuleInfo{"manifest.provenance", "error", "provenance is hand-authored, host-generated or sdk-tolerance"},
    RuleInfo{"manifest.fingerprint", "error", "fingerprint is sha256:<64 lowercase hex>"},
    RuleInfo{"manifest.frame-limit", "error", "serverConfig.frameLimitBytes is a positive integer"},
    RuleInfo{"manifest.regeneration", "error", "regenerationJustification, when present, has non-empty cite, rationale, trackingIssue"},
    RuleInfo{"manifest.normalize-path", "error", "every normalize entry parses as a path"},
    RuleInfo{"manifest.normalize-registry", "error", "every normalize path is in the registry of allowed paths (MATCHING.md 4; --registry extends it)"},
    RuleInfo{"manifest.source", "error", "source[].lines is \"N\", \"N-M\" or a comma-separated list of those"},
    RuleInfo{"manifest.source-range", "error", "source line ranges lie inside the transcript"},
    RuleInfo{"manifest.bundle", "note", "with --schema auto, a bundle under --bundles has the manifest's fingerprint (else the stable bundle is used, and this note says so)"},
    // corpus
    RuleInfo{"corpus.duplicate-scenario", "error", "scenario ids are unique across the paths validated"},
    RuleInfo{"corpus.stale-fingerprint", "warning", "fingerprints equal the stable one of --stable-manifest (one warning per stale fingerprint)"},
};

}  // namespace

std::span<const RuleInfo> rule_catalogue() { return kRules; }

const RuleInfo* find_rule(std::string_view id) {
  for (const RuleInfo& rule : kRules)
    if (rule.id == id) return &rule;
  return nullptr;
}

}  // namespace msptk
