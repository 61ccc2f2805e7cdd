"""The TIA's and the RIOT's registers by name, as the Stella Programmer's Guide names them.

The numbers are what the kernels compare a decoded address with: a TIA write register is
`addr & TIA_WRITE_BITS`, a TIA read register `addr & TIA_READ_BITS`; the RIOT's ports and timer
are decoded by low address bits too (see "RIOT" below). numba freezes module-level ints into the
compiled code as constants, so a name costs nothing over the number it stands for.

Comments give the guide's description, shortened; the guide's page numbers are not repeated.
(Which addresses reach the TIA or the RIOT at all is the console's bus:
kernels/frame_loop/bus.py.)
"""

# ---- TIA write registers ($00-$2C; the TIA decodes A5-A0) -------------------------------------
TIA_WRITE_BITS = 0x3F

VSYNC = 0x00     # vertical sync set-clear
VBLANK = 0x01    # vertical blank set-clear (D1), input latch / dump control (D6, D7)
WSYNC = 0x02     # wait for leading edge of horizontal blank (strobe)
RSYNC = 0x03     # reset horizontal sync counter (strobe)
NUSIZ0 = 0x04    # number-size player-missile 0
NUSIZ1 = 0x05    # number-size player-missile 1
COLUP0 = 0x06    # color-lum player 0 (and missile 0)
COLUP1 = 0x07    # color-lum player 1 (and missile 1)
COLUPF = 0x08    # color-lum playfield (and ball)
COLUBK = 0x09    # color-lum background
CTRLPF = 0x0A    # control playfield ball size & collisions (reflect, score, priority, ball size)
REFP0 = 0x0B     # reflect player 0
REFP1 = 0x0C     # reflect player 1
PF0 = 0x0D       # playfield register byte 0 (D7-D4)
PF1 = 0x0E       # playfield register byte 1
PF2 = 0x0F       # playfield register byte 2
RESP0 = 0x10     # reset player 0 (strobe)
RESP1 = 0x11     # reset player 1 (strobe)
RESM0 = 0x12     # reset missile 0 (strobe)
RESM1 = 0x13     # reset missile 1 (strobe)
RESBL = 0x14     # reset ball (strobe)
AUDC0 = 0x15     # audio control 0 (no sound here: ALE's picture and RAM do not depend on it)
AUDC1 = 0x16     # audio control 1
AUDF0 = 0x17     # audio frequency 0
AUDF1 = 0x18     # audio frequency 1
AUDV0 = 0x19     # audio volume 0
AUDV1 = 0x1A     # audio volume 1
GRP0 = 0x1B      # graphics player 0
GRP1 = 0x1C      # graphics player 1
ENAM0 = 0x1D     # graphics (enable) missile 0 (D1)
ENAM1 = 0x1E     # graphics (enable) missile 1 (D1)
ENABL = 0x1F     # graphics (enable) ball (D1)
HMP0 = 0x20      # horizontal motion player 0 (D7-D4)
HMP1 = 0x21      # horizontal motion player 1
HMM0 = 0x22      # horizontal motion missile 0
HMM1 = 0x23      # horizontal motion missile 1
HMBL = 0x24      # horizontal motion ball
VDELP0 = 0x25    # vertical delay player 0 (D0)
VDELP1 = 0x26    # vertical delay player 1 (D0)
VDELBL = 0x27    # vertical delay ball (D0)
RESMP0 = 0x28    # reset missile 0 to player 0 (D1)
RESMP1 = 0x29    # reset missile 1 to player 1 (D1)
HMOVE = 0x2A     # apply horizontal motion (strobe)
HMCLR = 0x2B     # clear horizontal motion registers (strobe)
CXCLR = 0x2C     # clear collision latches (strobe)

# ---- TIA read registers ($0-$D; the TIA decodes A3-A0) ----------------------------------------
TIA_READ_BITS = 0x0F

CXM0P = 0x0      # read collision M0-P1 (D7), M0-P0 (D6)
CXM1P = 0x1      # read collision M1-P0, M1-P1
CXP0FB = 0x2     # read collision P0-PF, P0-BL
CXP1FB = 0x3     # read collision P1-PF, P1-BL
CXM0FB = 0x4     # read collision M0-PF, M0-BL
CXM1FB = 0x5     # read collision M1-PF, M1-BL
CXBLPF = 0x6     # read collision BL-PF (D7; D6 unused)
CXPPMM = 0x7     # read collision P0-P1, M0-M1
INPT0 = 0x8      # read pot port 0 (D7)
INPT1 = 0x9      # read pot port 1
INPT2 = 0xA      # read pot port 2
INPT3 = 0xB      # read pot port 3
INPT4 = 0xC      # read input (trigger) 4: the left player's fire button (D7, 0 = pressed)
INPT5 = 0xD      # read input (trigger) 5: the right player's fire button

# ---- RIOT (6532) I/O and timer ($280-$297) ------------------------------------------------------
# The full addresses of the guide; the console's bus hands the RIOT every address with A12 = 0,
# A9 = 1, A7 = 1, and the RIOT decodes only low address bits, as below.
SWCHA = 0x280    # Port A: the hand controllers (joystick directions)
SWACNT = 0x281   # Port A DDR (data direction register, 0 = input)
SWCHB = 0x282    # Port B: the console switches (read only)
SWBCNT = 0x283   # Port B DDR (hardwired as input)
INTIM = 0x284    # timer output (read only)
TIMINT = 0x285   # timer interrupt flag (read only; ALE's M6532 "instat", bit 7 only)
TIM1T = 0x294    # set 1-clock interval (838 nsec/interval)
TIM8T = 0x295    # set 8-clock interval
TIM64T = 0x296   # set 64-clock interval
T1024T = 0x297   # set 1024-clock interval

# How the RIOT decodes them (mirrors included, as ALE's M6532):
RIOT_READ_BITS = 0x07          # a read selects by A2-A0: ports 0-3, INTIM 4 and 6, TIMINT 5, 7
RIOT_TIMER_READ = 0x04         # A2 set: a read of the timer (INTIM or TIMINT), not of a port
RIOT_TIMINT_READ = 0x01        # A0 set in a timer read: TIMINT rather than INTIM
RIOT_TIMER_WRITE = 0x14        # A4 and A2 both set: a write sets the timer (TIM1T .. T1024T)
RIOT_INTERVAL_BITS = 0x03      # A1-A0 of a timer write: TIM1T, TIM8T, TIM64T or T1024T

# The ports as the code compares `addr & RIOT_READ_BITS` with them (0..3).
SWCHA_PORT = SWCHA & RIOT_READ_BITS
SWACNT_PORT = SWACNT & RIOT_READ_BITS
SWCHB_PORT = SWCHB & RIOT_READ_BITS
SWBCNT_PORT = SWBCNT & RIOT_READ_BITS

assert INTIM & RIOT_READ_BITS & RIOT_TIMER_READ and TIMINT & RIOT_TIMINT_READ
assert not (INTIM & RIOT_TIMINT_READ) and not (SWBCNT & RIOT_TIMER_READ)
assert all(reg & RIOT_TIMER_WRITE == RIOT_TIMER_WRITE for reg in (TIM1T, TIM8T, TIM64T, T1024T))
assert [reg & RIOT_INTERVAL_BITS for reg in (TIM1T, TIM8T, TIM64T, T1024T)] == [0, 1, 2, 3]
