"""One LLVM optimisation round and one machine-code generation per CPU kernel, not per helper.

numba compiles every jitted function into a code library of its own and finalises it at once:
the library links in the (already optimised) libraries of the functions it calls, runs LLVM's
module pipeline over the result and generates machine code for it. A helper deep in the call
tree is therefore optimised and turned into machine code again in every library above it. The
console sits under ten or more levels of helpers (drive -> drive_one -> reset_game -> ... ->
run_console_frames -> run_frame -> ...), so a cold compile of `drive` ran the module pipeline
and the code generator over the whole console about forty times: 70% of its 514 s
(tools/compile_profile.py; docs/performance-log.md, "Compile time").

While a cule_py kernel compiles, this module lets a helper's library skip both steps: it links
its callees and stops there, holding IR that has seen numba's per-function passes only. The
kernel's own library (the one whose machine code is asked for) then links everything, runs the
module pipeline twice over it (once left the console 4% more x86 instructions a frame than the
many rounds before; twice, 0.5% fewer: tools/profile_console.py count pong) and generates
machine code once. The `alwaysinline` / `noinline` attributes that decide the shape of the code
are the same as before.

Anyone who later asks a skipped library for machine code gets it: the library finishes its
own optimisation and code generation then. Outside cule_py's kernel compiles nothing changes.
The hooks depend on numba's CPU code-library internals (numba 0.60 to 0.68 checked); where
they are not as expected, nothing is installed and numba compiles as it always did
(`INSTALLED` says which).
"""

from __future__ import annotations

#: The code library of a prange loop's body (numba.parfors.parfor_lowering names it so).
_PARALLEL_BODY = "__numba_parfor_gufunc_"


class _Compiles:
    """The cule_py compiles in progress (a kernel's helpers compile inside it), kept on numba's
    code-library class so that every copy of the kernels in a process shares one count
    (tools/ab_builds.py imports several builds under other package names)."""

    def __init__(self):
        self.depth = 0
        self.packages: set[str] = set()

    def counts(self, ev) -> bool:
        data = ev.data if isinstance(ev.data, dict) else {}
        dispatcher = data.get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", None) or ""
        return module.split(".kernels.", 1)[0] in self.packages and ".kernels." in module


_compiles = _Compiles()


def _deferring() -> bool:
    return _compiles.depth > 0


def _defines(library, name: str) -> bool:
    try:
        function = library._final_module.get_function(name)
    except NameError:
        return False
    return not function.is_declaration


def _install() -> bool:
    try:
        from numba.core import codegen, event
        from numba.core.compiler_lock import require_global_compiler_lock
    except ImportError:
        return False
    library_class = getattr(codegen, "CPUCodeLibrary", None)
    jit_class = getattr(codegen, "JITCodeLibrary", None)
    codegen_class = getattr(codegen, "JITCPUCodegen", None)
    needed = ("finalize", "_optimize_final_module", "_finalize_final_module",
              "_get_module_for_linking", "_raise_if_finalized")
    if library_class is None or jit_class is None or codegen_class is None or not all(
            hasattr(library_class, name) for name in needed) or not hasattr(
            jit_class, "get_pointer_to_function") or not hasattr(codegen_class, "set_env"):
        return False
    global _compiles
    package = __name__.split(".kernels.", 1)[0]
    shared = getattr(library_class, "_cule_compiles", None)
    if shared is not None:              # installed by another copy of the kernels
        _compiles = shared
        shared.packages.add(package)
        return True
    _compiles.packages.add(package)

    full_finalize = library_class.finalize
    optimize = library_class._optimize_final_module

    def optimize_final_module(self):
        optimize(self)
        if any(getattr(lib, "_cule_unoptimised", False) for lib in self._linking_libraries):
            # Once over the whole, the pipeline left the console 4% more instructions a frame
            # than numba's many rounds did (pong, callgrind); a second round closes the gap.
            optimize(self)
    full_pointer = jit_class.get_pointer_to_function
    full_set_env = codegen_class.set_env
    # numba stores each compiled function's environment (what Python objects it needs) into a
    # global of its machine code right after compiling it. A skipped helper has no machine code
    # yet; its environment is stored once a library holding its code has some.
    pending_envs = {}

    def set_env(self, env_name, env):
        if self._engine.get_global_value_address(env_name):
            full_set_env(self, env_name, env)
        else:
            pending_envs[env_name] = (self, env)

    def store_pending_envs():
        for env_name, (owner, env) in list(pending_envs.items()):
            if owner._engine.get_global_value_address(env_name):
                full_set_env(owner, env_name, env)
                del pending_envs[env_name]

    def finalize(self):
        if not _deferring() or getattr(self, "_cule_wants_code", False):
            return full_finalize(self)
        # A helper's library: link the callees, leave optimisation and code to the kernel.
        require_global_compiler_lock()
        self._raise_if_finalized()
        seen = set()
        for library in self._linking_libraries:
            if library not in seen:
                self._reload_init.update(library._reload_init)
                seen.add(library)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._final_module.verify()
        self._finalized = True
        self._cule_deferred = True
        self._cule_unoptimised = True

    def finish_deferred(self):
        """A skipped library asked for machine code after all: optimise and generate it now."""
        self._cule_deferred = False
        self._optimize_final_module()
        self._final_module.verify()
        self._finalize_final_module()
        store_pending_envs()

    def get_pointer_to_function(self, name):
        if getattr(self, "_cule_deferred", False):
            if not _defines(self, name):
                return 0
            finish_deferred(self)
        elif not self._finalized and _deferring():
            if not _defines(self, name) or self.name.startswith(_PARALLEL_BODY):
                # numba asks every compile for its Python wrapper. A helper has none, and the
                # body of a prange loop has one that nothing calls (the kernel links the body
                # and calls it through the parallel wrapper): no machine code is needed.
                self.finalize()
                return 0
            self._cule_wants_code = True
        pointer = full_pointer(self, name)
        if pending_envs:
            store_pending_envs()
        return pointer

    def ensure_code(self):
        if getattr(self, "_cule_deferred", False):
            finish_deferred(self)

    # Serialising (the on-disk cache) and inspection need the finished library.
    for method in ("serialize_using_object_code", "serialize_using_bitcode", "get_asm_str"):
        original = getattr(library_class, method, None)
        if original is None:
            continue

        def finished_first(self, *args, _original=original, **kwargs):
            ensure_code(self)
            return _original(self, *args, **kwargs)
        setattr(library_class, method, finished_first)

    library_class.finalize = finalize
    library_class._optimize_final_module = optimize_final_module
    jit_class.get_pointer_to_function = get_pointer_to_function
    codegen_class.set_env = set_env
    library_class._cule_compiles = _compiles

    class KernelCompiles(event.Listener):
        def on_start(self, ev):
            if _compiles.counts(ev):
                _compiles.depth += 1

        def on_end(self, ev):
            if _compiles.counts(ev):
                _compiles.depth -= 1

    event.register("numba:compile", KernelCompiles())
    return True

#: Whether the hooks are in place (False: numba's own finalisation, e.g. an unknown numba).
INSTALLED = _install()
