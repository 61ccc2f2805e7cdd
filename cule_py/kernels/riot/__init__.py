"""The RIOT (6532): RAM is decoded on the bus (frame_loop/bus.py); here its I/O ports and
interval timer (`riot`)."""
