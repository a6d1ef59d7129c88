// Internal to playback: serve-fixture --follow-minted. The values a client mints (its request
// ids, params.commandId, clientInfo name and version) are paired with the recorded ones by the
// FrameComparer's bijections (MATCHING.md §2); a MintedFollow reads those pairings to make the
// canned host follow the client (MATCHING.md §8):
//   - substitute(): a recorded server frame with every JSON string VALUE (any place, any depth;
//     never a member name, never a substring of a longer string) that is a recorded minted value
//     paired with another value replaced by the partner's token, spliced into the recorded bytes
//     (nothing re-serialized; a value spelled with escapes is recognised by its decoded text);
//   - settle(): the divergences of a client frame where the recording holds such a recorded
//     value and the client its partner (an echo of an ack's turnId, which MSP derives from the
//     commandId) are dropped: the echo matches through the same pairing.
// It holds nothing of its own: the pairings are the comparer's, as they stand at each call.
#pragma once

#include "msptk/differ/comparer.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msptk::playback {

// The JSON string values of `text` (a JSON text; scanned for token boundaries only): for each,
// `replace(token)` (the token with its quotes, as written) gives the token to write instead, or
// nullopt to keep it. Returns the new text, or nullopt when nothing was replaced; `count` is
// increased by the number of tokens replaced.
std::optional<std::string> replace_string_values(
    std::string_view text, const std::function<std::optional<std::string>(std::string_view)>& replace,
    std::size_t& count);

class MintedFollow {
 public:
  explicit MintedFollow(const FrameComparer& comparer) : comparer_(comparer) {}

  // The client's canonical token paired with the recorded string whose canonical JSON text is
  // `recorded` (when it is paired with another value), searched in the spaces of the values a
  // client mints.
  const std::string* partner(std::string_view recorded) const;

  // `bytes` (a recorded server frame) with the recorded minted values replaced; nullopt when
  // none was there. `count` gets the number replaced.
  std::optional<std::string> substitute(std::string_view bytes, std::size_t& count) const;

  // Drops the divergences that the pairings explain (see above); true when one was dropped.
  bool settle(std::vector<PathDivergence>& divergences) const;

 private:
  const FrameComparer& comparer_;
};

}  // namespace msptk::playback
