"""The CUDA kernels' compile: NVVM once per kernel, not twice.

numba-cuda's kernel constructor (`numba.cuda.dispatcher._Kernel`) compiles the kernel's LLVM IR
to PTX with NVVM only to search the text for the names of a few library functions it may have
to link (its runtime's reference counting, the reshape helpers); the code that is loaded comes
from a second NVVM compile, to LTO IR for nvJitLink. For a console kernel the first compile is
18-30 s of about two minutes (tools/compile_profile.py cuda:drive; docs/performance-log.md,
"Compile time"). Those names are in the LLVM IR too, as the declarations of the functions
called, so while one of cule_py's kernels is constructed the search reads the IR instead. PTX
asked for later (`inspect_asm`, the compile tests) is compiled then, as before.

Nothing changes for other CUDA code, or where numba-cuda's internals are not as expected
(`INSTALLED` says which).
"""

from __future__ import annotations

import threading

_constructing = threading.local()
_PACKAGE = __name__.split(".kernels.", 1)[0]


def _install() -> bool:
    try:
        from numba.cuda import codegen, dispatcher
    except ImportError:
        return False
    kernel_class = getattr(dispatcher, "_Kernel", None)
    library_class = getattr(codegen, "CUDACodeLibrary", None)
    if kernel_class is None or library_class is None or not hasattr(
            library_class, "get_asm_str") or not hasattr(library_class, "get_llvm_str"):
        return False
    packages = getattr(kernel_class, "_cule_packages", None)
    if packages is not None:            # installed by another copy of the kernels
        packages.add(_PACKAGE)
        return True
    packages = kernel_class._cule_packages = {_PACKAGE}
    construct = kernel_class.__init__
    get_asm_str = library_class.get_asm_str

    def __init__(self, py_func, *args, **kwargs):
        module = getattr(py_func, "__module__", "") or ""
        _constructing.active = module.split(".kernels.", 1)[0] in packages
        try:
            construct(self, py_func, *args, **kwargs)
        finally:
            _constructing.active = False

    def asm_or_ir(self, cc=None):
        if cc is None and getattr(_constructing, "active", False):
            return self.get_llvm_str()
        return get_asm_str(self, cc)

    kernel_class.__init__ = __init__
    library_class.get_asm_str = asm_or_ir
    return True


#: Whether the constructor reads the IR (False: numba-cuda's own two compiles).
INSTALLED = _install()
