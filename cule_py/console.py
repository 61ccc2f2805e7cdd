"""The old name of `cule_py.batch`, kept only because tools/gpu_model.py (being edited elsewhere)
still imports `cule_py.console`; delete this file once it imports `cule_py.batch`. Not to be
confused with `cule_py.kernels.console`, the console's bus inside the kernels."""

from .batch import ConsoleBatch  # noqa: F401
