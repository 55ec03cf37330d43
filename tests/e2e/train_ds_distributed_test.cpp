// Data-parallel training over Gloo on loopback with two local ranks (torchrun's environment):
// the same numbers as one process, one writer, sharded validation, and no hang when a rank dies.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <tuple>

#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"
#include "olv2/util/threads.h"
#include "support/first_step_comparison.h"
#include "support/frame_pairs.h"
#include "support/json_log_records.h"
#include "support/rank_processes.h"
#include "support/run_command.h"
#include "support/step_comparison.h"
#include "support/synthetic_dataset.h"
#include "support/temp_files.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using std::chrono::seconds;

fs::path distributed_dataset() {
  return test::synthetic_dataset("distributed",
                                 "--frames 24 --val-frames 3 --image-scale 0.0625 --seed 11");
}

// train_ds on `config` (under configs/tests) and the pair collection for one epoch, with
// `model_options` and then `options` as further --cfg-options.
std::vector<std::string> pair_arguments(const std::string& config, const fs::path& work_dir,
                                        const fs::path& meta_root,
                                        const std::vector<std::string>& model_options,
                                        const std::vector<std::string>& options) {
  std::vector<std::string> args = {(test::source_dir() / "configs/tests" / config).string(),
                                   "--work-dir",
                                   work_dir.string(),
                                   "--cfg-options",
                                   "data_root=" + distributed_dataset().string(),
                                   "meta_root=" + meta_root.string(),
                                   "data.val.meta_root=" + distributed_dataset().string(),
                                   "data.train.collection=pair_train",
                                   "runner.max_epochs=1",
                                   "dist_params.timeout_s=20"};
  args.insert(args.end(), model_options.begin(), model_options.end());
  args.insert(args.end(), options.begin(), options.end());
  return args;
}

// tiny.yaml on `collection` with BatchNorm on running statistics and no dropout, so that
// batching is the only difference between the runs compared.
std::vector<std::string> tiny_arguments(const fs::path& work_dir, const fs::path& meta_root,
                                        const std::vector<std::string>& options) {
  return pair_arguments("tiny.yaml", work_dir, meta_root,
                        {"evaluation.before_train=true", "model.img_backbone.norm_eval=true",
                         "model.lc_head.dropout=0.0", "model.lc_head.ffn_dropout=0.0",
                         "model.te_head.dropout=0.0", "model.te_head.ffn_dropout=0.0"},
                        options);
}

fs::path equal_count_meta_root(size_t count) {
  return test::equal_count_meta_root(distributed_dataset(), count);
}

fs::path pair_meta_root() { return equal_count_meta_root(2); }

size_t files_ending_in(const fs::path& dir, const std::string& suffix) {
  size_t count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix) ++count;
  }
  return count;
}

// train_ds with `args` as every rank of a torchrun-style launch.
test::RankLaunch train_ds_ranks(const std::vector<std::string>& args) {
  test::RankLaunch launch;
  launch.command = {(test::bin_dir() / "train_ds").string()};
  launch.command.insert(launch.command.end(), args.begin(), args.end());
  launch.command.push_back("--launcher");
  launch.command.push_back("pytorch");
  return launch;
}

// `single` as one process, then `ranks` as two torchrun-style ranks; each must succeed (a
// failure is reported with its output and gives no results). Both run MKL's CPU-independent
// code path (MKL_CBWR=COMPATIBLE): on its default one MKL rounds a batch of two and a batch of
// one apart by CPU (measured on an AMD EPYC, Zen 4: lcte_head.loss_rel 6e-5 apart).
std::vector<test::RankResult> run_one_then_two_ranks(const std::vector<std::string>& single,
                                                     const std::vector<std::string>& ranks) {
  const char* previous = std::getenv("MKL_CBWR");
  const std::optional<std::string> restore =
      previous ? std::optional<std::string>(previous) : std::nullopt;
  setenv("MKL_CBWR", "COMPATIBLE", 1);
  const auto one = test::run_app("train_ds", test::shell_words(single));
  if (restore) {
    setenv("MKL_CBWR", restore->c_str(), 1);
  } else {
    unsetenv("MKL_CBWR");
  }
  EXPECT_EQ(one.exit_status, 0) << one.output;
  if (one.exit_status != 0) return {};
  test::RankLaunch launch = train_ds_ranks(ranks);
  launch.environment["MKL_CBWR"] = "COMPATIBLE";
  test::RankProcesses processes(launch);
  std::vector<test::RankResult> results = processes.wait_all(std::chrono::seconds(240));
  bool all_succeeded = true;
  for (size_t rank = 0; rank < results.size(); ++rank) {
    EXPECT_EQ(results[rank].exit_status, 0) << "rank " << rank << ":\n" << results[rank].output;
    all_succeeded = all_succeeded && results[rank].exit_status == 0;
  }
  return all_succeeded ? results : std::vector<test::RankResult>{};
}

