"""A rules referee for Rummy 101 with tiles (docs/rules.md section T), in plain Python and
written apart from the engine: it reads a JSON trace (README, "JSON traces"; made by
:func:`.trace.trace_json`, or by any other program), deals the tiles again, replays the
round action by action, checks every action against the rules, keeps every table meld
valid and every tile accounted for, and recomputes the finish and the scores.

:func:`referee` returns the violations found, each naming the turn and the rule (empty:
a clean round).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sim.errors import SimError
from sim.games.rummy101.rules import Rummy101Rules
from sim.melds import check_meld
from sim.rules import Rules
from sim.tiles import JOKER, NUMBERS, Meld, colour_of, number_of, parse_meld, parse_tile, tile_name

TAKES = ("draw", "take", "button")


@dataclass
class TableMeld:
    owner: int
    meld: Meld  # kind shown at each position, jokers marked

    @property
    def tiles(self) -> list[int]:
        return list(self.meld.tiles)

    def check(self, rules: Rules) -> str | None:
        m = self.meld
        if m.kind == "pair":
            if len(m.tiles) != 2 or m.tiles[0] != m.tiles[1] or all(m.jokers):
                return "a pair is two equal tiles, a joker for at most one (T-MELD-3)"
            return None
        return check_meld(m, rules)

    def text(self) -> str:
        return str(self.meld)


@dataclass
class Player:
    rack: Counter = field(default_factory=Counter)
    opened: str | None = None  # "melds" or "pairs"
    buttons: int = 0
    turns: int = 0


def _tile(token: str) -> tuple[int, bool]:
    """A tile of the trace: ``R5`` -> (R5, False); ``J(R5)`` -> (R5, True); ``J`` -> (JOKER, False)."""
    token = token.strip()
    if token.upper().startswith("J("):
        return parse_tile(token[2:-1]), True
    return parse_tile(token), False


class Referee:
    def __init__(self, trace: dict):
        self.trace = trace
        self.rules = Rummy101Rules.from_dict(trace["rules"])
        r = self.rules
        self.errors: list[str] = []
        self.players = [Player(buttons=r.button_jokers) for _ in range(r.players)]
        self.table: list[TableMeld] = []
        self.stock = [parse_tile(t) for t in trace["deal"]["stock"]]
        self.drawn = 0
        self.last_discard: tuple[int, int] | None = None  # (tile, by seat)
        self.ladder_points = 0
        self.ladder_pairs = 0
        self.openers = 0
        self.finish: tuple[str, int | None] | None = None
        self.jokers_in_play = r.jokers
        self.discards: Counter = Counter()
        self.dealt: Counter = Counter()

    def fail(self, where: str, message: str) -> None:
        self.errors.append(f"{where}: {message}")

    # --- the whole round ----------------------------------------------------------------

    def run(self) -> list[str]:
        r = self.rules
        racks = self.trace["deal"]["racks"]
        for p in range(r.players):
            size = r.rack_size + (r.starter_extra if p == 0 else 0)
            if len(racks) != r.players or len(racks[p]) != size:
                self.fail("deal", f"seat {p} must receive {size} tiles (T-SET-2)")
                return self.errors
            self.players[p].rack.update(parse_tile(t) for t in racks[p])
        self.dealt = sum((p.rack for p in self.players), Counter()) + Counter(self.stock)
        full = Counter({**{k: 2 for k in range(52)}, JOKER: r.jokers})
        if self.dealt != full:
            self.fail("deal", "racks and stock are not the 106 tiles of the set (T-SET-1)")
            return self.errors
        for number, (seat, turn, events) in enumerate(self._turns()):
            where = f"turn {number + 1} (seat {seat}, its turn {turn})"
            if seat != number % r.players or turn != number // r.players + 1:
                self.fail(where, f"seat {number % r.players} was due, at its turn {number // r.players + 1} "
                                 "(T-SET-2: seat 0 starts, play goes round)")
                break
            self._turn(where, seat, events, first=number == 0)
            if self.finish is not None or self.errors:
                break
        self._result()
        return self.errors

    def _turns(self) -> list[tuple[int, int, list[dict]]]:
        """The events grouped into turns: a turn ends with its discard (and the finish)."""
        turns: list[tuple[int, int, list[dict]]] = []
        for e in self.trace["events"]:
            ended = turns and turns[-1][2][-1]["action"] in ("discard", "stock_out")
            if not turns or (ended and e["action"] != "finish"):
                turns.append((e["seat"], e["turn"], []))
            turns[-1][2].append(e)
        return turns

    # --- one turn ------------------------------------------------------------------------

    def _turn(self, where: str, seat: int, events: list[dict], first: bool) -> None:
        """One turn (T-TURN-1/2): its take, its melds and lay-offs, its discard."""
        me = self.players[seat]
        me.turns += 1
        opened_before, openers_before = me.opened, self.openers
        taken = self._take(where, seat, events[0], first)
        if taken is None:
            return
        took, i = taken
        if first and not self.rules.starter_may_open and events[i]["action"] != "discard":
            self.fail(where, "with starter_may_open false the starter's first turn is the discard alone (T-SET-2)")
            return
        placed = self._place(where, seat, events, i, took)
        if placed is None:
            return
        i, used_taken = placed
        if i >= len(events):
            self.fail(where, "the turn does not end with a discard (T-TURN-2)")
            return
        if took is not None and not used_taken:
            rule = "T-TAKE-2" if not opened_before else "T-TAKE-3"
            self.fail(where, f"took {tile_name(took)} and did not use it that turn ({rule})")
        self._discard(where, seat, events, i, one_turn=openers_before == 0 and not opened_before)

    def _take(self, where: str, seat: int, e: dict, first: bool) -> tuple[int | None, int] | None:
        """The turn's take (T-TURN-1): a draw from the stock, the previous player's discard
        (T-TAKE-1) or a button joker (T-BTN-1); the starter's first turn takes nothing
        (T-SET-2), and a turn finding the stock empty ends the round (T-END-1). Returns the
        tile taken from the discard (or None) and the index of the turn's next event;
        None: the turn is over."""
        me, r = self.players[seat], self.rules
        head = e["action"]
        if first:
            if head in TAKES:
                self.fail(where, "the starter begins by discarding, without drawing (T-SET-2)")
                return None
            return None, 0
        if head == "stock_out":
            if self.drawn < len(self.stock):
                self.fail(where, "the round ended with tiles left in the stock (T-END-1)")
            self.finish = ("stock_out", None)
            return None
        if head == "draw":
            tile = parse_tile(e["tile"])
            if self.drawn >= len(self.stock):
                self.fail(where, "drew from an empty stock (T-END-1)")
                return None
            if tile != self.stock[self.drawn]:
                self.fail(where, f"drew {tile_name(tile)}, the stock's top is {tile_name(self.stock[self.drawn])}")
                return None
            me.rack[tile] += 1
            self.drawn += 1
            return None, 1
        if head == "take":
            tile = parse_tile(e["tile"])
            prev = (seat - 1) % r.players
            if self.last_discard != (tile, prev):
                self.fail(where, f"took {tile_name(tile)}, not the last discard of the player immediately before "
                                 "(T-TAKE-1)")
                return None
            me.rack[tile] += 1
            self.discards[tile] -= 1
            self.last_discard = None
            return tile, 1
        if head == "button":
            if me.buttons < 1:
                self.fail(where, "pressed the joker button without a button joker (T-BTN-1)")
                return None
            if self.drawn >= len(self.stock):
                self.fail(where, "pressed the button with the stock empty: the round is over (T-END-1)")
            me.buttons -= 1
            me.rack[JOKER] += 1
            self.jokers_in_play += 1
            return None, 1
        self.fail(where, "a turn starts with a take: draw, the previous discard or the joker button (T-TURN-1)")
        return None

    def _place(self, where: str, seat: int, events: list[dict], i: int, took: int | None) -> tuple[int, bool] | None:
        """The turn's opening, melds, additions and recovered jokers up to its discard
        (T-OPEN, T-MELD, T-ADD-1, T-JOKER-1); returns the index of the discard and whether the
        tile taken from the discard was used; None: the turn is over."""
        used_taken = opened_now = False
        while i < len(events) and events[i]["action"] != "discard":
            e = events[i]
            a = e["action"]
            if a == "open":
                used_taken |= self._open(where, seat, e, took)
                opened_now = True
            elif a == "lay":
                if opened_now:
                    self.fail(where, "new melds after the opening on the opening turn: every meld laid that "
                                     "turn belongs to the opening (T-OPEN-3)")
                    return None
                for tiles in e["melds"]:
                    used_taken |= self._lay(where, seat, tiles, took)
            elif a == "add":
                used_taken |= self._add(where, seat, e, took)
            elif a == "recover":
                self._recover(where, seat, e)
            else:
                self.fail(where, f"unexpected action {a!r} between the take and the discard")
                return None
            if self.errors:
                return None
            i += 1
        return i, used_taken

    def _discard(self, where: str, seat: int, events: list[dict], i: int, one_turn: bool) -> None:
        """The discard that ends the turn (T-TURN-2, T-OPEN-4), and the finish an empty
        rack brings (T-FIN-1..3; ``one_turn``: no one had opened before this turn)."""
        me = self.players[seat]
        tile = parse_tile(events[i]["tile"])
        if me.rack[tile] < 1:
            self.fail(where, f"discards {tile_name(tile)}, which the rack does not hold (T-OPEN-4)")
            return
        me.rack[tile] -= 1
        self.discards[tile] += 1
        if sum(me.rack.values()) == 0:  # T-FIN-1
            if one_turn and me.opened:
                finish = "one_turn_joker" if tile == JOKER else "one_turn"  # T-FIN-3
            else:
                finish = "joker" if tile == JOKER else "normal"  # T-FIN-2
            self.finish = (finish, seat)
            fin = events[i + 1] if i + 1 < len(events) else None
            if fin is None or fin["action"] != "finish" or fin["kind"] != finish or fin["seat"] != seat:
                self.fail(where, f"the rack is empty: a {finish} finish by seat {seat} was due (T-FIN)")
            return
        self.last_discard = (tile, seat)
        if i + 1 != len(events):
            self.fail(where, "actions after the discard")
        self._check_table(where)

    def _meld(self, where: str, seat: int, tiles: list[str]) -> TableMeld | None:
        try:
            m = parse_meld(" ".join(tiles))
        except SimError as e:
            self.fail(where, f"meld {tiles}: {e}")
            return None
        return TableMeld(seat, m)

    @staticmethod
    def _holds(meld: TableMeld, tile: int | None) -> bool:
        """Does the meld hold ``tile`` (a joker: any joker; a tile: as itself)?"""
        if tile is None:
            return False
        if tile == JOKER:
            return any(meld.meld.jokers)
        return any(k == tile and not j for k, j in zip(meld.meld.tiles, meld.meld.jokers, strict=True))

    def _take_tiles(self, where: str, seat: int, meld: TableMeld) -> bool:
        need = Counter(JOKER if j else k for k, j in zip(meld.meld.tiles, meld.meld.jokers, strict=True))
        rack = self.players[seat].rack
        if any(rack[k] < n for k, n in need.items()):
            self.fail(where, f"lays {meld.text()}, which the rack does not hold")
            return False
        rack.subtract(need)
        return True

    def _points_needed(self) -> int:
        r = self.rules
        if r.threshold_mode == "increasing" and self.ladder_points:
            return max(r.open_points, self.ladder_points + 1)  # T-THR-2
        return r.open_points

    def _pairs_needed(self) -> int:
        r = self.rules
        if r.threshold_mode == "increasing" and self.ladder_pairs:
            return max(r.open_pairs, self.ladder_pairs + 1)  # T-THR-2
        return r.open_pairs

    def _open(self, where: str, seat: int, e: dict, took: int | None) -> bool:
        me = self.players[seat]
        if me.opened:
            self.fail(where, "opens a second time")
            return False
        melds = [self._meld(where, seat, tiles) for tiles in e["melds"]]
        if None in melds:
            return False
        for m in melds:
            why = m.check(self.rules)
            if why:
                self.fail(where, f"opening meld {m.text()}: {why}")
                return False
            if not self._take_tiles(where, seat, m):
                return False
        uses_taken = any(self._holds(m, took) for m in melds)
        kind = e["kind"]
        if kind == "melds":
            total = sum(m.meld.value for m in melds)  # T-OPEN-1, T-VAL-1
            need = self._points_needed()
            if any(m.meld.kind == "pair" for m in melds):
                self.fail(where, "a melds opening lays runs and sets, no pairs (T-OPEN-3)")
            if total < need or total != e["value"]:
                self.fail(where, f"melds opening of {total} points, {need} needed (the trace says {e['value']}) "
                                 f"(T-OPEN-1, T-THR)")
            self.ladder_points = total
        elif kind == "pairs":
            need = self._pairs_needed()
            if not self.rules.open_pairs:
                self.fail(where, "these rules have no pairs opening")
            if any(m.meld.kind != "pair" for m in melds):
                self.fail(where, "a pairs opening lays pairs only (T-OPEN-2)")
            if len(melds) < need or len(melds) != e["value"]:
                self.fail(where, f"pairs opening of {len(melds)} pairs, {need} needed (T-OPEN-2, T-THR)")
            self.ladder_pairs = len(melds)
        else:
            self.fail(where, f"unknown opening kind {kind!r}")
        if took is not None and not uses_taken:
            self.fail(where, f"the discard taken, {tile_name(took)}, is not in the opening (T-TAKE-2)")
        if sum(me.rack.values()) < 1:
            self.fail(where, "the opening leaves no tile for the discard (T-OPEN-4)")
        me.opened = kind
        self.openers += 1
        self.table.extend(melds)
        return uses_taken

    def _lay(self, where: str, seat: int, tiles: list[str], took: int | None) -> bool:
        me = self.players[seat]
        m = self._meld(where, seat, tiles)
        if m is None:
            return False
        if not me.opened:
            self.fail(where, "lays a meld before opening (T-OPEN-1)")
            return False
        if me.opened == "pairs" and m.meld.kind != "pair":
            self.fail(where, "after a pairs opening no new runs or sets (T-OPEN-6)")
        if me.opened == "melds" and m.meld.kind == "pair" and not any(
                q.opened == "pairs" for s, q in enumerate(self.players) if s != seat):
            self.fail(where, "new pairs only once another player has opened with pairs (T-OPEN-5)")
        why = m.check(self.rules)
        if why:
            self.fail(where, f"meld {m.text()}: {why}")
            return False
        if not self._take_tiles(where, seat, m):
            return False
        if sum(me.rack.values()) < 1:
            self.fail(where, "the lay-down leaves no tile for the discard (T-OPEN-4)")
        self.table.append(m)
        return self._holds(m, took)

    def _add(self, where: str, seat: int, e: dict, took: int | None) -> bool:
        me = self.players[seat]
        shown, is_joker = _tile(e["tile"])
        tile = JOKER if is_joker else shown
        index, end = e["meld"], e["end"]
        if not me.opened:
            self.fail(where, "adds before opening (T-ADD-1)")
            return False
        if shown == JOKER:
            self.fail(where, "a joker added must say the tile it stands for, e.g. J(R5) (T-ADD-1)")
            return False
        if not 0 <= index < len(self.table) or me.rack[tile] < 1:
            self.fail(where, f"adds {e['tile']} to a meld that is not there or from a rack without it")
            return False
        m = self.table[index].meld
        if m.kind == "pair":
            self.fail(where, "a pair takes no additions (T-OPEN-6)")
            return False
        col, num = colour_of(shown), number_of(shown)
        tiles, jokers = list(m.tiles), list(m.jokers)
        if m.kind == "run":
            first, last = number_of(tiles[0]), number_of(tiles[-1])
            same = col == colour_of(tiles[0])
            if end == "start" and same and num == first - 1:
                tiles.insert(0, shown)
                jokers.insert(0, is_joker)
            elif end == "end" and same and num == last + 1 and last < NUMBERS:
                tiles.append(shown)
                jokers.append(is_joker)
            else:
                self.fail(where, f"{e['tile']} does not extend the run {m} at its {end} (T-ADD-1)")
                return False
        else:
            if end != "set" or len(tiles) != 3 or num != number_of(tiles[0]) or col in {colour_of(k) for k in tiles}:
                self.fail(where, f"{e['tile']} does not complete the set {m} (T-ADD-1)")
                return False
            order = sorted(range(4), key=lambda i: colour_of([*tiles, shown][i]))
            tiles, jokers = [[*tiles, shown][i] for i in order], [[*jokers, is_joker][i] for i in order]
        self.table[index].meld = Meld(m.kind, tuple(tiles), tuple(jokers))
        me.rack[tile] -= 1
        if sum(me.rack.values()) < 1:
            self.fail(where, "the addition leaves no tile for the discard (T-OPEN-4)")
        return took is not None and tile == took

    def _recover(self, where: str, seat: int, e: dict) -> None:
        me = self.players[seat]
        index, tile = e["meld"], parse_tile(e["tile"])
        if not me.opened:
            self.fail(where, "recovers a joker before opening (T-JOKER-1)")
            return
        if not 0 <= index < len(self.table):
            self.fail(where, "recovers from a meld that is not there")
            return
        m = self.table[index].meld
        spots = [i for i, (k, j) in enumerate(zip(m.tiles, m.jokers, strict=True)) if j and k == tile]
        if not spots or me.rack[tile] < 1:
            rule = "T-JOKER-1: a joker in a pair stands for its twin" if m.kind == "pair" else "T-JOKER-1"
            self.fail(where, f"no joker standing for {tile_name(tile)} in {m}, or no such tile on the rack ({rule})")
            return
        jokers = list(m.jokers)
        jokers[spots[0]] = False
        self.table[index].meld = Meld(m.kind, m.tiles, tuple(jokers))
        me.rack[tile] -= 1
        me.rack[JOKER] += 1

    def _check_table(self, where: str) -> None:
        """Every table meld valid; every tile in a rack, on the table, in the stock or in
        the discards, exactly once (plus the button jokers pressed)."""
        for tm in self.table:
            why = tm.check(self.rules)
            if why:
                self.fail(where, f"table meld {tm.text()} is not valid: {why}")
        seen = Counter(JOKER if j else k for tm in self.table
                       for k, j in zip(tm.meld.tiles, tm.meld.jokers, strict=True))
        for p in self.players:
            seen.update(p.rack)
        seen.update(self.stock[self.drawn:])
        seen.update(self.discards)
        expected = Counter(self.dealt)
        expected[JOKER] += self.jokers_in_play - self.rules.jokers
        if +seen != +expected:
            self.fail(where, "tiles not conserved: racks, table, stock and discards do not add up")

    # --- the result ------------------------------------------------------------------------

    def _result(self) -> None:
        if self.errors:
            return
        r = self.rules
        res = self.trace["result"]
        if self.finish is None:
            self.fail("end", "the round ended without a finish or a stock exhaustion")
            return
        finish, winner = self.finish
        if res["finish"] != finish or res["winner_seat"] != winner:
            self.fail("result", f"the trace says {res['finish']} won by {res['winner_seat']}, the round was "
                                f"{finish} won by {winner} (T-FIN, T-END-1)")
        for s, p in enumerate(self.players):
            left = Counter(parse_tile(t) for t in res["racks"][s])
            if +left != +p.rack:
                self.fail("result", f"seat {s}'s rack at the end is not what it holds")
            rack_value = sum(n * (r.joker_penalty if k == JOKER else number_of(k)) for k, n in p.rack.items())
            if s == winner:  # T-SCORE-1: 101, 202 or 404 with the default factor 2
                double = {"normal": 0, "joker": 1, "one_turn": 1, "one_turn_joker": 2}[finish]
                expected = r.win_points * r.finish_factor**double
            elif finish in ("one_turn", "one_turn_joker"):  # T-SCORE-3
                expected = -r.one_turn_penalty * (r.finish_factor if finish == "one_turn_joker" else 1)
            else:
                if not p.opened:
                    loss = r.unopened_penalty  # T-SCORE-2
                elif p.opened == "melds":
                    loss = rack_value
                else:
                    loss = r.pairs_penalty_factor * rack_value
                if finish == "joker":
                    loss *= r.finish_factor  # T-SCORE-3
                expected = -loss  # T-END-1: a stock-out charges every hand, no doubling
            got = res["scores"][s] if s < len(res["scores"]) else None
            if got != expected:
                self.fail("scores", f"seat {s} scored {got}, the rules give {expected} ({finish} finish, T-SCORE)")


def referee(trace: dict) -> list[str]:
    """Replay a JSON trace of a Rummy 101 round; the rule violations found (empty: clean)."""
    return Referee(trace).run()

