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


@st.composite
def table_positions(draw, max_melds: int = 4, max_rack: int = 6, wrap: bool = False):
    """A Rummikub table (valid melds, some with jokers) and a rack around the same numbers,
    two copies of a tile and two jokers at most across both: ``(melds, rack counts)``.
    With ``wrap``, the numbers are six in a row round the circle (13 then 1, K-VAR
    ``wrap_runs``), so that the rack and the groups sit about runs across 13 and 1."""
    from sim.tiles import Meld

    low = draw(st.integers(1, NUMBERS if wrap else NUMBERS - 5))
    numbers = [(low - 1 + i) % NUMBERS + 1 for i in range(6)]
    counts = [0] * COUNTS_LEN
    melds = []
    for _ in range(draw(st.integers(0, max_melds))):
        if draw(st.booleans()):
            c = draw(st.integers(0, 3))
            length = draw(st.integers(3, 5))
            start = draw(st.integers(low, low + 6 - length))  # within the numbers
            first = (start - 1) % NUMBERS + 1 if not wrap or draw(st.booleans()) else draw(st.integers(1, NUMBERS))
            kinds = [kind(c, (first - 1 + i) % NUMBERS + 1) for i in range(length)]
            meld_kind = "run"
        else:
            n = draw(st.sampled_from(numbers))
            colours = sorted(draw(st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True)))
            kinds = [kind(c, n) for c in colours]
            meld_kind = "set"
        joker = draw(st.integers(-1, len(kinds) - 1))
        jokers = tuple(i == joker for i in range(len(kinds)))
        need = [JOKER if j else k for k, j in zip(kinds, jokers, strict=True)]
        if all(counts[k] + need.count(k) <= 2 for k in set(need)):
            for k in need:
                counts[k] += 1
            melds.append(Meld(meld_kind, tuple(kinds), jokers))
    rack = [0] * COUNTS_LEN
    for c, n in draw(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(numbers)), min_size=1,
                              max_size=max_rack)):
        k = kind(c, n)
        if counts[k] + rack[k] < 2:
            rack[k] += 1
    if counts[JOKER] < 2 and draw(st.integers(0, 3)) == 0:
        rack[JOKER] = 1
    return melds, rack


@st.composite
def big_table_positions(draw, max_tiles: int = 70):
    """A Rummikub table of random valid melds over the whole set (up to ``max_tiles``
    tiles, jokers among them) and a rack of up to 20 tiles from what is left."""
    from sim.tiles import Meld

    pool = [2] * 52 + [2]
    melds, size = [], 0
    target = draw(st.integers(10, max_tiles))
    for _ in range(60):
        if size >= target:
            break
        if draw(st.booleans()):
            c, length = draw(st.integers(0, 3)), draw(st.integers(3, 6))
            first = draw(st.integers(1, NUMBERS - length + 1))
            kinds, meld_kind = [kind(c, first + i) for i in range(length)], "run"
        else:
            n = draw(st.integers(1, NUMBERS))
            colours = sorted(draw(st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True)))
            kinds, meld_kind = [kind(c, n) for c in colours], "set"
        joker = draw(st.integers(-1, 3 * len(kinds)))  # now and then one joker
        jokers = tuple(i == joker for i in range(len(kinds)))
        need = [JOKER if j else k for k, j in zip(kinds, jokers, strict=True)]
        if all(pool[k] >= need.count(k) for k in set(need)):
            for k in need:
                pool[k] -= 1
            melds.append(Meld(meld_kind, tuple(kinds), jokers))
            size += len(kinds)
    left = [k for k in range(COUNTS_LEN) for _ in range(pool[k])]
    picks = draw(st.lists(st.integers(0, len(left) - 1), min_size=1, max_size=20, unique=True))
    rack = [0] * COUNTS_LEN
    for i in picks:
        rack[left[i]] += 1
    return melds, rack


@st.composite
def bound_positions(draw, max_melds: int = 3, max_rack: int = 5):
    """A Rummikub table with one or two jokers in its melds and a rack that often holds a
    tile freeing one (K-JOKER-2: the tile a joker stands for, or a colour its group of
    three lacks): ``(melds, rack counts)``."""
    from sim.tiles import Meld, colour_of, number_of

    melds, rack = draw(table_positions(max_melds=max_melds, max_rack=max_rack))
    jokers = [(m, k) for m in melds for k, j in zip(m.tiles, m.jokers, strict=True) if j]
    if not jokers:  # put a joker in: a group of three of a number near the rest
        n = draw(st.integers(1, NUMBERS))
        colours = sorted(draw(st.lists(st.integers(0, 3), min_size=3, max_size=3, unique=True)))
        cells = [kind(c, n) for c in colours]
        at = draw(st.integers(0, 2))
        counts = [0] * COUNTS_LEN
        for m in melds:
            for k, j in zip(m.tiles, m.jokers, strict=True):
                counts[JOKER if j else k] += 1
        if all(counts[k] + rack[k] + 1 <= 2 for i, k in enumerate(cells) if i != at) and rack[JOKER] < 2:
            melds = [*melds, Meld("set", tuple(cells), tuple(i == at for i in range(3)))]
            jokers = [(melds[-1], cells[at])]
    used = [0] * COUNTS_LEN
    for m in melds:
        for k, j in zip(m.tiles, m.jokers, strict=True):
            used[JOKER if j else k] += 1
    for m, k in jokers:
        frees = [k]
        if m.kind == "set" and len(m) == 3:
            present = {colour_of(x) for x in m.tiles}
            frees += [kind(c, number_of(k)) for c in range(4) if c not in present]
        u = draw(st.sampled_from(frees))
        if draw(st.booleans()) and used[u] + rack[u] < 2:
            rack[u] += 1
    if used[JOKER] + rack[JOKER] > 2:
        rack[JOKER] = 0
    return melds, rack
