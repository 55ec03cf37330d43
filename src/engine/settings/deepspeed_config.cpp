#include "olv2/engine/settings/deepspeed_config.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>

#include "olv2/config/config_json.h"
#include "olv2/config/schema.h"
#include "olv2/solver/optimizer.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"

namespace olv2 {
namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// Keys that only tune how sharded training communicates; they change nothing in the arithmetic
// of a step, so they are accepted and ignored.
const std::vector<std::string> kZeroBooleanKeys = {"allgather_partitions", "overlap_comm",
                                                   "reduce_scatter", "contiguous_gradients"};
const std::vector<std::string> kZeroSizeKeys = {"allgather_bucket_size", "reduce_bucket_size"};
// DeepSpeed's own logging.
const std::vector<std::string> kLoggingKeys = {"steps_per_print", "wall_clock_breakdown"};

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

Schema zero_optimization_schema() {
  Schema section = Schema::map().optional("stage", Schema::integer().range(0, 3));
  for (const std::string& key : kZeroBooleanKeys) section.optional(key, Schema::boolean());
  for (const std::string& key : kZeroSizeKeys) {
    section.optional(key, Schema::number().range(0, kUnbounded));
  }
  return Schema::either(Schema::boolean(), section);
}

// Every key this trainer reads from a DeepSpeed JSON; the optimizer's params are checked by the
// schema of the optimizer they name (optimizer_params_schema).
Schema deepspeed_config_schema() {
  const Schema batch = Schema::integer().range(1, kUnbounded);
  const Schema bf16 = Schema::map().optional("enabled", Schema::boolean());
  Schema schema = Schema::map()
                      .optional("train_batch_size", batch)
                      .optional("train_micro_batch_size_per_gpu", batch)
                      .optional("gradient_accumulation_steps", batch)
                      .optional("optimizer", Schema::map()
                                                 .required("type", Schema::string())
                                                 .optional("params", Schema::open_map()))
                      .optional("scheduler", deepspeed_schedule_registry().schema())
                      .optional("gradient_clipping", Schema::number().range(0, kUnbounded))
                      .optional("fp16", Fp16Section::schema())
                      .optional("bf16", bf16)
                      .optional("bfloat16", bf16)
                      .optional("zero_optimization", zero_optimization_schema());
  for (const std::string& key : kLoggingKeys) schema.optional(key, Schema::any());
  return schema;
}

bool is_deepspeed_adam(const std::string& type) {
  const std::string name = lower(type);
  return name == "adam" || name == "adamw";
}

// The registered optimizer a DeepSpeed `optimizer.type` names, or "" when none.
std::string registered_type(const std::string& type, const ConfigNode* params) {
  if (is_deepspeed_adam(type)) {
    const ConfigNode* mode = params == nullptr ? nullptr : params->find("adam_w_mode");
    const bool decoupled =
        lower(type) == "adamw" || mode == nullptr || !mode->is_bool() || mode->as_bool();
    return decoupled ? "AdamW" : "Adam";
  }
  const std::vector<std::string> types = optimizer_registry().types();
  return std::find(types.begin(), types.end(), type) == types.end() ? "" : type;
}

// `params`: the keys of the optimizer's own schema but its `type` (none required: the YAML
// section gives what they leave out), and for DeepSpeed's Adam its two keys of its own.
Schema optimizer_params_schema(const std::string& written_type, const Schema& optimizer) {
  Schema params = Schema::map();
  for (const std::string& key : optimizer.field_names()) {
    if (key != "type") params.optional(key, *optimizer.field(key));
  }
  if (is_deepspeed_adam(written_type)) {
    params.optional("adam_w_mode", Schema::boolean()).optional("torch_adam", Schema::boolean());
  }
  return params;
}

void collect(Schema::ProblemsByKind& all, const Schema::ProblemsByKind& more) {
  all.unknown_keys.insert(all.unknown_keys.end(), more.unknown_keys.begin(),
                          more.unknown_keys.end());
  all.others.insert(all.others.end(), more.others.begin(), more.others.end());
}

std::optional<DeepSpeedOptimizer> read_optimizer(const ConfigNode& section,
                                                 Schema::ProblemsByKind& problems) {
  const ConfigNode& type = section.at("type");
  const ConfigNode* params = section.find("params");
  const std::string registered = registered_type(type.as_string(), params);
  if (registered.empty()) {
    std::string known;
    for (const std::string& name : optimizer_registry().types()) known += ", " + name;
    problems.others.push_back(type.where() + ": unknown optimizer type `" + type.as_string() +
                              "` (expected DeepSpeed's Adam or AdamW, in any letter case, or a " +
                              "registered optimizer by torch.optim's name: " + known.substr(2) +
                              ")");
    return std::nullopt;
  }
  DeepSpeedOptimizer optimizer;
  optimizer.written_type = type.as_string();
  optimizer.keys = ConfigNode::map(section.location());
  optimizer.keys.set("type", ConfigNode::scalar(registered, type.location(), true));
  if (params == nullptr || !params->is_map()) return optimizer;
  const Schema schema = optimizer_params_schema(optimizer.written_type,
                                                *optimizer_registry().type_schema(registered));
  const Schema::ProblemsByKind found = schema.problems_by_kind(*params);
  if (!found.unknown_keys.empty() || !found.others.empty()) {
    collect(problems, found);
    return std::nullopt;
  }
  for (const auto& [key, value] : params->entries()) {
    if (key == "torch_adam") {
      optimizer.torch_adam = value.as_bool();
    } else if (key != "adam_w_mode") {
      optimizer.keys.set(key, value);
    }
  }
  return optimizer;
}

std::optional<int64_t> integer(const ConfigNode& root, const std::string& key) {
  const ConfigNode* node = root.find(key);
  if (node == nullptr) return std::nullopt;
  return node->as_int();
}

int64_t read_zero_optimization(const ConfigNode& section, std::vector<std::string>& ignored) {
  if (section.is_scalar()) return section.as_bool() ? 1 : 0;
  for (const auto& [key, value] : section.entries()) {
    if (key == "stage") continue;
    ignored.push_back("zero_optimization." + key +
                      ": communication tuning; buckets and overlap come from dist_params "
                      "(bucket_cap_mb, overlap_comm)");
  }
  return section.get<int64_t>("stage", 0);
}

std::string parse_error_location(const std::string& text, size_t byte) {
  int line = 1;
  int column = 1;
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

ConfigNode DeepSpeedOptimizer::laid_over(const ConfigNode& yaml_section) const {
  const Schema& schema = *optimizer_registry().type_schema(type());
  ConfigNode section = keys;
  for (const auto& [key, value] : yaml_section.entries()) {
    if (!section.has(key) && schema.field(key) != nullptr) section.set(key, value);
  }
  validate_config(section, schema);
  return section;
}

DeepSpeedConfig parse_deepspeed_config(const std::string& text, const std::string& source_name) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw input_error(source_name + ":" + parse_error_location(text, error.byte) +
                      ": not valid JSON: " + error.what());
  }
  const ConfigNode root = config_from_json(json, SourceLocation{source_name, 0, 0}, "");
  Schema::ProblemsByKind problems = deepspeed_config_schema().problems_by_kind(root);
  DeepSpeedConfig config;
  config.file = source_name;
  // The optimizer's params and the ZeRO stage, where their sections are well formed.
  const ConfigNode* optimizer = root.find("optimizer");
  if (optimizer != nullptr && optimizer->is_map() && optimizer->has("type") &&
      optimizer->at("type").is_scalar()) {
    config.optimizer = read_optimizer(*optimizer, problems);
  }
  const ConfigNode* zero = root.find("zero_optimization");
  const ConfigNode* stage = zero == nullptr ? nullptr : zero->find("stage");
  if (stage != nullptr && stage->is_int() && stage->as_int() == 3) {
    problems.others.push_back(
        stage->where() +
        ": 3 shards the parameters themselves, which this trainer does not; stages 1 "
        "(optimizer state) and 2 (optimizer state and gradients) are supported");
  }
  const size_t count = problems.unknown_keys.size() + problems.others.size();
  if (count > 0) {
    std::string message =
        "DeepSpeed config " + source_name + ": " + std::to_string(count) + " problem(s):";
    for (const std::string& line : problems.unknown_keys) message += "\n  " + line;
    for (const std::string& line : problems.others) message += "\n  " + line;
    throw input_error(message);
  }

