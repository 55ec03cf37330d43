#include "olv2/config/config_loader.h"

#include <yaml-cpp/yaml.h>

#include <set>
#include <sstream>

#include "olv2/util/error.h"
#include "olv2/util/filesystem.h"

namespace olv2 {

namespace fs = std::filesystem;

namespace {

constexpr const char* kBaseKey = "_base_";
// Bounds on what a config may expand to. yaml-cpp shares an anchored value among its aliases;
// the tree built here copies it at each, so a few lines of aliases of aliases could ask for
// 10^10 nodes. The largest real config (its `_base_` files merged) has about 2,000.
constexpr int64_t kMaxNodes = 200000;
constexpr int kMaxDepth = 64;
// `_base_` files read for one config, counting a file as often as it is included.
constexpr int kMaxBaseFiles = 64;

// What is left of the bounds while one document is converted.
struct ConversionBudget {
  int64_t nodes_left = kMaxNodes;
};

SourceLocation location_of(const YAML::Node& node, const std::string& source) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {source, 0, 0};
  return {source, mark.line + 1, mark.column + 1};
}

ConfigNode convert(const YAML::Node& node, const std::string& source, int depth,
                   ConversionBudget& budget) {
  const SourceLocation location = location_of(node, source);
  if (--budget.nodes_left < 0) {
    throw input_error(location.to_string() + ": the document expands to more than " +
                      std::to_string(kMaxNodes) +
                      " values (aliases of aliases repeat what they name); refused");
  }
  if (depth > kMaxDepth) {
    throw input_error(location.to_string() + ": values nested more than " +
                      std::to_string(kMaxDepth) + " levels deep; refused");
  }
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return ConfigNode::null(location);
    case YAML::NodeType::Scalar:
      // yaml-cpp tags quoted scalars "!"; plain ones "?".
      return ConfigNode::scalar(node.Scalar(), location, node.Tag() == "!");
    case YAML::NodeType::Sequence: {
      ConfigNode sequence = ConfigNode::sequence(location);
      for (const YAML::Node& element : node) {
        sequence.push_back(convert(element, source, depth + 1, budget));
      }
      return sequence;
    }
    case YAML::NodeType::Map: {
      ConfigNode map = ConfigNode::map(location);
      for (const auto& item : node) {
        const SourceLocation key_location = location_of(item.first, source);
        if (!item.first.IsScalar()) {
          throw input_error(key_location.to_string() + ": mapping keys must be plain strings");
        }
        const std::string key = item.first.Scalar();
        if (map.has(key)) {
          throw input_error(key_location.to_string() + ": duplicate key `" + key + "`");
        }
        ConfigNode value = convert(item.second, source, depth + 1, budget);
        value.set_key_location(key_location);
        map.set(key, std::move(value));
      }
      return map;
    }
  }
  return ConfigNode::null(location);
}

// The files being read (to find cycles) and how many base files were read so far.
struct BaseFiles {
  std::set<fs::path> visiting;
  int read = 0;
};

ConfigNode load_with_bases(const fs::path& file, BaseFiles& bases) {
  const fs::path canonical = fs::weakly_canonical(file);
  std::set<fs::path>& visiting = bases.visiting;
  if (visiting.count(canonical) != 0) {
    throw input_error(file.string() + ": `_base_` inheritance forms a cycle");
  }
  if (++bases.read > kMaxBaseFiles + 1) {
    throw input_error(file.string() + ": more than " + std::to_string(kMaxBaseFiles) +
                      " `_base_` files read for one config (a file counts each time it is "
                      "included); refused");
  }
  visiting.insert(canonical);
  ConfigNode own = parse_yaml(read_file(file, "config file"), file.string());
  if (own.is_null()) own = ConfigNode::map({file.string(), 1, 1});
  if (!own.is_map()) throw input_error(file.string() + ": top level must be a mapping");

  const ConfigNode* base_node = own.find(kBaseKey);
  if (base_node == nullptr) {
    visiting.erase(canonical);
    return own;
  }
  std::vector<ConfigNode> base_names;
  if (base_node->is_sequence()) {
    base_names = base_node->elements();
  } else {
    base_names.push_back(*base_node);
  }
  ConfigNode merged = ConfigNode::map({file.string(), 1, 1});
  for (const ConfigNode& name : base_names) {
    if (!name.is_scalar()) {
      throw input_error(name.location().to_string() +
                        ": `_base_` must name a file or a list of files");
    }
    fs::path base_path(name.text());
    if (base_path.is_relative()) base_path = file.parent_path() / base_path;
    if (!fs::exists(base_path)) {
      throw input_error(name.location().to_string() +
                        ": `_base_` file not found: " + base_path.string());
    }
    merge_config(merged, load_with_bases(base_path, bases));
  }
  own.erase(kBaseKey);
  merge_config(merged, own);
  visiting.erase(canonical);
  return merged;
}

