"""The console's frame loop: the 6507 on the 2600's bus and the decoded core's loop (`bus`), one
ALE frame and System reset (`console`), the CPU backend's fast path through the 6507
(`console_fast_path`), the CPU's one compiled copy of the console (`cpu_console`), and what stays
out of line on the GPU or is passed by address on the CPU (`outlining`)."""