  config.train_batch_size = integer(root, "train_batch_size");
  config.train_micro_batch_size_per_gpu = integer(root, "train_micro_batch_size_per_gpu");
  config.gradient_accumulation_steps = integer(root, "gradient_accumulation_steps");
  if (const ConfigNode* clipping = root.find("gradient_clipping")) {
    config.gradient_clipping = clipping->as_double();
  }
  if (const ConfigNode* scheduler = root.find("scheduler")) {
    config.scheduler = deepspeed_schedule_registry().read(*scheduler);
  }
  if (const ConfigNode* fp16 = root.find("fp16")) config.fp16 = Fp16Section::from_config(*fp16);
  for (const char* key : {"bf16", "bfloat16"}) {
    if (const ConfigNode* bf16 = root.find(key)) {
      config.bf16_enabled = bf16->get<bool>("enabled", false);
    }
  }
  if (zero != nullptr) config.zero_stage = read_zero_optimization(*zero, config.ignored);
  for (const std::string& key : kLoggingKeys) {
    if (root.has(key)) config.ignored.push_back(key + ": DeepSpeed's own logging");
  }
  return config;
}

DeepSpeedConfig read_deepspeed_config(const std::filesystem::path& file) {
  return parse_deepspeed_config(read_file(file, "DeepSpeed config"), file.string());
}

