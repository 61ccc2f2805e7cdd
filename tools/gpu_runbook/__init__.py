"""The GPU runbook (`python -m tools.gpu_runbook`, its __main__ says what it does)."""
