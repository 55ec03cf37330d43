#pragma once
// Command-line parsing shared by every program (src/apps, bench) through CLI11, which only the
// programs link: the library never parses a command line.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "olv2/util/error.h"

namespace olv2 {

// The one-line message for a command-line error, ending with a pointer at --help. Arguments
// nobody expected are named first: CLI11 reports a missing required option before them, but a
// mistyped flag is the usual reason why that option is missing.
inline std::string command_line_error(const CLI::App& app, const CLI::ParseError& error,
                                      const std::string& program) {
  std::string message = error.what();
  const std::vector<std::string> extras = app.remaining();
  if (!extras.empty() && dynamic_cast<const CLI::ExtrasError*>(&error) == nullptr) {
    message = CLI::ExtrasError(extras).what();
  }
  std::replace(message.begin(), message.end(), '\n', ' ');
  return message + " (see " + program + " --help)";
}

// Parses the command line into `app`. Returns the status to exit with when the program must stop
// now: 0 after printing the help (--help), 2 after writing "<program>: error: <what> (see
// <program> --help)" to stderr (an unknown flag, a bad or missing value); nullopt to go on.
inline std::optional<int> parse_command_line(CLI::App& app, const std::string& program, int argc,
                                             const char* const* argv) {
  app.name(program);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(error);
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(),
                 command_line_error(app, error, program).c_str());
    return static_cast<int>(ExitStatus::kBadInput);
  }
  return std::nullopt;
}

}  // namespace olv2
