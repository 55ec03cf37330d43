#pragma once
#include "olv2/util/pth/pth_value.h"

namespace olv2 {

// numpy objects as pickles hold them, decoded without numpy.

// `numpy.dtype(code, align, copy)`: an opaque value of type "numpy.dtype" whose note holds the
// type code ("f8"); BUILD adds the byte order ("<f8").
PthValue numpy_dtype(const PthValue& args);
void numpy_dtype_set_state(PthValue& dtype, const PthValue& state);

// `numpy.core.multiarray.scalar(dtype, raw bytes)`: a bool, int or float.
PthValue numpy_scalar(const PthValue& args);

// `numpy.core.multiarray._reconstruct(...)`: a placeholder completed by BUILD with the state
// (version, shape, dtype, is_fortran, raw bytes); it then becomes a tensor.
PthValue numpy_array_placeholder();
bool is_numpy_array_placeholder(const PthValue& value);
void numpy_array_set_state(PthValue& array, const PthValue& state);

}  // namespace olv2