std::optional<BatchSizes> resolve_batch_sizes(const DeepSpeedConfig& config, int64_t world_size) {
  const auto& train = config.train_batch_size;
  const auto& micro = config.train_micro_batch_size_per_gpu;
  const auto& accumulation = config.gradient_accumulation_steps;
  if (!train && !micro && !accumulation) return std::nullopt;
  BatchSizes sizes;
  if (train && micro && accumulation) {
    sizes = {*micro, *accumulation, *train, "all three given"};
  } else if (train && micro) {
    sizes = {*micro, *train / *micro / world_size, *train, "gradient_accumulation_steps inferred"};
  } else if (train && accumulation) {
    sizes = {*train / world_size / *accumulation, *accumulation, *train,
             "train_micro_batch_size_per_gpu inferred"};
  } else if (micro && accumulation) {
    sizes = {*micro, *accumulation, *micro * *accumulation * world_size,
             "train_batch_size inferred"};
  } else if (train) {
    sizes = {*train / world_size, 1, *train,
             "train_micro_batch_size_per_gpu inferred, "
             "gradient_accumulation_steps 1"};
  } else if (micro) {
    sizes = {*micro, 1, *micro * world_size,
             "train_batch_size inferred, gradient_accumulation_steps 1"};
  } else {
    throw input_error("DeepSpeed config " + config.file +
                      ": gradient_accumulation_steps alone is not enough; give "
                      "train_batch_size or train_micro_batch_size_per_gpu as well");
  }
  if (sizes.micro_batch_per_gpu <= 0 || sizes.accumulation_steps <= 0 ||
      sizes.train_batch_size != sizes.micro_batch_per_gpu * sizes.accumulation_steps * world_size) {
    throw input_error("DeepSpeed config " + config.file + ": train_batch_size " +
                      std::to_string(sizes.train_batch_size) +
                      " must equal train_micro_batch_size_per_gpu " +
                      std::to_string(sizes.micro_batch_per_gpu) +
                      " x gradient_accumulation_steps " + std::to_string(sizes.accumulation_steps) +
                      " x world size " + std::to_string(world_size) + " (" + sizes.how + ")");
  }
  return sizes;
}

}  // namespace olv2
