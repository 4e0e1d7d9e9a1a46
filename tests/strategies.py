"""Hypothesis strategies for racks that make melds likely: tiles from a few colours and a
short window of numbers, two copies at most, some jokers."""

from hypothesis import strategies as st

from sim.tiles import COUNTS_LEN, JOKER, NUMBERS, kind


@st.composite
def racks(draw, max_tiles: int = 10, max_jokers: int = 2, wrap: bool = False):
    colours = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True))
    width = draw(st.integers(3, 7))
    start = draw(st.integers(1, NUMBERS)) if wrap else draw(st.integers(1, NUMBERS - width + 1))
    numbers = [(start - 1 + i) % NUMBERS + 1 for i in range(width)]
    tiles = draw(
        st.lists(st.tuples(st.sampled_from(colours), st.sampled_from(numbers)),
                 min_size=1, max_size=max_tiles)
    )
    counts = [0] * COUNTS_LEN
    for c, n in tiles:
        k = kind(c, n)
        if counts[k] < 2:
            counts[k] += 1
    counts[JOKER] = draw(st.integers(0, max_jokers))
    return counts
