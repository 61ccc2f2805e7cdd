"""Bad input raises what ale-py raises: each mistake below is made on ale-py's envs (live, in a
child process, because some of them crash ale-py) and on cule_py's, and cule_py's exception must
be an instance of ale-py's class (cule_py/errors.py explains the classes).

Where ale-py accepts the mistake or crashes on it, cule_py must still raise (a clear error beats
a crash or a silent misuse); those cases are listed with what cule_py raises instead."""

from __future__ import annotations

import builtins
import importlib
import json
import select
import subprocess
import sys
import textwrap
import warnings

import gymnasium
import numpy as np
import pytest

import cule_py
from cule_py.gym_env import AtariEnv
from cule_py.vector import AtariVectorEnv

pytest.importorskip("ale_py")

# slow: two of ale-py's cases hang until the per-case timeout.
pytestmark = [pytest.mark.live_ale, pytest.mark.slow]

# name -> code run with V (the vector env class), S (the single env class), make, make_vec, np.
CASES = {
    "vector frameskip 0": "V('pong', 2, frameskip=0)",
    "vector frameskip -1": "V('pong', 2, frameskip=-1)",
    "vector frameskip float": "V('pong', 2, frameskip=2.5)",
    "vector frameskip bool": "V('pong', 2, frameskip=True)",
    "vector unknown game": "V('nope', 2)",
    "vector CamelCase game": "V('MsPacman', 2)",
    "vector num_envs -1": "V('pong', -1)",
    "vector batch_size -1": "V('pong', 2, batch_size=-1)",
    "vector autoreset_mode bogus": "V('pong', 2, autoreset_mode='bogus')",
    "vector step before reset": "e = V('pong', 2); e.step(np.zeros(2, np.int64))",
    "vector actions of the wrong shape":
        "e = V('pong', 2); e.reset(seed=0); e.step(np.zeros(3, np.int64))",
    "vector actions float": "e = V('pong', 2); e.reset(seed=0); e.step(np.zeros(2, np.float32))",
    "vector reset_mask of ints":
        "e = V('pong', 2); e.reset(seed=0); e.reset(options={'reset_mask': np.ones(2, int)})",
    "vector reset_mask of the wrong shape":
        "e = V('pong', 2); e.reset(seed=0); e.reset(options={'reset_mask': np.ones(3, bool)})",
    "vector seeds of the wrong shape": "e = V('pong', 2); e.reset(seed=np.arange(3))",
    "vector seed a string": "e = V('pong', 2); e.reset(seed='a')",
    "vector first reset partial":
        "e = V('pong', 2); e.reset(options={'reset_mask': np.array([True, False])})",
    "vector async partial reset": "e = V('pong', 4, batch_size=2); e.reset(seed=0); "
                                  "e.reset(options={'reset_mask': np.array([1, 0, 1, 0], bool)})",
    "vector continuous int actions": "e = V('pong', 2, continuous=True); e.reset(seed=0); "
                                     "e.step(np.zeros((2, 3), np.int64))",
    "vector continuous actions of the wrong shape":
        "e = V('pong', 2, continuous=True); e.reset(seed=0); e.step(np.zeros(2, np.float32))",
    "single unknown game": "S('nope')",
    "single obs_type bogus": "S('pong', obs_type='bogus')",
    "single frameskip 0": "S('pong', frameskip=0)",
    "single frameskip float": "S('pong', frameskip=2.5)",
    "single frameskip (5, 2)": "S('pong', frameskip=(5, 2))",
    "single frameskip bool": "S('pong', frameskip=True)",
    "single mode 99": "S('pong', mode=99)",
    "single difficulty 99": "S('pong', difficulty=99)",
    "single render_mode bogus": "S('pong', render_mode='bogus')",
    "single action out of range": "e = S('pong'); e.reset(seed=0); e.step(99)",
    "single action float": "e = S('pong'); e.reset(seed=0); e.step(1.5)",
    "single action array": "e = S('pong'); e.reset(seed=0); e.step(np.array([1]))",
    "single continuous int action":
        "e = S('pong', continuous=True); e.reset(seed=0); e.step(np.zeros(3, np.int64))",
    "single render without render_mode": "e = S('pong'); e.reset(seed=0); e.render()",
    "single seed a string": "e = S('pong'); e.reset(seed='x')",
    "single seed negative": "e = S('pong'); e.reset(seed=-1)",
    "make unknown id": "make('ALE/Nope-v5')",
    "make unknown keyword": "make('ALE/Pong-v5', bogus=1)",
    "make_vec unknown keyword": "make_vec('ALE/Pong-v5', 2, bogus=1)",
    # ale-py crashes (num_envs 0: segfault) or hangs (actions out of range) on these.
    "vector num_envs 0": "V('pong', 0)",
    "vector action out of range": "e = V('pong', 2); e.reset(seed=0); e.step(np.array([0, 99]))",
    "vector action negative": "e = V('pong', 2); e.reset(seed=0); e.step(np.array([0, -1]))",
    # ale-py accepts these: cule_py refuses them.
    "vector batch_size > num_envs": "V('pong', 2, batch_size=5)",
    "vector stack_num 0": "V('pong', 2, stack_num=0)",
    "vector noop_max -1": "V('pong', 2, noop_max=-1)",
    "vector seed negative": "e = V('pong', 2); e.reset(seed=-5)",
    "vector send twice": "e = V('pong', 4, batch_size=2); e.reset(seed=0); "
                         "e.send(np.zeros(2, np.int64)); e.send(np.zeros(2, np.int64))",
    "single repeat_action_probability 1.5": "S('pong', repeat_action_probability=1.5)",
    "single action negative": "e = S('pong'); e.reset(seed=0); e.step(-1)",
}

