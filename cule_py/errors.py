"""The exceptions cule_py raises for bad input.

Each is an instance of the class ale-py raises for the same mistake, so that `except` clauses
written for ale-py keep working, and of the Python class the mistake naturally belongs to (what
cule_py raised before, what a reader expects). tests/test_dropin_errors.py holds the table,
checked against ale-py live:

| mistake                                         | ale-py raises          | cule_py class             |
|-------------------------------------------------|------------------------|---------------------------|
| unknown game for AtariVectorEnv / AtariEnv      | AssertionError, TypeError | UnknownGameError       |
| unknown env id (make, make_vec)                 | gymnasium NameNotFound | UnknownEnvIdError         |
| frameskip, obs_type, render_mode values         | gymnasium.error.Error  | InvalidArgumentError      |
| frameskip of the wrong type                     | gymnasium.error.Error  | InvalidArgumentTypeError  |
| a mode or difficulty the game does not have     | RuntimeError           | InvalidModeError          |
| vector actions: shape, range                    | AssertionError         | InvalidActionError        |
| vector actions: dtype                           | AssertionError         | InvalidActionTypeError    |
| single-env action outside the action set        | IndexError             | ActionOutOfRangeError     |

Where ale-py crashes (num_envs=0), hangs (an action id out of range in the vector env) or accepts
nonsense (stack_num=0, batch_size > num_envs), cule_py raises ValueError, TypeError or
RuntimeError with a message that says what to pass instead. ALE's CamelCase game names
("MsPacman"), which ale-py's vector env rejects, cule_py accepts.
"""

from __future__ import annotations

import gymnasium

__all__ = ["UnknownGameError", "MultiplayerRomError", "UnknownEnvIdError", "InvalidArgumentError",
           "InvalidArgumentTypeError", "InvalidModeError", "InvalidActionError",
           "InvalidActionTypeError", "ActionOutOfRangeError"]


class UnknownGameError(LookupError, AssertionError, TypeError):
    """A game id that is none of ALE's supported single-player games (ale-py: AssertionError from
    AtariVectorEnv, TypeError from AtariEnv)."""


class MultiplayerRomError(UnknownGameError):
    """One of the four multi-agent-only ROMs, which ALEInterface cannot load."""


class UnknownEnvIdError(gymnasium.error.NameNotFound, ValueError):
    """An id that is neither a registered Atari env id nor a ROM id (gymnasium.make raises
    NameNotFound for it)."""


class InvalidArgumentError(gymnasium.error.Error, ValueError):
    """An argument value ale-py rejects with gymnasium.error.Error (frameskip, obs_type,
    render_mode)."""


class InvalidArgumentTypeError(gymnasium.error.Error, TypeError):
    """An argument of a type ale-py rejects with gymnasium.error.Error (frameskip)."""


class InvalidModeError(RuntimeError, ValueError):
    """A mode or difficulty the game does not have (ALE's setMode / setDifficulty: RuntimeError)."""


class InvalidActionError(AssertionError, ValueError):
    """Vector-env actions of the wrong shape or out of range (ale-py asserts the shape)."""


class InvalidActionTypeError(AssertionError, TypeError):
    """Vector-env actions of a dtype that is not an integer (ale-py asserts int32 or int64)."""


class ActionOutOfRangeError(IndexError, ValueError):
    """A single-env action outside the action set (ale-py indexes its action list: IndexError)."""
