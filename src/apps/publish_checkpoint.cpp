// publish_checkpoint: a training checkpoint made ready to publish, as mmdet's publish_model.py
// makes it: the weights (`state_dict`) and `meta` only, without the optimizer, scheduler and
// loss-scaler state, written as OUT's name with the first 8 hexadecimal digits of the file's
// SHA-256 before `.pth` (the name torch.hub's check_hash and mmcv's load_url expect).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <string>

#include "cli/command_line.h"
#include "olv2/util/app_main.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/sha256.h"

namespace olv2::programs::publish_checkpoint {

namespace {

namespace fs = std::filesystem;

// The published content of `checkpoint`: {meta, state_dict} of a training checkpoint, or
// {state_dict} of a plain state dict.
olv2::PthValue published_content(const olv2::PthValue& checkpoint, const fs::path& in) {
  if (!checkpoint.is_dict()) {
    throw olv2::input_error(in.string() + ": expected a checkpoint (a dict), found a " +
                            checkpoint.kind_name());
  }
  olv2::PthValue published = olv2::PthValue::dict();
  if (const olv2::PthValue* state_dict = checkpoint.find(olv2::PthKey("state_dict"))) {
    if (const olv2::PthValue* meta = checkpoint.find(olv2::PthKey("meta"))) {
      published.set(olv2::PthKey("meta"), *meta);
    }
    published.set(olv2::PthKey("state_dict"), *state_dict);
    return published;
  }
  for (const auto& [key, value] : checkpoint.dict_items()) {
    if (!value.is_tensor()) {
      throw olv2::input_error(in.string() +
                              ": expected a checkpoint with `state_dict` or a state dict of "
                              "tensors; entry " +
                              key.to_string() + " is a " + value.kind_name());
    }
  }
  published.set(olv2::PthKey("state_dict"), checkpoint);
  return published;
}

double megabytes(uintmax_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

int run(const fs::path& in, const fs::path& out) {
  if (out.extension() != ".pth") {
    throw olv2::input_error("OUT " + out.string() +
                            ": expected a .pth file name (the hash goes before `.pth`)");
  }
  const std::string bytes = olv2::serialize_pth(published_content(olv2::read_pth(in), in));
  const std::string digest = olv2::sha256_hex(bytes);
  const fs::path published =
      out.parent_path() / (out.stem().string() + "-" + digest.substr(0, 8) + ".pth");
  olv2::write_file_atomic(published, bytes);
  std::printf("%s\n", published.string().c_str());
  std::printf("publish_checkpoint: %.1f MB of %.1f MB kept (meta and state_dict), sha256 %s\n",
              megabytes(bytes.size()), megabytes(fs::file_size(in)), digest.c_str());
  return static_cast<int>(olv2::ExitStatus::kSuccess);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Write a checkpoint to publish: its weights and meta only, named by its SHA-256 as mmdet's "
      "publish_model.py names it."};
  fs::path in;
  fs::path out;
  app.add_option("in", in, "checkpoint to publish (train_ds's, mmcv's, or a state dict)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("out", out,
                 "file to write, e.g. work_dirs/toponet.pth; written as toponet-<8 hex digits>.pth")
      ->required();
  if (const auto status = olv2::parse_command_line(app, "publish_checkpoint", argc, argv)) {
    return *status;
  }
  return olv2::guarded_main("publish_checkpoint", [&] { return run(in, out); });
}

}  // namespace olv2::programs::publish_checkpoint
