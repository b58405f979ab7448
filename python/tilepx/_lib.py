"""ctypes over libtilepx.so: the structs of include/tilepx/tilepx.h and the
calls the package makes. The structs mirror the header field for field;
tests/python/test_tilepx.py compares their sizes and offsets with a C
compiler's."""
import ctypes
import os

MAX_TENSOR_MAPS = 16
MAX_SCALARS = 32
MAX_PARAMS = 64

MODE_CHECK, MODE_EMIT, MODE_EXPLAIN, MODE_EXPLAIN_JSON = 0, 1, 2, 3


class Result(ctypes.Structure):
    _fields_ = [("ok", ctypes.c_int), ("output", ctypes.c_void_p), ("output_len", ctypes.c_size_t),
                ("diagnostics", ctypes.c_void_p)]


class Options(ctypes.Structure):
    _fields_ = [("target", ctypes.c_char_p), ("defines", ctypes.POINTER(ctypes.c_char_p)), ("ndefines", ctypes.c_int),
                ("lineinfo", ctypes.c_int), ("lineinfo_file", ctypes.c_char_p), ("werror", ctypes.c_int),
                ("no_warnings", ctypes.c_int), ("max_errors", ctypes.c_int), ("diagnostics_json", ctypes.c_int)]


class Diagnostic(ctypes.Structure):
    _fields_ = [("severity", ctypes.c_int), ("file", ctypes.c_char_p), ("line", ctypes.c_int),
                ("column", ctypes.c_int), ("message", ctypes.c_char_p), ("parent", ctypes.c_int),
                ("werror", ctypes.c_int)]


class Diagnostics(ctypes.Structure):
    _fields_ = [("items", ctypes.POINTER(Diagnostic)), ("n", ctypes.c_int)]


SEVERITY = ("error", "warning", "note")


def diagnostics_list(d):
    """a tilepx_diagnostics as a list of dicts: kind, file, line, column,
    message, parent (a note's error or warning, else None), werror"""
    out = []
    for i in range(d.n):
        g = d.items[i]
        out.append({"kind": SEVERITY[g.severity], "file": g.file.decode("utf-8", "replace"), "line": g.line,
                    "column": g.column, "message": g.message.decode("utf-8", "replace"),
                    "parent": g.parent if g.parent >= 0 else None, "werror": bool(g.werror)})
    return out


class GemmChoice(ctypes.Structure):
    _fields_ = [("tile", ctypes.c_char_p), ("kernel", ctypes.c_char_p), ("bm", ctypes.c_int), ("bn", ctypes.c_int),
                ("cluster", ctypes.c_int), ("p", ctypes.c_int), ("q", ctypes.c_int), ("tiles", ctypes.c_longlong),
                ("rounds", ctypes.c_longlong), ("efficiency", ctypes.c_double), ("cost", ctypes.c_double),
                ("why", ctypes.c_char * 320), ("split", ctypes.c_int), ("zero_c", ctypes.c_int),
                ("linear", ctypes.c_int)]


class TensorMap(ctypes.Structure):
    _fields_ = [("param", ctypes.c_char * 64), ("param_index", ctypes.c_int), ("kernel_param_index", ctypes.c_int),
                ("data_type", ctypes.c_int), ("rank", ctypes.c_int),
                ("global_dims", ctypes.c_ulonglong * 5), ("global_strides", ctypes.c_ulonglong * 4),
                ("box_dims", ctypes.c_uint * 5), ("element_strides", ctypes.c_uint * 5),
                ("interleave", ctypes.c_int), ("swizzle", ctypes.c_int), ("l2_promotion", ctypes.c_int),
                ("oob_fill", ctypes.c_int)]


class Scalar(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 64), ("bytes", ctypes.c_int), ("is_signed", ctypes.c_int),
                ("kernel_param_index", ctypes.c_int), ("value", ctypes.c_longlong)]


class Param(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 64), ("dtype", ctypes.c_char * 8), ("elem_bytes", ctypes.c_int),
                ("rank", ctypes.c_int), ("dims", ctypes.c_longlong * 5), ("dim_scalar", ctypes.c_int * 5),
                ("strides", ctypes.c_longlong * 5), ("ld_scalar", ctypes.c_int), ("colmajor", ctypes.c_int),
                ("has_layout", ctypes.c_int), ("storage", ctypes.c_longlong), ("tma", ctypes.c_int),
                ("line", ctypes.c_int), ("col", ctypes.c_int)]


