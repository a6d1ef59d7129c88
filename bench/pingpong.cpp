// msptk_bench_pingpong: the latency a host wrapper adds per frame. It spawns COMMAND (an echo
// host such as `cat`, or `msptk record --out R -- cat`) with pipes, then N times writes one
// MSP-shaped frame and waits until the echoed line has come back, timing each round trip.
// Prints one line: `rounds N p50_us X p90_us X p99_us X max_us X`. Standard library + POSIX only.
//
// Usage: msptk_bench_pingpong [--rounds N] -- COMMAND [ARGS...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  long rounds = 10000;
  int i = 1;
  for (; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) {
      ++i;
      break;
    }
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = std::atol(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: msptk_bench_pingpong [--rounds N] -- COMMAND [ARGS...]\n");
      return 2;
    }
  }
  if (i >= argc || rounds <= 0) {
    std::fprintf(stderr, "usage: msptk_bench_pingpong [--rounds N] -- COMMAND [ARGS...]\n");
    return 2;
  }
  int to_host[2], from_host[2];
  if (pipe(to_host) != 0 || pipe(from_host) != 0) return 3;
  const pid_t pid = fork();
  if (pid < 0) return 3;
  if (pid == 0) {
    dup2(to_host[0], 0);
    dup2(from_host[1], 1);
    close(to_host[0]);
    close(to_host[1]);
    close(from_host[0]);
    close(from_host[1]);
    execvp(argv[i], argv + i);
    std::perror("exec");
    _exit(127);
  }
  close(to_host[0]);
  close(from_host[1]);
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(rounds));
  std::string buffered;
  char chunk[65536];
  for (long r = 0; r < rounds; ++r) {
    const std::string frame = "{\"jsonrpc\":\"2.0\",\"method\":\"item/delta\",\"params\":{\"sessionId\":\"s\",\"turnId\":\"t\","
                              "\"delta\":\"ping " + std::to_string(r) + "\"}}\n";
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t off = 0; off < frame.size();) {
      const ssize_t n = write(to_host[1], frame.data() + off, frame.size() - off);
      if (n <= 0) return 3;
      off += static_cast<std::size_t>(n);
    }
    while (buffered.find('\n') == std::string::npos) {
      const ssize_t n = read(from_host[0], chunk, sizeof chunk);
      if (n <= 0) {
        std::fprintf(stderr, "msptk_bench_pingpong: the host closed its stdout after %ld rounds\n", r);
        return 3;
      }
      buffered.append(chunk, static_cast<std::size_t>(n));
    }
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    buffered.erase(0, buffered.find('\n') + 1);
  }
  close(to_host[1]);
  while (read(from_host[0], chunk, sizeof chunk) > 0) {
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::sort(us.begin(), us.end());
  auto pct = [&](double p) { return us[std::min(us.size() - 1, static_cast<std::size_t>(p * static_cast<double>(us.size())))]; };
  std::printf("rounds %ld p50_us %.1f p90_us %.1f p99_us %.1f max_us %.1f\n", rounds, pct(0.50), pct(0.90), pct(0.99),
              us.back());
  return 0;
}
