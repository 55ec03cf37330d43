// test_ds on the checkpoint of a short training run, as a user scores it again.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "olv2/data/frame_reader.h"
#include "olv2/util/cpu_bf16.h"
#include "olv2/util/pth/pth_file.h"
#include "olv2/util/state_dict.h"
#include "support/json_log_records.h"
#include "support/python_numpy.h"
#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

std::string dataset_options(const fs::path& root) {
  return "data_root='" + root.string() + "' meta_root='" + root.string() + "'";
}

// 1 train, 3 val and 3 unannotated test frames.
fs::path test_ds_dataset() {
  return test::synthetic_dataset(
      "test_ds_e2e", "--frames 4 --val-frames 3 --test-frames 3 --image-scale 0.0625 --seed 6");
}

// The leaderboard metadata, complete.
const std::vector<std::string> kSubmissionFlags = {
    "--method",      "tiny",          "--authors",   "A. Author", "B. Author", "--e-mail",
    "a@example.org", "--institution", "Example Lab", "--country", "DE"};

std::vector<std::string> with_submission_flags(std::vector<std::string> arguments) {
  arguments.insert(arguments.end(), kSubmissionFlags.begin(), kSubmissionFlags.end());
  return arguments;
}

// Every number of the submission pickle equals the results file's (both float32), under the
// same frame keys, in the same order, with the same ids.
const char* const kSameAsResults = R"(
import json, pickle, sys
import numpy as np
submission = pickle.load(open(sys.argv[1], 'rb'))
results = json.load(open(sys.argv[2]))['results']
assert [('/'.join(key)) for key in submission['results']] == list(results), list(submission['results'])
def same(array, values):
    expected = np.array(values, np.float32).reshape(array.shape)
    assert array.dtype == np.float32 and np.array_equal(array, expected), (array, values)
for key, frame in submission['results'].items():
    mine, theirs = frame['predictions'], results['/'.join(key)]['predictions']
    for kind in ['lane_centerline', 'traffic_element']:
        assert len(mine[kind]) == len(theirs[kind])
        for a, b in zip(mine[kind], theirs[kind]):
            assert a['id'] == b['id'] and a.get('attribute') == b.get('attribute')
            same(a['points'], b['points'])
            assert a['confidence'] == np.float32(b['confidence'])
    for matrix in ['topology_lclc', 'topology_lcte']:
        same(mine[matrix], theirs[matrix])
print('same', len(results))
)";

fs::path tiny_config() { return test::source_dir() / "configs/tests/tiny.yaml"; }

// The only eval_<timestamp>.json of `dir`.
nlohmann::json eval_file_in(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("eval_", 0) == 0) files.push_back(entry.path());
  }
  EXPECT_EQ(files.size(), 1u) << dir;
  return files.empty() ? nlohmann::json() : nlohmann::json::parse(std::ifstream(files[0]));
}

// One epoch of tiny.yaml, trained once for the tests of this file; epoch_1.pth holds the
// model its validation scored.
const fs::path& trained_work_dir() {
  static const fs::path work_dir = [] {
    const fs::path dir = test::shared_scratch_dir("test_ds_train");
    const auto trained =
        test::run_app("train_ds", tiny_config().string() + " --work-dir '" + dir.string() +
                                      "' --cfg-options runner.max_epochs=1 " +
                                      dataset_options(test_ds_dataset()));
    EXPECT_EQ(trained.exit_status, 0) << trained.output;
    return dir;
  }();
  return work_dir;
}

// test_ds's arguments for the trained checkpoint, then `extra`.
std::vector<std::string> test_arguments(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {tiny_config().string(),
                                   (trained_work_dir() / "epoch_1.pth").string(),
                                   "--cfg-options",
                                   "data_root=" + test_ds_dataset().string(),
                                   "meta_root=" + test_ds_dataset().string(),
                                   "dist_params.timeout_s=30"};
  args.insert(args.begin() + 2, extra.begin(), extra.end());
  return args;
}

