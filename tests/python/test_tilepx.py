"""The Python package without a GPU (make test): compiling, located errors,
the launch record, and every argument check against it, on fake arrays that
expose __cuda_array_interface__ or a DLPack capsule. Prints "N passed, M
failed" last. Run: python3 tests/python/test_tilepx.py"""
import ctypes
import ctypes.util
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))
os.chdir(REPO)
import tilepx  # noqa: E402
from tilepx import _arrays, _lib  # noqa: E402

GEMM = "examples/gemm_sm90.tile"


class Cai:
    """a CUDA array as CuPy or Numba show one: __cuda_array_interface__ only"""

    def __init__(self, shape, typestr, ptr=0x7f0000000000, strides=None):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "data": (ptr, False),
                                         "strides": strides, "version": 3}


class DLPackArray:
    """a CUDA tensor exporting a real DLPack capsule (device, type, strides)"""

    def __init__(self, shape, code, bits, device_type=2, ptr=0x7f0000100000, strides=None):
        n = len(shape)
        self._shape = (ctypes.c_int64 * n)(*shape)
        self._strides = (ctypes.c_int64 * n)(*strides) if strides else None
        t = _arrays._DLTensor()
        t.data, t.ndim, t.byte_offset = ptr, n, 0
        t.device.device_type, t.device.device_id = device_type, 0
        t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
        t.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64))
        if self._strides is not None:
            t.strides = ctypes.cast(self._strides, ctypes.POINTER(ctypes.c_int64))
        # a DLManagedTensor: the DLTensor, then manager_ctx and deleter (NULL)
        self._managed = (ctypes.c_char * (ctypes.sizeof(t) + 16))()
        ctypes.memmove(self._managed, ctypes.addressof(t), ctypes.sizeof(t))
        self.streams = []

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self._managed), b"dltensor", None)


def gemm_args(M=200, N=300, K=136):
    return Cai((M, K), "<f2"), Cai((N, K), "<f2"), Cai((M, N), "<f4")


class Compile(unittest.TestCase):
    def test_path_source_bytes_pathlib(self):
        with open(GEMM) as f:
            text = f.read()
        for what in (GEMM, pathlib.Path(GEMM), text, text.encode()):
            k = tilepx.compile(what)
            self.assertEqual(k.name, "gemm_sm90")
            self.assertIn(".entry gemm_sm90", k.ptx)
            self.assertIn(".target sm_90a", k.ptx)
        self.assertEqual(tilepx.compile(text).path, "<source>")

    def test_ptx_is_the_clis(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "g.ptx")
            subprocess.run([os.path.join(os.environ.get("TILEPX_BUILD", "build"), "tilepx"), "emit", GEMM, "-o", out],
                           check=True)
            with open(out) as f:
                self.assertEqual(tilepx.compile(GEMM, target=None).ptx, f.read())

    def test_version(self):
        with open("include/tilepx/tilepx.h") as f:
            want = [l.split('"')[1] for l in f if "TILEPX_VERSION_STRING" in l and '"' in l][0]
        self.assertEqual(tilepx.version(), want)

    def test_error_is_located(self):
        src = "target sm_90\nkernel k\nthreads 32\nparam A f32 [32]\nshared S f32 [32]\ncta copy S, B\n"
        with self.assertRaises(tilepx.Error) as c:
            tilepx.compile(src)
        e = c.exception
        self.assertEqual((e.file, e.line, e.column), ("<source>", 6, 13))
        self.assertEqual(e.message, "unknown buffer 'B' in kernel 'k'")
        self.assertIn("<source>:6:13: error: unknown buffer 'B'", str(e))
        self.assertIn(" cta copy S, B\n", str(e))
        self.assertIn("^", str(e))

    def test_missing_file(self):
        with self.assertRaises(FileNotFoundError):
            tilepx.compile("no/such/file.tile")

    def test_kernel_choice_and_target(self):
        src = ("target sm_80\nkernel one\nthreads 32\nparam A f32 [32]\nshared S f32 [32]\ncta copy S, A\n"
               "kernel two\nthreads 64\nparam B f32 [64]\nshared T f32 [64]\ncta copy T, B\n")
        self.assertEqual(tilepx.compile(src).name, "one")
        two = tilepx.compile(src, kernel="two", target=None)
        self.assertEqual((two.name, two.line), ("two", 7))
        self.assertIn(".target sm_80", two.ptx)
        with self.assertRaises(tilepx.Error) as c:
            tilepx.compile(src, kernel="three")
        self.assertIn("no kernel named 'three'", str(c.exception))
        with self.assertRaises(tilepx.Error) as c:
            tilepx.compile(src, target="sm_42")
        self.assertIn("unknown target 'sm_42'", str(c.exception))


