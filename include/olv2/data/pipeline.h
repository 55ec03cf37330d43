#pragma once
// A data pipeline: the transforms an mmcv pipeline list names, run in order on one frame.
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/data/frame.h"
#include "olv2/data/sample.h"
#include "olv2/data/transforms/transform.h"

namespace olv2 {

// A list of transforms run in order on one frame.
class Pipeline {
 public:
  Pipeline() = default;
  explicit Pipeline(std::vector<std::shared_ptr<const Transform>> transforms);

  // Runs every transform on `frame` (whose image paths are relative to
  // `data_root`) and returns the collected sample. Errors name the frame or
  // image at fault. `images_into`, when defined, is where the format bundle
  // writes the sample's images if the sizes match (PipelineData::images_into).
  Sample run(const Frame& frame, const std::string& data_root, std::mt19937_64& rng,
             at::Tensor images_into = {}) const;
  // Runs the transforms and returns the intermediate data (for inspection and
  // tests).
  PipelineData run_data(const Frame& frame, const std::string& data_root, std::mt19937_64& rng,
                        at::Tensor images_into = {}) const;

  std::vector<std::string> types() const;
  bool empty() const { return transforms_.empty(); }

 private:
  std::vector<std::shared_ptr<const Transform>> transforms_;
};

// Builds a pipeline from a config list of `{type: ..., <params>}` maps (mmcv's
// pipeline lists). Types in `skip_types` are left out (e.g. the photometric
// distortion for checks). Throws an input error naming the entry for an unknown
// type or bad parameter.
Pipeline build_pipeline(const ConfigNode& pipeline_list,
                        const std::set<std::string>& skip_types = {});

}  // namespace olv2
