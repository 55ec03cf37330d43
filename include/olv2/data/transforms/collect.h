#pragma once
// The `Collect` transform: the keys and image metas a sample keeps at the end of a pipeline.
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/schema.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// Collect: keeps `keys` (img and the gt_* tensors) and the image metas in the
// Sample. lidar2img and can_bus are always kept (the model reads them from the
// Sample).
class Collect : public Transform {
 public:
  Collect(std::vector<std::string> keys, std::vector<std::string> meta_keys)
      : keys_(std::move(keys)), meta_keys_(std::move(meta_keys)) {}
  static std::shared_ptr<const Transform> from_config(const ConfigNode& node);
  static Schema schema();
  // Every image meta a Collect can keep.
  static const std::vector<std::string>& all_meta_keys();
  const char* type() const override { return "Collect"; }
  void apply(PipelineData& data, std::mt19937_64& rng) const override;

 private:
  bool keeps(const std::string& key) const;
  std::vector<std::string> keys_;
  std::vector<std::string> meta_keys_;
};

}  // namespace olv2