class Record(unittest.TestCase):
    def setUp(self):
        self.k = tilepx.compile(GEMM)

    def test_explain(self):
        e = self.k.explain()
        self.assertEqual(e["kernel"], "gemm_sm90")
        self.assertEqual(e["launch"]["block"], [384, 1, 1])
        self.assertEqual([t["param"] for t in e["tensor_maps"]], ["A", "B"])
        self.assertTrue(any(r.get("op") == "copy_async" for r in e["records"]))

    def test_params(self):
        self.assertEqual(self.k.scalars, ["M", "N", "K"])
        a = self.k.params[0]
        self.assertEqual((a["name"], a["dtype"], a["shape_scalars"], a["tma"]), ("A", "f16", ["M", "K"], True))

    def test_bound_record(self):
        r = self.k.launch_record(M=200, N=300, K=136)
        self.assertEqual(r["grid"], [2, 2, 1])  # cdiv(300, 256), cdiv(200, 128)
        self.assertEqual(r["dynamic_shared_bytes"], 196672)
        self.assertEqual(r["tensor_maps"][0]["global_dims"], [136, 200])
        self.assertEqual(r["tensor_maps"][0]["global_strides"], [272])
        self.assertEqual([s["kernel_param_index"] for s in r["scalars"]], [3, 4, 5])
        self.assertEqual(r["params"][2]["strides"], [300, 1])

    def test_fact_broken(self):
        with self.assertRaises(tilepx.Error) as c:
            self.k.launch_record(M=200, N=300, K=130)
        e = c.exception
        self.assertEqual((e.line, e.column), (20, 1))  # at the assume
        self.assertIn("K=130 breaks the fact 'K % 8 == 0' (line 20)", e.message)
        self.assertIn(" assume K % 8 == 0\n ^", str(e))

    def test_value_missing(self):
        with self.assertRaises(tilepx.Error) as c:
            self.k.launch_record(M=200, N=300)
        self.assertIn("scalar param 'K' of kernel 'gemm_sm90' has no value", str(c.exception))

    def test_structs_match_the_header(self):
        cc = shutil.which(os.environ.get("CC", "cc"))
        if not cc:
            self.skipTest("no C compiler")
        fields = [("tilepx_launch", "Launch", f) for f in ("line", "scalars", "grid", "cluster", "nparams",
                                                           "dynamic_shared_bytes", "tensor_maps", "params")]
        fields += [("tilepx_param", "Param", f) for f in ("dtype", "dims", "dim_scalar", "strides", "ld_scalar",
                                                          "storage", "tma", "col")]
        fields += [("tilepx_tensor_map", "TensorMap", f) for f in ("global_dims", "box_dims", "oob_fill")]
        fields += [("tilepx_scalar", "Scalar", "value"), ("tilepx_result", "Result", "diagnostics")]
        fields += [("tilepx_options", "Options", f) for f in ("defines", "ndefines", "lineinfo", "lineinfo_file",
                                                              "werror", "no_warnings", "max_errors",
                                                              "diagnostics_json")]
        fields += [("tilepx_diagnostic", "Diagnostic", f) for f in ("file", "line", "column", "message", "parent",
                                                                    "werror")]
        fields += [("tilepx_diagnostics", "Diagnostics", "n")]
        fields += [("tilepx_gemm_choice", "GemmChoice", f) for f in ("why", "split", "zero_c", "linear")]
        structs = ("tilepx_launch", "tilepx_param", "tilepx_tensor_map", "tilepx_scalar", "tilepx_result",
                   "tilepx_options", "tilepx_diagnostic", "tilepx_diagnostics", "tilepx_gemm_choice")
        prog = '#include <stddef.h>\n#include <stdio.h>\n#include "tilepx/tilepx.h"\nint main(void)\n{\n'
        for c_name in structs:
            prog += '\tprintf("%%zu\\n", sizeof(%s));\n' % c_name
        for c_name, _, f in fields:
            prog += '\tprintf("%%zu\\n", offsetof(%s, %s));\n' % (c_name, f)
        prog += "\treturn 0;\n}\n"
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "s.c"), "w") as f:
                f.write(prog)
            subprocess.run([cc, "-std=c11", "-Iinclude", os.path.join(d, "s.c"), "-o", os.path.join(d, "s")],
                           check=True)
            got = [int(x) for x in subprocess.run([os.path.join(d, "s")], capture_output=True,
                                                  text=True).stdout.split()]
        want = [ctypes.sizeof(getattr(_lib, p)) for p in ("Launch", "Param", "TensorMap", "Scalar", "Result", "Options",
                                                          "Diagnostic", "Diagnostics", "GemmChoice")]
        want += [getattr(getattr(_lib, p), f).offset for _, p, f in fields]
        self.assertEqual(got, want)


