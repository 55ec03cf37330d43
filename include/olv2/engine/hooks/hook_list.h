#pragma once
// The hooks of a run in the order they act.
#include <memory>
#include <string>
#include <vector>

#include "olv2/engine/hooks/hook.h"
#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// The hooks of a run by priority (HookPriority), as mmcv's Runner registers them: at every
// hook point they run in that order. Gathers their states for checkpoints and gives a resumed
// checkpoint's back.
class HookList {
 public:
  // Adds `hook` after every hook of a priority <= `priority`. `name` (its config `type`) names
  // it in messages.
  void add(std::string name, int priority, std::unique_ptr<Hook> hook);

  // Calls `point` of every hook in order.
  void call(void (Hook::*point)(TrainContext&), TrainContext& context) const;

  // Every hook's state in one dict, a checkpoint's `meta.hook_msgs`. An entry that two hooks
  // write is an internal error naming both.
  PthValue states() const;
  // Gives every hook the `meta.hook_msgs` of a resumed checkpoint.
  void load_states(const PthValue& hook_msgs) const;

  // "name (priority)" of every hook in calling order, for the run's log.
  std::string describe() const;

 private:
  struct Entry {
    std::string name;
    int priority;
    std::unique_ptr<Hook> hook;
  };
  std::vector<Entry> entries_;
};

}  // namespace olv2
