#include "olv2/engine/settings/deepspeed_config.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "olv2/config/config_json.h"
#include "olv2/config/schema.h"
#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"

namespace olv2 {
namespace {

using Json = nlohmann::json;

const std::vector<std::string> kTopLevelKeys = {"train_batch_size",
                                                "train_micro_batch_size_per_gpu",
                                                "gradient_accumulation_steps",
                                                "optimizer",
                                                "scheduler",
                                                "gradient_clipping",
                                                "fp16",
                                                "bf16",
                                                "bfloat16",
                                                "zero_optimization",
                                                "steps_per_print",
                                                "wall_clock_breakdown"};
const std::vector<std::string> kOptimizerParams = {"lr",           "betas",       "eps",
                                                   "weight_decay", "adam_w_mode", "torch_adam"};
// Keys that only tune how sharded training communicates; they change nothing
// in the arithmetic of a step, so without sharding they are accepted and ignored.
const std::vector<std::string> kZeroBooleanKeys = {"allgather_partitions", "overlap_comm",
                                                   "reduce_scatter", "contiguous_gradients"};
const std::vector<std::string> kZeroSizeKeys = {"allgather_bucket_size", "reduce_bucket_size"};

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Collects every problem of one file; unknown keys are kept apart so they come
// first.
class Checker {
 public:
  explicit Checker(std::string file) : file_(std::move(file)) {}

  bool object(const Json& value, const std::string& path) {
    if (value.is_object()) return true;
    problem(path, std::string("expected an object, got ") + value.type_name());
    return false;
  }

  void known_keys(const Json& object, const std::string& prefix,
                  const std::vector<std::string>& allowed) {
    for (const auto& item : object.items()) {
      if (std::find(allowed.begin(), allowed.end(), item.key()) != allowed.end()) continue;
      std::string message = "unknown key";
      const std::string suggestion = closest_match(item.key(), allowed);
      if (!suggestion.empty()) message += ", did you mean `" + suggestion + "`?";
      unknown_.push_back(line(join(prefix, item.key()), message));
    }
  }

  std::optional<int64_t> integer(const Json& object, const std::string& prefix,
                                 const std::string& key, int64_t minimum) {
    if (!object.contains(key)) return std::nullopt;
    const Json& value = object.at(key);
    if (!value.is_number_integer() || value.get<int64_t>() < minimum) {
      problem(join(prefix, key),
              "expected an integer >= " + std::to_string(minimum) + ", got " + value.dump());
      return std::nullopt;
    }
    return value.get<int64_t>();
  }

  std::optional<int64_t> integer_in(const Json& object, const std::string& prefix,
                                    const std::string& key, int64_t minimum, int64_t maximum) {
    if (!object.contains(key)) return std::nullopt;
    const Json& value = object.at(key);
    if (!value.is_number_integer() || value.get<int64_t>() < minimum ||
        value.get<int64_t>() > maximum) {
      problem(join(prefix, key), "expected an integer from " + std::to_string(minimum) + " to " +
                                     std::to_string(maximum) + ", got " + value.dump());
      return std::nullopt;
    }
    return value.get<int64_t>();
  }

  std::optional<double> number(const Json& object, const std::string& prefix,
                               const std::string& key) {
    if (!object.contains(key)) return std::nullopt;
    const Json& value = object.at(key);
    if (!value.is_number() || value.get<double>() < 0.0) {
      problem(join(prefix, key), "expected a number >= 0, got " + value.dump());
      return std::nullopt;
    }
    return value.get<double>();
  }

  std::optional<bool> boolean(const Json& object, const std::string& prefix,
                              const std::string& key) {
    if (!object.contains(key)) return std::nullopt;
    if (!object.at(key).is_boolean()) {
      problem(join(prefix, key), "expected true or false, got " + object.at(key).dump());
      return std::nullopt;
    }
    return object.at(key).get<bool>();
  }

