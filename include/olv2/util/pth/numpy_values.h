#pragma once
// numpy dtypes, scalars and arrays as pickles hold them, read and written without numpy.
#include "olv2/util/pth/pth_value.h"

namespace olv2 {

class PickleEmitter;

// numpy objects as pickles hold them, decoded and written without numpy.

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

// Writing, as numpy pickles them (under numpy 1.x's module names, which numpy 2 still loads):
// `values` (bool, uint8, int8 to int64, float16 to float64; any device, any strides) as an
// ndarray of its shape in C order, and one element as a numpy scalar (np.float32(0.5), what
// indexing an array gives). Each dtype is written once per pickle and then referred to.
void emit_numpy_array(PickleEmitter& out, const at::Tensor& values);
void emit_numpy_scalar(PickleEmitter& out, const at::Tensor& value);

}  // namespace olv2