class Launch(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_char * 128), ("line", ctypes.c_int), ("col", ctypes.c_int),
                ("needs_values", ctypes.c_int), ("nscalars", ctypes.c_int),
                ("scalars", Scalar * MAX_SCALARS), ("grid", ctypes.c_longlong * 2), ("block", ctypes.c_int),
                ("cluster", ctypes.c_longlong * 2), ("nparams", ctypes.c_int),
                ("dynamic_shared_bytes", ctypes.c_longlong), ("ntensor_maps", ctypes.c_int),
                ("tensor_maps", TensorMap * MAX_TENSOR_MAPS), ("params", Param * MAX_PARAMS)]


def _candidates():
    env = os.environ.get("TILEPX_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.realpath(__file__))  # through the repository's top-level link
    repo = os.path.dirname(os.path.dirname(here))
    build = os.environ.get("TILEPX_BUILD", "build")
    return [os.path.join(repo, build, "libtilepx.so"), os.path.join(here, "libtilepx.so"), "libtilepx.so.0"]


def load():
    """the library: $TILEPX_LIB, else the repository's build/ (or
    $TILEPX_BUILD), else one installed beside the package or on the loader's path"""
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append(path + ": no such file")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
            continue
        _declare(lib)
        return lib
    raise OSError("tilepx: cannot load libtilepx.so (run `make`, or set TILEPX_LIB): " + "; ".join(errors))


def _declare(lib):
    c = ctypes
    P, R, L = c.c_char_p, c.POINTER(Result), c.POINTER(Launch)
    lib.tilepx_compile.argtypes = [P, c.c_char_p, c.c_size_t, P, c.c_int, R]
    lib.tilepx_compile.restype = c.c_int
    lib.tilepx_launch_of.argtypes = [P, c.c_char_p, c.c_size_t, P, P, c.POINTER(c.c_char_p), c.c_int, L, R]
    lib.tilepx_launch_of.restype = c.c_int
    O, D = c.POINTER(Options), c.POINTER(Diagnostics)
    lib.tilepx_compile_ex.argtypes = [P, c.c_char_p, c.c_size_t, c.c_int, O, R, D]
    lib.tilepx_compile_ex.restype = c.c_int
    lib.tilepx_launch_of_ex.argtypes = [P, c.c_char_p, c.c_size_t, P, c.POINTER(c.c_char_p), c.c_int, O, L, R]
    lib.tilepx_launch_of_ex.restype = c.c_int
    lib.tilepx_diagnostics_free.argtypes = [D]
    lib.tilepx_diagnostics_free.restype = None
    LL = c.c_longlong
    lib.tilepx_gemm_choose.argtypes = [LL, LL, LL, P, P, c.c_int, c.POINTER(GemmChoice)]
    lib.tilepx_gemm_choose.restype = c.c_int
    lib.tilepx_result_free.argtypes = [R]
    lib.tilepx_result_free.restype = None
    lib.tilepx_version.argtypes = []
    lib.tilepx_version.restype = c.c_char_p
    V, S, N = c.c_void_p, c.c_char_p, c.c_size_t
    lib.tilepx_cuda_open.argtypes = [S, N]
    lib.tilepx_cuda_open.restype = V
    lib.tilepx_cuda_close.argtypes = [V]
    lib.tilepx_cuda_close.restype = None
    lib.tilepx_cuda_context.argtypes = [V, c.c_int, S, N]
    lib.tilepx_cuda_load.argtypes = [V, c.c_char_p, c.POINTER(V), S, N]
    lib.tilepx_cuda_function.argtypes = [V, V, c.c_char_p, c.POINTER(V), S, N]
    lib.tilepx_cuda_unload.argtypes = [V, V]
    lib.tilepx_cuda_unload.restype = None
    lib.tilepx_cuda_run.argtypes = [V, V, L, c.POINTER(c.c_ulonglong), c.c_int, V, S, N]
    lib.tilepx_cuda_sync.argtypes = [V, V, S, N]
    for f in (lib.tilepx_cuda_context, lib.tilepx_cuda_load, lib.tilepx_cuda_function, lib.tilepx_cuda_run,
              lib.tilepx_cuda_sync):
        f.restype = c.c_int


def text(ptr, n=None):
    if not ptr:
        return ""
    raw = ctypes.string_at(ptr, n) if n is not None else ctypes.string_at(ptr)
    return raw.decode("utf-8", "replace")