// 2 ranks × batch 1 against 1 rank × batch 2 on two frames with the same lane and traffic-element
// counts: the same loss, gradient norm and gradients; only rank 0 writes; validation before
// training, sharded over the ranks, scores exactly as one process does. In the original the two
// are equal only under these conditions: BatchNorm on running statistics (else each rank
// normalises over its own frame's images) and the same number of matched lanes and of matched
// traffic elements in both frames (a rank's classification losses divide by its own positives;
// the box losses by the mean over the ranks and the topology losses by the fixed query count
// come out the same). Other frames: distributed_gradients_test.cpp compares two ranks with
// the original's two ranks.
TEST(DistributedTraining, TwoRanksOfOneSampleEqualOneRankOfTwo) {
  const fs::path meta_root = pair_meta_root();
  const fs::path single = test::scratch_dir("single_rank");
  const fs::path multi = test::scratch_dir("two_ranks");
  // The world batch is 2 either way: auto_scale_lr scales both runs' lr alike. Every results
  // file stays (keep_results 0) for the comparison below.
  const std::vector<std::string> common = {
      "auto_scale_lr.enable=true", "auto_scale_lr.base_batch_size=8", "evaluation.keep_results=0"};
  std::vector<std::string> one_rank = common, two_ranks = common;
  one_rank.push_back("data.samples_per_gpu=2");
  two_ranks.push_back("data.samples_per_gpu=1");
  const std::vector<test::RankResult> results = run_one_then_two_ranks(
      tiny_arguments(single, meta_root, one_rank), tiny_arguments(multi, meta_root, two_ranks));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_NE(results[0].output.find("Training with 2 GPU(s) with 1 samples per GPU. The total "
                                   "batch size is 2.\n"),
            std::string::npos)
      << results[0].output;
  EXPECT_NE(results[0].output.find("LR has been automatically scaled from 0.0005 to 0.000125\n"),
            std::string::npos)
      << results[0].output;
  EXPECT_NE(results[0].output.find("world size: 2\nrank: 0\nbackend: gloo\n"), std::string::npos)
      << results[0].output;
  EXPECT_NE(results[0].output.find("Epoch 0, idx 0 / 1, iter 0 / 1, bs 1 *acc 1: 1"),
            std::string::npos)
      << results[0].output;
  EXPECT_EQ(results[1].output.find("Epoch 0, idx"), std::string::npos) << results[1].output;

  // One writer: one log pair, one set of checkpoints.
  EXPECT_EQ(files_ending_in(multi, ".log"), 1u);
  EXPECT_EQ(files_ending_in(multi, ".log.json"), 1u);
  EXPECT_EQ(files_ending_in(multi, ".pth"), 2u);  // epoch_1.pth, latest.pth

  test::expect_same_first_step(single, multi,
                               {"loss", "grad_norm", "lc_loss_cls", "lc_loss_bbox", "te_loss_cls",
                                "topology_lclc_loss_cls"});

  // The same initial weights validated by one process and by two: the same results file.
  EXPECT_EQ(test::read_file(single / "results_epoch_0.json"),
            test::read_file(multi / "results_epoch_0.json"));
  const Json single_val = test::json_log_records(single, "val").at(0);
  const Json multi_val = test::json_log_records(multi, "val").at(0);
  for (const char* key : {"DET_l", "DET_t", "TOP_ll", "TOP_lt", "OLS"})
    EXPECT_EQ(single_val.at(key), multi_val.at(key)) << key;
}

