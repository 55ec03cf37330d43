#include "olv2/data/pipeline.h"

#include "olv2/config/schema.h"
#include "olv2/data/transforms/registry.h"
#include "olv2/util/error.h"

namespace olv2 {

Pipeline::Pipeline(std::vector<std::shared_ptr<const Transform>> transforms)
    : transforms_(std::move(transforms)) {}

PipelineData Pipeline::run_data(const Frame& frame, const std::string& data_root,
                                std::mt19937_64& rng, at::Tensor images_into) const {
  PipelineData data = make_pipeline_data(frame, data_root);
  data.images_into = std::move(images_into);
  for (const auto& transform : transforms_) transform->apply(data, rng);
  return data;
}

Sample Pipeline::run(const Frame& frame, const std::string& data_root, std::mt19937_64& rng,
                     at::Tensor images_into) const {
  PipelineData data = run_data(frame, data_root, rng, std::move(images_into));
  if (!data.formatted) {
    throw input_error("pipeline: it must end with CustomDefaultFormatBundle and Collect");
  }
  return std::move(data.sample);
}

std::vector<std::string> Pipeline::types() const {
  std::vector<std::string> names;
  for (const auto& transform : transforms_) names.emplace_back(transform->type());
  return names;
}

Pipeline build_pipeline(const ConfigNode& pipeline_list, const std::set<std::string>& skip_types) {
  pipeline_list.require_kind(ConfigNode::Kind::kSequence);
  std::vector<std::shared_ptr<const Transform>> transforms;
  const Registry<Transform>& registry = transform_registry();
  const Schema transform = registry.schema();
  for (const ConfigNode& entry : pipeline_list.elements()) {
    validate_config(entry, transform);
    if (skip_types.count(entry.at("type").as_string()) != 0) continue;
    transforms.push_back(registry.read(entry));
  }
  return Pipeline(std::move(transforms));
}

}  // namespace olv2
