"""tilepx from Python: compile a .tile program, check arguments against its
kernel's launch record, and launch it on CUDA arrays (torch tensors, CuPy,
anything with __cuda_array_interface__ or __dlpack__).

    import tilepx, torch
    k = tilepx.compile("examples/gemm_sm90.tile")
    k(A, B, C)                      # M, N, K read from the shapes
    k(A, B, C, M=200, N=300, K=136) # or given, and checked

Standard library only: ctypes over libtilepx.so (docs/python.md)."""
import ctypes
import json
import os
import re
import sys

from . import _arrays, _lib

__all__ = ["compile", "Kernel", "Error", "version", "gemm_choose"]

_state = {}  # the loaded library and the opened driver, each made once


def _library():
    if "lib" not in _state:
        _state["lib"] = _lib.load()
    return _state["lib"]


def version():
    """the library's version, "MAJOR.MINOR.PATCH\""""
    return _library().tilepx_version().decode()


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def gemm_choose(M, N, K, dtype_in="f16", dtype_out="f32", sm_count=132):
    """tilepx_gemm_choose: the GEMM kernel and launch window for C[M, N] =
    A[M, K] B[N, K]^T on a device of sm_count SMs, as a dict: tile (the
    .tile's path, absolute when the repository has it), kernel, values (the
    scalars to launch with: M, N, K, P, and Q except for a linear tile walk),
    zero_c (C must hold zeros before the launch: a split-K kernel adds into
    it), linear (the kernel walks every tile linearly: grid 1 x P, no Q), and
    the chooser's bm, bn, cluster, split, tiles, rounds, efficiency, why. ValueError when no kernel
    of the family computes it (out.why)"""
    c = _lib.GemmChoice()
    if _library().tilepx_gemm_choose(M, N, K, dtype_in.encode(), dtype_out.encode(), sm_count, ctypes.byref(c)) != 0:
        raise ValueError("tilepx.gemm_choose: " + c.why.decode())
    tile = c.tile.decode()
    if os.path.exists(os.path.join(REPO, tile)):
        tile = os.path.join(REPO, tile)
    values = {"M": M, "N": N, "K": K, "P": c.p}
    if not c.linear:
        values["Q"] = c.q
    return {"tile": tile, "kernel": c.kernel.decode(), "values": values, "linear": bool(c.linear),
            "zero_c": bool(c.zero_c), "bm": c.bm, "bn": c.bn, "cluster": c.cluster, "split": c.split,
            "tiles": c.tiles, "rounds": c.rounds, "efficiency": c.efficiency, "why": c.why.decode()}


# attention_choose's table: (head dim, causal) -> [(largest S, file, kernel)], the first entry whose S
# bound holds; the H200's measurements (docs/benchmarks.md, session 15): where no one kernel of a cell row
# is fastest at every sequence length, the row names each kernel's range
_ATTENTION = {
    (64, True): [(4096, "bench/attention_fwd_sm90.tile", "attention_fwd_hd64_causal"),
                 (None, "bench/attention_fwd_sm90_tuned.tile", "attention_fwd_hd64_causal_m192_n128_ov_hm_chain_ftz")],
}


def attention_choose(head_dim, causal, S, dtype="bf16", sm_count=132):
    """the attention forward kernel for head dim 64, 128 or 256, a causal
    mask or none, sequence length S and bf16 or f16, as a dict: tile (the
    .tile's path, absolute when the repository has it), kernel, values (the
    scalars besides BH, S and scale: CTAS = sm_count for a persistent
    kernel) and why. The default kernel attention_fwd_hd<D>[_causal][_f16],
    unless a kernel measured faster at this S (bf16 only). ValueError for
    another head dim or dtype"""
    if head_dim not in (64, 128, 256) or dtype not in ("bf16", "f16") or S < 1:
        raise ValueError("tilepx.attention_choose: head dim 64, 128 or 256, bf16 or f16, S >= 1 (got %r, %r, %r)"
                         % (head_dim, dtype, S))
    name = "attention_fwd_hd%d%s%s" % (head_dim, "_causal" if causal else "", "_f16" if dtype == "f16" else "")
    tile = "examples/attention_fwd_sm90.tile" if (head_dim, dtype) == (128, "bf16") else "bench/attention_fwd_sm90.tile"
    why = "the default kernel of head dim %d, %s" % (head_dim, "causal" if causal else "full")
    for bound, path, kernel in _ATTENTION.get((head_dim, causal), []) if dtype == "bf16" else []:
        if bound is None or S <= bound:
            tile, name = path, kernel
            why = "fastest measured at S %s" % ("<= %d" % bound if bound else "above the other rows' bounds")
            break
    if os.path.exists(os.path.join(REPO, tile)):
        tile = os.path.join(REPO, tile)
    return {"tile": tile, "kernel": name, "values": {"CTAS": sm_count} if _persistent(tile, name) else {}, "why": why}