// BatchNorm on batch statistics: 2 ranks x batch 1 with SyncBN equal 1 rank x batch 2 with BN
// (the frames of TwoRanksOfOneSampleEqualOneRankOfTwo), the residual blocks recomputed in the
// backward (`with_cp`), so that SyncBN's collectives also run inside the backward, beside the
// overlapped gradient all-reduce. The checkpoint's running statistics are compared with the
// weights.
TEST(DistributedTraining, SyncBNTwoRanksOfOneSampleEqualBatchNormOverTwo) {
  const fs::path meta_root = pair_meta_root();
  const fs::path single = test::scratch_dir("batch_norm_one_rank");
  const fs::path multi = test::scratch_dir("sync_bn_two_ranks");
  const std::vector<std::string> common = {"model.img_backbone.norm_eval=false",
                                           "model.img_backbone.with_cp=true"};
  std::vector<std::string> one_rank = common, two_ranks = common;
  one_rank.insert(one_rank.end(), {"data.samples_per_gpu=2", "--no-validate"});
  two_ranks.insert(two_ranks.end(), {"model.img_backbone.norm_cfg.type=SyncBN",
                                     "data.samples_per_gpu=1", "--no-validate"});
  const std::vector<test::RankResult> results = run_one_then_two_ranks(
      tiny_arguments(single, meta_root, one_rank), tiny_arguments(multi, meta_root, two_ranks));
  ASSERT_EQ(results.size(), 2u);
  test::expect_same_first_step(single, multi,
                               {"loss", "grad_norm", "lc_loss_cls", "lc_loss_bbox", "te_loss_cls",
                                "topology_lclc_loss_cls"});
}

// large_tiny.yaml (BaselineLarge) on `collection` with every dropout at 0.
std::vector<std::string> large_tiny_arguments(const fs::path& work_dir, const fs::path& meta_root,
                                              const std::vector<std::string>& options) {
  const std::string bev = "model.bev_constructor.encoder.transformerlayers.";
  const std::string te = "model.bbox_head.transformer.";
  const std::string lc = "model.pts_bbox_head.transformer.decoder.transformerlayers.";
  return pair_arguments(
      "large_tiny.yaml", work_dir, meta_root,
      {bev + "attn_cfgs=[{type: TemporalSelfAttention, embed_dims: 64, num_levels: 1, dropout: 0},"
             " {type: SpatialCrossAttention, embed_dims: 64, num_cams: 7, dropout: 0,"
             " deformable_attention: {type: MSDeformableAttention3D, embed_dims: 64,"
             " num_points: 8, num_levels: 4}}]",
       bev + "ffn_cfgs.ffn_drop=0", te + "encoder.transformerlayers.attn_cfgs.dropout=0",
       te + "encoder.transformerlayers.ffn_cfgs.ffn_drop=0",
       te + "decoder.transformerlayers.attn_cfgs=[{type: MultiheadAttention, embed_dims: 64,"
            " num_heads: 8, dropout: 0}, {type: MultiScaleDeformableAttention, embed_dims: 64,"
            " dropout: 0}]",
       te + "decoder.transformerlayers.ffn_cfgs.ffn_drop=0",
       lc + "attn_cfgs=[{type: MultiheadAttention, embed_dims: 64, num_heads: 8, dropout: 0},"
            " {type: CustomMSDeformableAttention, embed_dims: 64, num_levels: 1, dropout: 0}]",
       lc + "ffn_cfgs.ffn_drop=0"},
      options);
}

// The BaselineLarge's gradients are held within 0.1 per tensor (measured 2.5e-2:
// support/first_step_comparison.h).
test::FirstStepTolerances large_first_step_tolerances() {
  test::FirstStepTolerances tolerances;
  tolerances.gradients = 0.1;
  return tolerances;
}

// BaselineLarge: 2 ranks x batch 1 against 1 rank x batch 2 on two frames with the same counts
// and camera rig: the same losses, every decoder layer's included, and gradients. (Which
// averages are synchronised over ranks is checked by the heads' unit tests: with equal counts
// per frame both choices give these numbers.)
TEST(DistributedTraining, TwoRanksTrainBaselineLargeAsOneRankOfTwo) {
  const fs::path meta_root = pair_meta_root();
  const fs::path single = test::scratch_dir("large_single_rank");
  const fs::path multi = test::scratch_dir("large_two_ranks");
  ASSERT_EQ(
      run_one_then_two_ranks(large_tiny_arguments(single, meta_root, {"data.samples_per_gpu=2"}),
                             large_tiny_arguments(multi, meta_root, {"data.samples_per_gpu=1"}))
          .size(),
      2u);
  test::expect_same_first_step(
      single, multi,
      {"loss", "grad_norm", "lane_head.loss_lane_cls", "lane_head.loss_lane_reg",
       "bbox_head.loss_cls", "bbox_head.d0.loss_iou", "lclc_head.loss_rel", "lcte_head.loss_rel"},
      large_first_step_tolerances());
}

