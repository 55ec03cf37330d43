#pragma once
// What a loss or a match cost compares, so that a head or an assigner can refuse one of the
// wrong kind.
#include <memory>
#include <string>

#include "olv2/config/config_node.h"
#include "olv2/config/registry.h"
#include "olv2/util/error.h"

namespace olv2 {

// The predictions a loss or match cost compares with their targets: class logits with labels,
// boxes with boxes, lanes' flattened control points with theirs, per-instance mask logits
// ([N, *]) with 0/1 masks of the same shape, or the directions between consecutive points of
// point sets ([N, K, D]) with theirs.
enum class PredictionKind { kClassScores, kBoxes, kLanePoints, kMaskLogits, kPointDirections };

// "class scores", "boxes", "lane points", "mask logits" or "point directions", for messages.
const char* describe(PredictionKind kind);

// The component of `registry` (losses, match costs: each says what it `accepts`) configured by
// `section[key]`, or `fallback` when the key is absent or null; an input error naming the key
// unless it accepts `kind`.
template <typename Component>
std::shared_ptr<const Component> read_for_kind(const Registry<Component>& registry,
                                               const ConfigNode& section, const std::string& key,
                                               PredictionKind kind,
                                               std::shared_ptr<const Component> fallback) {
  const ConfigNode* node = section.find(key);
  if (node == nullptr || node->is_null()) return fallback;
  std::shared_ptr<const Component> component = registry.read(*node);
  if (!component->accepts(kind)) {
    throw input_error(node->where() + ": `" + node->at("type").as_string() + "` cannot compare " +
                      describe(kind) + " (the predictions of this key)");
  }
  return component;
}

}  // namespace olv2
