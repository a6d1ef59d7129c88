#include "msptk/normalizer/placeholders.hpp"
#include "msptk/transcript/json_parse.hpp"

#include "msptk/normalizer/canonical.hpp"

#include <boost/json/serialize.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace msptk {

namespace json = boost::json;

namespace {

struct Rewrite {
  const Masker& masker;
  const FrameRole& role;
  std::string location;
  bool changed = false;

  template <class Replace>
  void walk(json::value& value, std::size_t depth, const Replace& replace) {
    if (depth >= masker.max_depth()) return;
    if (auto* obj = value.if_object()) {
      // Members in name order, so placeholder numbers do not depend on member order.
      std::vector<json::key_value_pair*> members;
      for (auto& m : *obj) members.push_back(&m);
      std::sort(members.begin(), members.end(), [](auto* a, auto* b) { return a->key() < b->key(); });
      std::vector<std::string> dropped;
      for (json::key_value_pair* m : members) {
        const std::size_t mark = location.size();
        push_member(location, m->key());
        MaskRule rule = masker.rule_for(role, location, depth + 1);
        if (rule.treatment == Treatment::ignore) {
          dropped.emplace_back(m->key());
        } else if (rule.treatment != Treatment::exact) {
          m->value() = replace(rule, m->value());
          changed = true;
        } else {
          walk(m->value(), depth + 1, replace);
        }
        location.resize(mark);
      }
      for (const std::string& key : dropped) obj->erase(key);
      if (!dropped.empty()) changed = true;
    } else if (auto* arr = value.if_array()) {
      for (std::size_t i = 0; i < arr->size(); ++i) {
        const std::size_t mark = location.size();
        fmt::format_to(std::back_inserter(location), "[{}]", i);
        MaskRule rule = masker.rule_for(role, location, depth + 1);
        if (rule.treatment != Treatment::exact && rule.treatment != Treatment::ignore) {
          (*arr)[i] = replace(rule, (*arr)[i]);
          changed = true;
        } else {
          walk((*arr)[i], depth + 1, replace);
        }
        location.resize(mark);
      }
    }
  }
};

}  // namespace

Placeholders::Placeholders(Masker masker, bool sort_members)
    : masker_(std::move(masker)), sort_members_(sort_members) {
  for (const JsonPath& path : masker_.spec().declared) accounting_.push_back(MaskUse{path.text(), 0, 0});
}

std::string Placeholders::placeholder(const MaskRule& rule, const json::value& value) {
  if (rule.declared >= 0) ++accounting_[static_cast<std::size_t>(rule.declared)].covered;
  const char* kind = rule.is_id ? "id" : "value";
  if (rule.treatment == Treatment::erase) return fmt::format("<{}>", kind);
  auto [it, inserted] = numbers_.try_emplace({rule.space, canonical_json(value)}, next_);
  if (inserted) ++next_;
  return fmt::format("<{}:{}>", kind, it->second);
}

std::string Placeholders::erased_id(Direction dir, FrameKind kind, const json::value& id) {
  if (kind == FrameKind::request) {
    const int d = static_cast<int>(dir);
    auto [it, inserted] = in_flight_.try_emplace({dir, id_key(id)}, 0);
    if (inserted) {
      if (freed_[d].empty()) {
        it->second = next_slot_[d]++;
      } else {
        it->second = *freed_[d].begin();
        freed_[d].erase(freed_[d].begin());
      }
    }
    return fmt::format("<id@{}>", it->second);
  }
  const Direction requester = dir == Direction::client ? Direction::server : Direction::client;
  auto it = in_flight_.find({requester, id_key(id)});
  if (it == in_flight_.end()) return "<id>";
  const std::size_t slot = it->second;
  freed_[static_cast<int>(requester)].insert(slot);
  in_flight_.erase(it);
  return fmt::format("<id@{}>", slot);
}

std::optional<std::string> Placeholders::rewritten(const Frame& frame) {
  if (frame.exact_bytes) return std::nullopt;
  // A server frame with no member "id" is not a response; with nothing declared, no place of
  // such a frame is masked (Masker::masks_nothing), so it is kept without being parsed.
  if (!sort_members_ && frame.dir == Direction::server && masker_.spec().declared.empty() &&
      !may_name_id(frame.json_text()))
    return std::nullopt;
  thread_local JsonArena arena;  // the DOM lives while this frame is rewritten; text comes out
  ArenaScope scope(arena);
  auto parsed = parse_json(frame.json_text(), scope.storage());
  if (!parsed) return std::nullopt;
  json::value& value = *parsed;
  const Envelope envelope = classify(value);
  const FrameRole role = FrameRole::of(frame.dir, envelope);
  if (!sort_members_ && masker_.masks_nothing(role)) return std::nullopt;
  Rewrite rewrite{masker_, role, {}};
  rewrite.walk(value, 0, [&](const MaskRule& rule, const json::value& v) {
    // A null id names no request (a parse-error response): it is not a minted value, and a
    // placeholder there could make the response answer a request.
    if (rule.is_id && v.is_null()) return json::value(nullptr);
    // An erased id keeps which request a response answers (placeholders.hpp).
    if (rule.is_id && rule.treatment == Treatment::erase) {
      if (rule.declared >= 0) ++accounting_[static_cast<std::size_t>(rule.declared)].covered;
      return json::value(json::string(erased_id(frame.dir, envelope.kind, v)));
    }
    return json::value(json::string(placeholder(rule, v)));
  });
  if (sort_members_) return canonical_json(value);
  if (!rewrite.changed) return std::nullopt;
  std::string out = serialize_json(value);
  if (frame.json_text().size() != frame.raw.size()) out += '\r';
  return out;
}

std::string Placeholders::rewrite(const Frame& frame) {
  std::optional<std::string> out = rewritten(frame);
  return out ? std::move(*out) : frame.wire_bytes();
}

}  // namespace msptk
