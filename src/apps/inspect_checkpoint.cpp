// inspect_checkpoint FILE [--tensors]: prints the object tree of a PyTorch .pth file.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "cli/command_line.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/pth/pth_print.h"

namespace olv2::programs::inspect_checkpoint {

namespace {

std::string file_header(const std::string& path) {
  std::ifstream in = olv2::open_for_reading(path, "checkpoint");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<long long>(in.tellg());
  in.seekg(0);
  std::string head(16, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return path + ": " + olv2::to_string(olv2::detect_pth_format(head)) + " format, " +
         std::to_string(size) + " bytes";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Print the tree of a PyTorch checkpoint (.pth/.pt): keys, dtypes, shapes, meta values."};
  std::string path;
  olv2::PthPrintOptions options;
  app.add_option("file", path, "checkpoint written by torch.save (zip or legacy format)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_flag("--tensors", options.tensor_values,
               "also print min/max/mean and the first values of each tensor");
  if (const auto status = olv2::parse_command_line(app, "inspect_checkpoint", argc, argv))
    return *status;
  return olv2::guarded_main("inspect_checkpoint", [&] {
    const olv2::PthValue value = olv2::read_pth(path);
    std::cout << file_header(path) << '\n';
    olv2::print_pth_tree(std::cout, value, options);
    return static_cast<int>(olv2::ExitStatus::kSuccess);
  });
}

}  // namespace olv2::programs::inspect_checkpoint
