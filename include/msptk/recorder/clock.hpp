// The wall clock the recorder stamps a capture with (start and end time), behind a seam so
// tests can pin it. Times are rendered as RFC 3339 UTC with milliseconds:
// "2025-08-07T18:22:11.000Z".
#pragma once

#include <chrono>
#include <string>

namespace msptk::recorder {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::chrono::system_clock::time_point now() const = 0;
};

class SystemClock final : public Clock {
 public:
  std::chrono::system_clock::time_point now() const override { return std::chrono::system_clock::now(); }
};

// A clock that always says the same time (tests).
class FixedClock final : public Clock {
 public:
  explicit FixedClock(std::chrono::system_clock::time_point at) : at_(at) {}
  std::chrono::system_clock::time_point now() const override { return at_; }

 private:
  std::chrono::system_clock::time_point at_;
};

std::string format_utc(std::chrono::system_clock::time_point at);

}  // namespace msptk::recorder
