#include "olv2/models/pretrained_checkpoint.h"

#include <algorithm>
#include <vector>

#include "olv2/config/section_readers.h"
#include "olv2/util/error.h"
#include "olv2/util/platform.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"

namespace olv2 {
namespace {

std::filesystem::path torch_home() {
  const auto set = [](const char* name) {
    return platform::environment_variable(name).value_or("");
  };
  if (const std::string home = set("TORCH_HOME"); !home.empty()) return home;
  if (const std::string cache = set("XDG_CACHE_HOME"); !cache.empty()) {
    return std::filesystem::path(cache) / "torch";
  }
  const std::string user_home = set("HOME");
  return std::filesystem::path(user_home.empty() ? "." : user_home) / ".cache" / "torch";
}

}  // namespace

Schema PretrainedCheckpoint::schema() {
  Schema schema = typed_schema("Pretrained");
  schema.required("checkpoint", Schema::string()).optional("prefix", Schema::string());
  return schema;
}

PretrainedCheckpoint PretrainedCheckpoint::from_config(const ConfigNode& section) {
  const ConfigNode& checkpoint = section.at("checkpoint");
  return {checkpoint.as_string(), section.get<std::string>("prefix", ""), checkpoint.where()};
}

std::filesystem::path resolve_pretrained_checkpoint(const std::string& checkpoint) {
  const std::string scheme = "torchvision://";
  const std::string alternative =
      "; or train from mmdet's own ResNet initialisation with --cfg-options "
      "model.img_backbone.init_cfg=null";
  if (checkpoint.rfind(scheme, 0) != 0) {
    if (!std::filesystem::is_regular_file(checkpoint)) {
      throw input_error("pretrained checkpoint `" + checkpoint + "` not found" + alternative);
    }
    return checkpoint;
  }
  const std::string name = checkpoint.substr(scheme.size());
  const std::filesystem::path directory = torch_home() / "hub" / "checkpoints";
  std::vector<std::filesystem::path> candidates;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ignored)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind(name + "-", 0) == 0 && entry.path().extension() == ".pth") {
      candidates.push_back(entry.path());
    }
  }
  if (candidates.empty()) {
    throw input_error("`" + checkpoint + "` resolves to " +
                      (directory / (name + "-*.pth")).string() +
                      " (torchvision's file, e.g. resnet18-f37072fd.pth), which does not exist; "
                      "download it there or set TORCH_HOME" +
                      alternative);
  }
  // Several downloads of one model (older/newer torchvision hashes) hold the same weights.
  std::sort(candidates.begin(), candidates.end());
  return candidates.front();
}

void load_pretrained_weights(torch::nn::Module& module, const PretrainedCheckpoint& pretrained) {
  std::filesystem::path file;
  try {
    file = resolve_pretrained_checkpoint(pretrained.checkpoint);
  } catch (const Error& error) {
    throw input_error(pretrained.location + ": " + error.what());
  }
  PthValue value = read_pth(file);
  if (value.is_dict()) {
    if (const PthValue* nested = value.find("state_dict")) {
      const PthValue inner = *nested;
      value = inner;
    }
  }
  LoadStateDictOptions options;
  options.strict = false;  // as mmcv: torchvision's `fc.*` and absent buffers are not errors
  options.prefix = pretrained.prefix;
  load_state_dict(module, tensors_of(value), options);
}

}  // namespace olv2
