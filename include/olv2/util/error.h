#pragma once
// The project's one error type and the exit statuses every app shares.
#include <stdexcept>
#include <string>

namespace olv2 {

// Process exit statuses shared by every app.
enum class ExitStatus : int {
  kSuccess = 0,
  kFailure = 1,   // a problem was found, or an internal error
  kBadInput = 2,  // bad invocation, bad config, bad input file
};

// The one error type of the project. The message carries its context (file, key, line, frame)
// at the point where it is thrown; `status` says how an app should exit because of it.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ExitStatus status = ExitStatus::kFailure)
      : std::runtime_error(message), status_(status) {}
  ExitStatus status() const { return status_; }

 private:
  ExitStatus status_;
};

// Bad invocation, bad config or a malformed input file: exit status 2.
inline Error input_error(const std::string& message) {
  return Error(message, ExitStatus::kBadInput);
}

// A failure found while running (non-finite loss, dead rank, internal error): exit status 1.
inline Error runtime_error(const std::string& message) {
  return Error(message, ExitStatus::kFailure);
}

}  // namespace olv2
