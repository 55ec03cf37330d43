#include "olv2/engine/distributed/distributed_options.h"

namespace olv2 {

Schema DistributedOptions::schema() {
  return Schema::map()
      .optional("backend", Schema::string().choices({"nccl", "gloo"}))
      .optional("timeout_s", Schema::number().range(0.001, 1e9))
      .optional("bucket_cap_mb", Schema::number().range(0.001, 1e6))
      .optional("overlap_comm", Schema::boolean());
}

DistributedOptions DistributedOptions::from_config(const ConfigNode* section) {
  DistributedOptions options;
  if (section == nullptr) return options;
  options.backend = section->get<std::string>("backend", options.backend);
  options.timeout_s = section->get<double>("timeout_s", options.timeout_s);
  options.bucket_cap_mb = section->get<double>("bucket_cap_mb", options.bucket_cap_mb);
  options.overlap_comm = section->get<bool>("overlap_comm", options.overlap_comm);
  return options;
}

}  // namespace olv2