def _persistent(tile, name):
    """whether kernel `name` of file `tile` takes a CTAS param (it walks its tiles on CTAS CTAs)"""
    if not os.path.exists(tile):
        return False
    text = open(tile).read()
    at = re.search(r"^kernel\s+%s\s*$" % re.escape(name), text, re.M)
    nxt = re.search(r"^kernel\s", text[at.end():], re.M) if at else None
    body = text[at.end():at.end() + nxt.start()] if nxt else (text[at.end():] if at else "")
    return re.search(r"^param\s+CTAS\s", body, re.M) is not None


_ERROR_LINE = re.compile(r"^(.*?):(\d+):(\d+): error: (.*)$", re.M)


class Error(Exception):
    """a located error: str(e) is the diagnostic as the compiler prints it
    (FILE:LINE:COL: error: ... with the source line, a caret and notes);
    file, line, column and message are its first error's parts (None when
    the error has no place in the program, as a missing CUDA driver)"""

    def __init__(self, diagnostics, file=None, line=None, column=None, message=None, items=None):
        super().__init__(diagnostics)
        self.diagnostics = diagnostics
        self.items = items or []  # the compiler's diagnostics as dicts (Kernel.diagnostics' form)
        self.file, self.line, self.column, self.message = file, line, column, message
        m = _ERROR_LINE.search(diagnostics)
        if m and line is None:
            self.file, self.line, self.column, self.message = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        elif self.message is None:
            self.message = diagnostics.strip().splitlines()[0] if diagnostics.strip() else ""


def _located(path, src, line, col, msg, notes=()):
    """an Error at path:line:col, printed as the compiler prints its own"""
    text = "%s:%d:%d: error: %s\n" % (path, line, col, msg)
    lines = src.splitlines()
    if 1 <= line <= len(lines):
        text += " %s\n %s^\n" % (lines[line - 1], " " * (col - 1))
    for n in notes:
        text += "note: %s\n" % n
    return Error(text, path, line, col, msg)


def _read(path_or_source):
    if isinstance(path_or_source, bytes):
        return "<source>", path_or_source.decode()
    if isinstance(path_or_source, os.PathLike) or (
            isinstance(path_or_source, str) and "\n" not in path_or_source and
            (os.path.exists(path_or_source) or path_or_source.endswith(".tile"))):
        path = os.fspath(path_or_source)
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    if isinstance(path_or_source, str):
        return "<source>", path_or_source
    raise TypeError("tilepx.compile takes a path or the program's text, not a %s" % type(path_or_source).__name__)


def _s(raw):
    return raw.decode("utf-8", "replace")


def _param_dict(p, scalars):
    name_of = lambda i: scalars[i] if 0 <= i < len(scalars) else None
    return {"name": _s(p.name), "dtype": _s(p.dtype), "elem_bytes": p.elem_bytes,
            "shape": [p.dims[d] for d in range(p.rank)],
            "shape_scalars": [name_of(p.dim_scalar[d]) for d in range(p.rank)],
            "strides": None if p.has_layout else [p.strides[d] for d in range(p.rank)],
            "ld": name_of(p.ld_scalar), "colmajor": bool(p.colmajor), "layout": bool(p.has_layout),
            "storage": p.storage, "tma": bool(p.tma), "line": p.line, "col": p.col}