TEST(DistributedTraining, LauncherNoneWithSeveralRanksIsABadInvocation) {
  const auto result =
      test::run_command("WORLD_SIZE=2 RANK=0 '" + (test::bin_dir() / "train_ds").string() + "' '" +
                        (test::source_dir() / "configs/tests/tiny.yaml").string() +
                        "' --work-dir '" + test::scratch_dir("launcher_none").string() + "'");
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("WORLD_SIZE=2 in the environment but --launcher none: add "
                               "--launcher pytorch"),
            std::string::npos)
      << result.output;
}

// A rank killed mid-epoch: the survivor exits non-zero within dist_params.timeout_s (and the
// few seconds the diagnosis takes), naming the lost rank, instead of hanging.
TEST(DistributedTraining, AKilledRankMakesTheSurvivorExitNamingIt) {
  const fs::path work_dir = test::scratch_dir("killed_rank");
  test::RankProcesses ranks(train_ds_ranks(tiny_arguments(
      work_dir, distributed_dataset(),
      {"data.train.collection=data_dict_synthetic_train", "runner.max_epochs=100",
       "evaluation.before_train=false", "dist_params.timeout_s=5", "--no-validate"})));
  ASSERT_TRUE(ranks.wait_for_output(0, "Epoch 0, idx", std::chrono::seconds(120)))
      << ranks.output(0);
  ranks.kill(1, SIGKILL);
  const auto results = ranks.wait_all(std::chrono::seconds(60));
  EXPECT_FALSE(results[0].timed_out) << results[0].output;
  EXPECT_NE(results[0].exit_status, 0) << results[0].output;
  EXPECT_NE(results[0].output.find("lost rank 1"), std::string::npos) << results[0].output;
}

// torchrun forwards SIGTERM to every rank: they stop after the same step, exit 143 and leave
// only whole checkpoint files.
TEST(DistributedTraining, SigtermStopsEveryRankAfterTheSameStep) {
  const fs::path work_dir = test::scratch_dir("sigterm");
  test::RankProcesses ranks(train_ds_ranks(tiny_arguments(
      work_dir, distributed_dataset(),
      {"data.train.collection=data_dict_synthetic_train", "runner.max_epochs=100",
       "evaluation.before_train=false", "checkpoint_config.iter_interval=2", "--no-validate"})));
  ASSERT_TRUE(ranks.wait_for_output(0, "saved checkpoint", std::chrono::seconds(120)))
      << ranks.output(0);
  ranks.kill(0, SIGTERM);
  ranks.kill(1, SIGTERM);
  const auto results = ranks.wait_all(std::chrono::seconds(60));
  for (int rank = 0; rank < 2; ++rank) {
    EXPECT_EQ(results[rank].exit_status, 143) << results[rank].output;
    EXPECT_NE(results[rank].output.find("stopped by SIGTERM after iter"), std::string::npos)
        << results[rank].output;
  }
  for (const auto& entry : fs::directory_iterator(work_dir))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  EXPECT_NO_THROW(read_pth(work_dir / "latest.pth"));
}

// Gradients meet at the accumulation boundary only: 2 ranks x 2 micro-batches of 1 sample per
// step equal 1 rank x 4 micro-batches over the same 4 frames (each micro-batch one sample, so
// every loss term is normalised alike; the topology losses are normalised per batch, which is
// why a batch of 4 would differ).
TEST(DistributedTraining, TwoRanksWithAccumulationEqualOneRankAccumulatingAll) {
  const fs::path meta_root = equal_count_meta_root(4);
  const fs::path single = test::scratch_dir("single_rank_of_four");
  const fs::path multi = test::scratch_dir("two_ranks_accumulating");
  const std::vector<test::RankResult> results = run_one_then_two_ranks(
      tiny_arguments(
          single, meta_root,
          {"data.samples_per_gpu=1", "data.gradient_accumulation_steps=4", "--no-validate"}),
      tiny_arguments(
          multi, meta_root,
          {"data.samples_per_gpu=1", "data.gradient_accumulation_steps=2", "--no-validate"}));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_NE(results[0].output.find("Epoch 0, idx 1 / 2, iter 0 / 1, bs 1 *acc 2: 2"),
            std::string::npos)
      << results[0].output;

  test::expect_same_first_step(single, multi,
                               {"loss", "grad_norm", "lc_loss_bbox", "te_loss_cls",
                                "topology_lclc_loss_cls", "topology_lcte_loss_cls"});
}

