#include "support/run_command.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

#include "support/test_paths.h"

namespace olv2::test {

CommandResult run_command(const std::string& command) {
  CommandResult result;
  const std::string full = command + " 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  if (pipe == nullptr) {
    result.output = "popen failed for: " + command;
    return result;
  }
  std::array<char, 4096> buffer{};
  size_t count = 0;
  while ((count = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    result.output.append(buffer.data(), count);
  }
  const int status = pclose(pipe);
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

CommandResult run_app(const std::string& app, const std::string& arguments) {
  return run_command("'" + (bin_dir() / app).string() + "' " + arguments);
}

std::string shell_words(const std::vector<std::string>& arguments) {
  std::string line;
  for (const std::string& argument : arguments) line += " '" + argument + "'";
  return line;
}

}  // namespace olv2::test