def raises(test, fn, *where):
    """fn() raises tilepx.Error whose message contains every string of where;
    returns it"""
    with test.assertRaises(tilepx.Error) as c:
        fn()
    for w in where:
        test.assertIn(w, str(c.exception))
    return c.exception


class FloatScalars(unittest.TestCase):
    def test_float_value_bits(self):
        """a float scalar param takes a Python float (or int): the record holds its f32 bits"""
        k = tilepx.compile("bench/rmsnorm_rows.tile")
        by_name = lambda r: {s["name"]: s["value"] for s in r["scalars"]}
        self.assertEqual(by_name(k.launch_record(N=4096, R=3, eps=1e-6))["eps"], 0x358637BD)
        self.assertEqual(by_name(k.launch_record(N=4096, R=3, eps=1))["eps"], 0x3F800000)
        raises(self, lambda: k.launch_record(N=4096.0, R=3, eps=1e-6), "N=4096.0")


class Arguments(unittest.TestCase):
    def setUp(self):
        self.k = tilepx.compile(GEMM)

    def test_inferred_from_shapes(self):
        launch = self.k.check(*gemm_args())
        self.assertEqual(launch.values, {"M": 200, "N": 300, "K": 136})
        self.assertEqual(launch.record["grid"], [2, 2, 1])
        self.assertEqual(launch.pointers, [0x7f0000000000] * 3)
        self.assertEqual(launch.stream, 0)
        self.assertEqual(self.k.check(*gemm_args(), M=200, N=300, K=136).values, launch.values)

    def test_given_value_disagrees_with_shape(self):
        e = raises(self, lambda: self.k.check(*gemm_args(), K=64), "argument 0 ('A')", "shape (200, 136)",
                   "[M=200, K=64]")
        self.assertEqual((e.file, e.line, e.column), (GEMM, 25, 8))

    def test_inferred_values_disagree(self):
        a, b, c = gemm_args()
        raises(self, lambda: self.k.check(a, Cai((300, 128), "<f2"), c), "K is 136 from dim 1 of 'A' but 128 from "
               "dim 1 of 'B'")

    def test_fact_checked_on_inferred_values(self):
        e = raises(self, lambda: self.k.check(*gemm_args(K=36)), "K=36 breaks the fact 'K % 8 == 0'")
        self.assertEqual(e.line, 20)
        # a value no fact limits but the grid refuses: at the kernel
        e = raises(self, lambda: self.k.check(*gemm_args(M=0, N=300, K=136)), "gives an empty grid")
        self.assertEqual(e.line, 15)

    def test_dtype(self):
        a, b, _ = gemm_args()
        e = raises(self, lambda: self.k.check(a, b, Cai((200, 300), "<f2")), "argument 2 ('C')",
                   "its elements are f16, the param's are f32")
        self.assertEqual(e.line, 27)

    def test_rank(self):
        a, b, _ = gemm_args()
        raises(self, lambda: self.k.check(a, b, Cai((200 * 300,), "<f4"), M=200, N=300, K=136),
               "it has 1 dimensions, the param 2")

    def test_strides(self):
        a, b, _ = gemm_args()
        raises(self, lambda: self.k.check(a, b, Cai((200, 300), "<f4", strides=(4 * 304, 4))),
               "strides (304, 1) (elements) are not the param's (300, 1) (row-major)")
        raises(self, lambda: self.k.check(a, b, Cai((200, 300), "<f4", strides=(4, 800))), "(row-major)")
        raises(self, lambda: self.k.check(a, b, Cai((200, 300), "<f4", strides=(1202, 2))), "not whole elements")
        # explicit row-major strides are row-major
        self.k.check(a, b, Cai((200, 300), "<f4", strides=(1200, 4)))

    def test_count_and_names(self):
        raises(self, lambda: self.k.check(*gemm_args()[:2]), "takes 3 arrays (A, B, C), 2 given")
        raises(self, lambda: self.k.check(*gemm_args(), Q=3), "has no scalar param 'Q'", "note: its scalar params: M,"
               " N, K")
        raises(self, lambda: self.k.check(*gemm_args(), K=-8), "K=-8: a scalar's value is an integer")
        raises(self, lambda: self.k.check(*gemm_args(), K=True), "K=True")
        raises(self, lambda: self.k.check(*gemm_args(), K=8.0), "K=8.0")

    def test_not_an_array(self):
        a, b, _ = gemm_args()
        raises(self, lambda: self.k.check(a, b, [1, 2, 3]), "argument 2 ('C')", "a list is neither a CUDA array")

    def test_pointer(self):
        a, b, _ = gemm_args()
        raises(self, lambda: self.k.check(a, b, Cai((200, 300), "<f4", ptr=0x7f0000000004)),
               "address 0x7f0000000004 is not 16-byte aligned")
        raises(self, lambda: self.k.check(a, b, Cai((200, 300), "<f4", ptr=0)), "device address is 0")

    def test_checks_after_a_passing_call(self):
        """the per-signature cache of passed checks: a call that passed does not let a different array through"""
        a, b, c = gemm_args()
        self.k.check(a, b, c)
        self.k.check(a, b, Cai((200, 300), "<f4", ptr=0x7f0000000100))  # same signature, other address
        raises(self, lambda: self.k.check(a, b, Cai((200, 300), "<f4", ptr=0x7f0000000008)),
               "address 0x7f0000000008 is not 16-byte aligned")
        raises(self, lambda: self.k.check(a, b, Cai((200, 301), "<f4")), "N is 300 from dim 0 of 'B' but 301")
        raises(self, lambda: self.k.check(a, b, Cai((200, 300), "<f2")), "its elements are")

    def test_stream(self):
        self.assertEqual(self.k.check(*gemm_args(), stream=1234).stream, 1234)

        class S:
            cuda_stream = 99
        self.assertEqual(self.k.check(*gemm_args(), stream=S()).stream, 99)
        with self.assertRaises(TypeError):
            self.k.check(*gemm_args(), stream="s")

    def test_ld_inferred_from_row_stride(self):
        k = tilepx.compile("tests/gpu/ragged_ld.tile", target=None)
        a = Cai((70, 40), "<V2", strides=(2 * 56, 2))  # no bf16 typestr: DLPack below
        raises(self, lambda: k.check(a, Cai((70, 40), "<V2"), Cai((70, 40), "<V2")), "elements are typestr '<V2'")
        a = DLPackArray((70, 40), 4, 16, strides=(56, 1))
        b, c = DLPackArray((70, 40), 4, 16), DLPackArray((70, 40), 4, 16)
        launch = k.check(a, b, c)
        self.assertEqual(launch.values, {"M": 70, "K": 40, "LDA": 56})
        self.assertEqual(launch.record["tensor_maps"][0]["global_strides"], [112])
        e = raises(self, lambda: k.check(a, b, c, LDA=64), "argument 0 ('A')", "strides (56, 1) (elements) are not "
                   "the param's (64, 1) (rows LDA elements apart)")
        self.assertEqual(e.line, 19)
        raises(self, lambda: k.check(DLPackArray((70, 40), 4, 16, strides=(32, 1)), b, c), "LDA=32 is less than "
               "the 40 elements of a row of 'A'")

    def test_rank3_runtime_extents(self):
        # [BH, S, 64] bf16 params: BH and S read from the 3-D shapes, the 3-D tensor map's
        # runtime dims and byte strides filled in, a disagreeing head count refused
        k = tilepx.compile("tests/gpu/ragged_tma_rank3.tile", target=None)
        q, o = DLPackArray((3, 37, 64), 4, 16), DLPackArray((3, 37, 64), 4, 16)
        launch = k.check(q, o)
        self.assertEqual(launch.values, {"BH": 3, "S": 37})
        self.assertEqual(launch.record["grid"], [1, 3, 1])
        self.assertEqual(launch.record["params"][0]["strides"], [37 * 64, 64, 1])
        t = launch.record["tensor_maps"][0]
        self.assertEqual((t["rank"], t["global_dims"], t["global_strides"], t["box_dims"]),
                         (3, [64, 37, 3], [128, 37 * 128], [64, 64, 1]))
        raises(self, lambda: k.check(q, DLPackArray((2, 37, 64), 4, 16)), "BH is 3 from dim 0 of 'Q' but 2 from "
               "dim 0 of 'O'")
        raises(self, lambda: k.check(DLPackArray((3 * 37, 64), 4, 16), o), "it has 2 dimensions, the param 3")

    def test_colmajor(self):
        k = tilepx.compile("tests/gpu/colmajor_const.tile", target=None)
        p = k.launch_record()["params"]
        self.assertEqual((p[0]["strides"], p[1]["strides"]), ([1, 4], [8, 1]))
        args = [Cai((4, 8), "<f4", strides=(4, 16)), Cai((4, 8), "<f4"), Cai((16, 8), "<f2", strides=(2, 32)),
                Cai((16, 8), "<f2", strides=(2, 32))]
        k.check(*args)
        args[0] = Cai((4, 8), "<f4")
        raises(self, lambda: k.check(*args), "argument 0 ('A')", "(column-major)")

    def test_storage_past_the_shape(self):
        src = ("target sm_90\nkernel k\nthreads 32\nparam A f32 [32] storage 64\nshared S f32 [32]\n"
               "cta copy S, A\n")
        k = tilepx.compile(src, target=None)
        self.assertEqual(k.launch_record()["params"][0]["storage"], 64)
        raises(self, lambda: k.check(Cai((32,), "<f4")), "a param with a declared layout or storage takes 64 "
               "contiguous elements; this is (32,)")
        raises(self, lambda: k.check(Cai((64,), "<f4", strides=(8,))), "takes 64 contiguous elements")
        k.check(Cai((64,), "<f4"))
        k.check(Cai((8, 8), "<f4"))
        
    def test_dlpack(self):
        a = DLPackArray((200, 136), 2, 16)
        b, c = DLPackArray((300, 136), 2, 16), DLPackArray((200, 300), 2, 32)
        self.assertEqual(self.k.check(a, b, c, stream=7).values, {"M": 200, "N": 300, "K": 136})
        self.assertEqual(a.streams[-1], 7)  # the producer is told the consumer's stream
        self.k.check(a, b, c, stream=0)
        self.assertEqual(a.streams[-1], 1)  # DLPack's name for the legacy default stream
        raises(self, lambda: self.k.check(a, b, DLPackArray((200, 300), 4, 16)), "elements are bf16")
        raises(self, lambda: self.k.check(a, b, DLPackArray((200, 300), 2, 32, device_type=1)),
               "not in CUDA device memory (DLPack device CPU)")

    def test_no_driver(self):
        try:
            ctypes.CDLL("libcuda.so.1")
            self.skipTest("a CUDA driver is installed: the launch is tests/gpu/python_torch.py's")
        except OSError:
            pass
        e = raises(self, lambda: self.k(*gemm_args()), "no CUDA driver: libcuda.so.1 not found")
        self.assertIsNone(e.line)


