#include "olv2/util/app_main.h"

#include <c10/util/Exception.h>

#include <cstdio>
#include <exception>
#include <string>

#include "olv2/util/error.h"
#include "olv2/util/logging.h"

namespace olv2 {

namespace {

// The error that ends the program: on stderr, and as the last line of the run's `.log` when the
// program writes one.
void report(const char* app_name, const std::string& message) {
  const std::string line = std::string(app_name) + ": error: " + message;
  std::fprintf(stderr, "%s\n", line.c_str());
  log_final_error(line);
}

// c10 errors carry a C++ backtrace after the first line; users need the first line.
std::string first_line(const char* message) {
  std::string text(message);
  const size_t newline = text.find('\n');
  return newline == std::string::npos ? text : text.substr(0, newline);
}

}  // namespace

int guarded_main(const char* app_name, const std::function<int()>& body) {
  try {
    return body();
  } catch (const Error& error) {
    report(app_name, error.what());
    return static_cast<int>(error.status());
  } catch (const c10::Error& error) {
    report(app_name, "LibTorch: " + first_line(error.what()));
    return static_cast<int>(ExitStatus::kFailure);
  } catch (const std::exception& error) {
    report(app_name, std::string("internal error: ") + error.what());
    return static_cast<int>(ExitStatus::kFailure);
  } catch (...) {
    report(app_name, "internal error (unknown exception)");
    return static_cast<int>(ExitStatus::kFailure);
  }
}

}  // namespace olv2
