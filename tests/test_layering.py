"""How cule_py's modules depend on each other, read from their import statements (not run).

No import circle: each module imports only what sits below it, so a reader can take the package
bottom up (docs/architecture.md, "Where things are"), and no module relies on another being
half-imported. And the kernels' entry points take their arrays in named groups
(kernels/structs.py), so that none lists a long run of arrays.
"""

from __future__ import annotations

import ast
import pathlib

import cule_py

PACKAGE = pathlib.Path(cule_py.__file__).resolve().parent
# Entry points (numba.njit / cuda.jit functions and the bodies they are built from) may take this
# many parameters: a few named groups, the per-console arrays of the launch, an operation, a mask.
MOST_ENTRY_PARAMETERS = 11


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(name: str, path: pathlib.Path, modules: dict) -> set[str]:
    """The modules of the package that `name` imports (a package's __init__ counts only where it
    is the module imported, not as the parent of one)."""
    is_package = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                full = f"{target}.{alias.name}"
                out.add(full if full in modules else target)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {m for m in out if m in modules and m != name and not name.startswith(m + ".")}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert len(graph) > 50 and graph["cule_py.kernels.agent.agent_step"], "nothing was read"
    assert _circles(graph) == []


def test_the_finder_sees_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _entry_points(tree: ast.Module) -> list[ast.FunctionDef]:
    """Functions decorated with njit or cuda.jit, and bodies made into kernels under other names
    (`cuda.jit(...)(renamed(body, name))`)."""
    jits = ("njit", "cuda.jit", "numba.njit")
    renamed = {call.args[0].args[0].id for call in ast.walk(tree)
               if isinstance(call, ast.Call) and isinstance(call.func, ast.Call)
               and ast.unparse(call.func.func) in jits and call.args
               and isinstance(call.args[0], ast.Call)
               and ast.unparse(call.args[0].func) == "renamed"
               and isinstance(call.args[0].args[0], ast.Name)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        decorators = {ast.unparse(d.func if isinstance(d, ast.Call) else d)
                      for d in node.decorator_list}
        if decorators & set(jits) or node.name in renamed:
            found.append(node)
    return found


def test_kernel_entry_points_take_named_groups():
    """No entry point of kernels/ lists more than MOST_ENTRY_PARAMETERS parameters (before the
    named groups, agent_reset_cpu/_cuda took 39)."""
    longest = []
    for path in (PACKAGE / "kernels").rglob("*.py"):
        for node in _entry_points(ast.parse(path.read_text())):
            longest.append((len(node.args.args), node.name))
    assert len(longest) > 10, "no entry point was found"
    too_long = [(n, name) for n, name in longest if n > MOST_ENTRY_PARAMETERS]
    assert too_long == []


def test_gpu_symbols_name_kernel_modules_without_their_folder():
    """The CUDA compile drops a kernel module's folder from every symbol (so that the GPU's code
    does not depend on the folders: kernels/gpu/cuda_compile.py), once, and nothing else."""
    from cule_py.kernels.gpu import cuda_compile

    flat = cuda_compile._folder_pattern().sub
    nested = "_ZN6cudapy7cule_py7kernels5agent10agent_step15agent_step_cudaB2v1E"
    assert flat("", nested) == "_ZN6cudapy7cule_py7kernels10agent_step15agent_step_cudaB2v1E"
    assert flat("", "_ZN7cule_py7kernels3tia3tia5writeE") == "_ZN7cule_py7kernels3tia5writeE"
    for unchanged in ("_ZN7cule_py7kernels3tia5writeE",        # already flat: the tia module
                      "_ZN7cule_py7kernels6layout4rowsE",      # a module at the top
                      "_ZN5numba7kernels3tia3tia5writeE"):     # another package
        assert flat("", unchanged) == unchanged
