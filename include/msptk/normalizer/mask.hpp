// The mask says, for every place in a frame, how two recordings' values there are compared
// (MATCHING.md §2–4). Most places are exact. Values the client mints are always unified
// through a bijection: the id of a client request (and of the server's response to it), a
// client's params.commandId, and params.clientInfo.name / .version of initialize
// (params.clientInfo.title is ignored: present or absent on either side). Paths declared in
// the manifest's `normalize` list (plus explicit --path) are unified too — or, in `erase`
// mode, not compared at all, only their presence is.
//
// There is one bijection space per direction and path ("Which bijection"): the fixed spaces
// below, then one space per declared path in client frames and one per declared path in
// server frames. A declared `id` does not get spaces of its own: it selects the request-id
// spaces (server request ids with the client's answers to them).
//
// A Masker is immutable and cheap to share; the state of a run (the pairings made so far and
// the per-path accounting) lives in a Unifier.
#pragma once

#include "msptk/normalizer/path.hpp"
#include "msptk/normalizer/registry.hpp"
#include "msptk/transcript/frame.hpp"
#include "msptk/transcript/scenario.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk {

// The declared normalization of one comparison: the paths, without duplicates, in the order
// they were declared (manifest first, then explicit ones), how each is compared (the registry's
// declaration: unify, erase, a typed erase), and the mode (erase: every declared path erased).
struct MaskSpec {
  std::vector<JsonPath> declared;
  std::vector<PathCompare> compare;  // one per declared path; missing entries: unify
  MaskMode mode = MaskMode::unify;
  // serve-fixture --accept-redacted: a recorded "<redacted:N>" (record --redact) matches the
  // value the client sends there, the same N always the same value.
  bool accept_redacted = false;

  bool declares(std::string_view path) const;
  // How the declared path with this index is compared, `mode` applied (erase wins).
  PathCompare compare_of(std::size_t declared_index) const;
  // True when some declared path is erased (by `mode` or by its declaration).
  bool erases_any() const;
};

// Why a manifest's normalize entry `text` cannot be used: it is not a path (rule
// manifest.normalize-path) or not in the registry (manifest.normalize-registry, "undeclared
// normalization is refused"); nullopt when it can. `validate` and every verb that reads a
// manifest refuse an entry with these same words.
struct EntryRefusal {
  std::string rule;
  std::string message;
};
std::optional<EntryRefusal> refuse_normalize_entry(const Registry& registry, std::string_view text);

// Builds a MaskSpec from a manifest's normalize list and explicit paths (each compared as
// `registry` declares it), refusing any path that is not in the registry ("undeclared normalization is refused"). A bad manifest path is
// a `malformed` error naming `manifest_file` and `manifest_line` (rule manifest.normalize); a
// bad explicit path is a `usage` error.
Result<MaskSpec> make_mask_spec(const Registry& registry, const std::vector<std::string>& manifest_paths,
                                const std::string& manifest_file, std::size_t manifest_line,
                                const std::vector<std::string>& explicit_paths, MaskMode mode);

// The MaskSpec of a comparison against `scenario`: its manifest's normalize list (when it has
// a manifest) plus `explicit_paths`, checked against the scenario's registry: resolve_registry
// (corpus_file.hpp) of its folder with `registry` (built-in + --registry) as the explicit part. A normalize member that cannot
// be read is refused (it would silently mask nothing), naming the manifest's file and line.
Result<MaskSpec> mask_spec_for(const Scenario& scenario, const Registry& registry,
                               const std::vector<std::string>& explicit_paths, MaskMode mode);

// The fixed bijection spaces; declared-path spaces follow them.
inline constexpr std::size_t kClientRequestIds = 0;   // client request ids + server responses
inline constexpr std::size_t kServerRequestIds = 1;   // server request ids + client answers (id declared)
inline constexpr std::size_t kClientCommandIds = 2;   // params.commandId in client frames
inline constexpr std::size_t kClientInfoName = 3;     // params.clientInfo.name of initialize
inline constexpr std::size_t kClientInfoVersion = 4;  // params.clientInfo.version of initialize
inline constexpr std::size_t kFixedSpaces = 5;

enum class Treatment {
  exact,   // compared structurally
  unify,   // compared through the bijection of `space`
  erase,   // not compared; presence still is
  ignore,  // neither value nor presence compared (params.clientInfo.title)
};

struct MaskRule {
  Treatment treatment = Treatment::exact;
  std::size_t space = 0;  // for unify (and erase: the space it would have used)
  int declared = -1;      // index of the first declared path selecting the place, -1 if none
  bool is_id = false;     // the place is the JSON-RPC `id` of the frame
};

// What the mask needs to know about a frame: who sent it and its JSON-RPC kind.
struct FrameRole {
  Direction dir = Direction::client;
  FrameKind kind = FrameKind::invalid;
  bool initialize = false;  // a request with method "initialize"

  static FrameRole of(Direction dir, const Envelope& envelope);
};

class Masker {
 public:
  explicit Masker(MaskSpec spec);

  const MaskSpec& spec() const { return spec_; }
  std::size_t space_count() const { return kFixedSpaces + 2 * spec_.declared.size(); }
  // The space of the declared path with this index in frames of this direction (replay uses it
  // to look up what a server-minted value at a declared path was paired with).
  std::size_t declared_space(Direction dir, std::size_t declared_index) const {
    return kFixedSpaces + (dir == Direction::client ? 0 : spec_.declared.size()) + declared_index;
  }
  // "client request ids", "server frames' result.session.sessionId", ...
  std::string space_name(std::size_t space) const;

  // The rule for a concrete location (as JsonPath reports it: `params.items[0].id`) made of
  // `depth` steps (members and indices) in a frame of this role. The root (depth 0) is exact.
  MaskRule rule_for(const FrameRole& role, std::string_view location, std::size_t depth) const;

  // Locations deeper than this are always exact.
  std::size_t max_depth() const { return max_depth_; }

  // True when rule_for() gives `exact` for every location of a frame of this role: no path is
  // declared and the frame is a server frame other than a response (the fixed spaces mask only
  // client frames, client request ids and the responses to them). A frame sent identically on
  // both sides in such a role has nothing to unify.
  bool masks_nothing(const FrameRole& role) const {
    return spec_.declared.empty() && role.dir == Direction::server && role.kind != FrameKind::response;
  }

 private:
  MaskSpec spec_;
  std::vector<std::size_t> depths_;  // steps of each declared path
  std::vector<bool> erase_;          // each declared path erased (its declaration, or the mode)
  std::size_t max_depth_ = 3;
  int id_declared_ = -1;
  int command_id_declared_ = -1;
};

}  // namespace msptk
