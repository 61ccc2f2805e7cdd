"""On a GPU machine, with this folder on PYTHONPATH and CULE_PY_RUNTIME_KEY=13.5 (say): key numba-cuda's
cache lookups with that CUDA runtime version instead of this machine's, so that kernels precompiled
by tools/gpu_precompile.py on a machine with another runtime are found. The cubins themselves are
for the compute capability, which is still this GPU's."""

import os

_codegen = None
if os.environ.get("CULE_PY_RUNTIME_KEY"):
    # Other Pythons inherit PYTHONPATH too (Nsight Compute starts one of its own, which cannot
    # load the carried numpy): they skip the patch. The runbook's preflight checks that every
    # kernel is still found in the cache, so a process that needed the patch and lost it shows.
    try:
        from numba.cuda import codegen as _codegen
        from numba.cuda.cudadrv import devices as _devices
    except ImportError:
        _codegen = None

if _codegen is not None:
    _KEY = tuple(int(v) for v in os.environ["CULE_PY_RUNTIME_KEY"].split("."))

    def _magic_tuple(self):
        return (_KEY, _devices.get_context().device.compute_capability)

    _codegen.JITCUDACodegen.magic_tuple = _magic_tuple