def _record_dict(r):
    scalars = [_s(r.scalars[i].name) for i in range(r.nscalars)]
    maps = []
    for i in range(r.ntensor_maps):
        t = r.tensor_maps[i]
        maps.append({"param": _s(t.param), "param_index": t.param_index, "kernel_param_index": t.kernel_param_index,
                     "data_type": t.data_type, "rank": t.rank,
                     "global_dims": list(t.global_dims[:t.rank]), "global_strides": list(t.global_strides[:t.rank - 1]),
                     "box_dims": list(t.box_dims[:t.rank]), "element_strides": list(t.element_strides[:t.rank]),
                     "interleave": t.interleave, "swizzle": t.swizzle, "l2_promotion": t.l2_promotion,
                     "oob_fill": t.oob_fill})
    return {"kernel": _s(r.kernel), "grid": [r.grid[0], r.grid[1], 1], "block": [r.block, 1, 1],
            "cluster": [r.cluster[0], r.cluster[1] or (1 if r.cluster[0] else 0), 1 if r.cluster[0] else 0],
            "dynamic_shared_bytes": r.dynamic_shared_bytes, "needs_values": bool(r.needs_values),
            "scalars": [{"name": scalars[i], "bytes": r.scalars[i].bytes, "signed": bool(r.scalars[i].is_signed),
                         "kernel_param_index": r.scalars[i].kernel_param_index, "value": r.scalars[i].value}
                        for i in range(r.nscalars)],
            "params": [_param_dict(r.params[i], scalars) for i in range(min(r.nparams, _lib.MAX_PARAMS))],
            "tensor_maps": maps}


def _span(shape, strides):
    """elements from the first to the last of an array, both included"""
    if not all(shape):
        return 0
    return 1 + sum((e - 1) * abs(st) for e, st in zip(shape, strides))


