"""PTX of reset_snapshot._matches alone (sm_90), field-major console arrays as on the GPU:
how many global loads sit between two branches of the frame-buffer compare."""
import re, sys, types as pytypes
import numba.cuda.dispatcher as cdisp
from numba import cuda, types
cdisp.get_current_device = lambda: pytypes.SimpleNamespace(compute_capability=(9, 0))
from cule_py.kernels import reset_snapshot as RS

def kernel(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, out):
    out[0] = RS._matches(ram, st, fb, logic, t_st, t_ram, t_logic, t_fb, 3, 5)

A = lambda dt, nd, layout: types.Array(dt, nd, layout)
sig = (A(types.uint8, 2, "F"), A(types.int32, 2, "F"), A(types.uint8, 4, "F"),
       A(types.int32, 2, "F"), A(types.int32, 3, "C"), A(types.uint8, 3, "C"),
       A(types.int32, 3, "C"), A(types.uint8, 5, "C"), A(types.boolean, 1, "C"))
ptx, _ = cuda.compile_ptx(kernel, sig, cc=(9, 0))
open(sys.argv[1], "w").write(ptx)
loads = len(re.findall(r"ld\.global", ptx)); branches = len(re.findall(r"@%p\d+ bra", ptx))
print(f"ld.global {loads}, conditional branches {branches}, lines {ptx.count(chr(10))}")
