#pragma once
// Reading Python pickles as torch.save and numpy write them, without running code.
#include <cstddef>
#include <functional>
#include <string_view>

#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// Resolves a persistent id (the BINPERSID opcode) to a value: how torch.save refers to the
// storages it writes outside the pickle.
using PersistentLoader = std::function<PthValue(const PthValue& persistent_id)>;

// Interprets one pickle (the opcodes of protocols 2-5 that torch.save and numpy emit) from the
// start of `bytes`. Only whitelisted globals are decoded (tensor rebuilders, OrderedDict, numpy
// scalars and arrays, bytes/set helpers); any other class becomes an opaque value, and no code
// is run. Throws olv2::Error (input) on malformed input. `consumed`, when given, receives the
// number of bytes up to and including STOP.
PthValue unpickle(std::string_view bytes, const PersistentLoader& load_persistent,
                  size_t* consumed = nullptr);

}  // namespace olv2
