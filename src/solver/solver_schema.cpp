#include "olv2/solver/solver_schema.h"

namespace olv2 {

Schema optimizer_schema() {
  const Schema multipliers =
      Schema::map().optional("lr_mult", Schema::number()).optional("decay_mult", Schema::number());
  const Schema paramwise = Schema::map().optional("custom_keys", Schema::map_of(multipliers));
  return Schema::map()
      .required("type", Schema::string().choices({"AdamW"}))
      .required("lr", Schema::number().range(0.0, 1e3))
      .optional("weight_decay", Schema::number().range(0.0, 1e3))
      .optional("betas", Schema::sequence(Schema::number().range(0.0, 1.0)))
      .optional("eps", Schema::number().range(0.0, 1.0))
      .optional("amsgrad", Schema::boolean())
      .optional("paramwise_cfg", paramwise);
}

Schema optimizer_config_schema() {
  const Schema grad_clip = Schema::map()
                               .required("max_norm", Schema::number().range(0.0, 1e12))
                               .optional("norm_type", Schema::number())
                               .nullable();
  return Schema::map().optional("grad_clip", grad_clip);
}

}  // namespace olv2