class Kernel:
    """one kernel of a compiled program: k.ptx, k.explain(), k.params,
    k.scalars, k.launch_record(**values), k.check(*arrays, **values) and
    k(*arrays, stream=None, **values) to launch"""

    def __init__(self, path, source, kernel=None, target="sm_90a", defines=None, lineinfo=False, werror=False):
        self.path, self.source, self.target = path, source, target
        self.defines = dict(defines or {})
        self.lineinfo, self.werror = bool(lineinfo), bool(werror)
        self._src = source.encode()
        self.diagnostics = []
        self._records = {}
        self._bound = {}      # id(record) -> (record, its dict): the dict built once per record
        self._passed = set()  # array signatures (per record) that passed _check_array
        self._modules = {}
        self.ptx = self._compile(_lib.MODE_EMIT)  # first: a program's errors come with e.items
        rec = self._record({}, kernel)
        self.name = _s(rec.kernel)
        self.line, self.col = rec.line, rec.col
        self._rec0 = rec
        self.scalars = [_s(rec.scalars[i].name) for i in range(rec.nscalars)]
        self._float_scalars = self._float_scalar_names()
        self.params = _record_dict(rec)["params"]

    def _float_scalar_names(self):
        """the kernel's float scalar params (`param NAME f32|f16|bf16`, no shape):
        the launch record does not say a scalar's type, its declaration does"""
        names, lines = set(), self.source.splitlines()
        for text in lines[self.line:]:  # the lines after `kernel NAME`, up to the next kernel
            words = text.split("#")[0].split()
            if words[:1] == ["kernel"]:
                break
            if len(words) == 3 and words[0] == "param" and words[2] in ("f32", "f16", "bf16"):
                names.add(words[1])
        return names

    # ---- the compiler ----
    def _options(self):
        """the tilepx_options of this compilation (kept alive with its strings)"""
        defs = [("%s=%s" % (n, v)).encode() for n, v in self.defines.items()]
        arr = (ctypes.c_char_p * max(len(defs), 1))(*defs)
        o = _lib.Options(target=self.target.encode() if self.target else None, defines=arr, ndefines=len(defs),
                         lineinfo=int(self.lineinfo), werror=int(self.werror))
        if self.lineinfo and os.path.exists(self.path):
            o.lineinfo_file = os.path.abspath(self.path).encode()  # nvcc's choice: the absolute path
        return o, arr

    def _compile(self, mode):
        lib = _library()
        res, dl = _lib.Result(), _lib.Diagnostics()
        opts, _keep = self._options()
        lib.tilepx_compile_ex(self.path.encode(), self._src, len(self._src), mode, ctypes.byref(opts),
                              ctypes.byref(res), ctypes.byref(dl))
        try:
            out = _lib.text(res.output, res.output_len)
            diags = _lib.text(res.diagnostics)
            items = _lib.diagnostics_list(dl)
            ok = res.ok
        finally:
            lib.tilepx_result_free(ctypes.byref(res))
            lib.tilepx_diagnostics_free(ctypes.byref(dl))
        if not ok and not (mode == _lib.MODE_EXPLAIN_JSON and out):
            raise Error(diags or "%s: the program does not compile" % self.path, items=items)
        if mode == _lib.MODE_EMIT:
            self.diagnostics = items  # the warnings of the compilation k.ptx comes from
        return out

    def _record(self, values, kernel=None):
        """the launch record, bound to values (a dict NAME -> int, or float for a float scalar) when given"""
        key = tuple(sorted(values.items()))
        if key in self._records:
            return self._records[key]
        lib = _library()
        sets = [("%s=%s" % (n, repr(v) if isinstance(v, float) else "%d" % v)).encode() for n, v in key]
        arr = (ctypes.c_char_p * max(len(sets), 1))(*sets)
        out, res = _lib.Launch(), _lib.Result()
        name = (kernel if kernel is not None else getattr(self, "name", None))
        opts, _keep = self._options()
        ok = lib.tilepx_launch_of_ex(self.path.encode(), self._src, len(self._src),
                                     name.encode() if name else None, arr, len(sets), ctypes.byref(opts),
                                     ctypes.byref(out), ctypes.byref(res))
        diags = _lib.text(res.diagnostics)
        lib.tilepx_result_free(ctypes.byref(res))
        if not ok:
            raise Error(diags or "%s: no launch record" % self.path)
        if len(self._records) >= 256:  # a bounded cache: many sizes keep the recent ones
            del self._records[next(iter(self._records))]
        self._records[key] = out
        return out

    def explain(self):
        """explain --json for this kernel: its launch record (launch,
        tensor_maps, scalars, grid_cdiv: the keys docs/language.md lists) with
        "records": every other record of the kernel (one per copy, mma, ...)"""
        out = {"kernel": self.name, "records": []}
        for line in self._compile(_lib.MODE_EXPLAIN_JSON).splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            if rec.get("kernel") != self.name:
                continue
            if "launch" in rec:
                out.update(rec)
            else:
                out["records"].append(rec)
        return out

    def launch_record(self, **values):
        """the record a launch with these scalar values uses, as a dict
        (grid, block, cluster, dynamic_shared_bytes, scalars, params,
        tensor_maps); a value that breaks a fact raises Error"""
        return _record_dict(self._record(self._values(values)))

    # ---- arguments ----
    def _error_at_kernel(self, msg, notes=()):
        return _located(self.path, self.source, self.line, self.col, msg, notes)

    def _error_at_param(self, i, msg, notes=()):
        p = self.params[i]
        return _located(self.path, self.source, p["line"], p["col"], "argument %d ('%s'): %s" % (i, p["name"], msg),
                        notes)

    def _values(self, values):
        out = {}
        for name, v in values.items():
            if name not in self.scalars:
                raise self._error_at_kernel("kernel '%s' has no scalar param '%s'" % (self.name, name),
                                            ["its scalar params: %s" % (", ".join(self.scalars) or "none")])
            if name in self._float_scalars and isinstance(v, (int, float)) and not isinstance(v, bool):
                out[name] = float(v)  # a float scalar: passed as a float literal (repr: a point or an exponent)
                continue
            if isinstance(v, bool) or not isinstance(v, int) or v < 0 or v > 2**31 - 1:
                raise self._error_at_kernel("%s=%r: a scalar's value is an integer in 0..2^31-1" % (name, v))
            out[name] = v
        return out

    def _infer(self, arrays, values):
        """scalars the arrays' shapes (and an ld's row stride) give, where not given"""
        seen = {}
        for i, (p, a) in enumerate(zip(self.params, arrays)):
            if len(a.shape) != len(p["shape"]):
                continue
            for d, s in enumerate(p["shape_scalars"]):
                if s:
                    seen.setdefault(s, []).append((a.shape[d], "dim %d of '%s'" % (d, p["name"]), i))
            if p["ld"] and len(a.shape) == 2:
                seen.setdefault(p["ld"], []).append((a.strides[0 if not p["colmajor"] else 1],
                                                     "the line stride of '%s'" % p["name"], i))
        out = dict(values)
        for s, got in seen.items():
            if s in values:
                continue
            v, where, i = got[0]
            for v2, where2, _ in got[1:]:
                if v2 != v:
                    raise self._error_at_param(i, "%s is %d from %s but %d from %s" % (s, v, where, v2, where2))
            out[s] = v
        return out

    def _check_array(self, i, p, a):
        """array a against bound param p: type, shape, strides, extent, alignment"""
        if a.dtype != p["dtype"]:
            raise self._error_at_param(i, "its elements are %s, the param's are %s" % (a.dtype, p["dtype"]))
        want = tuple(p["shape"])
        names = ["%s=%d" % (s, n) if s else str(n) for s, n in zip(p["shape_scalars"], want)]
        placed = p["layout"] or p["storage"] > _span(want, p["strides"])  # by its layout, or `storage N`
        if len(a.shape) != len(want) and not placed:
            raise self._error_at_param(i, "it has %d dimensions, the param %d" % (len(a.shape), len(want)))
        if placed:
            n = 1
            for e in a.shape:
                n *= e
            if a.strides != _arrays._row_major(a.shape) or n < p["storage"]:
                raise self._error_at_param(i, "a param with a declared layout or storage takes %d contiguous "
                                              "elements; this is %s with strides %s" %
                                           (p["storage"], a.shape, a.strides))
        elif a.shape != want:
            raise self._error_at_param(i, "shape %s is not the param's [%s]" % (a.shape, ", ".join(names)))
        else:
            for d, (st, ws) in enumerate(zip(a.strides, p["strides"])):
                if want[d] > 1 and st != ws:
                    how = ("rows %s elements apart" % p["ld"]) if p["ld"] else (
                        "column-major" if p["colmajor"] else "row-major")
                    raise self._error_at_param(i, "strides %s (elements) are not the param's %s (%s)" %
                                               (a.strides, tuple(p["strides"]), how))
        if p["storage"] and not a.ptr:
            raise self._error_at_param(i, "its device address is 0")
        if a.ptr % 16:
            raise self._error_at_param(i, "its address 0x%x is not 16-byte aligned (the kernel's vector and TMA "
                                          "accesses need it)" % a.ptr)

    def check(self, *arrays, stream=None, **values):
        """every argument and value checked against the launch record, nothing
        launched; returns the Launch that __call__ would make"""
        if len(arrays) != len(self.params):
            raise self._error_at_kernel("kernel '%s' takes %d arrays (%s), %d given" % (
                self.name, len(self.params), ", ".join(p["name"] for p in self.params), len(arrays)))
        descs = []
        for i, obj in enumerate(arrays):
            try:
                descs.append(_arrays.describe(obj, _dlpack_stream(stream)))
            except _arrays.ArgError as e:
                raise self._error_at_param(i, str(e))
        values = self._infer(descs, self._values(values))
        rec = self._record(values)
        bound = self._bound.get(id(rec))
        if bound is None:
            if len(self._bound) >= 256:  # ids stay unique while _bound holds their records
                self._bound.clear()
                self._passed.clear()
            bound = self._bound[id(rec)] = (rec, _record_dict(rec))
        bound = bound[1]
        # what the checks read of each array; a signature that passed once passes again
        sig = (id(rec),) + tuple((a.dtype, a.shape, a.strides, a.ptr % 16, a.ptr == 0) for a in descs)
        if sig not in self._passed:
            for i, (p, a) in enumerate(zip(bound["params"], descs)):
                self._check_array(i, p, a)
            if len(self._passed) >= 1024:
                self._passed.clear()
            self._passed.add(sig)
        devices = {a.device for a in descs if a.device is not None}
        if len(devices) > 1:
            raise self._error_at_kernel("the arrays are on different GPUs: %s" % sorted(devices))
        return Launch(self, rec, bound, descs, values, devices.pop() if devices else None,
                      _stream_of(stream, arrays, descs))

    def __call__(self, *arrays, stream=None, sync=False, **values):
        """check, then launch on stream (None: torch's current stream when an
        array is a torch tensor, else the legacy default stream)"""
        return self.check(*arrays, stream=stream, **values).run(sync=sync)

    def __repr__(self):
        return "<tilepx.Kernel %s from %s (%s)>" % (self.name, self.path, self.target or "its own target")


