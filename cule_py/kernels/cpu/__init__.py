"""The 6507: one instruction bound to a bus and a CPU model (`cpu6507`), the opcode matrix
(`opcodes`), the idle loop on the RIOT timer that both cores skip (`idle_loop`), and a flat
64 KiB test bus with its CPU and CUDA entry points for the 6502 test suites (`flat_bus`)."""
