"""Helpers for the test markers registered in pyproject.toml (tests/README.md says which file has
which): `slow`, `live_ale`, `cuda`.

`pytest -m "not slow"` is the quick loop. A test that plays one game against ale-py is quick; the
same test over every game may not be, so a parametrized sweep whose cases together take more
than ~20 s keeps one or two cases in the quick loop and marks the rest slow with `slow_except`.
"""

from __future__ import annotations

import pytest


def slow_except(values, *quick):
    """`values` for pytest.mark.parametrize, each marked slow unless it is one of `quick`.
    Tuple values are unpacked, one item per argument name (as parametrize takes them)."""
    missing = [q for q in quick if q not in values]
    assert not missing, f"quick cases {missing} are not among the values"
    return [value if value in quick else
            pytest.param(*(value if isinstance(value, tuple) else (value,)),
                         marks=pytest.mark.slow)
            for value in values]
