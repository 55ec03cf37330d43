#include "olv2/util/app_main.h"

#include <c10/util/Exception.h>

#include <cstdio>
#include <exception>
#include <string>

#include "olv2/util/error.h"

namespace olv2 {

namespace {

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
    std::fprintf(stderr, "%s: error: %s\n", app_name, error.what());
    return static_cast<int>(error.status());
  } catch (const c10::Error& error) {
    std::fprintf(stderr, "%s: error: LibTorch: %s\n", app_name, first_line(error.what()).c_str());
    return static_cast<int>(ExitStatus::kFailure);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: error: internal error: %s\n", app_name, error.what());
    return static_cast<int>(ExitStatus::kFailure);
  } catch (...) {
    std::fprintf(stderr, "%s: error: internal error (unknown exception)\n", app_name);
    return static_cast<int>(ExitStatus::kFailure);
  }
}

}  // namespace olv2
