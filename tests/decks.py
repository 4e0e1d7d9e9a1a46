"""Tile orders for scenario tests: the racks each seat is dealt and the top of the stock,
the rest of the 106 tiles after them in a fixed order."""

from collections import Counter

import numpy as np

from sim.tiles import JOKER, parse_rack


def deck_from(seats: list[str], stock: str = "", rest_first: str = "", jokers: int = 2) -> np.ndarray:
    """Seat racks in seat order, then ``stock`` on top of the stock, then ``rest_first``,
    then every other tile of the set (with ``jokers`` jokers) from the highest number down."""
    order: list[int] = []
    for text in [*seats, stock, rest_first]:
        rack = parse_rack(text)
        # keep the written order within each part
        for token in text.split():
            order.append(parse_rack(token).tiles()[0])
        assert len(rack) == len(text.split())
    left = Counter({**{k: 2 for k in range(52)}, JOKER: jokers})
    left.subtract(order)
    if any(v < 0 for v in left.values()):
        raise ValueError("more copies than the set holds")
    rest = sorted((k for k, n in left.items() for _ in range(n)), key=lambda k: (-(k % 13), k))
    return np.array(order + rest, dtype=np.int64)
