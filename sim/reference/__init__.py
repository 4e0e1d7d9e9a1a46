"""Plain, obviously-right reference implementations that the fast code is tested against.

Nothing here is fast; everything here is short enough to check by reading.
"""