// test_ds on the checkpoint predicts the frames its validation predicted: the same results
// file, byte for byte, and so the same metrics.
TEST(TestDs, ScoresATrainedCheckpointAsItsLastValidationDid) {
  const fs::path train_dir = trained_work_dir();
  const std::vector<nlohmann::json> validations = test::json_log_records(train_dir, "val");
  ASSERT_EQ(validations.size(), 1u);
  const nlohmann::json& val = validations[0];
  ASSERT_EQ(val.at("epoch"), 1);

  const fs::path test_dir = test::scratch_dir("test_ds_eval");
  const fs::path results = test_dir / "results.json";
  const fs::path submission = test_dir / "submission.pkl";
  const auto tested = test::run_app(
      "test_ds", test::shell_words(test_arguments(with_submission_flags(
                     {"--eval", "OLS", "TOP_ll", "--results-out", results.string(), "--out",
                      submission.string(), "--work-dir", test_dir.string()}))));
  ASSERT_EQ(tested.exit_status, 0) << tested.output;
  // The same predictions; the metadata members differ (the training run's name only its method).
  EXPECT_EQ(nlohmann::json::parse(test::read_file(results))["results"],
            nlohmann::json::parse(test::read_file(train_dir / "results_epoch_1.json"))["results"]);
  EXPECT_EQ(tested.output.find("not a valid leaderboard submission"), std::string::npos)
      << tested.output;
  const nlohmann::json eval = eval_file_in(test_dir);
  EXPECT_EQ(eval["split"], "val");
  // The log rounds the metrics to 5 digits.
  for (const char* metric : {"DET_l", "DET_t", "TOP_ll", "TOP_lt", "OLS"}) {
    EXPECT_NEAR(eval["metrics"][metric].get<double>(), val.at(metric).get<double>(), 5e-6)
        << metric;
  }
  EXPECT_NE(tested.output.find("OLS"), std::string::npos) << tested.output;
  // The metrics named after --eval, on one line, as the table has them.
  char line[64];
  std::snprintf(line, sizeof(line), "eval: OLS %.4f, TOP_ll %.4f",
                eval["metrics"]["OLS"].get<double>(), eval["metrics"]["TOP_ll"].get<double>());
  EXPECT_NE(tested.output.find(line), std::string::npos) << line << "\n" << tested.output;

  // The submission holds the predictions of the results file, and the devkit takes it.
  const std::string python = test::python_executable("debian");
  OLV2_REQUIRE_NUMPY(python);
  const test::CommandResult same =
      test::run_python(python, kSameAsResults, {submission.string(), results.string()}, test_dir);
  EXPECT_EQ(same.exit_status, 0) << same.output;
  EXPECT_NE(same.output.find("same 3"), std::string::npos) << same.output;
  OLV2_REQUIRE_DEVKIT_SOURCES();
  const test::CommandResult checked = test::run_devkit_check_results(submission, test_dir);
  EXPECT_EQ(checked.exit_status, 0) << checked.output;
  EXPECT_EQ(checked.output.find("Missing key"), std::string::npos) << checked.output;
  EXPECT_NE(checked.output.find("check_results: valid"), std::string::npos) << checked.output;
}

// The test split's frames carry no annotation: test_ds predicts them into a submission the
// devkit takes, keyed ('test', segment, timestamp) in collection order, and draws each of them.
TEST(TestDs, PredictsAnUnannotatedSplitIntoASubmission) {
  const fs::path dir = test::scratch_dir("test_ds_unannotated");
  const fs::path submission = dir / "test.pkl";
  const auto tested =
      test::run_app("test_ds", test::shell_words(test_arguments(with_submission_flags(
                                   {"--split", "test", "--out", submission.string(), "--show-dir",
                                    (dir / "pictures").string(), "--cfg-options",
                                    "data.test.collection=data_dict_synthetic_test"}))));
  ASSERT_EQ(tested.exit_status, 0) << tested.output;
  EXPECT_NE(tested.output.find("testing 3 frames of data.test"), std::string::npos)
      << tested.output;
  size_t pictures = 0;
  for (const auto& entry : fs::directory_iterator(dir / "pictures")) {
    pictures += entry.path().extension() == ".png" ? 1 : 0;
  }
  EXPECT_EQ(pictures, 3u);

  const std::string python = test::python_executable("debian");
  OLV2_REQUIRE_NUMPY(python);
  const test::CommandResult keys = test::run_python(python, R"(
import pickle, sys
submission = pickle.load(open(sys.argv[1], 'rb'))
print(' '.join('/'.join(key) for key in submission['results']))
)",
                                                    {submission.string()}, dir);
  ASSERT_EQ(keys.exit_status, 0) << keys.output;
  std::string expected;
  for (const FrameKey& key :
       read_collection(test_ds_dataset() / "data_dict_synthetic.json", "test")) {
    expected +=
        (expected.empty() ? "" : " ") + key.split + "/" + key.segment_id + "/" + key.timestamp;
  }
  EXPECT_EQ(keys.output, expected + "\n");
  OLV2_REQUIRE_DEVKIT_SOURCES();
  const test::CommandResult checked = test::run_devkit_check_results(submission, dir);
  EXPECT_EQ(checked.exit_status, 0) << checked.output;
  EXPECT_EQ(checked.output.find("Missing key"), std::string::npos) << checked.output;
  EXPECT_NE(checked.output.find("check_results: valid"), std::string::npos) << checked.output;
}

