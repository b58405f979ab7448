"""A kernel argument as tilepx checks it: device address, shape, strides in
elements, element type, device. Read from __cuda_array_interface__ (CuPy,
Numba, torch CUDA tensors except bf16) or from DLPack (__dlpack__: torch
bf16 tensors and everything else), standard library only."""
import ctypes

# __cuda_array_interface__ typestr -> tilepx dtype
_TYPESTR = {"|i1": "i8", "|u1": "u8", "<i2": "i16", "<u2": "u16", "<f2": "f16", "<i4": "i32", "<u4": "u32",
            "<f4": "f32", "<i8": "i64", "<u8": "u64", "<f8": "f64"}
# DLPack (type code, bits) -> tilepx dtype; codes: 0 int, 1 uint, 2 float, 4 bfloat
_DLPACK = {(0, 8): "i8", (1, 8): "u8", (0, 16): "i16", (1, 16): "u16", (2, 16): "f16", (4, 16): "bf16",
           (0, 32): "i32", (1, 32): "u32", (2, 32): "f32", (0, 64): "i64", (1, 64): "u64", (2, 64): "f64"}
_DL_CUDA, _DL_CUDA_MANAGED = 2, 13
_DL_DEVICE_NAMES = {1: "CPU", 2: "CUDA", 3: "CUDA host", 13: "CUDA managed"}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class ArgError(Exception):
    """an argument tilepx cannot read (the caller locates it)"""


class Array:
    """what a launch needs of one argument"""

    def __init__(self, ptr, shape, strides, dtype, itemsize, device, source, keep=None):
        self.ptr = ptr
        self.shape = tuple(shape)
        self.strides = tuple(strides) if strides is not None else _row_major(self.shape)
        self.dtype = dtype  # a tilepx dtype name, or a description of an unknown one
        self.itemsize = itemsize
        self.device = device  # an ordinal, or None when the interface does not say
        self.source = source  # "__cuda_array_interface__" or "DLPack"
        self._keep = keep  # the DLPack capsule: its memory lives while this does


def _row_major(shape):
    st, out = 1, []
    for d in reversed(shape):
        out.append(st)
        st *= d
    return tuple(reversed(out))


def _from_cai(obj, cai):
    ptr = cai["data"][0] or 0
    typestr = cai["typestr"]
    dtype = _TYPESTR.get(typestr, "typestr " + repr(typestr))
    itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 0
    strides = cai.get("strides")
    if strides is not None:
        if not itemsize or any(s % itemsize for s in strides):
            raise ArgError("its strides %s (bytes) are not whole elements of %s" % (tuple(strides), typestr))
        strides = [s // itemsize for s in strides]
    device = None
    dev = getattr(obj, "device", None)
    if getattr(dev, "type", None) == "cuda":  # a torch tensor: its device ordinal
        device = dev.index
    return Array(ptr, cai["shape"], strides, dtype, itemsize, device, "__cuda_array_interface__")


def _from_dlpack(obj, stream):
    try:
        try:
            capsule = obj.__dlpack__(stream=stream) if stream is not None else obj.__dlpack__()
        except TypeError:
            capsule = obj.__dlpack__()
    except (RuntimeError, ValueError, TypeError, BufferError) as e:  # torch: requires_grad, ...
        raise ArgError("its __dlpack__ failed: %s" % e)
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    try:
        addr = get(capsule, b"dltensor")
    except ValueError:
        raise ArgError("its DLPack capsule is not a 'dltensor' (already consumed?)")
    t = _DLTensor.from_address(addr)  # DLManagedTensor starts with its DLTensor
    kind = t.device.device_type
    if kind not in (_DL_CUDA, _DL_CUDA_MANAGED):
        raise ArgError("it is not in CUDA device memory (DLPack device %s)" % _DL_DEVICE_NAMES.get(kind, kind))
    if t.dtype.lanes != 1:
        raise ArgError("its DLPack type has %d lanes" % t.dtype.lanes)
    shape = [t.shape[d] for d in range(t.ndim)]
    strides = [t.strides[d] for d in range(t.ndim)] if t.strides else None
    dtype = _DLPACK.get((t.dtype.code, t.dtype.bits), "DLPack type code %d of %d bits" % (t.dtype.code, t.dtype.bits))
    ptr = (t.data or 0) + t.byte_offset
    return Array(ptr, shape, strides, dtype, t.dtype.bits // 8, t.device.device_id, "DLPack", keep=capsule)


def describe(obj, stream=None):
    """obj as an Array: __cuda_array_interface__ first, DLPack when the
    interface is missing, fails or cannot say the type (torch's bf16: an
    error, or the opaque typestr '<V2' in torch 2.11)"""
    cai_error = None
    if hasattr(type(obj), "__cuda_array_interface__") or hasattr(obj, "__cuda_array_interface__"):
        try:
            cai = obj.__cuda_array_interface__
        except (TypeError, ValueError, AttributeError, RuntimeError) as e:  # torch: bf16, requires_grad
            cai, cai_error = None, e
        # a type the interface cannot name (torch 2.11 gives bf16 as '<V2') goes to DLPack
        if cai is not None and (cai.get("typestr") in _TYPESTR or not hasattr(obj, "__dlpack__")):
            return _from_cai(obj, cai)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, stream)
    if cai_error is not None:
        raise ArgError("its __cuda_array_interface__ failed (%s) and it has no __dlpack__" % cai_error)
    raise ArgError("a %s is neither a CUDA array (__cuda_array_interface__) nor a DLPack tensor (__dlpack__)"
                   % type(obj).__name__)
