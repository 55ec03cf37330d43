#include "support/python_numpy.h"

#include <fstream>

namespace olv2::test {

namespace fs = std::filesystem;

std::string python_executable(const std::string& which) {
  return which == "venv" ? (source_dir() / ".venv" / "bin" / "python").string()
                         : std::string("/usr/bin/python3");
}

bool python_has_numpy(const std::string& python) {
  return run_command(shell_words({python, "-c", "import numpy"})).exit_status == 0;
}

CommandResult run_python(const std::string& python, const std::string& source,
                         const std::vector<std::string>& arguments, const fs::path& scratch) {
  const fs::path program = scratch / "program.py";
  std::ofstream(program) << source;
  std::vector<std::string> words = {python, program.string()};
  words.insert(words.end(), arguments.begin(), arguments.end());
  return run_command(shell_words(words));
}

CommandResult run_devkit_check_results(const fs::path& pickle, const fs::path& scratch) {
  const fs::path devkit = scratch / "devkit";
  fs::create_directories(devkit);
  const CommandResult extracted =
      run_command(shell_words({"tar", "-xJf", (reference_dir() / "sources.tar.xz").string(), "-C",
                               devkit.string(), "OpenLane-V2/openlanev2/preprocessing/check.py"}));
  if (extracted.exit_status != 0) return extracted;
  const std::string source = R"(
import importlib.util, pickle, sys
spec = importlib.util.spec_from_file_location('check', sys.argv[1])
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)
with open(sys.argv[2], 'rb') as file:
    valid = check.check_results(pickle.load(file))
print('check_results: ' + ('valid' if valid else 'not valid'))
)";
  return run_python(
      python_executable("debian"), source,
      {(devkit / "OpenLane-V2/openlanev2/preprocessing/check.py").string(), pickle.string()},
      scratch);
}

}  // namespace olv2::test
