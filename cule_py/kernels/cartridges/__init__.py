"""Cartridges: the bank-switching dispatcher and 2K/4K ROMs (`cart`), and one module a scheme
family: F8/F6/F4, their Superchip variants and FA (`cart_fx`), E0 (`cart_e0`), FE (`cart_fe`),
E7 (`cart_e7`), DPC (`cart_dpc`), 3F (`cart_3f`), UA (`cart_ua`)."""
