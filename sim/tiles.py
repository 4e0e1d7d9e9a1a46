"""Tiles and cards in the notation of docs/rules.md: parsing, printing and count vectors.

A tile kind is an integer ``colour * 13 + (number - 1)`` with colours in the order
R, B, K, Y (kinds 0-51); :data:`JOKER` (52) is the joker column. A rack is a count vector
of 53 integers. The 106-tile set (T-SET-1, K-SET-1) holds two of every kind and two jokers;
joker-button jokers (T-BTN-1) can bring a rack up to :data:`MAX_JOKERS`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from sim.errors import NotationError

COLOURS = "RBKY"
COLOUR_NAMES = ("red", "blue", "black", "yellow")
NUMBERS = 13
KINDS = 52
JOKER = 52
COUNTS_LEN = 53
COPIES = 2  # T-SET-1: two copies of every numbered tile
SET_JOKERS = 2  # T-SET-1: two jokers in the 106
MAX_JOKERS = 4  # the two of the set plus joker-button jokers (T-BTN-1) a rack may gather

_TILE_RE = re.compile(r"^([RBKY])(\d{1,2})$")
_MELD_JOKER_RE = re.compile(r"^J\(([RBKY])(\d{1,2})\)$")
_SEPARATORS = re.compile(r"[\s,]+")

TILE_HELP = "a tile is a colour R, B, K or Y followed by a number 1-13 (e.g. R7), or J for a joker"


def kind(colour: int, number: int) -> int:
    """The kind index of the tile of ``colour`` (0-3) and ``number`` (1-13)."""
    return colour * NUMBERS + number - 1


def colour_of(k: int) -> int:
    return k // NUMBERS


def number_of(k: int) -> int:
    return k % NUMBERS + 1


def tile_name(k: int) -> str:
    """``R7`` for a numbered kind, ``J`` for the joker."""
    if k == JOKER:
        return "J"
    return f"{COLOURS[colour_of(k)]}{number_of(k)}"


def split_tokens(text: str) -> list[str]:
    """The tokens of a rack, meld or hand as written: separated by spaces or commas."""
    return [t for t in _SEPARATORS.split(text.strip()) if t]


def parse_tile(token: str) -> int:
    """The kind of one tile token (case-insensitive): ``"r7"`` -> 6, ``"J"`` -> 52."""
    if not isinstance(token, str):
        raise NotationError(f"tile {token!r} is not text: {TILE_HELP}")
    t = token.strip().upper()
    if t == "J":
        return JOKER
    m = _TILE_RE.match(t)
    if not m:
        raise NotationError(f"unknown tile {token!r}: {TILE_HELP}")
    number = int(m.group(2))
    if not 1 <= number <= NUMBERS:
        raise NotationError(f"unknown tile {token!r}: the number must be 1-13")
    return kind(COLOURS.index(m.group(1)), number)


def check_counts(counts: np.ndarray, *, what: str = "rack") -> None:
    """Reject a count vector that is not a possible rack (wrong shape, negative, too many copies)."""
    if counts.shape != (COUNTS_LEN,):
        raise NotationError(f"a {what} is a vector of {COUNTS_LEN} counts, got shape {counts.shape}")
    if (counts < 0).any():
        raise NotationError(f"a {what} cannot hold a negative count of {tile_name(int(np.argmin(counts)))}")
    over = np.flatnonzero(counts[:KINDS] > COPIES)
    if over.size:
        k = int(over[0])
        raise NotationError(
            f"too many copies of {tile_name(k)} in the {what}: the set holds {COPIES}, "
            f"the {what} has {int(counts[k])}"
        )
    if counts[JOKER] > MAX_JOKERS:
        raise NotationError(
            f"too many jokers in the {what}: at most {MAX_JOKERS} "
            f"({SET_JOKERS} in the set plus joker-button jokers), the {what} has {int(counts[JOKER])}"
        )


@dataclass(frozen=True)
class Rack:
    """A rack of tiles as a count vector of 53 (kinds 0-51, jokers at 52).

    >>> r = parse_rack("R7 r8 R9, K12 B12 Y12 J")
    >>> str(r), len(r), r.jokers
    ('R7 R8 R9 B12 K12 Y12 J', 7, 1)
    """

    counts: tuple[int, ...]

    @classmethod
    def from_counts(cls, counts: Iterable[int]) -> Rack:
        arr = np.asarray(list(counts) if not isinstance(counts, np.ndarray) else counts, dtype=np.int64)
        check_counts(arr)
        return cls(tuple(int(x) for x in arr))

    def to_array(self) -> np.ndarray:
        return np.array(self.counts, dtype=np.int8)

    @property
    def jokers(self) -> int:
        return self.counts[JOKER]

    def __len__(self) -> int:
        return sum(self.counts)

    def tiles(self) -> list[int]:
        """The kinds of the rack, one entry per tile, ordered by number then colour, jokers last."""
        order = sorted(range(KINDS), key=lambda k: (number_of(k), colour_of(k)))
        out = [k for k in order for _ in range(self.counts[k])]
        return out + [JOKER] * self.counts[JOKER]

    def __str__(self) -> str:
        return " ".join(tile_name(k) for k in self.tiles())

    def __repr__(self) -> str:
        return f"Rack('{self}')"


def parse_rack(text: str) -> Rack:
    """Read a rack such as ``"R7 R8 R9 K12 B12 Y12 J"`` (docs/rules.md, Notation).

    Tokens are separated by spaces or commas and read case-insensitively. An unknown
    token, a number outside 1-13 or more copies of a tile than the set holds raises
    :class:`~sim.errors.NotationError` naming the offending token.
    """
    if not isinstance(text, str):
        raise NotationError(f"a rack is written as text, got {type(text).__name__}")
    counts = [0] * COUNTS_LEN
    for token in split_tokens(text):
        k = parse_tile(token)
        counts[k] += 1
        limit = MAX_JOKERS if k == JOKER else COPIES
        if counts[k] > limit:
            what = "jokers" if k == JOKER else f"copies of {tile_name(k)}"
            raise NotationError(
                f"too many {what} at {token!r}: a rack holds at most {limit} "
                f"({'set and joker-button jokers' if k == JOKER else 'the set holds two of each tile'})"
            )
    return Rack(tuple(counts))


def as_counts(rack: Rack | str | np.ndarray | Iterable[int]) -> np.ndarray:
    """A validated int64 count vector from a rack, its notation or a count vector."""
    if isinstance(rack, str):
        rack = parse_rack(rack)
    if isinstance(rack, Rack):
        return np.array(rack.counts, dtype=np.int64)
    arr = np.asarray(rack)
    if arr.dtype.kind not in "iu":
        raise NotationError(f"a rack count vector must hold integers, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    check_counts(arr)
    return arr


def full_set_counts(jokers: int = SET_JOKERS) -> np.ndarray:
    """The count vector of the whole 106-tile set (T-SET-1)."""
    counts = np.full(COUNTS_LEN, COPIES, dtype=np.int64)
    counts[JOKER] = jokers
    return counts


# --- melds ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Meld:
    """A meld on the table or in a solution: ``kind`` is ``run``, ``set`` or ``pair``.

    ``tiles`` holds the kind each position shows, in order; ``jokers`` marks the positions
    held by a joker (which then stands for the kind shown, T-MELD-4). The value counts
    each position's number (T-VAL-1).

    >>> m = parse_meld("R5 J(R6) R7")
    >>> str(m), m.kind, m.value
    ('R5 J(R6) R7', 'run', 18)
    """

    kind: str
    tiles: tuple[int, ...]
    jokers: tuple[bool, ...]

    @property
    def value(self) -> int:
        return sum(number_of(k) for k in self.tiles)

    @property
    def joker_count(self) -> int:
        return sum(self.jokers)

    def __len__(self) -> int:
        return len(self.tiles)

    def __str__(self) -> str:
        cells = zip(self.tiles, self.jokers, strict=True)
        return " ".join(f"J({tile_name(k)})" if j else tile_name(k) for k, j in cells)

    def __repr__(self) -> str:
        return f"Meld('{self}')"


def parse_meld(text: str) -> Meld:
    """Read a meld written as tiles in order, a joker with what it stands for: ``R5 J(R6) R7``.

    The meld's kind (run, set or pair) is taken from its tiles; tiles that make no meld of
    any kind raise :class:`~sim.errors.NotationError`. Validity under a given rule set
    (joker limits, wrap-around runs) is checked by :func:`sim.melds.check_meld`.
    """
    tiles: list[int] = []
    jokers: list[bool] = []
    for token in split_tokens(text):
        m = _MELD_JOKER_RE.match(token.strip().upper())
        if m:
            tiles.append(parse_tile(f"{m.group(1)}{m.group(2)}"))
            jokers.append(True)
            continue
        k = parse_tile(token)
        if k == JOKER:
            raise NotationError(f"joker {token!r} in a meld must say what it stands for, e.g. J(R6)")
        tiles.append(k)
        jokers.append(False)
    if len(tiles) < 2:
        raise NotationError(f"a meld has at least two tiles, got {text!r}")
    colours = {colour_of(k) for k in tiles}
    numbers = [number_of(k) for k in tiles]
    if len(tiles) == 2:
        meld_kind = "pair"
    elif len(set(numbers)) == 1:
        meld_kind = "set"
    elif len(colours) == 1:
        meld_kind = "run"
    else:
        raise NotationError(f"{text!r} is neither a run (one colour) nor a set (one number)")
    return Meld(meld_kind, tuple(tiles), tuple(jokers))


# --- cards (C rules) ---------------------------------------------------------------------

SUITS = "SHDC"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CARD_HELP = "a card is a rank A, 2-10, J, Q or K followed by a suit S, H, D or C (e.g. 10H)"


def parse_card(token: str) -> int:
    """The index ``suit * 13 + rank - 1`` of a card token such as ``AS`` or ``10h``."""
    t = token.strip().upper()
    if len(t) < 2 or t[-1] not in SUITS or t[:-1] not in RANKS:
        raise NotationError(f"unknown card {token!r}: {CARD_HELP}")
    return SUITS.index(t[-1]) * 13 + RANKS.index(t[:-1])


def card_name(index: int) -> str:
    return f"{RANKS[index % 13]}{SUITS[index // 13]}"


def parse_hand(text: str, decks: int = 1) -> np.ndarray:
    """A count vector of 52 from cards such as ``"AS 10H KD"``; at most ``decks`` copies each."""
    counts = np.zeros(52, dtype=np.int64)
    for token in split_tokens(text):
        c = parse_card(token)
        counts[c] += 1
        if counts[c] > decks:
            raise NotationError(f"too many copies of {token!r}: {decks} deck(s) hold {decks}")
    return counts
