"""The CUDA kernels' compile: NVVM once per kernel, not twice, and symbols named as if kernels/
were one folder.

numba-cuda's kernel constructor (`numba.cuda.dispatcher._Kernel`) compiles the kernel's LLVM IR
to PTX with NVVM only to search the text for the names of a few library functions it may have
to link (its runtime's reference counting, the reshape helpers); the code that is loaded comes
from a second NVVM compile, to LTO IR for nvJitLink. For a console kernel the first compile is
18-30 s of about two minutes (tools/compile_profile.py cuda:drive; docs/performance-log.md,
"Compile time"). Those names are in the LLVM IR too, as the declarations of the functions
called, so while one of cule_py's kernels is constructed the search reads the IR instead. PTX
asked for later (`inspect_asm`, the compile tests) is compiled then, as before.

The code NVVM and nvJitLink make depends on the symbols' names, and numba names every function
after its module's path: moving the kernel modules into folders (kernels/tia/, kernels/cpu/, ...)
with no function changed moved the step kernel's spills from 144 B to 0 and its 64-register
variant's from 3,248 B to 5,388 B. So a kernel library's IR, and its entry name, name each module
`<package>.kernels.<module>` whatever folder holds it: every kernel's code is then the one-folder
layout's, SASS count for SASS count (docs/performance-log.md, "kernels/ in folders"), the code
the CI's caps hold, and a module moving between folders changes nothing on the GPU.

Nothing changes for other CUDA code, or where numba-cuda's internals are not as expected
(`INSTALLED` and `FLAT_SYMBOLS` say which).
"""

from __future__ import annotations

import pathlib
import re
import threading

_constructing = threading.local()
_PACKAGE = __name__.split(".kernels.", 1)[0]
_KERNELS = pathlib.Path(__file__).resolve().parent.parent


def _mangled(name: str) -> str:
    """One identifier as numba's Itanium mangler writes it (cule_py's names need no escapes)."""
    return f"{len(name)}{name}"


def _folder_pattern() -> re.Pattern:
    """`<package>7kernels<folder>` followed by one of that folder's modules, in mangled names.
    Module names are unique across the folders (a RuntimeError otherwise): two modules of one
    name would share their symbols' names once the folder is gone from them."""
    alternatives = []
    seen = {m.stem: "." for m in _KERNELS.glob("*.py")}
    for folder in sorted(p for p in _KERNELS.iterdir() if (p / "__init__.py").is_file()):
        modules = sorted(m.stem for m in folder.glob("*.py") if m.stem != "__init__")
        for module in modules:
            if module in seen:
                raise RuntimeError(f"kernels/{folder.name}/{module}.py and kernels/{seen[module]}"
                                   f"/{module}.py: a kernel module's name must be unique")
            seen[module] = folder.name
        if modules:
            alternatives.append(f"{_mangled(folder.name)}(?=(?:"
                                + "|".join(map(_mangled, modules)) + r")\d)")
    return re.compile(f"(?<={_mangled(_PACKAGE)}{_mangled('kernels')})(?:"
                      + "|".join(alternatives) + ")")


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


def _install_flat_symbols() -> bool:
    try:
        from numba.cuda import codegen
    except ImportError:
        return False
    library_class = getattr(codegen, "CUDACodeLibrary", None)
    llvm_strs = getattr(library_class, "llvm_strs", None)
    if not isinstance(llvm_strs, property):
        return False
    patterns = getattr(library_class, "_cule_folder_patterns", None)
    if patterns is not None:            # installed by another copy of the kernels
        patterns[_PACKAGE] = _folder_pattern()
        return True
    patterns = library_class._cule_folder_patterns = {_PACKAGE: _folder_pattern()}

    def flat(text):
        for pattern in patterns.values():
            text = pattern.sub("", text)
        return text

    def flat_llvm_strs(self):
        strs = llvm_strs.fget(self)
        if self.__dict__.get("_cule_flat") is not strs:     # not renamed yet (or rebuilt)
            strs = self._llvm_strs = [flat(ir) for ir in strs]
            self._cule_flat = strs
        return strs

    def entry_name(self):
        return self.__dict__.get("_cule_entry_name")

    def set_entry_name(self, name):
        self.__dict__["_cule_entry_name"] = flat(name) if name else name

    library_class.llvm_strs = property(flat_llvm_strs)
    library_class._entry_name = property(entry_name, set_entry_name)
    return True


#: Whether GPU symbols name modules without their folder (False: numba-cuda's own names).
FLAT_SYMBOLS = _install_flat_symbols()
