#include "olv2/engine/settings/engine_options.h"

#include "olv2/util/error.h"

namespace olv2 {

namespace {

bool lists_hook(const ConfigNode& log_config, const std::string& type) {
  const ConfigNode* hooks = log_config.find("hooks");
  if (hooks == nullptr || !hooks->is_sequence()) return false;
  for (const ConfigNode& hook : hooks->elements()) {
    if (hook.get<std::string>("type", "") == type) return true;
  }
  return false;
}

std::string optional_path(const ConfigNode& root, const std::string& key) {
  const ConfigNode* node = root.find(key);
  return node == nullptr || node->is_null() ? std::string() : node->as_string();
}

SubmissionMetadata submission_from_config(const ConfigNode& section) {
  SubmissionMetadata metadata;
  metadata.method = section.get<std::string>("method", "train_ds");
  if (const ConfigNode* authors = section.find("authors")) {
    for (const ConfigNode& author : authors->elements())
      metadata.authors.push_back(author.as_string());
    if (metadata.authors.size() > kMaxSubmissionAuthors) {
      throw input_error(authors->where() + ": " + std::to_string(metadata.authors.size()) +
                        " authors, the leaderboard takes at most " +
                        std::to_string(kMaxSubmissionAuthors));
    }
  }
  metadata.e_mail = section.get<std::string>("e-mail", "");
  metadata.institution = section.get<std::string>("institution / company", "");
  metadata.country = section.get<std::string>("country / region", "");
  return metadata;
}

}  // namespace

EngineOptions engine_options_from_config(const ConfigNode& root) {
  EngineOptions options;
  options.max_epochs = root.at("runner").at("max_epochs").as_int();
  options.workers_per_gpu = root.at("data").get<int64_t>("workers_per_gpu", 1);
  options.has_val_split = root.at("data").has("val");
  if (const ConfigNode* log = root.find("log_config")) {
    options.log.interval = log->get<int64_t>("interval", options.log.interval);
    options.log.tensorboard = lists_hook(*log, "TensorboardLoggerHook");
  }
  options.log.level = root.get<std::string>("log_level", options.log.level);
  if (const ConfigNode* checkpoint = root.find("checkpoint_config")) {
    CheckpointOptions& out = options.checkpoint;
    out.interval = checkpoint->get<int64_t>("interval", out.interval);
    out.iter_interval = checkpoint->get<int64_t>("iter_interval", out.iter_interval);
    out.max_keep = checkpoint->get<int64_t>("max_keep_ckpts", out.max_keep);
  }
  if (const ConfigNode* evaluation = root.find("evaluation")) {
    EvaluationOptions& out = options.evaluation;
    out.interval = evaluation->get<int64_t>("interval", out.interval);
    out.before_train = evaluation->get<bool>("before_train", out.before_train);
    out.visualize = evaluation->get<int64_t>("visualize", out.visualize);
    out.save_best = evaluation->get<std::string>("save_best", out.save_best);
    out.greater_is_better = evaluation->get<std::string>("rule", "greater") == "greater";
    out.keep_results = evaluation->get<int64_t>("keep_results", out.keep_results);
    if (const ConfigNode* version = evaluation->find("metric_version")) {
      out.metric_version = metric_version_from_string(version->as_string(), version->where());
    }
  }
  if (const ConfigNode* submission = root.find("submission")) {
    options.evaluation.submission = submission_from_config(*submission);
  }
  if (const ConfigNode* dist = root.find("dist_params")) {
    DistributedOptions& out = options.dist;
    out.backend = dist->get<std::string>("backend", out.backend);
    out.timeout_s = dist->get<double>("timeout_s", out.timeout_s);
    out.bucket_cap_mb = dist->get<double>("bucket_cap_mb", out.bucket_cap_mb);
    out.overlap_comm = dist->get<bool>("overlap_comm", out.overlap_comm);
  }
  options.custom_hooks = custom_hooks_from_config(root);
  options.resume_from = optional_path(root, "resume_from");
  options.load_from = optional_path(root, "load_from");
  if (const ConfigNode* threads = root.find("threads"); threads != nullptr && !threads->is_null())
    options.threads = static_cast<int>(threads->as_int());
  return options;
}

}  // namespace olv2
