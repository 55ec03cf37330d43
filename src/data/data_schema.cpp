#include "olv2/data/data_schema.h"

#include "olv2/data/pipeline_schema.h"

namespace olv2 {

Schema dataset_schema() {
  return Schema::map()
      .optional("type",
                Schema::string().choices({"OpenLaneV2SubsetADataset", "OpenLaneV2SubsetBDataset"}))
      .optional("data_root", Schema::string())
      .optional("meta_root", Schema::string())
      .required("collection", Schema::string())
      .optional("pipeline", pipeline_schema())
      .optional("test_mode", Schema::boolean());
}

Schema data_section_schema() {
  // The samplers are Python bookkeeping: our loader always shards as mmdet's
  // distributed samplers do, so the keys are accepted and logged as ignored.
  const Schema sampler = Schema::map().optional(
      "type", Schema::string().choices({"DistributedGroupSampler", "DistributedSampler"}));
  return Schema::map()
      .required("samples_per_gpu", Schema::integer().range(1, 1 << 20))
      .optional("workers_per_gpu", Schema::integer().range(0, 1024))
      .optional("gradient_accumulation_steps", Schema::integer().range(1, 1 << 20))
      .optional("skip_bad_frames", Schema::boolean())
      .required("train", dataset_schema())
      .optional("val", dataset_schema())
      .optional("test", dataset_schema())
      .optional("shuffler_sampler", sampler)
      .optional("nonshuffler_sampler", sampler);
}

}  // namespace olv2