  std::optional<std::string> choice(const Json& object, const std::string& prefix,
                                    const std::string& key,
                                    const std::vector<std::string>& allowed) {
    if (!object.contains(key)) return std::nullopt;
    const Json& value = object.at(key);
    if (!value.is_string() ||
        std::find(allowed.begin(), allowed.end(), value.get<std::string>()) == allowed.end()) {
      std::string expected;
      for (const std::string& option : allowed) expected += (expected.empty() ? "" : ", ") + option;
      problem(join(prefix, key), "expected one of " + expected + ", got " + value.dump());
      return std::nullopt;
    }
    return value.get<std::string>();
  }

  // Problems a schema found in a section read with config_from_json: its unknown keys first,
  // as this checker's own.
  void schema_problems(const Schema::ProblemsByKind& problems) {
    unknown_.insert(unknown_.end(), problems.unknown_keys.begin(), problems.unknown_keys.end());
    others_.insert(others_.end(), problems.others.begin(), problems.others.end());
  }

  void problem(const std::string& path, const std::string& message) {
    others_.push_back(line(path, message));
  }

  void throw_if_any() const {
    if (unknown_.empty() && others_.empty()) return;
    std::string message = "DeepSpeed config " + file_ + ": " +
                          std::to_string(unknown_.size() + others_.size()) + " problem(s):";
    for (const std::string& text : unknown_) message += "\n  " + text;
    for (const std::string& text : others_) message += "\n  " + text;
    throw input_error(message);
  }

 private:
  static std::string join(const std::string& prefix, const std::string& key) {
    return prefix.empty() ? key : prefix + "." + key;
  }
  std::string line(const std::string& path, const std::string& message) const {
    return file_ + ": key `" + path + "`: " + message;
  }

