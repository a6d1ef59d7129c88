// Placeholders rewrite frames so that two recordings that differ only by masked values become
// byte-identical, for `msptk normalize` and plain `diff`: every masked value is replaced by a
// stable placeholder string, numbered by first appearance in the transcript — "<id:1>" for a
// JSON-RPC id, "<value:3>" for any other value. Numbers are given per bijection space and value
// (mask.hpp) from one counter, so a client request id and the server's response to it share a
// number while two spaces never do. In `erase` mode declared values become "<value>" (erased
// values carry no identity), except a JSON-RPC id: it says which request a response answers,
// and "<id>" on every frame would pair each response with some other request in flight. An
// erased id becomes "<id@N>", N the lowest number no other request of its sender holds while in
// flight (a response takes its request's; a request reusing an id in flight shares its number),
// and a response that answers no request becomes "<id>" — so the rewritten transcript pairs
// exactly as its input does (transcript/correlator.hpp), and how ids were minted or reused
// does not show. params.clientInfo.title of initialize is removed, since
// it is never compared. With `sort_members`, every frame is re-serialized in canonical form
// (members sorted, numbers by value, no CR: canonical.hpp), so that member order and number
// spelling — free in a structural comparison — vanish from a plain diff too. Frames must be
// fed in transcript order; one Placeholders per transcript.
#pragma once

#include "msptk/normalizer/mask.hpp"
#include "msptk/normalizer/unifier.hpp"
#include "msptk/transcript/frame.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace msptk {

class Placeholders {
 public:
  explicit Placeholders(Masker masker, bool sort_members = false);

  // The frame's bytes with its masked values replaced, re-serialized compactly with member order
  // kept (a client's trailing CR is kept). A frame that is not JSON, or (unless sort_members)
  // has nothing masked, is returned byte for byte.
  std::string rewrite(const Frame& frame);
  // The same, or nullopt when the frame's bytes are kept as they are (no copy of them is made).
  std::optional<std::string> rewritten(const Frame& frame);

  // Per declared path, how many values it covered (`differed` is always 0 here).
  const std::vector<MaskUse>& accounting() const { return accounting_; }

 private:
  std::string placeholder(const MaskRule& rule, const boost::json::value& value);
  // The erased placeholder of the id of a request or response of this direction.
  std::string erased_id(Direction dir, FrameKind kind, const boost::json::value& id);

  // Erased ids: per requester and id_key of a request in flight, its number; per requester, the
  // numbers given back (below next) and the next number never given.
  std::map<std::pair<Direction, std::string>, std::size_t> in_flight_;
  std::set<std::size_t> freed_[2];
  std::size_t next_slot_[2] = {1, 1};

  Masker masker_;
  bool sort_members_ = false;
  std::map<std::pair<std::size_t, std::string>, std::size_t> numbers_;
  std::size_t next_ = 1;
  std::vector<MaskUse> accounting_;
};

}  // namespace msptk
