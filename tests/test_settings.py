"""cule_py/settings.py is the one table of CULE_PY_* variables: every one the package and its
tools read is in it, docs/settings.md is its output, and a bad value says what to use."""

from __future__ import annotations

import pathlib
import re

import pytest

from cule_py import settings

REPO = pathlib.Path(__file__).resolve().parents[1]


def test_every_variable_read_anywhere_is_in_the_table():
    names = {s.name for s in settings.SETTINGS}
    sources = [p for folder in ("cule_py", "tools") for p in (REPO / folder).rglob("*")
               if p.suffix in (".py", ".sh")] + [REPO / "setup.py"]
    used = {name for p in sources for name in re.findall(r"CULE_PY_[A-Z_]+[A-Z]",
                                                         p.read_text())}
    assert used - names == set(), "variables read but not in cule_py/settings.py"
    assert names - used == set(), "variables in the table that nothing reads"


def test_docs_page_is_the_tables_output():
    assert (REPO / "docs" / "settings.md").read_text() == settings.page()


def test_a_bad_value_names_the_allowed_ones(monkeypatch):
    monkeypatch.setenv("CULE_PY_GPU_STEP_REGISTERS", "96")
    with pytest.raises(ValueError,
                       match="CULE_PY_GPU_STEP_REGISTERS='96': use one of 255, 128, 64"):
        settings.GPU_STEP_REGISTERS.value()
    monkeypatch.setenv("CULE_PY_GPU_STEP_REGISTERS", "64")
    assert settings.GPU_STEP_REGISTERS.value() == "64"
    monkeypatch.delenv("CULE_PY_GPU_STEP_REGISTERS")
    assert settings.GPU_STEP_REGISTERS.value() == "255"
