"""ctypes binding of one library built by mxc (its C API, runtime-stub/model.h), for
bench/gpu/bench.py. No torch here: pointers are plain integers, so the same code runs a cpu
library on numpy buffers and a hip library on device buffers (torch tensors' data_ptr()).
"""
import ctypes

import numpy as np

# mxc_dtype (runtime-stub/model.h) -> numpy; the 1-byte low-precision types are left out.
DTYPES = {0: np.float32, 1: np.float16, 3: np.float64, 4: np.int8, 5: np.int16, 6: np.int32, 7: np.int64,
          8: np.uint8, 9: np.uint16, 10: np.uint32, 11: np.uint64, 12: np.bool_}


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_size_t),
                ("dims", ctypes.c_int64 * 8), ("strides", ctypes.c_int64 * 8), ("bytes", ctypes.c_size_t)]


class Options(ctypes.Structure):
    _fields_ = [("device", ctypes.c_int), ("device_pointers", ctypes.c_int), ("stream", ctypes.c_void_p),
                ("workspace", ctypes.c_void_p), ("workspace_bytes", ctypes.c_size_t),
                ("no_graph", ctypes.c_int)]  # ABI 2


class MxcError(RuntimeError):
    pass


class Library:
    """One instance of the model in LIB.so (symbols NAME_*). device_pointers: run() takes
    device addresses (hip); stream: a cudaStream_t / hipStream_t as an int to run on, or None
    for the instance's own stream. run() returns when done; run_async(stream) only enqueues the
    run on that stream (the C API's NAME_run_async); runs replay a captured HIP graph unless
    MXC_NO_GRAPH=1 is in the environment."""

    def __init__(self, path, name, device_pointers=False, stream=None):
        self.dll = ctypes.CDLL(path)
        self.name = name
        f = self._fn
        f("create", ctypes.c_int, [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(Options)])
        f("destroy", None, [ctypes.c_void_p])
        f("num_inputs", ctypes.c_size_t, [ctypes.c_void_p])
        f("num_outputs", ctypes.c_size_t, [ctypes.c_void_p])
        f("input_info", ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(TensorInfo)])
        f("output_info", ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(TensorInfo)])
        f("run", ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)])
        f("run_async", ctypes.c_int,
          [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p])
        f("last_error", ctypes.c_char_p, [ctypes.c_void_p])
        f("build_info", ctypes.c_char_p, [])
        self.model = ctypes.c_void_p()
        opts = Options(0, 1 if device_pointers else 0, stream or None, None, 0, 0)
        if self.c_create(ctypes.byref(self.model), ctypes.byref(opts)) != 0:
            msg = self.error() if self.model.value else "out of memory"
            self.close()  # a failed create still returns an instance to destroy (model.h)
            raise MxcError("%s: create failed: %s" % (path, msg))
        self.inputs = [self._info(self.c_input_info, i) for i in range(self.c_num_inputs(self.model))]
        self.outputs = [self._info(self.c_output_info, i) for i in range(self.c_num_outputs(self.model))]
        self._in = (ctypes.c_void_p * len(self.inputs))()
        self._out = (ctypes.c_void_p * len(self.outputs))()

    def _fn(self, what, restype, argtypes):
        fn = getattr(self.dll, "%s_%s" % (self.name, what))
        fn.restype, fn.argtypes = restype, argtypes
        setattr(self, "c_" + what, fn)

    def _info(self, fn, i):
        t = TensorInfo()
        if fn(self.model, i, ctypes.byref(t)) != 0:
            raise MxcError(self.error())
        if t.dtype not in DTYPES:
            raise MxcError("tensor %s: mxc dtype %d is not handled by this harness" % (t.name.decode(), t.dtype))
        return {"name": t.name.decode(), "dtype": np.dtype(DTYPES[t.dtype]), "shape": tuple(t.dims[:t.rank]),
                "bytes": t.bytes}

    def error(self):
        return (self.c_last_error(self.model) or b"?").decode()

    def set_pointers(self, inputs, outputs):
        """Binds the buffers of the following run() calls: integer addresses, in the library's
        input / output order."""
        for i, p in enumerate(inputs):
            self._in[i] = p
        for i, p in enumerate(outputs):
            self._out[i] = p

    def run(self):
        if self.c_run(self.model, self._in, self._out) != 0:
            raise MxcError("run failed: " + self.error())

    def run_async(self, stream):
        """Enqueues a run on `stream` (an int; 0: the instance's own) and returns."""
        if self.c_run_async(self.model, self._in, self._out, stream or None) != 0:
            raise MxcError("run_async failed: " + self.error())

    def close(self):
        if self.model:
            self.c_destroy(self.model)
            self.model = ctypes.c_void_p()


def run_host(lib, arrays):
    """Runs a cpu library (or a hip one in offload-copy mode) on numpy arrays given in the
    library's input order; returns the outputs as numpy arrays."""
    ins = [np.ascontiguousarray(a, dtype=info["dtype"]) for a, info in zip(arrays, lib.inputs)]
    for a, info in zip(ins, lib.inputs):
        if a.shape != info["shape"]:
            raise MxcError("input %s: shape %s, the library wants %s" % (info["name"], a.shape, info["shape"]))
    outs = [np.empty(o["shape"], o["dtype"]) for o in lib.outputs]
    lib.set_pointers([a.ctypes.data for a in ins], [o.ctypes.data for o in outs])
    lib.run()
    return outs
