#pragma once
// Reading a config: YAML parsing, `_base_` inheritance, merging and `--cfg-options` overrides.
#include <filesystem>
#include <string>
#include <vector>

#include "olv2/config/config_node.h"
#include "olv2/config/config_yaml.h"

namespace olv2 {

// Parses YAML text; `source_name` is the file name used in locations and errors.
ConfigNode parse_yaml(const std::string& text, const std::string& source_name);

// Reads a YAML file and resolves `_base_: FILE` (or a list of files, merged in order):
// a relative base is relative to the including file; the including file's keys override the
// base's recursively (maps merge, everything else replaces). `_base_` is removed.
ConfigNode load_config_file(const std::filesystem::path& file);

// Merges `overlay` into `base`: maps merge key by key, any other value replaces.
void merge_config(ConfigNode& base, const ConfigNode& overlay);

// Applies `--cfg-options` entries "a.b.c=value"; each value is parsed as YAML (so lists and
// numbers work). Missing intermediate maps are created; list elements are addressed by index
// ("data.train.pipeline.2.type=X").
void apply_config_overrides(ConfigNode& root, const std::vector<std::string>& options);

}  // namespace olv2
