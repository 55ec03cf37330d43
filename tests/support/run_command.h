#pragma once
#include <string>
#include <vector>

namespace olv2::test {

struct CommandResult {
  int exit_status = -1;  // the process's exit status, or -1 when it did not exit normally
  std::string output;    // stdout and stderr together
};

// Runs `command` through /bin/sh with stderr merged into stdout.
CommandResult run_command(const std::string& command);

// `arguments` as one shell word each, single-quoted (none may hold a single quote).
std::string shell_words(const std::vector<std::string>& arguments);

// Runs the built app `app` (from bin_dir()) with `arguments` appended verbatim.
CommandResult run_app(const std::string& app, const std::string& arguments);

}  // namespace olv2::test
