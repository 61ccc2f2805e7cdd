"""The named groups of arrays that the kernels take.

A kernel's arguments are a few of these instead of a long list of arrays: numba passes a
namedtuple of arrays to CPU and CUDA functions alike (on CUDA it is flattened into the kernel's
parameters, so the compiled code is the one a list of the same arrays gives). Adding an array to
the console means adding a field here and where the host builds the group (batch.py,
vector.py), not editing every signature that passes it on.

Each field is indexed by console first (`ram[env, i]`) unless it says otherwise. On the GPU the
state rows and the observation's work rows are tiles (state_tiles.py); each CUDA entry point
turns them into its console's row with `console_at` / `screen_at` before calling the shared
code.
"""

from collections import namedtuple

from numba.extending import register_jitable

from .gpu.state_tiles import console_row

#: One batch of consoles as ALE's environment layer sees each: the cartridge (`rom` bytes,
#: bank-switching `scheme`), each console's rows (`ram`: RIOT RAM and cartridge RAM, `st`: the
#: state row of kernels/layout.py, `fb`: the two screen buffers, `logic`: the game logic's row),
#: the game's tables (`params`: environment.P_*, `inputs`: the input pins of each action row) and
#: the sticky actions' environment RNG (`mt`: each console's std::mt19937, `threshold`: the draw
#: at and above which an act adopts the new action). `ram, st, fb, logic` are also the fields of
#: a ResetTable, so the code that copies or compares consoles takes either.
Console = namedtuple("Console", "rom scheme ram st fb logic params inputs mt threshold")

#: What ALE's reset_game reads besides the console: the system-RNG draws each System reset takes
#: (`rng`, shared, read at each console's own position), the game's mode selection row
#: (`select`, environment.S_*) and the table of what its RAM shows for each mode (`shown`), the
#: starting actions (`starting`).
ResetTables = namedtuple("ResetTables", "rng select shown starting")

#: kernels/ale/reset_snapshot.py's table: rows shaped like a console's (`st`, `ram`, `logic`, `fb`;
#: each row one saved console) and `meta`, the int32 table of entries and counters
#: (reset_snapshot.TABLE_*).
ResetTable = namedtuple("ResetTable", "st ram logic fb meta")

#: The step's snapshot of each console (state row, RAM, game logic), played again from when a
#: step drawn lazily turns out not to be exact (agent_step's module doc).
Saved = namedtuple("Saved", "st ram logic")

#: How an observation is made: ALE's `palette` (256 rows of 1 or 3 channels), the two pooled
#: screens of each console (`raw`) and the resize's work rows (`scratch`), the frame stacks
#: (`obs`), and the area resize's tables along x and y (`xd, xs, xa` / `yd, ys, ya`:
#: destination, source and weight of each tap; cule_py/area_resize.py).
Screen = namedtuple("Screen", "palette raw scratch obs xd xs xa yd ys ya")

#: A step's per-console outputs: reward, terminated, truncated, lives, and the observations the
#: step returns (shaped as Screen.obs): on the CPU a new array each step, into which the kernels
#: copy each console's stack once it is made, or zero consoles where the host wants none; on
#: the GPU unused (the host copies the stacks there, on the device).
Outputs = namedtuple("Outputs", "rewards terminated truncated lives observations")


@register_jitable
def console_at(console, env):
    """`console` with its state rows as console `env`'s row of the GPU's tiles (console_row)."""
    return Console(console.rom, console.scheme, console.ram, console_row(console.st, env),
                   console.fb, console.logic, console.params, console.inputs, console.mt,
                   console.threshold)


@register_jitable
def screen_at(screen, env):
    """`screen` with the pooled screens and work rows as console `env`'s rows of their tiles."""
    return Screen(screen.palette, console_row(screen.raw, env), console_row(screen.scratch, env),
                  screen.obs, screen.xd, screen.xs, screen.xa, screen.yd, screen.ys, screen.ya)

