#pragma once
// The Python callables a pickle may invoke, evaluated from a whitelist so that no code runs.
#include <string>

#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// The whitelist of Python callables a pickle may invoke (REDUCE / NEWOBJ). `callable` is the
// value on the pickle stack (a global reference, or anything else); `args` is the argument
// tuple. Whitelisted calls are evaluated here (tensor rebuilders, OrderedDict, numpy scalars,
// bytes, set); anything else returns an opaque value naming the type.
PthValue call_pickled_global(const PthValue& callable, const PthValue& args);

// Applies pickle's BUILD (`__setstate__`) to `object` in place: completes numpy dtypes and
// arrays; keeps dicts, tensors and opaque objects as they are. Throws on other kinds.
void build_pickled_object(PthValue& object, const PthValue& state);

}  // namespace olv2