# What cule_py raises where ale-py raises nothing (accepts, crashes or hangs): a ValueError,
# TypeError or RuntimeError naming the mistake.
STRICTER = {
    "vector num_envs 0": ValueError,
    "vector action out of range": ValueError,
    "vector action negative": ValueError,
    "vector batch_size > num_envs": ValueError,
    "vector stack_num 0": ValueError,
    "vector noop_max -1": ValueError,
    "vector seed negative": ValueError,
    "vector send twice": RuntimeError,
    "single repeat_action_probability 1.5": ValueError,
    "single action negative": ValueError,     # ale-py indexes its action list: -1 is the last
}

# What ale-py rejects and cule_py accepts on purpose.
ACCEPTED = {
    # cule_py.games.get_game takes ALE's CamelCase names too: there is one game it can mean.
    "vector CamelCase game",
}

_ALE_SIDE = textwrap.dedent("""
    import json, sys, warnings
    warnings.simplefilter("ignore")
    import gymnasium, numpy as np, ale_py
    from ale_py.env import AtariEnv as S
    from ale_py.vector_env import AtariVectorEnv as V
    gymnasium.register_envs(ale_py)
    make = gymnasium.make
    def make_vec(env_id, n, **kwargs):
        return gymnasium.make_vec(env_id, n, vectorization_mode="vector_entry_point", **kwargs)
    for line in sys.stdin:
        name, code = json.loads(line)
        try:
            exec(code)
            result = "ok"
        except BaseException as err:
            result = type(err).__module__ + ":" + type(err).__qualname__
        print(json.dumps([name, result]), flush=True)
""")


