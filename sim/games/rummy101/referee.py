"""A rules referee for Rummy 101 with tiles (RULES.md section T), written in plain Python
apart from the engine: it deals the tiles again from the recorded tile order, replays a
traced round action by action, checks every action against the rules, keeps every table
meld valid and every tile accounted for, and recomputes the finish and the scores.

:func:`referee` returns the list of violations (empty when the round is clean).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sim.reference.opening import check_meld
from sim.rules import Rules
from sim.solver.layout import to_meld
from sim.tiles import JOKER, NUMBERS, colour_of, number_of, tile_name

# Event codes and finish names of the trace format (sim.engine.core), restated here so
# that the referee reads the format, not the engine.
DEAL, DRAW, TAKE, BUTTON, OPEN, LAY, ADD, RECOVER, DISCARD, FINISH, STOCK_OUT, SCORE = range(12)
FINISHES = ("normal", "joker", "one_turn", "one_turn_joker", "stock_out")
ADD_LOW, ADD_HIGH, ADD_SET = 0, 1, 2
MELDS, PAIRS = 1, 2


@dataclass
class TableMeld:
    owner: int
    kind: str  # run, set, pair
    tiles: list[int]  # kind shown at each position
    jokers: list[bool]  # a joker holds that position

    def check(self, rules: Rules) -> str | None:
        from sim.tiles import Meld

        if self.kind == "pair":
            if len(self.tiles) != 2 or self.tiles[0] != self.tiles[1] or all(self.jokers):
                return "a pair is two equal tiles, a joker for at most one (T-MELD-3)"
            return None
        return check_meld(Meld(self.kind, tuple(self.tiles), tuple(self.jokers)), rules)

    def value(self) -> int:
        return sum(number_of(k) for k in self.tiles)


@dataclass
class Player:
    rack: Counter = field(default_factory=Counter)
    opened: int = 0  # 0, MELDS or PAIRS
    buttons: int = 0
    turns: int = 0


class Referee:
    def __init__(self, rules: Rules, deck, events):
        self.rules = rules
        self.deck = [int(x) for x in deck]
        self.events = [[int(x) for x in row] for row in events]
        self.errors: list[str] = []
        self.players = [Player(buttons=rules.button_jokers) for _ in range(rules.players)]
        self.table: list[TableMeld] = []
        self.stock = 0
        self.last_discard: tuple[int, int] | None = None  # (tile, by seat)
        self.ladder_points = 0
        self.ladder_pairs = 0
        self.openers = 0
        self.finish: tuple[str, int] | None = None
        self.scores: dict[int, int] = {}
        self.jokers_in_play = rules.jokers
        self.discards: Counter = Counter()

    def fail(self, where: str, message: str) -> None:
        self.errors.append(f"{where}: {message}")

    # --- the whole round ----------------------------------------------------------------

    def run(self) -> list[str]:
        r = self.rules
        if len(self.deck) != 104 + r.jokers or Counter(self.deck) != Counter(
                {**{k: 2 for k in range(52)}, JOKER: r.jokers}):
            self.fail("deck", "the tiles are not the 106 of the set (T-SET-1)")
            return self.errors
        pos = 0
        for p in range(r.players):
            size = r.rack_size + (r.starter_extra if p == 0 else 0)
            self.players[p].rack.update(self.deck[pos:pos + size])
            pos += size
        self.stock = pos
        turns = self._split_turns()
        if turns is None:
            return self.errors
        expected = 0
        for number, (seat, rows) in enumerate(turns):
            if seat != expected:
                self.fail(f"turn {number + 1}", f"seat {seat} plays, seat {expected} was due (T-SET-2)")
                return self.errors
            self._turn(number + 1, seat, rows, first=number == 0)
            if self.finish is not None or self.errors:
                break
            expected = (expected + 1) % r.players
        self._scores()
        return self.errors

    def _split_turns(self):
        """Group the events into turns: (seat, rows); check the deal rows and the tail."""
        rows = self.events
        deals = [e for e in rows if e[0] == DEAL]
        r = self.rules
        for p in range(r.players):
            size = r.rack_size + (r.starter_extra if p == 0 else 0)
            if len(deals) != r.players or deals[p][1] != p or deals[p][3] != size:
                self.fail("deal", f"seat {p} must receive {size} tiles (T-SET-2)")
                return None
        body = [e for e in rows if e[0] not in (DEAL, SCORE)]
        self.score_rows = [e for e in rows if e[0] == SCORE]
        turns: list[tuple[int, list]] = []
        for e in body:
            if not turns or (turns[-1][1][-1][0] in (DISCARD,) and e[0] != FINISH):
                turns.append((e[1], []))
            turns[-1][1].append(e)
        return turns

    # --- one turn ------------------------------------------------------------------------

    def _turn(self, number: int, seat: int, rows: list, first: bool) -> None:
        where = f"turn {number} (seat {seat})"
        me = self.players[seat]
        me.turns += 1
        r = self.rules
        i = 0
        took = None
        opened_before = me.opened
        openers_before = self.openers
        used_taken = False
        head = rows[0][0]
        if first:
            if head in (DRAW, TAKE, BUTTON):
                self.fail(where, "the starter begins by discarding, without drawing (T-SET-2)")
                return
        elif head == STOCK_OUT:
            if self.stock < len(self.deck):
                self.fail(where, "the round ended with tiles left in the stock (T-END-1)")
            self.finish = ("stock_out", -1)
            return
        elif head == DRAW:
            if self.stock >= len(self.deck):
                self.fail(where, "drew from an empty stock")
                return
            if rows[0][3] != self.deck[self.stock]:
                self.fail(where, f"drew {tile_name(rows[0][3])}, the stock's top is "
                                 f"{tile_name(self.deck[self.stock])}")
                return
            me.rack[self.deck[self.stock]] += 1
            self.stock += 1
            i = 1
        elif head == TAKE:
            tile = rows[0][3]
            prev = (seat - 1) % r.players
            if self.last_discard != (tile, prev):
                self.fail(where, f"took {tile_name(tile)}, not the last discard of the player "
                                 "immediately before (T-TAKE-1)")
                return
            me.rack[tile] += 1
            self.discards[tile] -= 1
            took = tile
            self.last_discard = None
            i = 1
        elif head == BUTTON:
            if me.buttons < 1:
                self.fail(where, "pressed the joker button without a button joker (T-BTN-1)")
                return
            if self.stock >= len(self.deck):
                self.fail(where, "pressed the button with the stock empty: the round is over (T-END-1)")
            me.buttons -= 1
            me.rack[JOKER] += 1
            self.jokers_in_play += 1
            i = 1
        else:
            self.fail(where, "a turn starts with a take: draw, discard or joker button (T-TURN-1)")
            return
        # act
        while i < len(rows) and rows[i][0] not in (DISCARD,):
            e = rows[i]
            if e[0] == OPEN:
                count = e[7]  # the opening's melds follow it
                group = rows[i + 1:i + 1 + count]
                if len(group) != count or any(g[0] != LAY for g in group):
                    self.fail(where, "the opening's melds are missing")
                    return
                used_taken |= self._open(where, seat, e, group, took)
                i += 1 + count
                continue
            if e[0] == LAY:
                used_taken |= self._lay(where, seat, e, took, after_opening=True)
            elif e[0] == ADD:
                used_taken |= self._add(where, seat, e, took)
            elif e[0] == RECOVER:
                self._recover(where, seat, e)
            else:
                self.fail(where, f"unexpected action {e[0]} between take and discard")
                return
            if self.errors:
                return
            i += 1
        if self.errors:
            return
        if i >= len(rows):
            self.fail(where, "the turn does not end with a discard (T-TURN-2)")
            return
        if took is not None and not used_taken:
            rule = "T-TAKE-2" if not opened_before else "T-TAKE-3"
            self.fail(where, f"took {tile_name(took)} and did not use it that turn ({rule})")
        tile = rows[i][3]
        if sum(me.rack.values()) < 1 or me.rack[tile] < 1:
            self.fail(where, f"discards {tile_name(tile)}, which the rack does not hold (T-OPEN-4)")
            return
        me.rack[tile] -= 1
        self.discards[tile] += 1
        if sum(me.rack.values()) == 0:  # T-FIN-1
            one_turn = openers_before == 0 and not opened_before and me.opened
            if one_turn:
                kind = "one_turn_joker" if tile == JOKER else "one_turn"  # T-FIN-3
            else:
                kind = "joker" if tile == JOKER else "normal"  # T-FIN-2
            self.finish = (kind, seat)
            fin = rows[i + 1] if i + 1 < len(rows) else None
            if fin is None or fin[0] != FINISH or FINISHES[fin[3]] != kind or fin[1] != seat:
                self.fail(where, f"the rack is empty: a {kind} finish by seat {seat} was due")
            return
        self.last_discard = (tile, seat)
        if i + 1 != len(rows):
            self.fail(where, "actions after the discard")
        self._check_table(where)

    def _meld_of(self, e) -> TableMeld:
        m = to_meld(e[3:9])
        return TableMeld(e[1], m.kind, list(m.tiles), list(m.jokers))

    @staticmethod
    def _holds(meld: TableMeld, tile: int | None) -> bool:
        """Does the meld hold ``tile`` (a joker: any joker; a tile: as itself)?"""
        if tile is None:
            return False
        if tile == JOKER:
            return any(meld.jokers)
        return any(k == tile and not j for k, j in zip(meld.tiles, meld.jokers, strict=True))

    def _take_tiles(self, where, seat, meld: TableMeld) -> bool:
        need = Counter(JOKER if j else k for k, j in zip(meld.tiles, meld.jokers, strict=True))
        rack = self.players[seat].rack
        if any(rack[k] < n for k, n in need.items()):
            self.fail(where, f"lays {meld.tiles} that the rack does not hold")
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
            return max(r.open_pairs, self.ladder_pairs + 1)
        return r.open_pairs

    def _open(self, where, seat, e, group, took) -> bool:
        me = self.players[seat]
        if me.opened:
            self.fail(where, "opens a second time")
            return False
        kind, value, threshold, forced = e[3], e[4], e[5], e[6]
        if forced != (-1 if took is None else took):
            self.fail(where, "the opening does not name the discard taken")
        melds = [self._meld_of(g) for g in group]
        for m in melds:
            why = m.check(self.rules)
            if why:
                self.fail(where, f"opening meld {m.tiles}: {why}")
                return False
            if not self._take_tiles(where, seat, m):
                return False
        uses_taken = any(self._holds(m, took) for m in melds)
        if kind == MELDS:
            total = sum(m.value() for m in melds)  # T-OPEN-1, T-VAL-1
            need = self._points_needed()
            if any(m.kind == "pair" for m in melds):
                self.fail(where, "a melds opening lays runs and sets")
            if total < need or total != value or threshold != need:
                self.fail(where, f"melds opening of {total} points, {need} needed "
                                 f"(engine said {value} of {threshold}) (T-OPEN-1, T-THR)")
            self.ladder_points = total
        elif kind == PAIRS:
            need = self._pairs_needed()
            if any(m.kind != "pair" for m in melds):
                self.fail(where, "a pairs opening lays pairs only (T-OPEN-2)")
            if len(melds) < need or len(melds) != value or threshold != need:
                self.fail(where, f"pairs opening of {len(melds)} pairs, {need} needed (T-OPEN-2, T-THR)")
            if not self.rules.open_pairs:
                self.fail(where, "these rules have no pairs opening")
            self.ladder_pairs = len(melds)
        else:
            self.fail(where, f"unknown opening kind {kind}")
        if took is not None and not uses_taken:
            self.fail(where, f"the discard taken, {tile_name(took)}, is not in the opening (T-TAKE-2)")
        if sum(me.rack.values()) < 1:
            self.fail(where, "the opening leaves no tile for the discard (T-OPEN-4)")
        me.opened = kind
        self.openers += 1
        self.table.extend(melds)
        return uses_taken

    def _lay(self, where, seat, e, took, after_opening) -> bool:
        me = self.players[seat]
        m = self._meld_of(e)
        if not me.opened:
            self.fail(where, "lays a meld before opening (T-OPEN-1)")
            return False
        if me.opened == PAIRS and m.kind != "pair":
            self.fail(where, "after a pairs opening no new runs or sets (T-OPEN-6)")
        if me.opened == MELDS and m.kind == "pair" and not any(
                q.opened == PAIRS for s, q in enumerate(self.players) if s != seat):
            self.fail(where, "new pairs only once another player has opened with pairs (T-OPEN-5)")
        why = m.check(self.rules)
        if why:
            self.fail(where, f"meld {m.tiles}: {why}")
            return False
        if not self._take_tiles(where, seat, m):
            return False
        if sum(me.rack.values()) < 1:
            self.fail(where, "the lay-down leaves no tile for the discard (T-OPEN-4)")
        self.table.append(m)
        return self._holds(m, took)

    def _add(self, where, seat, e, took) -> bool:
        me = self.players[seat]
        tile, index, side = e[3], e[4], e[5]
        if not me.opened:
            self.fail(where, "adds before opening (T-ADD-1)")
            return False
        if not 0 <= index < len(self.table) or me.rack[tile] < 1 or tile == JOKER:
            self.fail(where, f"adds {tile_name(tile)} to a meld that is not there or from an empty rack")
            return False
        m = self.table[index]
        if m.kind == "pair":
            self.fail(where, "a pair takes no additions (T-OPEN-6)")
            return False
        col, num = colour_of(tile), number_of(tile)
        if m.kind == "run":
            first, last = number_of(m.tiles[0]), number_of(m.tiles[-1])
            ok_colour = col == colour_of(m.tiles[0])
            if side == ADD_LOW and ok_colour and num == first - 1:
                m.tiles.insert(0, tile)
                m.jokers.insert(0, False)
            elif side == ADD_HIGH and ok_colour and num == last + 1 and last < NUMBERS:
                m.tiles.append(tile)
                m.jokers.append(False)
            else:
                self.fail(where, f"{tile_name(tile)} does not extend the run {m.tiles} (T-ADD-1)")
                return False
        else:
            if side != ADD_SET or len(m.tiles) != 3 or num != number_of(m.tiles[0]) or col in {
                    colour_of(k) for k in m.tiles}:
                self.fail(where, f"{tile_name(tile)} does not complete the set {m.tiles} (T-ADD-1)")
                return False
            m.tiles.append(tile)
            m.jokers.append(False)
            order = sorted(range(4), key=lambda i: colour_of(m.tiles[i]))
            m.tiles = [m.tiles[i] for i in order]
            m.jokers = [m.jokers[i] for i in order]
        me.rack[tile] -= 1
        if sum(me.rack.values()) < 1:
            self.fail(where, "the addition leaves no tile for the discard (T-OPEN-4)")
        return took is not None and tile == took

    def _recover(self, where, seat, e) -> None:
        me = self.players[seat]
        index, tile = e[3], e[4]
        if not me.opened:
            self.fail(where, "recovers a joker before opening (T-JOKER-1)")
            return
        if not 0 <= index < len(self.table):
            self.fail(where, "recovers from a meld that is not there")
            return
        m = self.table[index]
        spots = [i for i, (k, j) in enumerate(zip(m.tiles, m.jokers, strict=True)) if j and k == tile]
        if not spots or me.rack[tile] < 1:
            self.fail(where, f"no joker standing for {tile_name(tile)} there, or no such tile (T-JOKER-1)")
            return
        m.jokers[spots[0]] = False
        me.rack[tile] -= 1
        me.rack[JOKER] += 1

    def _check_table(self, where) -> None:
        """Every table meld valid; every tile in a rack, on the table, in the stock or
        in the discards, exactly once (plus the button jokers pressed)."""
        for m in self.table:
            why = m.check(self.rules)
            if why:
                self.fail(where, f"table meld {m.tiles} is not valid: {why}")
        seen = Counter(JOKER if j else k for m in self.table for k, j in zip(m.tiles, m.jokers, strict=True))
        for p in self.players:
            seen.update(p.rack)
        seen.update(self.deck[self.stock:])
        seen.update(self.discards)
        expected = Counter(self.deck)
        expected[JOKER] += self.jokers_in_play - self.rules.jokers
        if +seen != +expected:
            self.fail(where, "tiles not conserved: racks, table, stock and discards do not add up")

    # --- scores ----------------------------------------------------------------------------

    def _scores(self) -> None:
        if self.errors:
            return
        r = self.rules
        if self.finish is None:
            self.fail("end", "the round ended without a finish or a stock exhaustion")
            return
        kind, winner = self.finish
        expected = {}
        for s, p in enumerate(self.players):
            rack_value = sum(n * (r.joker_penalty if k == JOKER else number_of(k)) for k, n in p.rack.items())
            if s == winner:  # T-SCORE-1: 101, 202 or 404 with the default factor 2
                double = {"normal": 0, "joker": 1, "one_turn": 1, "one_turn_joker": 2}[kind]
                expected[s] = r.win_points * r.finish_factor**double
                continue
            if kind in ("one_turn", "one_turn_joker"):  # T-SCORE-3
                loss = r.one_turn_penalty * (r.finish_factor if kind == "one_turn_joker" else 1)
            else:
                if not p.opened:
                    loss = r.unopened_penalty  # T-SCORE-2
                elif p.opened == MELDS:
                    loss = rack_value
                else:
                    loss = r.pairs_penalty_factor * rack_value
                if kind == "joker":
                    loss *= r.finish_factor  # T-SCORE-3
            expected[s] = -loss  # T-END-1: stock out, every player its hand penalty
        got = {row[1]: row[3] for row in self.score_rows}
        if len(got) != r.players:
            self.fail("scores", "not every player has a score (T-END-2)")
        for s, v in expected.items():
            if got.get(s) != v:
                self.fail("scores", f"seat {s} scored {got.get(s)}, the rules give {v} "
                                    f"({kind} finish, T-SCORE)")
        self.scores = expected


def referee(rules: Rules, deck, events) -> list[str]:
    """Replay a traced round; return the rule violations found (empty: a clean round)."""
    return Referee(rules, deck, events).run()
