#include "olv2/engine/hooks/hook_list.h"

#include <algorithm>
#include <map>
#include <utility>

#include "olv2/util/error.h"

namespace olv2 {

void HookList::add(std::string name, int priority, std::unique_ptr<Hook> hook) {
  const auto after =
      std::upper_bound(entries_.begin(), entries_.end(), priority,
                       [](int wanted, const Entry& entry) { return wanted < entry.priority; });
  entries_.insert(after, Entry{std::move(name), priority, std::move(hook)});
}

void HookList::call(void (Hook::*point)(TrainContext&), TrainContext& context) const {
  for (const Entry& entry : entries_) ((*entry.hook).*point)(context);
}

PthValue HookList::states() const {
  PthValue merged = PthValue::dict();
  std::map<std::string, std::string> writer;  // entry key -> the hook that wrote it
  for (const Entry& entry : entries_) {
    const std::optional<PthValue> state = entry.hook->state();
    if (!state) continue;
    for (const auto& [key, value] : state->dict_items()) {
      const auto [found, fresh] = writer.emplace(key.to_string(), entry.name);
      if (!fresh) {
        throw runtime_error("hooks " + found->second + " and " + entry.name +
                            " both keep the checkpoint entry hook_msgs." + key.to_string());
      }
      merged.set(key, value);
    }
  }
  return merged;
}

void HookList::load_states(const PthValue& hook_msgs) const {
  for (const Entry& entry : entries_) entry.hook->load_state(hook_msgs);
}

std::string HookList::describe() const {
  std::string text;
  for (const Entry& entry : entries_) {
    text += (text.empty() ? "" : ", ") + entry.name + " (" + std::to_string(entry.priority) + ")";
  }
  return text;
}

}  // namespace olv2
