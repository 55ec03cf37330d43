#include "olv2/util/pth/pth_file.h"

#include <sstream>
#include <vector>

#include "olv2/util/error.h"
#include "olv2/util/fault_injection.h"
#include "olv2/util/filesystem.h"
#include "olv2/util/pth/pickle_writer.h"
#include "olv2/util/pth/pth_formats.h"
#include "olv2/util/pth/zip_reader.h"
#include "olv2/util/pth/zip_writer.h"

namespace olv2 {

namespace fs = std::filesystem;

namespace {

// Every entry sits in this folder; any name works for torch.load, 2.x uses this one.
constexpr const char* kArchiveFolder = "archive/";
constexpr const char* kFormatVersion = "3\n";

void write_archive(std::ostream& out, const PthValue& value) {
  std::vector<PickledStorage> storages;
  const std::string pickle = pickle_for_pth(value, storages);
  ZipWriter zip(out);
  zip.add(std::string(kArchiveFolder) + "data.pkl", pickle);
  zip.add(std::string(kArchiveFolder) + "byteorder", "little");
  for (const PickledStorage& storage : storages) {
    const std::string_view bytes(static_cast<const char*>(storage.bytes.data_ptr()),
                                 storage.bytes.numel());
    zip.add(std::string(kArchiveFolder) + "data/" + storage.key, bytes);
  }
  zip.add(std::string(kArchiveFolder) + "version", kFormatVersion);
  zip.finish();
}

}  // namespace

PthFormat detect_pth_format(std::string_view bytes) {
  if (looks_like_zip(bytes)) return PthFormat::kZip;
  if (bytes.size() >= 2 && bytes[0] == '\x80' && bytes[1] == '\x02') return PthFormat::kLegacy;
  return PthFormat::kUnknown;
}

const char* to_string(PthFormat format) {
  switch (format) {
    case PthFormat::kZip:
      return "zip";
    case PthFormat::kLegacy:
      return "legacy";
    case PthFormat::kUnknown:
      break;
  }
  return "unknown";
}

PthValue parse_pth(std::string_view bytes) {
  try {
    switch (detect_pth_format(bytes)) {
      case PthFormat::kZip:
        return parse_zip_pth(bytes);
      case PthFormat::kLegacy:
        return parse_legacy_pth(bytes);
      case PthFormat::kUnknown:
        break;
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& error) {  // a tensor library error on corrupt input
    throw input_error(std::string("corrupt file: ") + error.what());
  }
  throw input_error("not a torch.save file (neither a zip archive nor a legacy pickle stream)");
}

PthValue read_pth(const fs::path& path) {
  const std::string bytes = read_file(path, "file");
  try {
    return parse_pth(bytes);
  } catch (const Error& error) {
    throw input_error("file " + path.string() + ": " + error.what());
  }
}

std::string serialize_pth(const PthValue& value) {
  std::ostringstream out;
  write_archive(out, value);
  return std::move(out).str();
}

void write_pth(const fs::path& path, const PthValue& value) {
  try {
    write_file_atomic(path, [&](std::ostream& out) {
      write_archive(out, value);
      out.flush();
      fault_point("checkpoint_write");
    });
  } catch (const std::exception& error) {
    throw runtime_error("file " + path.string() + ": " + error.what());
  }
}

}  // namespace olv2
