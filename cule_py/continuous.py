"""Continuous actions, as ale-py's `continuous=True` (CALE): an action is (radius, theta, fire) in
[0, 1] x [-pi, pi] x [0, 1]. The joystick direction is the polar point (radius, theta) past
`threshold` on each axis, fire is `fire > threshold`, and the radius is the paddle strength: a
paddle turns `int(23000 * |radius|)` resistance units a frame instead of 23000 (ALE computes
it in float). Joystick games ignore the strength.

The arithmetic follows ale-py's envs step for step (numpy float32), so that the same actions give
the same ALE action ids and paddle moves.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from .errors import InvalidActionError, InvalidActionTypeError
from .games import PADDLE_DELTA, Action

__all__ = ["action_space", "joystick_actions", "paddle_deltas", "checked_actions",
           "check_dtype_and_shape"]


def _direction_table() -> np.ndarray:
    """[horizontal + 1, vertical + 1, fire] -> ALE action id (horizontal -1 left, vertical -1
    down): NOOP, FIRE, the four directions and four diagonals, each with and without fire."""
    table = np.zeros((3, 3, 2), np.int64)
    for h in (-1, 0, 1):
        for v in (-1, 0, 1):
            for fire in (0, 1):
                name = ({1: "UP", -1: "DOWN", 0: ""}[v] + {1: "RIGHT", -1: "LEFT", 0: ""}[h]
                        + ("FIRE" if fire else ""))
                table[h + 1, v + 1, fire] = Action[name or "NOOP"]
    return table


_DIRECTIONS = _direction_table()


def action_space(shape: tuple[int, ...] = ()) -> spaces.Box:
    """ale-py's continuous action space: float32 (radius, theta, fire) per console."""
    low = np.broadcast_to(np.array([0.0, -np.pi, 0.0], np.float32), shape + (3,))
    high = np.broadcast_to(np.array([1.0, np.pi, 1.0], np.float32), shape + (3,))
    return spaces.Box(low=low, high=high, dtype=np.float32)


def checked_actions(actions, count: int | None) -> np.ndarray:
    """`actions` as float32 (count, 3) (count None: one action, (3,)); the dtype must already be
    float32, as ale-py asserts."""
    actions = np.asarray(actions)
    check_dtype_and_shape(actions.dtype, actions.shape, count)
    return actions


def check_dtype_and_shape(dtype, shape, count: int | None) -> None:
    """Raise what ale-py's asserts raise for continuous actions that are not float32 of shape
    (count, 3) (count None: (3,)); host and device arrays alike."""
    if dtype != np.float32:
        raise InvalidActionTypeError(f"continuous actions must be float32 (radius, theta, fire), "
                                     f"got dtype {dtype}")
    expected = (3,) if count is None else (count, 3)
    if tuple(shape) != expected:
        raise InvalidActionError(f"continuous actions must have shape {expected}, got "
                                 f"{tuple(shape)}")


def joystick_actions(actions: np.ndarray, threshold: float, xp=np) -> np.ndarray:
    """ALE action ids of float32 (..., 3) continuous actions (xp: numpy or cupy)."""
    radius, theta, fire = actions[..., 0], actions[..., 1], actions[..., 2]
    x = radius * xp.cos(theta)
    y = radius * xp.sin(theta)
    horizontal = (x > threshold).astype(np.int64) - (x < -threshold).astype(np.int64)
    vertical = (y > threshold).astype(np.int64) - (y < -threshold).astype(np.int64)
    pressed = (fire > threshold).astype(np.int64)
    table = _DIRECTIONS if xp is np else xp.asarray(_DIRECTIONS)
    return table[horizontal + 1, vertical + 1, pressed]


def paddle_deltas(actions: np.ndarray, xp=np) -> np.ndarray:
    """int32 paddle resistance change a frame for each action's radius: int(23000 * |radius|) in
    float32, as ALE."""
    radius = xp.abs(actions[..., 0].astype(np.float32))
    return (np.float32(PADDLE_DELTA) * radius).astype(np.int32)
