#include "chaos_options.hpp"

namespace msptk::cli {

void add_chaos_options(CLI::App& sub, ChaosOptions& options) {
  sub.add_option("--chaos", options.spec,
                 "Deliver the frames the way real pipes behave at their worst, bytes unchanged: split, merge, "
                 "delay=MS, stall=MS, close-after=N (replay also cr), comma-separated")
      ->type_name("SPEC");
  sub.add_option("--chaos-seed", options.seed, "The seed of --chaos (default: random, named in the report)")
      ->type_name("S");
}

Result<std::optional<chaos::ChaosRun>> chaos_run(const ChaosOptions& options, chaos::ChaosRole role) {
  if (options.spec.empty()) {
    if (!options.seed.empty()) return Error::usage("--chaos-seed needs --chaos SPEC");
    return std::optional<chaos::ChaosRun>();
  }
  auto spec = chaos::parse_chaos_spec(options.spec, role);
  if (!spec) return spec.error();
  chaos::ChaosRun run{*spec, 0};
  if (options.seed.empty()) {
    run.seed = chaos::random_seed();
  } else {
    auto seed = chaos::parse_chaos_seed(options.seed);
    if (!seed) return seed.error();
    run.seed = *seed;
  }
  return std::optional<chaos::ChaosRun>(run);
}

}  // namespace msptk::cli
