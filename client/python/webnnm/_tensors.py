"""NumPy arrays to and from the daemon's Tensor messages: inputs go as raw
little-endian bytes of their own data type, so float16, int32, int64 and
bool arrays keep their type and shape on the wire."""
import numpy as np

from webnnm.v1 import webnnm_pb2 as pb

# WebNN's type names and NumPy's.
TYPES = {"float32": np.float32, "float16": np.float16, "float64": np.float64,
         "int8": np.int8, "uint8": np.uint8, "int16": np.int16,
         "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32,
         "int64": np.int64, "uint64": np.uint64, "bool": np.bool_}
_NAMES = {np.dtype(t): n for n, t in TYPES.items()}


def to_tensor(name, array):
    """A Tensor of `array` (a NumPy array or what np.asarray takes)."""
    array = np.asarray(array)
    if array.dtype not in _NAMES:
        raise TypeError(f"input '{name}': data type {array.dtype} is not one "
                        f"the daemon takes ({', '.join(TYPES)})")
    le = array.astype(array.dtype.newbyteorder("<"), copy=False)
    return pb.Tensor(name=name, data_type=_NAMES[array.dtype],
                     shape=list(array.shape),
                     raw=np.ascontiguousarray(le).tobytes())


def from_tensor(tensor, data_type=None):
    """The array of a Tensor, as `data_type` (WebNN's name) when given."""
    shape = tuple(tensor.shape)
    if tensor.raw:
        dtype = TYPES.get(tensor.data_type or "float32", np.float32)
        array = np.frombuffer(tensor.raw,
                              dtype=np.dtype(dtype).newbyteorder("<"))
    else:
        array = np.asarray(tensor.values, dtype=np.float64)
    array = array.reshape(shape)
    target = TYPES.get(data_type or tensor.data_type or "float32", np.float32)
    return array.astype(target)
