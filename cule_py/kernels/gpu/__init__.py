"""What only the GPU has: the warp scheduler that keeps a warp's lanes on one instruction
(`warp_schedule`), the state rows in tiles of 32 consoles (`state_tiles`), and one NVVM compile
per kernel (`cuda_compile`)."""
