"""The TIA: register writes and reads, timing, collision latches, input ports and the frame
boundary (`tia`); the picture it draws (`render`) into the frame buffers of 8 pixels a word
(`frame_buffer`); the two audio channels' generators (`tia_sound`)."""
