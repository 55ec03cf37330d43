#pragma once
// Command-line parsing shared by every program (src/apps, bench) through CLI11, which only the
// programs link: the library never parses a command line.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
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

// Parses the command line into `app` for a program whose errors leave through exceptions:
// returns false after printing the help (--help), throws an input error (exit status 2) naming
// the problem otherwise.
inline bool parse_or_print_help(CLI::App& app, const std::string& program, int argc,
                                const char* const* argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return false;
  } catch (const CLI::ParseError& error) {
    throw input_error(command_line_error(app, error, program));
  }
  return true;
}

// The flags of a program that runs as one rank of a launch (train_ds, test_ds): --launcher,
// --local-rank, --cfg-options and --threads.
inline void add_launch_options(CLI::App& app, std::string& launcher, int& local_rank,
                               std::vector<std::string>& cfg_options, std::optional<int>& threads) {
  app.add_option("--launcher", launcher, "job launcher")
      ->check(CLI::IsMember({"none", "pytorch"}))
      ->capture_default_str();
  app.add_option("--local-rank,--local_rank", local_rank,
                 "local rank (the DeepSpeed launcher passes --local_rank=N)");
  app.add_option("--cfg-options,--cfg_options", cfg_options,
                 "override config values: key.path=value (values are YAML)")
      ->expected(1, -1);
  app.add_option_function<int>(
      "--threads", [&threads](const int& value) { threads = value; },
      "intra-op threads (default: cores / LOCAL_WORLD_SIZE)");
}

// Throws an input error for a --threads below 1.
inline void require_thread_count(const std::optional<int>& threads) {
  if (threads && *threads < 1) {
    throw input_error("--threads " + std::to_string(*threads) + ": expected at least 1");
  }
}

// `work_dirs/<config file name without extension>`, mmdet's default work dir.
inline std::string default_work_dir(const std::string& config_path) {
  return (std::filesystem::path("work_dirs") / std::filesystem::path(config_path).stem()).string();
}

}  // namespace olv2
