#include "olv2/engine/hooks/training_hooks.h"

#include "olv2/config/schema.h"
#include "olv2/engine/hooks/hook_registry.h"
#include "olv2/util/error.h"

namespace olv2 {
namespace {

// A default hook: its name in `default_hooks` and its section.
struct DefaultHook {
  std::string name;
  ConfigNode section;
  bool dropped = false;
};

// `keys` (a config section, or none) with `type` set: the section of a hook of that type.
ConfigNode hook_section(const std::string& type, const ConfigNode* keys) {
  ConfigNode section =
      keys != nullptr && keys->is_map() ? *keys : ConfigNode::map(SourceLocation{});
  section.set("type", ConfigNode::scalar(type, section.location(), true));
  return section;
}

std::vector<DefaultHook> default_hooks_of(const ConfigNode& root) {
  ConfigNode evaluation = hook_section("EvalHook", root.find("evaluation"));
  if (const ConfigNode* submission = root.find("submission"))
    evaluation.set("submission", *submission);
  ConfigNode timer = hook_section("IterTimerHook", nullptr);
  if (const ConfigNode* log_config = root.find("log_config")) {
    if (const ConfigNode* interval = log_config->find("interval")) timer.set("interval", *interval);
  }
  return {{"param_scheduler", hook_section("LrUpdaterHook", nullptr)},
          {"optimizer", hook_section("OptimizerHook", nullptr)},
          {"evaluation", std::move(evaluation)},
          {"checkpoint", hook_section("CheckpointHook", root.find("checkpoint_config"))},
          {"timer", std::move(timer)},
          {"json_logger", hook_section("JsonLoggerHook", nullptr)}};
}

std::string default_names(const std::vector<DefaultHook>& defaults) {
  std::string names;
  for (const DefaultHook& hook : defaults) names += (names.empty() ? "" : ", ") + hook.name;
  return names;
}

// Lays `default_hooks` over the defaults; the sections of the hooks it adds go to `added`.
void apply_default_hooks(const ConfigNode& overrides, std::vector<DefaultHook>& defaults,
                         std::vector<ConfigNode>& added) {
  std::vector<std::string> names;
  for (const DefaultHook& hook : defaults) names.push_back(hook.name);
  for (const auto& [name, value] : overrides.entries()) {
    DefaultHook* hook = nullptr;
    for (DefaultHook& candidate : defaults) {
      if (candidate.name == name) hook = &candidate;
    }
    if (hook == nullptr) {
      if (value.is_map() && value.has("type")) {
        added.push_back(value);
        continue;
      }
      std::string message = value.where() + ": no default hook `" + name + "`";
      const std::string suggestion = closest_match(name, names);
      if (!suggestion.empty()) message += " (did you mean `" + suggestion + "`?)";
      throw input_error(message + "; the default hooks are " + default_names(defaults) +
                        ", and a hook added under a new name needs its `type`");
    }
    if (value.is_null()) {
      hook->dropped = true;
      continue;
    }
    const ConfigNode* type = value.find("type");
    if (type != nullptr && type->as_string() != hook->section.at("type").as_string()) {
      hook->section = value;
      continue;
    }
    // The entry's own node first, so that a problem of one of its keys names it.
    ConfigNode section = value;
    for (const auto& [key, child] : hook->section.entries()) {
      if (!section.has(key)) section.set(key, child);
    }
    hook->section = std::move(section);
  }
}

ConfiguredHook configured(const ConfigNode& section) {
  validate_config(section, hook_registry().schema());
  return {section.at("type").as_string(), hook_registry().read(section)};
}

}  // namespace

Schema custom_hooks_schema() { return Schema::sequence(hook_registry().schema()); }

Schema default_hooks_schema() { return Schema::map_of(Schema::open_map().nullable()); }

std::vector<ConfiguredHook> training_hooks_from_config(const ConfigNode& root) {
  std::vector<DefaultHook> defaults = default_hooks_of(root);
  std::vector<ConfigNode> added;
  if (const ConfigNode* overrides = root.find("default_hooks");
      overrides != nullptr && overrides->is_map()) {
    apply_default_hooks(*overrides, defaults, added);
  }
  std::vector<ConfiguredHook> hooks;
  const auto add_default = [&](const std::string& name) {
    for (const DefaultHook& hook : defaults) {
      if (hook.name == name && !hook.dropped) hooks.push_back(configured(hook.section));
    }
  };
  for (const char* name : {"param_scheduler", "optimizer", "evaluation", "checkpoint", "timer"}) {
    add_default(name);
  }
  const ConfigNode* log_config = root.find("log_config");
  const ConfigNode* loggers = log_config == nullptr ? nullptr : log_config->find("hooks");
  if (loggers != nullptr && loggers->is_sequence()) {
    for (const ConfigNode& logger : loggers->elements()) hooks.push_back(configured(logger));
  } else {
    hooks.push_back(configured(hook_section("TextLoggerHook", nullptr)));
  }
  add_default("json_logger");
  for (const ConfigNode& section : added) hooks.push_back(configured(section));
  if (const ConfigNode* custom = root.find("custom_hooks");
      custom != nullptr && custom->is_sequence()) {
    for (const ConfigNode& section : custom->elements()) hooks.push_back(configured(section));
  }
  return hooks;
}

}  // namespace olv2