ConfigNode* descend_for_override(ConfigNode& node, const std::string& part,
                                 const std::string& option) {
  if (node.is_sequence()) {
    size_t index = 0;
    try {
      index = std::stoul(part);
    } catch (const std::exception&) {
      throw input_error("--cfg-options " + option + ": `" + part +
                        "` indexes a list, expected a number");
    }
    if (index >= node.size()) {
      throw input_error("--cfg-options " + option + ": index " + part +
                        " is past the end of a list of " + std::to_string(node.size()));
    }
    return const_cast<ConfigNode*>(&node[index]);
  }
  if (!node.is_map()) node = ConfigNode::map({"--cfg-options", 0, 0});
  if (node.find(part) == nullptr) node.set(part, ConfigNode::map({"--cfg-options", 0, 0}));
  return node.find(part);
}

}  // namespace

ConfigNode parse_yaml(const std::string& text, const std::string& source_name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& error) {
    throw input_error(source_name + ":" + std::to_string(error.mark.line + 1) + ":" +
                      std::to_string(error.mark.column + 1) + ": malformed YAML: " + error.msg);
  }
  ConversionBudget budget;
  ConfigNode node = convert(root, source_name, 0, budget);
  node.assign_paths();
  return node;
}

ConfigNode load_config_file(const fs::path& file) {
  if (!fs::exists(file)) throw input_error(file.string() + ": config file not found");
  BaseFiles bases;
  ConfigNode root = load_with_bases(file, bases);
  root.assign_paths();
  return root;
}

void merge_config(ConfigNode& base, const ConfigNode& overlay) {
  if (!base.is_map() || !overlay.is_map()) {
    base = overlay;
    return;
  }
  for (const auto& [key, value] : overlay.entries()) {
    ConfigNode* existing = base.find(key);
    if (existing != nullptr && existing->is_map() && value.is_map()) {
      merge_config(*existing, value);
    } else {
      base.set(key, value);
    }
  }
}

void apply_config_overrides(ConfigNode& root, const std::vector<std::string>& options) {
  for (const std::string& option : options) {
    const size_t equals = option.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw input_error("--cfg-options " + option +
                        ": expected KEY=VALUE (e.g. optimizer.lr=0.0002)");
    }
    const std::string key_path = option.substr(0, equals);
    ConfigNode value = parse_yaml(option.substr(equals + 1), "--cfg-options " + option);
    value.relocate({"--cfg-options " + option, 0, 0});
    std::vector<std::string> parts;
    std::stringstream stream(key_path);
    for (std::string part; std::getline(stream, part, '.');) {
      if (part.empty())
        throw input_error("--cfg-options " + option + ": empty key in `" + key_path + "`");
      parts.push_back(part);
    }
    ConfigNode* node = &root;
    for (size_t i = 0; i + 1 < parts.size(); ++i)
      node = descend_for_override(*node, parts[i], option);
    const std::string& last = parts.back();
    if (node->is_sequence()) {
      *descend_for_override(*node, last, option) = std::move(value);
    } else {
      ConfigNode* existing = node->is_map() ? node->find(last) : nullptr;
      if (existing != nullptr && existing->is_map() && value.is_map()) {
        merge_config(*existing, value);
      } else {
        node->set(last, std::move(value));
      }
    }
  }
  root.assign_paths();
}

}  // namespace olv2
