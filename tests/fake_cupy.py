"""numpy dressed as cupy: cule_py.testing.install_fake_cupy under its old name, for the callers
that still import it from tests/ (tools/gpu_model.py, the child process of
tests/test_gpu_runbook_exactness.py). Delete once they call cule_py.testing.install_fake_cupy."""

from cule_py.testing import install_fake_cupy as install  # noqa: F401