class Launch:
    """a checked launch: the bound record (record), the resolved scalar
    values, the device pointers, the stream; run() launches it"""

    def __init__(self, kernel, rec, record, arrays, values, device, stream):
        self.kernel, self._rec, self.record = kernel, rec, record
        self.arrays, self.values, self.device, self.stream = arrays, values, device, stream
        self.pointers = [a.ptr for a in arrays]

    def run(self, sync=False):
        lib, cu = _library(), _driver()
        why = ctypes.create_string_buffer(2048)
        k = self.kernel
        dev = self.device if self.device is not None else _torch_device()
        if not lib.tilepx_cuda_context(cu, dev, why, len(why)):
            raise Error(why.value.decode())
        fn = k._modules.get(("fn", _current_context_key(dev)))
        if fn is None:
            mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
            if not lib.tilepx_cuda_load(cu, k.ptx.encode(), ctypes.byref(mod), why, len(why)):
                raise Error("%s: %s" % (k.path, why.value.decode()))
            if not lib.tilepx_cuda_function(cu, mod, k.name.encode(), ctypes.byref(fn), why, len(why)):
                raise Error("%s: %s" % (k.path, why.value.decode()))
            k._modules[("fn", _current_context_key(dev))] = fn
        ptrs = (ctypes.c_ulonglong * max(len(self.pointers), 1))(*self.pointers)
        stream = ctypes.c_void_p(self.stream or None)
        if not lib.tilepx_cuda_run(cu, fn, ctypes.byref(self._rec), ptrs, len(self.pointers), stream, why, len(why)):
            raise Error("%s: kernel '%s': %s" % (k.path, k.name, why.value.decode()))
        if sync and not lib.tilepx_cuda_sync(cu, stream, why, len(why)):
            raise Error("%s: kernel '%s': %s" % (k.path, k.name, why.value.decode()))
        return self