def _ale_outcomes(cases: dict[str, str], seconds_per_case: float = 15.0) -> dict[str, str]:
    """name -> "ok", "crash", "hang" or "module:qualname" of what ale-py raised. One child process
    runs the cases in order; a crash or a case that does not finish ends it, and the next child
    goes on after that case."""
    outcomes: dict[str, str] = {}
    todo = list(cases.items())
    while todo:
        child = subprocess.Popen([sys.executable, "-c", _ALE_SIDE], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        child.stdin.write("".join(json.dumps(item) + "\n" for item in todo))
        child.stdin.close()
        stuck = "crash"
        for name, _ in todo:
            ready, _, _ = select.select([child.stdout], [], [], seconds_per_case)
            line = child.stdout.readline() if ready else ""
            if not line.startswith("["):
                stuck = "hang" if not ready else "crash"
                break
            done_name, result = json.loads(line)
            outcomes[done_name] = result
        child.kill()
        child.wait()
        todo = [item for item in todo if item[0] not in outcomes]
        if todo:                      # the first case left is the one the child died on
            outcomes[todo.pop(0)[0]] = stuck
    return outcomes


def _exception_class(qualified: str) -> type:
    module, name = qualified.split(":")
    owner = builtins if module == "builtins" else importlib.import_module(module)
    for part in name.split("."):
        owner = getattr(owner, part)
    return owner


@pytest.fixture(scope="module")
def ale_outcomes():
    return _ale_outcomes(CASES)


def _ours(code: str) -> BaseException | None:
    scope = {"V": AtariVectorEnv, "S": AtariEnv, "make": cule_py.make,
             "make_vec": cule_py.make_vec, "np": np}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(code, scope)
        except Exception as err:            # noqa: BLE001 - the class is what is compared
            return err
    return None


@pytest.mark.parametrize("name", list(CASES))
def test_the_same_exception_class_as_ale_py(name, ale_outcomes):
    theirs = ale_outcomes[name]
    ours = _ours(CASES[name])
    if name in STRICTER:
        assert theirs in ("ok", "crash", "hang"), f"ale-py now raises {theirs}: move {name!r} out of " \
                                          f"STRICTER"
        assert isinstance(ours, STRICTER[name]), f"{name}: cule_py raised {ours!r}"
        return
    if name in ACCEPTED:
        assert theirs not in ("ok", "crash", "hang") and ours is None, (theirs, ours)
        return
    assert theirs not in ("ok", "crash", "hang"), f"ale-py gave {theirs}: list {name!r} in STRICTER"
    expected = _exception_class(theirs)
    assert ours is not None, f"{name}: ale-py raises {expected.__name__}, cule_py nothing"
    assert isinstance(ours, expected), \
        f"{name}: ale-py raises {expected.__module__}.{expected.__name__}, cule_py " \
        f"{type(ours).__module__}.{type(ours).__name__}: {ours}"


def test_cule_py_errors_are_also_the_natural_python_classes():
    """Code written against cule_py's earlier errors keeps working: the ale-py classes are added,
    not substituted."""
    assert isinstance(_ours("V('pong', 2, frameskip=0)"), ValueError)
    assert isinstance(_ours("V('nope', 2)"), LookupError)
    assert isinstance(_ours("S('pong', mode=99)"), ValueError)
    assert isinstance(_ours("make('ALE/Nope-v5')"), ValueError)
    err = _ours("e = V('pong', 2); e.reset(seed=0); e.step(np.zeros(3, np.int64))")
    assert isinstance(err, ValueError) and "shape (2,)" in str(err)
    assert isinstance(_ours("S('pong', obs_type='bogus')"), gymnasium.error.Error)


def test_async_partial_reset_names_the_mode_as_ale_py_does():
    """ale-py's users (and its own vector suite) match the async partial reset's message on the
    phrase "batch_size < num_envs": the same phrase, and the two sizes, as ale-py gives them."""
    ale_vector = pytest.importorskip("ale_py.vector_env")
    mask = {"reset_mask": np.array([True, False, True, False])}
    messages = []
    for make_env in (ale_vector.AtariVectorEnv, AtariVectorEnv):
        env = make_env("pong", 4, batch_size=2)
        env.reset(seed=0)
        with pytest.raises(ValueError) as raised:
            env.reset(options=mask)
        messages.append(str(raised.value))
        env.close()
    theirs, ours = messages
    for phrase in ("batch_size < num_envs", "batch_size=2, num_envs=4"):
        assert phrase in theirs, f"ale-py's message changed: {theirs!r}"
        assert phrase in ours, ours