// Scoring needs the annotation: --eval on the test split stops before predicting, naming a
// frame; so does a leaderboard submission without its metadata, writing nothing.
TEST(TestDs, AnUnannotatedSplitCannotBeScoredNorSubmittedWithoutMetadata) {
  const fs::path dir = test::scratch_dir("test_ds_refused");
  const auto eval = test::run_app(
      "test_ds", test::shell_words(test_arguments(
                     {"--split", "test", "--eval", "--work-dir", dir.string(), "--cfg-options",
                      "data.test.collection=data_dict_synthetic_test"})));
  EXPECT_EQ(eval.exit_status, 2) << eval.output;
  EXPECT_NE(eval.output.find("frame test/20000/"), std::string::npos) << eval.output;
  EXPECT_NE(eval.output.find("no `annotation`"), std::string::npos) << eval.output;
  EXPECT_EQ(eval.output.find("testing 3 frames"), std::string::npos) << eval.output;

  const auto incomplete = test::run_app(
      "test_ds", test::shell_words(test_arguments(
                     {"--split", "test", "--out", (dir / "test.pkl").string(), "--method", "tiny",
                      "--cfg-options", "data.test.collection=data_dict_synthetic_test"})));
  EXPECT_EQ(incomplete.exit_status, 2) << incomplete.output;
  for (const char* member : {"`authors`: missing", "`e-mail`: missing",
                             "`institution / company`: missing", "`country / region`: missing"}) {
    EXPECT_NE(incomplete.output.find(member), std::string::npos) << member << incomplete.output;
  }
  EXPECT_FALSE(fs::exists(dir / "test.pkl"));

  const auto not_a_pickle = test::run_app(
      "test_ds", test::shell_words(test_arguments({"--out", (dir / "test.json").string()})));
  EXPECT_EQ(not_a_pickle.exit_status, 2) << not_a_pickle.output;
  EXPECT_NE(not_a_pickle.output.find("expected a .pkl or .pickle file"), std::string::npos)
      << not_a_pickle.output;
}

// Training reads annotation: a training split with an unannotated frame stops, naming it.
TEST(TestDs, TrainingOnAnUnannotatedSplitNamesTheFrame) {
  const fs::path dir = test::scratch_dir("test_ds_train_unannotated");
  const auto trained =
      test::run_app("train_ds", tiny_config().string() + " --work-dir '" + dir.string() +
                                    "' --no-validate --cfg-options runner.max_epochs=1 " +
                                    dataset_options(test_ds_dataset()) +
                                    " data.train.collection=data_dict_synthetic_test");
  EXPECT_EQ(trained.exit_status, 2) << trained.output;
  EXPECT_NE(trained.output.find("frame test/20000/info/"), std::string::npos) << trained.output;
  EXPECT_NE(trained.output.find("no `annotation`, but this pipeline collects gt_lc"),
            std::string::npos)
      << trained.output;
}

