"""cule_py's Gymnasium ids: one twin of every Atari id ale-py registers, in the "cule_py"
namespace, with the same kwargs, read from Gymnasium's registry after `import ale_py`:

    ALE/Pong-v5         -> cule_py/Pong-v5          (frameskip 4, sticky 0.25)
    PongNoFrameskip-v4  -> cule_py/PongNoFrameskip-v4  (frameskip 1, sticky 0)
    Pong-v4             -> cule_py/Pong-v4          (frameskip (2, 5), sticky 0)

Each twin has our single env as entry point and our vector env as vector entry point, so
`gymnasium.make("cule_py/Pong-v5")` and `gymnasium.make_vec("cule_py/Pong-v5", 8)` both work
(ale-py gives only its v5 ids a vector entry point; ours have one for every id). `import cule_py`
registers them; `gymnasium.make("cule_py:cule_py/Pong-v5")` imports cule_py on its own.
"""

from __future__ import annotations

import importlib

import gymnasium

NAMESPACE = "cule_py"
ENTRY_POINT = "cule_py.gym_env:AtariEnv"
VECTOR_ENTRY_POINT = "cule_py.gym_env:vector_entry_point"
ALE_ENTRY_POINT = "ale_py.env:AtariEnv"

__all__ = ["NAMESPACE", "register_envs", "twin_id", "atari_ids"]

_registered = False


def twin_id(ale_id: str) -> str:
    """cule_py's id for an ALE id ("ALE/Pong-v5" -> "cule_py/Pong-v5"); a cule_py id unchanged."""
    spec = gymnasium.spec(ale_id)
    version = "" if spec.version is None else f"-v{spec.version}"
    return f"{NAMESPACE}/{spec.name}{version}"


def _ale_specs() -> list:
    importlib.import_module("ale_py")     # importing it registers ale-py's ids

    return [spec for spec in gymnasium.envs.registry.values()
            if spec.entry_point == ALE_ENTRY_POINT]


def register_envs() -> None:
    """Register the twins of ale-py's ids (once; later calls do nothing)."""
    global _registered
    if _registered:
        return
    for spec in _ale_specs():
        new_id = twin_id(spec.id)
        if new_id in gymnasium.envs.registry:
            continue
        gymnasium.register(id=new_id, entry_point=ENTRY_POINT,
                           vector_entry_point=VECTOR_ENTRY_POINT, kwargs=dict(spec.kwargs),
                           max_episode_steps=spec.max_episode_steps,
                           reward_threshold=spec.reward_threshold,
                           nondeterministic=spec.nondeterministic)
    _registered = True


def atari_ids() -> list[str]:
    """Every Atari id make/make_vec take: ale-py's and their cule_py twins."""
    register_envs()
    return sorted(spec.id for spec in gymnasium.envs.registry.values()
                  if spec.entry_point in (ALE_ENTRY_POINT, ENTRY_POINT))
