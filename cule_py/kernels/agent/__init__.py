"""ale-py's AtariVectorEnv step and reset as kernels (`agent_step`: frameskip, max-pool, palette,
area resize, frame stack, autoreset), and the float32 products its resize needs on both targets
(`exact_float`)."""