// Two frames with different counts, one per rank: the classification losses keep each rank's own
// normaliser (sync_cls_avg_factor is off in the Baseline), while the regression losses divide by
// the mean number of positives over the ranks (mmdet's reduce_mean). Computed by hand from each
// frame trained alone: rank r's regression term S_r / p_r becomes S_r / mean(p), so the logged
// mean over the ranks is (l_0 p_0 + l_1 p_1) / (p_0 + p_1).
TEST(DistributedTraining, FramesWithDifferentCountsNormaliseAsMmdetAcrossRanks) {
  const auto groups = test::frames_by_counts(distributed_dataset());
  // Every ground-truth object is matched when there are at least as many queries (tiny.yaml: 8
  // lane and 4 traffic-element queries), so the positives are the object counts.
  std::vector<std::pair<std::pair<size_t, size_t>, test::FrameRef>> picked;
  for (const auto& [counts, frames] : groups) {
    if (counts.first <= 8 && counts.second >= 1 && counts.second <= 4 &&
        (picked.empty() ||
         (counts.first != picked[0].first.first && counts.second != picked[0].first.second)))
      picked.push_back({counts, frames.front()});
    if (picked.size() == 2) break;
  }
  ASSERT_EQ(picked.size(), 2u) << "no two frames with different lane and traffic-element counts";

  const auto first_record = [&](const std::string& tag, const std::vector<test::FrameRef>& frames,
                                bool two_ranks) {
    const fs::path meta_root = test::scratch_dir(tag + "_meta");
    test::write_collection(meta_root / "pair.json", frames);
    const fs::path work_dir = test::scratch_dir(tag);
    // Augmentation derives from the sample's index, which differs between a frame alone and in
    // the pair: the photometric distortion is replaced by an identity normalisation.
    const std::vector<std::string> args = tiny_arguments(
        work_dir, meta_root,
        {"data.samples_per_gpu=1",
         "data.train.pipeline.2={type: NormalizeMultiviewImage, mean: [0.0, 0.0, 0.0], "
         "std: [1.0, 1.0, 1.0], to_rgb: false}",
         "--no-validate"});
    if (!two_ranks) {
      const auto result = test::run_app("train_ds", test::shell_words(args));
      EXPECT_EQ(result.exit_status, 0) << result.output;
    } else {
      test::RankProcesses ranks(train_ds_ranks(args));
      for (const auto& result : ranks.wait_all(std::chrono::seconds(240)))
        EXPECT_EQ(result.exit_status, 0) << result.output;
    }
    return test::json_log_records(work_dir, "train").at(0);
  };
  const Json alone_0 = first_record("alone_0", {picked[0].second}, false);
  const Json alone_1 = first_record("alone_1", {picked[1].second}, false);
  const Json together =
      first_record("different_counts", {picked[0].second, picked[1].second}, true);

  const auto by_hand = [&](const char* key, double p0, double p1, bool synced) {
    const double l0 = alone_0.at(key).get<double>();
    const double l1 = alone_1.at(key).get<double>();
    return synced ? (l0 * p0 + l1 * p1) / (p0 + p1) : (l0 + l1) / 2.0;
  };
  const double lanes_0 = static_cast<double>(picked[0].first.first);
  const double lanes_1 = static_cast<double>(picked[1].first.first);
  const double elements_0 = static_cast<double>(picked[0].first.second);
  const double elements_1 = static_cast<double>(picked[1].first.second);
  const std::vector<std::tuple<const char*, double, double, bool>> terms = {
      {"lc_loss_cls", lanes_0, lanes_1, false},
      {"lc_loss_bbox", lanes_0, lanes_1, true},
      {"te_loss_cls", elements_0, elements_1, false},
      {"te_loss_bbox", elements_0, elements_1, true},
      {"te_loss_iou", elements_0, elements_1, true}};
  for (const auto& [key, p0, p1, synced] : terms) {
    const double expected = by_hand(key, p0, p1, synced);
    // Each logged term is rounded to 5 decimals before the hand computation.
    EXPECT_NEAR(together.at(key).get<double>(), expected, 3e-5 + 1e-5 * std::abs(expected)) << key;
  }
}