// --use-fp16 predicts under autocast (bf16 on a CPU with bf16 instructions): the same frames,
// other numbers; on a CPU without them, in fp32: the same numbers.
TEST(TestDs, UseFp16PredictsUnderAutocast) {
  const fs::path dir = test::scratch_dir("test_ds_fp16");
  const auto fp32 = test::run_app(
      "test_ds",
      test::shell_words(test_arguments({"--results-out", (dir / "fp32.json").string()})));
  ASSERT_EQ(fp32.exit_status, 0) << fp32.output;
  const auto fp16 = test::run_app(
      "test_ds",
      test::shell_words(test_arguments({"--use-fp16", "--eval", "--work-dir", dir.string(),
                                        "--results-out", (dir / "fp16.json").string()})));
  ASSERT_EQ(fp16.exit_status, 0) << fp16.output;
  const bool bf16 = cpu_has_bf16_instructions();
  EXPECT_NE(fp16.output.find(bf16 ? "predicting under BFloat16 autocast"
                                  : "predicting in fp32: fp16 is CUDA-only, and this CPU has no "
                                    "bf16 instructions"),
            std::string::npos)
      << fp16.output;
  const nlohmann::json low = nlohmann::json::parse(test::read_file(dir / "fp16.json"));
  const nlohmann::json full = nlohmann::json::parse(test::read_file(dir / "fp32.json"));
  ASSERT_EQ(low["results"].size(), full["results"].size());
  EXPECT_EQ(low["results"] != full["results"], bf16);
  EXPECT_NE(eval_file_in(dir)["metrics"]["OLS"], nullptr);
}

// --max-frames, for a quick look: the first frames are predicted and scored against their own
// annotation, and evaluate takes the results of those frames with the same flag.
TEST(TestDs, MaxFramesPredictsAndScoresTheFirstFrames) {
  const fs::path dir = test::scratch_dir("test_ds_max_frames");
  const auto tested = test::run_app(
      "test_ds",
      test::shell_words(test_arguments({"--eval", "--max-frames", "2", "--work-dir", dir.string(),
                                        "--results-out", (dir / "two.json").string()})));
  ASSERT_EQ(tested.exit_status, 0) << tested.output;
  EXPECT_NE(tested.output.find("testing 2 frames of data.val"), std::string::npos) << tested.output;
  const nlohmann::json eval = eval_file_in(dir);
  EXPECT_EQ(eval["metrics"]["num_frames"], 2);
  const auto scored = test::run_app(
      "evaluate",
      test::shell_words({tiny_config().string(), "--split", "val", "--max-frames", "2", "--results",
                         (dir / "two.json").string(), "--out", (dir / "metrics.json").string(),
                         "--cfg-options", "data_root=" + test_ds_dataset().string(),
                         "meta_root=" + test_ds_dataset().string()}));
  ASSERT_EQ(scored.exit_status, 0) << scored.output;
  const nlohmann::json metrics = nlohmann::json::parse(test::read_file(dir / "metrics.json"));
  EXPECT_EQ(metrics["OLS"], eval["metrics"]["OLS"]);
  EXPECT_EQ(metrics["num_frames"], 2);
}

// Two ranks started by scripts/dist_test.sh (mmdet's form: CONFIG CHECKPOINT N, then test_ds's
// arguments) predict a shard each and rank 0 gathers them in frame order: the results file and
// the submission of one process, byte for byte (3 frames: rank 1's shard pads with frame 0,
// written once).
TEST(TestDs, TwoRanksWriteTheResultsOfOneProcess) {
  const fs::path dir = test::scratch_dir("test_ds_two_ranks");
  fs::create_directories(dir);
  const auto one = test::run_app(
      "test_ds",
      test::shell_words(test_arguments(with_submission_flags(
          {"--results-out", (dir / "one.json").string(), "--out", (dir / "one.pkl").string()}))));
  ASSERT_EQ(one.exit_status, 0) << one.output;
  std::vector<std::string> arguments = test_arguments(with_submission_flags(
      {"--results-out", (dir / "two.json").string(), "--out", (dir / "two.pkl").string()}));
  arguments.insert(arguments.begin() + 2, "2");
  const auto two = test::run_command("DIST_LAUNCHER=self OMP_NUM_THREADS=1 TEST_DS='" +
                                     (test::bin_dir() / "test_ds").string() + "' bash '" +
                                     (test::source_dir() / "scripts/dist_test.sh").string() + "' " +
                                     test::shell_words(arguments));
  ASSERT_EQ(two.exit_status, 0) << two.output;
  EXPECT_NE(two.output.find("2 ranks via self"), std::string::npos) << two.output;
  EXPECT_NE(two.output.find("world size: 2"), std::string::npos) << two.output;
  EXPECT_EQ(test::read_file(dir / "two.json"), test::read_file(dir / "one.json"));
  EXPECT_EQ(test::read_file(dir / "two.pkl"), test::read_file(dir / "one.pkl"));
}