def _driver():
    if "cuda" not in _state:
        why = ctypes.create_string_buffer(1024)
        cu = _library().tilepx_cuda_open(why, len(why))
        if not cu:
            raise Error("tilepx: " + why.value.decode())
        _state["cuda"] = ctypes.c_void_p(cu)
    return _state["cuda"]


def _torch_device():
    torch = sys.modules.get("torch")
    try:
        return torch.cuda.current_device() if torch is not None and torch.cuda.is_initialized() else 0
    except Exception:
        return 0


def _current_context_key(device):
    return device  # one module per GPU: the launches use its current (primary) context


def _stream_handle(stream):
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):  # torch.cuda.Stream, CuPy, others
        h = getattr(stream, attr, None)
        if isinstance(h, int):
            return h
    raise TypeError("stream: an int handle or an object with .cuda_stream, not a %s" % type(stream).__name__)


def _dlpack_stream(stream):
    h = _stream_handle(stream)
    return None if h is None else (h or 1)  # DLPack: 1 is the legacy default stream


def _stream_of(stream, arrays, descs):
    """the launch's stream: the one given, else torch's current stream when
    an array is a torch tensor, else 0 (the legacy default stream)"""
    h = _stream_handle(stream)
    if h is not None:
        return h
    torch = sys.modules.get("torch")
    for obj, a in zip(arrays, descs):
        if torch is not None and isinstance(obj, torch.Tensor):
            dev = a.device if a.device is not None else torch.cuda.current_device()
            return torch.cuda.current_stream(dev).cuda_stream
    return 0


def compile(path_or_source, kernel=None, target="sm_90a", defines=None, lineinfo=False, werror=False):
    """compile a .tile program (a path, or its text) for target (None: the
    program's own `target` line) and return its kernel (None: the first);
    defines {NAME: value} are tilepx's -D NAME=value (a constant, or a
    scalar param pinned), lineinfo writes .file/.loc lines, werror makes
    warnings errors; a program with errors raises Error with the first
    error's place (and e.items, every diagnostic as a dict)"""
    path, source = _read(path_or_source)
    for name, value in (defines or {}).items():
        if not isinstance(name, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name) or isinstance(value, bool):
            raise ValueError("tilepx.compile: defines: %r is not a name with a number or name value" % (name,))
        if not isinstance(value, (int, str)) or str(value) == "":
            raise ValueError("tilepx.compile: defines[%r]: a value is an int or a str, not %r" % (name, value))
    return Kernel(path, source, kernel, target, defines, lineinfo, werror)