// The three ways users start ranks: the DeepSpeed launcher's form (--local_rank=N and
// LOCAL_SIZE), torchrun (that of the PyTorch whose LibTorch this build links) and
// scripts/dist_train.sh.
TEST(DistributedTraining, TheDeepSpeedLauncherFormTrains) {
  const fs::path work_dir = test::scratch_dir("deepspeed_form");
  std::vector<std::string> command = {(test::bin_dir() / "train_ds").string()};
  // No `threads` in the config: each rank takes its share of the cores by LOCAL_SIZE.
  for (const std::string& arg :
       tiny_arguments(work_dir, pair_meta_root(), {"threads=null", "--no-validate"}))
    command.push_back(arg);
  command.push_back("--launcher");
  command.push_back("pytorch");
  test::RankLaunch launch;
  launch.command = command;
  launch.rank_arguments = {{"--local_rank=0"}, {"--local_rank=1"}};
  launch.environment = {
      {"LOCAL_RANK", std::nullopt}, {"LOCAL_WORLD_SIZE", std::nullopt}, {"LOCAL_SIZE", "2"}};
  test::RankProcesses ranks(launch);
  const auto results = ranks.wait_all(std::chrono::seconds(120));
  for (int rank = 0; rank < 2; ++rank)
    EXPECT_EQ(results[rank].exit_status, 0) << results[rank].output;
  EXPECT_NE(results[0].output.find("world size: 2\nrank: 0\n"), std::string::npos)
      << results[0].output;
  const std::string threads =
      "intra-op threads: " + std::to_string(std::max(1, available_cores() / 2));
  EXPECT_NE(results[0].output.find(threads + "\n"), std::string::npos) << results[0].output;
  EXPECT_TRUE(fs::exists(work_dir / "epoch_1.pth"));
}