CONST = "target sm_90\ndefine T 32\ndefine N T * 4\nkernel k\nthreads T\nparam A f32 [N]\nshared S f32 [N]\ncta copy S, A\n"


def strip_comments(ptx):
    return "\n".join(l for l in ptx.splitlines() if not l.strip().startswith("//"))


class Options(unittest.TestCase):
    """tilepx.compile(..., defines=, lineinfo=, werror=) and k.diagnostics"""

    def test_defines(self):
        k = tilepx.compile(CONST, target=None, defines={"T": 64})
        self.assertIn(".reqntid 64", k.ptx)
        self.assertEqual(k.params[0]["shape"], [256])  # the record sees N = 4 T too
        self.assertEqual(k.launch_record()["block"][0], 64)
        self.assertIn(".reqntid 32", tilepx.compile(CONST, target=None).ptx)

    def test_defines_family_file(self):
        k = tilepx.compile("bench/softmax_rows_any.tile", target=None, defines={"T": 64, "KERNEL": "softmax_rows_small"})
        self.assertEqual(k.name, "softmax_rows_small")
        self.assertEqual(strip_comments(k.ptx), strip_comments(tilepx.compile("tests/gpu/softmax_rows_small.tile",
                                                                              target=None).ptx))

    def test_define_not_a_number_is_located(self):
        with self.assertRaises(tilepx.Error) as c:
            tilepx.compile(CONST, defines={"T": "abc"})
        e = c.exception
        self.assertEqual((e.line, e.column), (3, 10))
        self.assertEqual([(i["kind"], i["line"], i["parent"]) for i in e.items][:2], [("error", 3, None), ("note", 3, 0)])
        self.assertIn("-D T=abc", e.items[1]["message"])

    def test_define_arguments(self):
        for bad in ({"1X": 3}, {"T": 1.5}, {"T": ""}, {"T": True}):
            with self.assertRaises(ValueError):
                tilepx.compile(CONST, defines=bad)
        with self.assertRaises(tilepx.Error) as c:
            tilepx.compile(CONST, defines={"Q": 3})
        self.assertIn("-D Q=3: no 'define Q'", str(c.exception))

    def test_lineinfo(self):
        k = tilepx.compile(GEMM, lineinfo=True)
        self.assertIn('.file 1 "%s"' % os.path.abspath(GEMM), k.ptx)
        self.assertRegex(k.ptx, r"\.loc 1 \d+ \d+")
        self.assertNotIn(".loc", tilepx.compile(GEMM).ptx)

    def test_diagnostics_and_werror(self):
        w = "tests/warn/cp_async_never_waited.tile"
        k = tilepx.compile(w, target=None)
        self.assertEqual([(d["kind"], d["line"], d["column"]) for d in k.diagnostics if d["kind"] != "note"],
                         [("warning", 10, 1)])
        self.assertIn("never committed", k.diagnostics[0]["message"])
        self.assertEqual(tilepx.compile(GEMM).diagnostics, [])
        with self.assertRaises(tilepx.Error) as c:
            tilepx.compile(w, target=None, werror=True)
        self.assertEqual((c.exception.line, c.exception.items[0]["werror"]), (10, True))


