"""Build hook: with CULE_PY_PORTABLE_CACHE=1 the wheel carries the CPU kernels precompiled for
the generic CPU (cule_py/_portable_cache), so that its first run loads them instead of compiling
for minutes. The kernels are compiled by the Python that builds (it must have cule_py's runtime
dependencies: build with --no-build-isolation) and serve that Python version only:

    CULE_PY_PORTABLE_CACHE=1 pip wheel --no-build-isolation --no-deps -w dist .

Everything else is in pyproject.toml; without the variable this is a plain setuptools build.
"""

import os
import pathlib
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithPortableCache(build_py):
    def run(self):
        super().run()
        if os.environ.get("CULE_PY_PORTABLE_CACHE") != "1":
            return
        out = pathlib.Path(self.build_lib).resolve() / "cule_py" / "_portable_cache"
        # The built copy, not the source tree, is compiled: its fingerprint is the one shipped.
        env = {**os.environ, "PYTHONPATH": str(pathlib.Path(self.build_lib).resolve())}
        subprocess.run([sys.executable, "-m", "cule_py.precompile", "--portable", str(out)],
                       env=env, check=True, cwd=self.build_lib)


setup(cmdclass={"build_py": BuildPyWithPortableCache})
