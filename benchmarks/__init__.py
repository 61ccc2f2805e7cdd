"""cule_py's benchmarks. Run from the repository root, `python -m benchmarks.NAME`
(benchmarks/README.md lists them)."""