class GemmChoose(unittest.TestCase):
    def test_pick(self):
        c = tilepx.gemm_choose(4096, 4096, 4096, "f16", "f32", 132)  # a linear tile walk, one CTA per SM
        self.assertTrue(c["tile"].endswith("bench/gemm_sm90_linear_256x256.tile"), c["tile"])
        self.assertEqual((c["values"], c["kernel"], c["linear"]),
                         ({"M": 4096, "N": 4096, "K": 4096, "P": 132}, "gemm_sm90_linear_256x256", True))
        k = tilepx.compile(c["tile"], kernel=c["kernel"])
        self.assertEqual(k.launch_record(**c["values"])["grid"][:2], [1, 132])
        c = tilepx.gemm_choose(128, 8192, 8192, "f16", "f32", 132)  # a 2-D window: P and Q
        self.assertEqual((c["values"]["P"], c["values"]["Q"], c["linear"]), (2, 64, False))

    def test_refused(self):
        with self.assertRaises(ValueError) as e:
            tilepx.gemm_choose(100, 100, 100, "f16", "f32", 132)  # K % 8
        self.assertIn("K", str(e.exception))


class AttentionChoose(unittest.TestCase):
    def test_pick(self):
        c = tilepx.attention_choose(64, False, 4096, "bf16", 132)  # the persistent hd64 default: CTAS
        self.assertEqual((c["kernel"], c["values"]), ("attention_fwd_hd64", {"CTAS": 132}))
        self.assertTrue(c["tile"].endswith("bench/attention_fwd_sm90.tile"), c["tile"])
        c = tilepx.attention_choose(128, True, 2048)
        self.assertEqual((c["kernel"], c["values"]), ("attention_fwd_hd128_causal", {}))
        self.assertTrue(c["tile"].endswith("examples/attention_fwd_sm90.tile"), c["tile"])
        self.assertEqual(tilepx.attention_choose(64, True, 4096)["kernel"], "attention_fwd_hd64_causal")
        c = tilepx.attention_choose(64, True, 4097)  # past the default's measured range
        self.assertEqual(c["kernel"], "attention_fwd_hd64_causal_m192_n128_ov_hm_chain_ftz")
        self.assertEqual(tilepx.attention_choose(64, True, 16384, "f16")["kernel"], "attention_fwd_hd64_causal_f16")
        for d in (64, 128, 256):  # every pick is a kernel of its file
            for causal in (False, True):
                for S in (1, 2048, 16384):
                    for t in ("bf16", "f16"):
                        c = tilepx.attention_choose(d, causal, S, t)
                        self.assertIn("\nkernel %s\n" % c["kernel"], open(c["tile"]).read())

    def test_refused(self):
        with self.assertRaises(ValueError):
            tilepx.attention_choose(96, False, 128)


