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

#include "olv2/engine/settings/launch_options.h"
#include "olv2/util/environment.h"
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

// The command line with every flag's name spelled with `-` (`--work_dir=x` becomes
// `--work-dir=x`): each flag is also accepted as argparse users type it. Values stay as given.
inline std::vector<std::string> with_dashed_flag_names(int argc, const char* const* argv) {
  std::vector<std::string> arguments(argv, argv + argc);
  for (size_t i = 1; i < arguments.size(); ++i) {
    std::string& argument = arguments[i];
    if (argument.rfind("--", 0) != 0) continue;
    const size_t name_end = std::min(argument.find('='), argument.size());
    std::replace(argument.begin() + 2, argument.begin() + static_cast<std::ptrdiff_t>(name_end),
                 '_', '-');
  }
  return arguments;
}

// What every program shares before its own flags are read: its name and `--version`, then the
// parse of the dashed command line (throws CLI11's errors, --help and --version among them).
inline void parse_with_house_conventions(CLI::App& app, const std::string& program, int argc,
                                         const char* const* argv) {
  app.name(program);
  app.set_version_flag(
      "--version", [program] { return version_report(program); }, "print the version and exit");
  const std::vector<std::string> arguments = with_dashed_flag_names(argc, argv);
  std::vector<const char*> pointers;
  for (const std::string& argument : arguments) pointers.push_back(argument.c_str());
  app.parse(static_cast<int>(pointers.size()), pointers.data());
}

// Parses the command line into `app`. Returns the status to exit with when the program must stop
// now: 0 after printing the help (--help) or the version (--version), 2 after writing
// "<program>: error: <what> (see <program> --help)" to stderr (an unknown flag, a bad or missing
// value); nullopt to go on.
inline std::optional<int> parse_command_line(CLI::App& app, const std::string& program, int argc,
                                             const char* const* argv) {
  try {
    parse_with_house_conventions(app, program, argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(error);
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(),
                 command_line_error(app, error, program).c_str());
    return static_cast<int>(ExitStatus::kBadInput);
  }
  return std::nullopt;
}

// Parses the command line into `app` for a program whose errors leave through exceptions:
// returns false after printing the help (--help) or the version (--version), throws an input
// error (exit status 2) naming the problem otherwise.
inline bool parse_or_print_help(CLI::App& app, const std::string& program, int argc,
                                const char* const* argv) {
  try {
    parse_with_house_conventions(app, program, argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      app.exit(error);
      return false;
    }
    throw input_error(command_line_error(app, error, program));
  }
  return true;
}

// --cfg-options key.path=value ..., mmcv's config overrides.
inline void add_config_overrides(CLI::App& app, std::vector<std::string>& cfg_options) {
  app.add_option("--cfg-options", cfg_options,
                 "override config values: key.path=value (values are YAML)")
      ->expected(1, -1);
}

// The flags of a program that runs as one rank of a launch (train_ds, test_ds): --launcher,
// --local-rank, --cfg-options, --threads, --device, --max-frames and --cuda-memory-cap.
inline void add_launch_options(CLI::App& app, LaunchOptions& launch,
                               std::vector<std::string>& cfg_options) {
  app.add_option("--launcher", launch.launcher, "job launcher (default none)")
      ->check(CLI::IsMember({"none", "pytorch", "slurm"}));
  app.add_option("--local-rank", launch.local_rank,
                 "local rank (the DeepSpeed launcher passes --local_rank=N)");
  add_config_overrides(app, cfg_options);
  app.add_option_function<int>(
      "--threads", [&launch](const int& value) { launch.threads = value; },
      "intra-op threads (default: cores / LOCAL_WORLD_SIZE)");
  app.add_option("--device", launch.device,
                 "where the model runs (default: the rank's GPU when one is visible, else the "
                 "CPU)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option_function<int64_t>(
         "--max-frames", [&launch](const int64_t& frames) { launch.max_frames = frames; },
         "read only the first N frames of every split (data.max_frames), for a quick run")
      ->check(CLI::PositiveNumber);
  app.add_option_function<double>(
         "--cuda-memory-cap",
         [&launch](const double& gib) { launch.cuda_memory_cap_gib = gib; },
         "let this process's GPU allocate at most GIB GiB, as a card of that size would (not "
         "applicable on the CPU)")
      ->check(CLI::PositiveNumber);
}

// mmdet's single-process GPU choice (--gpus N, --gpu-ids ...), answered with the launcher to use:
// here every GPU is a process of its own, started by `launcher` (e.g. "scripts/dist_train.sh
// CONFIG N").
inline void add_gpu_choice_answer(CLI::App& app, const std::string& program,
                                  const std::string& launcher) {
  app.add_option_function<std::vector<std::string>>(
      "--gpus,--gpu-ids",
      [program, launcher](const std::vector<std::string>& gpus) {
        throw input_error("--gpus / --gpu-ids " + gpus.front() + ": " + program +
                          " runs one process per GPU: start N with " + launcher +
                          ", or pick one with CUDA_VISIBLE_DEVICES");
      },
      "mmdet's GPU choice, answered with the launcher to use");
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