  std::string file_;
  std::vector<std::string> unknown_;
  std::vector<std::string> others_;
};

DeepSpeedOptimizer parse_optimizer(const Json& section, Checker& check) {
  DeepSpeedOptimizer optimizer;
  check.known_keys(section, "optimizer", {"type", "params"});
  if (!section.contains("type") || !section.at("type").is_string()) {
    check.problem("optimizer.type", "expected AdamW or Adam");
  } else {
    optimizer.type = section.at("type").get<std::string>();
    const std::string name = lower(optimizer.type);
    if (name != "adamw" && name != "adam") {
      check.problem("optimizer.type",
                    "`" + optimizer.type + "` is not supported, expected AdamW or Adam");
    }
  }
  if (!section.contains("params")) return optimizer;
  const Json& params = section.at("params");
  if (!check.object(params, "optimizer.params")) return optimizer;
  check.known_keys(params, "optimizer.params", kOptimizerParams);
  optimizer.lr = check.number(params, "optimizer.params", "lr");
  optimizer.weight_decay = check.number(params, "optimizer.params", "weight_decay");
  optimizer.eps = check.number(params, "optimizer.params", "eps");
  optimizer.adam_w_mode = check.boolean(params, "optimizer.params", "adam_w_mode");
  optimizer.torch_adam = check.boolean(params, "optimizer.params", "torch_adam");
  if (params.contains("betas")) {
    const Json& betas = params.at("betas");
    if (betas.is_array() && betas.size() == 2 && betas[0].is_number() && betas[1].is_number()) {
      optimizer.betas = std::array<double, 2>{betas[0].get<double>(), betas[1].get<double>()};
    } else {
      check.problem("optimizer.params.betas", "expected two numbers, got " + betas.dump());
    }
  }
  return optimizer;
}

// The section through the DeepSpeed schedule registry's schema and reader.
std::shared_ptr<const DeepSpeedScheduleOptions> parse_scheduler(const Json& section,
                                                                const std::string& file,
                                                                Checker& check) {
  const ConfigNode node = config_from_json(section, SourceLocation{file, 0, 0}, "scheduler");
  const Schema::ProblemsByKind problems =
      deepspeed_schedule_registry().schema().problems_by_kind(node);
  if (!problems.unknown_keys.empty() || !problems.others.empty()) {
    check.schema_problems(problems);
    return nullptr;
  }
  return deepspeed_schedule_registry().read(node);
}

// The YAML `fp16` section's schema and reader over the JSON section.
std::optional<Fp16Section> parse_fp16(const Json& section, const std::string& file,
                                      Checker& check) {
  const ConfigNode node = config_from_json(section, SourceLocation{file, 0, 0}, "fp16");
  const Schema::ProblemsByKind problems = Fp16Section::schema().problems_by_kind(node);
  if (!problems.unknown_keys.empty() || !problems.others.empty()) {
    check.schema_problems(problems);
    return std::nullopt;
  }
  return Fp16Section::from_config(node);
}

std::optional<int64_t> parse_zero_optimization(const Json& section, Checker& check,
                                               std::vector<std::string>& ignored) {
  if (section.is_boolean()) return section.get<bool>() ? 1 : 0;
  if (!check.object(section, "zero_optimization")) return std::nullopt;
  std::vector<std::string> allowed = {"stage"};
  allowed.insert(allowed.end(), kZeroBooleanKeys.begin(), kZeroBooleanKeys.end());
  allowed.insert(allowed.end(), kZeroSizeKeys.begin(), kZeroSizeKeys.end());
  check.known_keys(section, "zero_optimization", allowed);
  for (const std::string& key : kZeroBooleanKeys) check.boolean(section, "zero_optimization", key);
  for (const std::string& key : kZeroSizeKeys) check.number(section, "zero_optimization", key);
  for (const auto& item : section.items()) {
    if (item.key() == "stage") continue;
    ignored.push_back("zero_optimization." + item.key() +
                      ": communication tuning; buckets and overlap come from dist_params "
                      "(bucket_cap_mb, overlap_comm)");
  }
  const std::optional<int64_t> stage =
      check.integer_in(section, "zero_optimization", "stage", 0, 3);
  if (stage == 3) {
    check.problem("zero_optimization.stage",
                  "3 shards the parameters themselves, which this trainer does not; stages 1 "
                  "(optimizer state) and 2 (optimizer state and gradients) are supported");
  }
  return stage.value_or(0);
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

bool DeepSpeedOptimizer::decoupled_weight_decay() const {
  return lower(type) == "adamw" || adam_w_mode.value_or(true);
}

DeepSpeedConfig parse_deepspeed_config(const std::string& text, const std::string& source_name) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& error) {
    throw input_error(source_name + ":" + parse_error_location(text, error.byte) +
                      ": not valid JSON: " + error.what());
  }
  Checker check(source_name);
  DeepSpeedConfig config;
  config.file = source_name;
  if (!check.object(root, "(top level)")) check.throw_if_any();
  check.known_keys(root, "", kTopLevelKeys);
  config.train_batch_size = check.integer(root, "", "train_batch_size", 1);
  config.train_micro_batch_size_per_gpu =
      check.integer(root, "", "train_micro_batch_size_per_gpu", 1);
  config.gradient_accumulation_steps = check.integer(root, "", "gradient_accumulation_steps", 1);
  config.gradient_clipping = check.number(root, "", "gradient_clipping");
  if (root.contains("optimizer") && check.object(root["optimizer"], "optimizer")) {
    config.optimizer = parse_optimizer(root["optimizer"], check);
  }
  if (root.contains("scheduler") && check.object(root["scheduler"], "scheduler")) {
    config.scheduler = parse_scheduler(root["scheduler"], source_name, check);
  }
  if (root.contains("fp16") && check.object(root["fp16"], "fp16")) {
    config.fp16 = parse_fp16(root["fp16"], source_name, check);
  }
  for (const char* key : {"bf16", "bfloat16"}) {
    if (root.contains(key) && check.object(root[key], key)) {
      check.known_keys(root[key], key, {"enabled"});
      config.bf16_enabled = check.boolean(root[key], key, "enabled").value_or(false);
    }
  }
  if (root.contains("zero_optimization")) {
    config.zero_stage = parse_zero_optimization(root["zero_optimization"], check, config.ignored);
  }
  for (const char* key : {"steps_per_print", "wall_clock_breakdown"}) {
    if (root.contains(key))
      config.ignored.push_back(std::string(key) + ": DeepSpeed's own logging");
  }
  check.throw_if_any();
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
