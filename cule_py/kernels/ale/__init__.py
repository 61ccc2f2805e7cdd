"""ALE's environment layer as device code: act, sticky actions, emulate, reset_game and mode
selection (`environment`), each game's reward, lives and game over (`game_logic`), the
environment RNG (`mt19937`), and a reset's frames from a table of states seen before
(`reset_snapshot`)."""
