#include "olv2/data/data_section.h"

#include "olv2/config/config_loader.h"
#include "olv2/data/dataset_builder.h"

namespace olv2 {

Schema DataSection::schema() {
  // The samplers are Python bookkeeping: our loader always shards as mmdet's
  // distributed samplers do, so the keys are accepted and logged as ignored.
  const Schema sampler = Schema::map().optional(
      "type", Schema::string().choices({"DistributedGroupSampler", "DistributedSampler"}));
  return Schema::map()
      .required("samples_per_gpu", Schema::integer().range(1, 1 << 20))
      .optional("workers_per_gpu", Schema::integer().range(0, 1024))
      .optional("gradient_accumulation_steps", Schema::integer().range(1, 1 << 20))
      .optional("skip_bad_frames", Schema::boolean())
      .optional("max_frames", Schema::integer().range(1, int64_t{1} << 40))
      .required("train", DatasetSpec::schema())
      .optional("val", DatasetSpec::schema())
      .optional("test", DatasetSpec::schema())
      .optional("shuffler_sampler", sampler)
      .optional("nonshuffler_sampler", sampler);
}

DataSection DataSection::from_config(const ConfigNode& data) {
  DataSection o;
  o.samples_per_gpu = data.at("samples_per_gpu").as_int();
  o.workers_per_gpu = data.get<int64_t>("workers_per_gpu", o.workers_per_gpu);
  o.gradient_accumulation_steps =
      data.get<int64_t>("gradient_accumulation_steps", o.gradient_accumulation_steps);
  o.skip_bad_frames = data.get<bool>("skip_bad_frames", o.skip_bad_frames);
  if (const ConfigNode* frames = data.find("max_frames")) o.max_frames = frames->as_int();
  return o;
}

void apply_frame_limit(ConfigNode& config, std::optional<int64_t> max_frames) {
  if (max_frames)
    apply_config_overrides(config, {"data.max_frames=" + std::to_string(*max_frames)});
}

}  // namespace olv2
