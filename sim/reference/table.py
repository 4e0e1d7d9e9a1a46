"""Brute-force reference for the Rummikub table solver (K-PLAY-1, K-JOKER-1/2, K-MELD-1/2,
K-VAR): the most a rack can place onto a table that may be rebuilt as a whole.

Every tile on the table must stay on it (K-JOKER-2), so the table's tiles are
*mandatory* and the rack's *optional*. The search takes the lowest mandatory tile and
tries every meld that holds it (the other tiles taken from the table first: two copies
of a tile are the same tile), then the mandatory jokers, then the rack alone, memoised
on what is left. With ``locked_jokers`` a meld holding a joker is left out, except that
its joker may be freed by the exact tile it stands for, and must then be placed (K-JOKER-1).
Exponential: meant for a dozen or two tiles.
"""

from __future__ import annotations

import functools
import itertools

from sim.reference.opening import melds_with
from sim.rules import Rules
from sim.tiles import COUNTS_LEN, JOKER, KINDS, Meld, number_of

INFEASIBLE = float("-inf")


def _lowest(counts: tuple[int, ...]) -> int | None:
    numbered = [k for k in range(KINDS) if counts[k]]
    return min(numbered, key=lambda k: (number_of(k), k // 13)) if numbered else None


def _split(meld: Meld, mandatory: tuple[int, ...], optional: tuple[int, ...]):
    """Take a meld's tiles from the mandatory ones first; what is left of each, and the
    optional tiles used (kinds, jokers as JOKER)."""
    m, o = list(mandatory), list(optional)
    used: list[int] = []
    for k, is_joker in zip(meld.tiles, meld.jokers, strict=True):
        if not _take(JOKER if is_joker else k, m, o, used):
            return None
    return tuple(m), tuple(o), used


def _take(kind: int, m: list[int], o: list[int], used: list[int]) -> bool:
    """Take one ``kind`` token, a mandatory copy first (two copies are the same tile), an
    optional one noted in ``used``; False when neither is left."""
    if m[kind] > 0:
        m[kind] -= 1
    elif o[kind] > 0:
        o[kind] -= 1
        used.append(kind)
    else:
        return False
    return True


def _worth(rules: Rules, objective: str):
    """What a rack tile placed earns: its number (a joker the joker penalty), or 1 a tile."""
    def worth(kind: int) -> int:
        if objective == "tiles":
            return 1
        return rules.joker_penalty if kind == JOKER else number_of(kind)
    return worth


def _rack_alone(rules: Rules, worth):
    """The best new melds of rack tiles alone (the table done), memoised on the rack left."""
    @functools.cache
    def best_rack(optional: tuple[int, ...]) -> float:
        t = _lowest(optional)
        if t is None:
            return 0
        skip = list(optional)
        skip[t] -= 1
        result = best_rack(tuple(skip))
        for meld, left in melds_with(optional, t, rules):
            gained = sum(worth(JOKER if j else k) for k, j in zip(meld.tiles, meld.jokers, strict=True))
            result = max(result, gained + best_rack(left))
        return result
    return best_rack


def best_play(table_counts, rack_counts, rules: Rules, objective: str = "value",
              locked: list[Meld] | None = None) -> float:
    """The most value (or tiles) the rack can place; 0 when nothing can be placed but the
    table stands; ``INFEASIBLE`` when the table itself is no valid arrangement.

    ``table_counts`` holds the table's loose tiles (the melds that may be rebuilt);
    ``locked`` the melds frozen by ``locked_jokers``, which are not in ``table_counts``.
    """

    worth = _worth(rules, objective)

    @functools.cache
    def best(mandatory: tuple[int, ...], optional: tuple[int, ...]) -> float:
        t = _lowest(mandatory)
        if t is None and mandatory[JOKER] == 0:
            return best_rack(optional)
        result = INFEASIBLE
        both = tuple(a + b for a, b in zip(mandatory, optional, strict=True))
        starts = [t] if t is not None else [k for k in range(KINDS) if optional[k]]  # a joker needs company
        for s in starts:
            for meld, _ in melds_with(both, s, rules):
                if t is None and not any(meld.jokers):
                    continue
                split = _split(meld, mandatory, optional)
                if split is None:
                    continue
                m, o, used = split
                if t is None and m[JOKER] == mandatory[JOKER]:
                    continue  # it must place a mandatory joker
                rest = best(m, o)
                if rest != INFEASIBLE:
                    result = max(result, sum(worth(k) for k in used) + rest)
        return result

    best_rack = _rack_alone(rules, worth)

    table = tuple(int(x) for x in table_counts)
    rack = tuple(int(x) for x in rack_counts)
    # K-JOKER-1 with locked jokers: each frozen joker may be freed by its exact tile.
    frees = [k for meld in (locked or []) for k, j in zip(meld.tiles, meld.jokers, strict=True) if j]
    result = INFEASIBLE
    for chosen in itertools.chain.from_iterable(itertools.combinations(range(len(frees)), n)
                                                for n in range(len(frees) + 1)):
        r, t, gained = list(rack), list(table), 0
        for i in chosen:
            r[frees[i]] -= 1
            t[JOKER] += 1
            gained += worth(frees[i])
        if min(r) < 0:
            continue
        got = best(tuple(t), tuple(r))
        if got != INFEASIBLE:
            result = max(result, gained + got)
    return result


def meld_counts(melds: list[Meld]) -> list[int]:
    """The tiles of some melds as a count vector (jokers at ``JOKER``)."""
    counts = [0] * COUNTS_LEN
    for m in melds:
        for k, j in zip(m.tiles, m.jokers, strict=True):
            counts[JOKER if j else k] += 1
    return counts


# --- bound jokers (K-JOKER-2, joker_moves=bound) ------------------------------------------------
#
# Tokens: a numbered tile (its kind), a free joker (JOKER), and a joker bound to kind k
# (PINNED + k). A meld is a valid Meld (sim.melds.check_meld, jokers counted as jokers)
# whose joker positions are filled by bound jokers of exactly their tile or by free ones.

PINNED = 53  # token PINNED + k: a joker bound to tile k
TOKENS = PINNED + KINDS


def _melds_holding(k: int, avail, jokers: int, rules: Rules) -> list[Meld]:
    """Every valid meld with a position standing for tile ``k`` that the tiles ``avail``
    (kinds with a copy left) and ``jokers`` jokers (free or bound) could fill: any
    position may be a joker, one without a copy must be."""
    from sim.melds import check_meld
    from sim.reference.opening import _run_windows
    from sim.tiles import colour_of, kind

    col, num = colour_of(k), number_of(k)
    shapes = [("run", [kind(col, n) for n in window]) for window in _run_windows(num, rules.wrap_runs)]
    others = [c for c in range(4) if c != col]
    for size in (3, 4):
        for rest in itertools.combinations(others, size - 1):
            shapes.append(("set", [kind(c, num) for c in sorted((col, *rest))]))
    found = []
    for shape, cells in shapes:
        missing = [i for i, x in enumerate(cells) if not avail[x]]
        if len(missing) > jokers:
            continue
        present = [i for i in range(len(cells)) if i not in missing]
        for extra in range(jokers - len(missing) + 1):
            for more in itertools.combinations(present, extra):
                at = {*missing, *more}
                meld = Meld(shape, tuple(cells), tuple(i in at for i in range(len(cells))))
                if check_meld(meld, rules) is None:
                    found.append(meld)
    return found


def _bound_key(k: int) -> tuple[int, int]:
    return number_of(k), k // 13


def _fillings(meld: Meld, mandatory: tuple[int, ...], optional: tuple[int, ...], first_pinned: int | None):
    """Every way to fill ``meld`` from the tokens: a numbered position by its tile (a
    mandatory copy first: two copies are the same tile), a joker position by a joker bound
    to its tile or by a free joker (mandatory first). ``first_pinned``: a position that
    must take its bound joker. Yields (mandatory left, optional left, optional used)."""
    m, o = list(mandatory), list(optional)
    used: list[int] = []
    for k, j in zip(meld.tiles, meld.jokers, strict=True):
        if not j and not _take(k, m, o, used):
            return
    slots = [k for k, j in zip(meld.tiles, meld.jokers, strict=True) if j]

    def fill(i, m, o, used):
        if i == len(slots):
            yield tuple(m), tuple(o), used
            return
        k = slots[i]
        if m[PINNED + k] > 0:
            m2 = list(m)
            m2[PINNED + k] -= 1
            yield from fill(i + 1, m2, o, used)
        if first_pinned is not None and k == first_pinned and i == slots.index(k):
            return  # that position takes the bound joker
        if m[JOKER] > 0:
            m2 = list(m)
            m2[JOKER] -= 1
            yield from fill(i + 1, m2, o, used)
        elif o[JOKER] > 0:
            o2 = list(o)
            o2[JOKER] -= 1
            yield from fill(i + 1, m, o2, [*used, JOKER])

    yield from fill(0, m, o, used)


def best_play_bound(loose: list[Meld], rack_counts, rules: Rules, objective: str = "value",
                    locked: list[Meld] | None = None) -> float:
    """The most value (or tiles) the rack can place under ``joker_moves=bound`` (K-JOKER-2):
    every joker of the ``loose`` melds stays bound to its tile unless a rack tile frees it
    (its tile, or for a joker in a group of three the colour the group lacks), the freeing
    tile joining the table and the freed joker placed again anywhere. ``locked``: melds
    frozen by ``locked_jokers``; one whose jokers are all freed joins the table."""

    worth = _worth(rules, objective)

    def candidates(k, mandatory, optional):
        avail = [mandatory[x] + optional[x] for x in range(KINDS)]
        jokers = mandatory[JOKER] + optional[JOKER] + sum(mandatory[PINNED:])
        return _melds_holding(k, avail, jokers, rules)

    @functools.cache
    def best(mandatory: tuple[int, ...], optional: tuple[int, ...]) -> float:
        held = [k for k in range(KINDS) if mandatory[k] or mandatory[PINNED + k]]
        if not held:
            if mandatory[JOKER] == 0:
                return best_rack(optional)
            result = INFEASIBLE  # the free jokers left need melds of rack tiles
            for s in (k for k in range(KINDS) if optional[k]):
                for meld in candidates(s, mandatory, optional):
                    if not any(meld.jokers):
                        continue
                    for m, o, used in _fillings(meld, mandatory, optional, None):
                        if m[JOKER] == mandatory[JOKER]:
                            continue  # it must place a mandatory joker
                        rest = best(m, o)
                        if rest != INFEASIBLE:
                            result = max(result, sum(worth(k) for k in used) + rest)
            return result
        t = min(held, key=_bound_key)
        real = mandatory[t] > 0  # the lowest token: a tile, or else a joker bound to it
        result = INFEASIBLE
        for meld in candidates(t, mandatory, optional):
            cells = [j for k, j in zip(meld.tiles, meld.jokers, strict=True) if k == t]
            if (not real and True not in cells) or (real and False not in cells):
                continue
            for m, o, used in _fillings(meld, mandatory, optional, None if real else t):
                if (m[t] == mandatory[t]) if real else (m[PINNED + t] == mandatory[PINNED + t]):
                    continue  # the lowest token must be in this meld
                rest = best(m, o)
                if rest != INFEASIBLE:
                    result = max(result, sum(worth(k) for k in used) + rest)
        return result

    best_rack = _rack_alone(rules, worth)

    from sim.tiles import colour_of, kind

    # Each table joker: its meld (or None for a loose one's place in ``loose``), its tile,
    # and the tiles that free it.
    spots = []
    for group, frozen in ((loose, False), (locked or [], True)):
        for i, meld in enumerate(group):
            for k, j in zip(meld.tiles, meld.jokers, strict=True):
                if not j:
                    continue
                frees = [k]
                if meld.kind == "set" and len(meld) == 3:
                    present = {colour_of(x) for x in meld.tiles}
                    frees += [kind(c, number_of(k)) for c in range(4) if c not in present]
                spots.append((frozen, i, k, frees))
    result = INFEASIBLE
    for choice in itertools.product(*[[None, *frees] for *_, frees in spots]):
        mandatory = [0] * TOKENS
        optional = [int(x) for x in rack_counts] + [0] * KINDS
        gained = 0
        for meld in loose:
            for k, j in zip(meld.tiles, meld.jokers, strict=True):
                if not j:
                    mandatory[k] += 1
        for (frozen, _, k, _), u in zip(spots, choice, strict=True):
            if u is None:
                if not frozen:
                    mandatory[PINNED + k] += 1
                continue
            optional[u] -= 1
            gained += worth(u)
            mandatory[JOKER] += 1
            if not frozen:
                mandatory[u] += 1
        for i, meld in enumerate(locked or []):
            mine = [u for (frozen, j, _, _), u in zip(spots, choice, strict=True) if frozen and j == i]
            if mine and None not in mine:  # all its jokers freed: an ordinary meld now
                for k, j in zip(meld.tiles, meld.jokers, strict=True):
                    if not j:
                        mandatory[k] += 1
                for u in mine:
                    mandatory[u] += 1
        if min(optional) < 0:
            continue
        got = best(tuple(mandatory), tuple(optional))
        if got != INFEASIBLE:
            result = max(result, gained + got)
    return result