class Cli(unittest.TestCase):
    def run_cli(self, *args):
        env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
        return subprocess.run([sys.executable, "-m", "tilepx"] + list(args), capture_output=True, text=True, env=env)

    def test_emit_and_explain(self):
        out = self.run_cli("emit", GEMM)
        self.assertEqual((out.returncode, out.stdout), (0, tilepx.compile(GEMM).ptx))
        out = self.run_cli("explain", GEMM)
        self.assertEqual(out.returncode, 0)
        self.assertIn('"tensor_maps"', out.stdout)
        out = self.run_cli("emit", "-")
        self.assertEqual(out.returncode, 1)

    def test_import_from_the_top_level(self):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        out = subprocess.run([sys.executable, "-c", "import tilepx; print(tilepx.version())"], cwd=REPO,
                             capture_output=True, text=True, env=env)
        self.assertEqual((out.returncode, out.stdout.strip()), (0, tilepx.version()), out.stderr)

    def test_error_exit(self):
        with tempfile.NamedTemporaryFile("w", suffix=".tile", delete=False) as f:
            f.write("target sm_90\nkernel k\nthreads 32\nparam A f32 [32]\nshared S f32 [32]\ncta copy S, B\n")
        try:
            out = self.run_cli("emit", f.name)
            self.assertEqual(out.returncode, 1)
            self.assertIn("%s:6:13: error: unknown buffer 'B'" % f.name, out.stderr)
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=1).result
    failed = len(result.failures) + len(result.errors)
    print("%d passed, %d failed" % (result.testsRun - failed - len(result.skipped), failed))
    sys.exit(1 if failed else 0)
