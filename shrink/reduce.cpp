// ddmin over units (reduce.hpp).
#include "msptk/shrink/reduce.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>

namespace msptk::shrink {

namespace {

class Asker {
 public:
  Asker(Oracle& oracle, std::size_t max_runs) : oracle_(oracle), max_runs_(max_runs) {}

  // nullopt: the budget is spent.
  Result<std::optional<bool>> ask(const std::vector<std::size_t>& units) {
    if (auto it = cache_.find(units); it != cache_.end()) return std::optional<bool>(it->second);
    if (runs_ >= max_runs_) {
      exhausted_ = true;
      return std::optional<bool>();
    }
    ++runs_;
    auto answer = oracle_.fails_same_way(units);
    if (!answer) return answer.error();
    cache_[units] = *answer;
    return std::optional<bool>(*answer);
  }

  std::size_t runs() const { return runs_; }
  bool exhausted() const { return exhausted_; }

 private:
  Oracle& oracle_;
  std::size_t max_runs_;
  std::size_t runs_ = 0;
  bool exhausted_ = false;
  std::map<std::vector<std::size_t>, bool> cache_;
};

std::vector<std::vector<std::size_t>> chunks(const std::vector<std::size_t>& c, std::size_t n) {
  std::vector<std::vector<std::size_t>> out;
  std::size_t start = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t stop = start + (c.size() - start) / (n - k);
    out.emplace_back(c.begin() + static_cast<std::ptrdiff_t>(start), c.begin() + static_cast<std::ptrdiff_t>(stop));
    start = stop;
  }
  return out;
}

std::vector<std::size_t> minus(const std::vector<std::size_t>& c, const std::vector<std::size_t>& s) {
  std::vector<std::size_t> out;
  std::set_difference(c.begin(), c.end(), s.begin(), s.end(), std::back_inserter(out));
  return out;
}

}  // namespace

Result<Reduction> reduce(std::size_t units, Oracle& oracle, std::size_t max_runs) {
  Asker asker(oracle, max_runs);
  std::vector<std::size_t> c(units);
  for (std::size_t i = 0; i < units; ++i) c[i] = i;
  // The handshake alone first: a failure that needs no unit at all.
  if (!c.empty()) {
    auto empty = asker.ask({});
    if (!empty) return empty.error();
    if (*empty && **empty) c.clear();
  }
  std::size_t n = 2;
  bool stopped = false;
  while (c.size() >= 2 && !stopped) {
    n = std::min(n, c.size());
    const auto parts = chunks(c, n);
    bool progress = false;
    for (const auto& part : parts) {  // reduce to a subset
      auto a = asker.ask(part);
      if (!a) return a.error();
      if (!*a) { stopped = true; break; }
      if (**a) {
        c = part;
        n = 2;
        progress = true;
        break;
      }
    }
    if (stopped) break;
    if (!progress && n > 2) {
      for (const auto& part : parts) {  // reduce to a complement
        const auto rest = minus(c, part);
        auto a = asker.ask(rest);
        if (!a) return a.error();
        if (!*a) { stopped = true; break; }
        if (**a) {
          c = rest;
          n = std::max<std::size_t>(n - 1, 2);
          progress = true;
          break;
        }
      }
    }
    if (stopped || progress) continue;
    if (n >= c.size()) break;
    n = std::min(c.size(), n * 2);
  }
  // A single unit left: the handshake alone was tried first.
  return Reduction{c, asker.runs(), asker.exhausted()};
}

}  // namespace msptk::shrink
