#pragma once
// Named points where a test makes the process die as `kill -9` would, chosen by `OLV2_FAULT`.

namespace olv2 {

// Named points where a test can make the process die as `kill -9` would: with
// OLV2_FAULT=<point>:<n> in the environment, the n-th time (1-based) the process reaches
// fault_point("<point>") it kills itself (platform::kill_self). The points: `step` (after a
// micro-batch's backward, before the optimizer step), `checkpoint_write` (a checkpoint's bytes
// written to its temporary file, not yet flushed or renamed), `validation` (after each predicted
// frame). The variable is read once; without it a point costs a check of an empty string. A
// malformed value is an input error naming it.
void fault_point(const char* name);

}  // namespace olv2