// benchmark (mmdet's benchmark.py) on the trained checkpoint: the frames after the warm-up are
// timed, the model's rate at least the rate with the loader's waits included.
TEST(TestDs, BenchmarkTimesTheFramesAfterTheWarmUp) {
  const fs::path out = test::scratch_dir("test_ds_benchmark") / "benchmark.json";
  const auto measured = test::run_app(
      "benchmark",
      test::shell_words({tiny_config().string(), (trained_work_dir() / "epoch_1.pth").string(),
                         "--warmup", "1", "--max-frames", "3", "--device", "cpu", "--out",
                         out.string(), "--cfg-options", "data_root=" + test_ds_dataset().string(),
                         "meta_root=" + test_ds_dataset().string()}));
  ASSERT_EQ(measured.exit_status, 0) << measured.output;
  const nlohmann::json figures = nlohmann::json::parse(test::read_file(out));
  EXPECT_EQ(figures["frames"], 2);
  EXPECT_EQ(figures["warmup_frames"], 1);
  EXPECT_EQ(figures["device"], "cpu");
  EXPECT_EQ(figures["precision"], "float32");
  EXPECT_GT(figures["model_fps"].get<double>(), 0.0);
  EXPECT_GT(figures["median_model_ms"].get<double>(), 0.0);
  EXPECT_LE(figures["overall_fps"].get<double>(), figures["model_fps"].get<double>());
  EXPECT_NE(measured.output.find("frames/s"), std::string::npos) << measured.output;

  const auto too_few = test::run_app(
      "benchmark", test::shell_words(
                       {tiny_config().string(), (trained_work_dir() / "epoch_1.pth").string(),
                        "--warmup", "3", "--cfg-options", "data_root=" + test_ds_dataset().string(),
                        "meta_root=" + test_ds_dataset().string()}));
  EXPECT_EQ(too_few.exit_status, 2) << too_few.output;
  EXPECT_NE(too_few.output.find("data.val has 3 frames"), std::string::npos) << too_few.output;
}

TEST(TestDs, WithoutEvalOrAnOutputItIsABadInvocation) {
  const auto result =
      test::run_app("test_ds", tiny_config().string() + " checkpoint.pth --split val");
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("test_ds: error: nothing to do: ask for --eval"), std::string::npos)
      << result.output;
}

// The checkpoint is checked before any work: no environment block, the program named once.
TEST(TestDs, AMissingCheckpointIsNamedBeforeAnyWork) {
  const auto result = test::run_app("test_ds", tiny_config().string() + " nosuch.pth --eval");
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find("test_ds: error: checkpoint nosuch.pth: no such file"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("Environment info"), std::string::npos) << result.output;
}

TEST(TestDs, ACheckpointOfAnotherModelNamesTheFileAndTheKeys) {
  const fs::path dir = test::scratch_dir("test_ds_foreign");
  fs::create_directories(dir);
  const fs::path checkpoint = dir / "other_model.pth";
  write_pth(checkpoint, to_pth_value({{"other_head.weight", torch::zeros({2, 2})}}));
  const auto result = test::run_app(
      "test_ds", tiny_config().string() + " '" + checkpoint.string() + "' --eval --work-dir '" +
                     dir.string() + "' --cfg-options " + dataset_options(test_ds_dataset()));
  EXPECT_EQ(result.exit_status, 2) << result.output;
  EXPECT_NE(result.output.find(checkpoint.string()), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("other_head.weight"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace olv2
