// The bad-input corpus (tests/data/bad/, one defect per case) against the programs that read
// each kind of file: train_ds (configs, frames, images), check_data (collections, frames,
// images), evaluate (results files) and inspect_checkpoint (.pth files). Every case must end
// with a status in [1, 124) and a line that names the file and what was wrong, never a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/run_command.h"
#include "support/synthetic_dataset.h"
#include "support/test_paths.h"

namespace olv2 {
namespace {

namespace fs = std::filesystem;

fs::path corpus() { return test::source_dir() / "tests" / "data" / "bad"; }

fs::path bad_input_dataset() {
  return test::synthetic_dataset("bad_input_e2e",
                                 "--frames 3 --val-frames 2 --image-scale 0.0625 --seed 4");
}

std::vector<fs::path> cases(const std::string& kind) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(corpus() / kind)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

// A status that is an answer (not a crash, a signal or a timeout) and one line holding every
// one of `needles`.
void expect_clear_error(const test::CommandResult& result,
                        const std::vector<std::string>& needles) {
  EXPECT_GE(result.exit_status, 1) << result.output;
  EXPECT_LT(result.exit_status, 124) << result.output;
  std::istringstream lines(result.output);
  bool found = false;
  for (std::string line; std::getline(lines, line) && !found;) {
    found = std::all_of(needles.begin(), needles.end(), [&](const std::string& needle) {
      return line.find(needle) != std::string::npos;
    });
  }
  std::string wanted;
  for (const std::string& needle : needles) wanted += " `" + needle + "`";
  EXPECT_TRUE(found) << "no line with" << wanted << " in:\n" << result.output;
  EXPECT_EQ(result.output.find("internal error"), std::string::npos) << result.output;
}

// A private copy of the dataset, to break.
fs::path dataset_copy(const std::string& name) {
  const fs::path root = test::scratch_dir(name);
  fs::copy(bad_input_dataset(), root, fs::copy_options::recursive);
  return root;
}

fs::path first_file_under(const fs::path& dir, const std::string& extension) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() == extension) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files.at(0);
}

TEST(BadInput, EveryConfigCaseStopsTrainDsNamingTheFile) {
  for (const fs::path& file : cases("config")) {
    SCOPED_TRACE(file.filename().string());
    const auto result = test::run_app("train_ds", quoted(file) + " --print-config");
    expect_clear_error(result, {file.filename().string()});
  }
}

TEST(BadInput, EveryCollectionCaseStopsCheckDataNamingTheFile) {
  for (const fs::path& file : cases("collection")) {
    SCOPED_TRACE(file.filename().string());
    const auto result =
        test::run_app("check_data", "--data-root " + quoted(bad_input_dataset()) +
                                        " --collection " + quoted(file) + " --split val");
    expect_clear_error(result, {file.filename().string()});
  }
}

TEST(BadInput, EveryResultsCaseStopsEvaluateNamingTheFile) {
  const fs::path root = bad_input_dataset();
  for (const fs::path& file : cases("results")) {
    SCOPED_TRACE(file.filename().string());
    const auto result = test::run_app("evaluate", "--data-root " + quoted(root) + " --collection " +
                                                      quoted(root / "data_dict_synthetic.json") +
                                                      " --split val --results " + quoted(file));
    expect_clear_error(result, {file.filename().string()});
  }
}

// The last line of the one `.log` file of a work dir.
std::string last_log_line(const fs::path& work_dir) {
  std::string last;
  for (const auto& entry : fs::directory_iterator(work_dir)) {
    if (entry.path().extension() != ".log") continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) last = line;
    }
  }
  return last;
}

TEST(BadInput, EveryCheckpointCaseStopsInspectCheckpointNamingTheFile) {
  for (const fs::path& file : cases("pth")) {
    SCOPED_TRACE(file.filename().string());
    expect_clear_error(test::run_app("inspect_checkpoint", quoted(file)),
                       {file.filename().string()});
  }
}

TEST(BadInput, EveryImageCaseIsNamedByCheckDataAndStopsTrainDs) {
  for (const fs::path& file : cases("jpeg")) {
    SCOPED_TRACE(file.filename().string());
    const fs::path root = dataset_copy("bad_image_" + file.stem().string());
    const fs::path image = first_file_under(root / "train", ".jpg");
    fs::copy_file(file, image, fs::copy_options::overwrite_existing);
    const std::string location = "--data-root " + quoted(root) + " --collection " +
                                 quoted(root / "data_dict_synthetic.json");
    expect_clear_error(test::run_app("check_data", location + " --split train --decode"),
                       {image.filename().string()});
    const auto train = test::run_app(
        "train_ds", quoted(test::source_dir() / "configs/tests/tiny.yaml") + " --work-dir " +
                        quoted(root / "run") + " --cfg-options data_root=" + quoted(root) +
                        " meta_root=" + quoted(root) + " runner.max_epochs=1 --no-validate");
    expect_clear_error(train, {image.filename().string()});
    // The error that ends the run is also the last line of its log.
    const std::string last = last_log_line(root / "run");
    EXPECT_NE(last.find(" - ERROR - train_ds: error: "), std::string::npos) << last;
    EXPECT_NE(last.find(image.filename().string()), std::string::npos) << last;
  }
}

TEST(BadInput, EveryFrameCaseIsNamedWithItsKeyByCheckDataAndTrainDs) {
  std::ifstream in(corpus() / "frame_cases.json");
  const nlohmann::json manifest = nlohmann::json::parse(in);
  for (const nlohmann::json& defect : manifest["cases"]) {
    const std::string name = defect["name"];
    SCOPED_TRACE(name);
    const fs::path root = dataset_copy("bad_frame_" + name);
    const fs::path info = first_file_under(root / "train", ".json");
    std::ifstream frame_in(info);
    nlohmann::json frame = nlohmann::json::parse(frame_in);
    frame_in.close();
    const nlohmann::json::json_pointer pointer(defect["pointer"].get<std::string>());
    if (defect.value("remove", false)) {
      frame[pointer.parent_pointer()].erase(pointer.back());
    } else {
      frame[pointer] = defect["value"];
    }
    std::ofstream(info) << frame.dump();
    const std::string location = "--data-root " + quoted(root) + " --collection " +
                                 quoted(root / "data_dict_synthetic.json");
    const std::string expect = defect["expect"];
    expect_clear_error(test::run_app("check_data", location + " --split train"),
                       {info.filename().string(), expect});
    const auto train = test::run_app(
        "train_ds", quoted(test::source_dir() / "configs/tests/tiny.yaml") + " --work-dir " +
                        quoted(root / "run") + " --cfg-options data_root=" + quoted(root) +
                        " meta_root=" + quoted(root) + " runner.max_epochs=1 --no-validate");
    expect_clear_error(train, {info.filename().string(), expect});
  }
}

}  // namespace
}  // namespace olv2