// train_ds's two ranks under torchrun (--no_python) with --max_restarts 1 and --resume-from
// auto: a rank killed mid-run takes its attempt down; the restarted attempt resumes from
// latest.pth and finishes.
TEST(DistributedTraining, ARestartedTorchrunAttemptResumesAndFinishes) {
  OLV2_REQUIRE_TORCHRUN();
  const fs::path work_dir = test::scratch_dir("restart");
  const std::string train_ds = (test::bin_dir() / "train_ds").string();
  const std::string args = test::shell_words(
      tiny_arguments(work_dir, distributed_dataset(),
                     {"data.train.collection=data_dict_synthetic_train", "runner.max_epochs=1",
                      "evaluation.before_train=false", "checkpoint_config.iter_interval=2",
                      "dist_params.timeout_s=5", "--no-validate", "--resume-from", "auto"}));
  const std::string script =
      "PET_MONITOR_INTERVAL=0.2 OMP_NUM_THREADS=1 timeout 240 " + test::torchrun_command() +
      " --nproc_per_node 2 --max_restarts 1 --master_port " +
      std::to_string(test::free_tcp_port()) + " --no_python '" + train_ds + "'" + args +
      " --launcher pytorch > '" + (work_dir / "torchrun.out").string() + "' 2>&1 &\n" +
      "torchrun=$!\n"
      "for i in $(seq 1 600); do [ -e '" +
      (work_dir / "iter_2.pth").string() +
      "' ] && break; sleep 0.2; done\n"
      "kill -9 $(pgrep -f \"^" +
      train_ds + " .*" + work_dir.string() +
      "\" | tail -n 1)\n"
      "wait $torchrun; echo \"torchrun exit $?\"; cat '" +
      (work_dir / "torchrun.out").string() + "'\n";
  const auto result = test::run_command(script);
  EXPECT_NE(result.output.find("torchrun exit 0"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("world size: 2"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("lost rank "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("resumed from"), std::string::npos) << result.output;
  EXPECT_TRUE(fs::exists(work_dir / "epoch_1.pth"));
}

// Two ranks of tiny.yaml over the 4 frames of equal counts, 2 epochs of 2 steps, each epoch
// checkpointed, without validation unless `validate`; `options` first among the --cfg-options,
// `flags` after them. Returns whether every rank succeeded.
bool train_two_ranks(const fs::path& work_dir, const std::vector<std::string>& options,
                     const std::vector<std::string>& flags, bool validate = false) {
  std::vector<std::string> all = {"runner.max_epochs=2", "data.samples_per_gpu=1"};
  all.insert(all.end(), options.begin(), options.end());
  if (!validate) all.push_back("--no-validate");
  all.insert(all.end(), flags.begin(), flags.end());
  test::RankProcesses processes(
      train_ds_ranks(tiny_arguments(work_dir, equal_count_meta_root(4), all)));
  bool ok = true;
  const auto results = processes.wait_all(std::chrono::seconds(240));
  for (size_t rank = 0; rank < results.size(); ++rank) {
    EXPECT_EQ(results[rank].exit_status, 0) << "rank " << rank << ":\n" << results[rank].output;
    ok = ok && results[rank].exit_status == 0;
  }
  if (ok) test::write_text(work_dir, "rank0.out", results[0].output);
  return ok;
}

// `--use-ds --deepspeed-config` of a JSON holding only zero_optimization.stage.
std::vector<std::string> zero_flags(int stage) {
  const fs::path json =
      test::write_text(test::scratch_dir("zero_json_" + std::to_string(stage)), "zero.json",
                       "{\"zero_optimization\": {\"stage\": " + std::to_string(stage) + "}}");
  return {"--use-ds", "--deepspeed-config", json.string()};
}

// Two checkpoints in the same PyTorch layout with the same weights and Adam moments, per tensor
// (the relative L2 of the difference, floored at 1e-3 of the largest norm): the sharded runs
// sum the global gradient norm in another order, so their clipping factors differ in the last
// bit, which the next step's gradients amplify. Measured on an AMD EPYC with AVX2: weights
// 1.4e-5 apart and moments 4.1e-7 after the second epoch (a lane decoder's first self-attention
// bias, whose gradient is rounding noise that AdamW scales up to lr).
void expect_same_training_state(const fs::path& expected_file, const fs::path& actual_file) {
  SCOPED_TRACE(expected_file.string() + " against " + actual_file.string());
  const PthValue expected = read_pth(expected_file), actual = read_pth(actual_file);
  const auto weights_of = [](const PthValue& checkpoint) {
    test::StepResult weights;
    for (const auto& [name, tensor] : tensors_of(checkpoint.at("state_dict"))) {
      if (tensor.is_floating_point()) weights.grads[name] = tensor;
    }
    return weights;
  };
  const test::Comparison weights =
      test::compare_gradients(weights_of(actual), weights_of(expected), "weights");
  for (const std::string& failure : weights.failures(1e-4)) ADD_FAILURE() << failure;

  const PthValue& states = expected.at("optimizer").at("state");
  const PthValue& other = actual.at("optimizer").at("state");
  ASSERT_EQ(states.dict_items().size(), other.dict_items().size());
  ASSERT_EQ(expected.at("optimizer").at("param_groups").items().size(),
            actual.at("optimizer").at("param_groups").items().size());
  test::StepResult expected_moments, actual_moments;
  for (const auto& [index, entry] : states.dict_items()) {
    const PthValue* mine = other.find(index);
    ASSERT_NE(mine, nullptr) << "no state for parameter " << index.as_int();
    EXPECT_EQ(entry.at("step").as_tensor().item<double>(),
              mine->at("step").as_tensor().item<double>());
    for (const char* key : {"exp_avg", "exp_avg_sq"}) {
      const std::string name = std::string(key) + " of parameter " + std::to_string(index.as_int());
      expected_moments.grads[name] = entry.at(key).as_tensor();
      actual_moments.grads[name] = mine->at(key).as_tensor();
      ASSERT_TRUE(expected_moments.grads[name].sizes().equals(actual_moments.grads[name].sizes()))
          << name;
    }
  }
  const test::Comparison moments =
      test::compare_gradients(actual_moments, expected_moments, "Adam moments");
  for (const std::string& failure : moments.failures(1e-5)) ADD_FAILURE() << failure;
}

// ZeRO stages 1 and 2 train as the unsharded optimizer, say what they shard, and rank 0 writes
// whole checkpoints in PyTorch's layout. Stage 1 steps exactly as the unsharded optimizer;
// stage 2 takes the global norm from its parts (the clipping factor may differ in the last
// bit, and this model's matchings amplify a last-bit difference within a few steps), so it is
// compared after the first epoch's 2 steps. The stage-2 checkpoint of epoch 1 resumes under
// stage 1 and under one process accumulating two micro-batches (another layout of the same
// world batch), as the unsharded checkpoint does.
TEST(DistributedTraining, ZeroStagesTrainAsUnshardedAndTheirCheckpointsResumeAnywhere) {
  const fs::path plain = test::scratch_dir("zero_none");
  const fs::path zero1 = test::scratch_dir("zero_stage1");
  const fs::path zero2 = test::scratch_dir("zero_stage2");
  ASSERT_TRUE(train_two_ranks(plain, {}, {}));
  ASSERT_TRUE(train_two_ranks(zero1, {}, zero_flags(1)));
  ASSERT_TRUE(train_two_ranks(zero2, {}, zero_flags(2)));
  EXPECT_NE(test::read_file(plain / "rank0.out").find("overlapped with the backward"),
            std::string::npos);
  EXPECT_NE(test::read_file(zero1 / "rank0.out")
                .find("ZeRO stage 1 over 2 ranks: optimizer state sharded"),
            std::string::npos)
      << test::read_file(zero1 / "rank0.out");
  EXPECT_NE(test::read_file(zero2 / "rank0.out")
                .find("ZeRO stage 2 over 2 ranks: optimizer state and gradients sharded"),
            std::string::npos)
      << test::read_file(zero2 / "rank0.out");
  expect_same_training_state(plain / "epoch_2.pth", zero1 / "epoch_2.pth");
  expect_same_training_state(plain / "epoch_1.pth", zero2 / "epoch_1.pth");

  // Stage 2's epoch-1 checkpoint continued under stage 1 equals the unsharded run's epoch 2.
  const fs::path restaged = test::scratch_dir("zero_restaged");
  ASSERT_TRUE(train_two_ranks(restaged, {}, [&] {
    std::vector<std::string> flags = zero_flags(1);
    flags.push_back("--resume-from");
    flags.push_back((zero2 / "epoch_1.pth").string());
    return flags;
  }()));
  expect_same_training_state(plain / "epoch_2.pth", restaged / "epoch_2.pth");

  // One process accumulating 2 micro-batches: the same world batch of 2.
  const auto one_process = [&](const fs::path& from, const std::string& name) {
    const fs::path work_dir = test::scratch_dir(name);
    std::vector<std::string> args = tiny_arguments(
        work_dir, equal_count_meta_root(4),
        {"runner.max_epochs=2", "data.samples_per_gpu=1", "data.gradient_accumulation_steps=2",
         "--no-validate", "--resume-from", (from / "epoch_1.pth").string()});
    const auto result = test::run_app("train_ds", test::shell_words(args));
    EXPECT_EQ(result.exit_status, 0) << result.output;
    EXPECT_NE(result.output.find("the same world batch of 2 from an epoch's end"),
              std::string::npos)
        << result.output;
    return work_dir;
  };
  const fs::path from_plain = one_process(plain, "zero_resumed_plain_one_rank");
  const fs::path from_zero2 = one_process(zero2, "zero_resumed_stage2_one_rank");
  expect_same_training_state(from_plain / "epoch_2.pth", from_zero2 / "epoch_2.pth");
}

// Under ZeRO the best checkpoint needs every rank's part of the optimizer state: rank 0's
// decision is shared, every rank gathers, rank 0 writes a whole checkpoint (a state for every
// parameter).
TEST(DistributedTraining, ZeroStageTwoWritesWholeBestCheckpoints) {
  const fs::path work_dir = test::scratch_dir("zero_best");
  ASSERT_TRUE(train_two_ranks(
      work_dir,
      {"evaluation.before_train=false", "evaluation.interval=1", "evaluation.save_best=OLS"},
      zero_flags(2), /*validate=*/true));
  fs::path best;
  for (const auto& entry : fs::directory_iterator(work_dir)) {
    if (entry.path().filename().string().rfind("best_OLS_epoch_", 0) == 0) best = entry.path();
  }
  ASSERT_FALSE(best.empty()) << test::read_file(work_dir / "rank0.out");
  const PthValue optimizer = read_pth(best).at("optimizer");
  size_t parameters = 0;
  for (const PthValue& group : optimizer.at("param_groups").items())
    parameters += group.at("params").items().size();
  EXPECT_GT(parameters, 100u);
  EXPECT_EQ(optimizer.at("state").dict_items().size(), parameters);
}

// Gradient accumulation under overlap: the 2 x 2 = 1 x 4 equality above, with the buckets'
// all-reduce after the backward instead, gives the same weights as with overlap.
TEST(DistributedTraining, OverlapOnOrOffTrainsTheSameWeights) {
  const fs::path overlapped = test::scratch_dir("overlap_on");
  const fs::path after = test::scratch_dir("overlap_off");
  ASSERT_TRUE(train_two_ranks(
      overlapped, {"data.gradient_accumulation_steps=2", "dist_params.bucket_cap_mb=0.01"}, {}));
  ASSERT_TRUE(train_two_ranks(after,
                              {"data.gradient_accumulation_steps=2",
                               "dist_params.bucket_cap_mb=0.01", "dist_params.overlap_comm=false"},
                              {}));
  EXPECT_NE(test::read_file(after / "rank0.out").find("after the backward"), std::string::npos);
  const NamedTensors a = tensors_of(read_pth(overlapped / "epoch_2.pth").at("state_dict"));
  const NamedTensors b = tensors_of(read_pth(after / "epoch_2.pth").at("state_dict"));
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(a[i].second.equal(b[i].second)) << a[i].first;
  }
}

}  // namespace
}  // namespace olv2
