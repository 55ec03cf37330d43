#pragma once
#include <optional>

#include "olv2/engine/settings/inference_options.h"

namespace olv2 {

// Parses the `test_ds` command line (argv[0] is the program). Throws an input error (exit
// status 2) on a bad invocation. Returns nullopt after printing help (--help), which is a
// successful exit.
std::optional<InferenceOptions> parse_inference_options(int argc, const char* const* argv);

}  // namespace olv2
