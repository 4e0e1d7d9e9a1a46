"""The card Rummy 101 rules referee: plain Python, written apart from the engine, that
replays a JSON trace (:mod:`.trace`) card by card and lists every rule broken.

It knows nothing of the engine or the bots: from each hand's deal it checks the cards
(every card of the decks exactly once), the dealer moving left (C-SET-2), whose turn it
is, every draw from the right pile (the stock's next card, or the discard pile's top),
every meld and lay-off (C-MELD-1: cards held, the meld valid, a lay-off leaving a valid
meld), the discard (held, and not the card just taken from the discard pile, C-TURN-1),
the last card never melded (C-OUT-2), going out and the wash at the right moment
(C-OUT-1, C-WASH-1), each hand's points (C-SCORE-1, the rummy factor of C-SCORE-2 for an
out in one turn with nothing placed before and, unless ``rummy_layoffs``, no lay-off; the
opponents' cards only with partners, C-TEAM-1), the running totals, and the match
ending on the first hand that takes a player or team to the target (C-MATCH-1).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sim.games.cards.rules import CardRules

SUITS = "SHDC"
RANK_OF = {"A": 1, "J": 11, "Q": 12, "K": 13, **{str(n): n for n in range(2, 11)}}


def _card(text: str) -> tuple[int, str]:
    """``"10H"`` -> (10, "H")."""
    return RANK_OF[text[:-1]], text[-1]


def value(card: str) -> int:
    """C-SCORE-1: 2-10 their face, J Q K 10, ace 10."""
    rank, _ = _card(card)
    return 10 if rank == 1 or rank >= 10 else rank


def is_meld(cards: list[str]) -> bool:
    """C-MELD-1: a set of 3 or 4 cards of one rank in different suits, or a run of 3 or
    more consecutive cards of one suit, ace low only."""
    if len(cards) < 3:
        return False
    parsed = [_card(c) for c in cards]
    ranks = sorted(r for r, _ in parsed)
    suits = [s for _, s in parsed]
    if len(set(ranks)) == 1:
        return len(cards) <= 4 and len(set(suits)) == len(suits)
    return len(set(suits)) == 1 and ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def full_deck(decks: int) -> Counter:
    return Counter({f"{r}{s}": decks for s in SUITS for r in ("A", *map(str, range(2, 11)), "J", "Q", "K")})


def _side(seat: int, partners: bool) -> int:
    return seat % 2 if partners else seat


class _Stop(Exception):
    """The hand cannot be followed further: its problem is recorded already."""


@dataclass
class _Hand:
    """What the referee knows as it replays one hand: the cards held, the stock, the discard
    pile, the table's melds, who placed cards before this turn (C-SCORE-2), each seat's
    turns, the events and where it is in them, and how the hand ended."""

    rules: CardRules
    tag: str
    problems: list[str]
    held: list[Counter]
    stock: list[str]
    pile: list[str]
    events: list[dict]
    seat: int
    table: list[list[str]] = field(default_factory=list)
    placed_before: list[bool] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    i: int = 0
    finish: str = "wash"
    winner: int | None = None
    points: int = 0

    def bad(self, text: str) -> None:
        self.problems.append(f"{self.tag}: {text}")

    def stop(self, text: str) -> None:
        self.bad(text)
        raise _Stop


def _deal_hand(rules: CardRules, hand: dict, dealer: int, problems: list[str]) -> _Hand:
    """The deal (C-SET-1, C-SET-2): the dealer, the hands' sizes, the whole decks."""
    players = rules.players
    deal = hand["deal"]
    h = _Hand(rules, f"hand {hand['hand']}", problems, [Counter(cards) for cards in deal["hands"]],
              list(deal["stock"]), [deal["upcard"]], hand["events"], (hand["dealer_seat"] + 1) % players,
              placed_before=[False] * players, turns=[0] * players)
    if hand["dealer_seat"] != dealer:
        h.bad(f"dealt by seat {hand['dealer_seat']}, the deal moves one seat left: seat {dealer} (C-SET-2)")
    if len(h.held) != players or any(sum(c.values()) != rules.deal_size() for c in h.held):
        h.bad(f"every player is dealt {rules.deal_size()} cards (C-SET-1)")
    if Counter([c for cards in deal["hands"] for c in cards] + [deal["upcard"]] + deal["stock"]) != \
            full_deck(rules.decks):
        h.bad(f"the deal is not the {rules.decks} deck(s) of 52 cards")
    return h


def _take(h: _Hand) -> str | None:
    """A turn's draw (C-TURN-1): the stock's top or the discard's; returns the card taken
    from the discard that may not go back this turn (None: from the stock, or a twin held)."""
    ev, seat = h.events[h.i], h.seat
    if ev["action"] != "draw":
        h.stop(f"event {h.i}: a turn starts with a draw (C-TURN-1), not {ev['action']}")
    taken = None
    if ev["from"] == "stock":
        if ev["card"] != h.stock[0]:
            h.bad(f"event {h.i}: drew {ev['card']}, the stock's top is {h.stock[0]}")
        h.stock.pop(0)
    else:
        if ev["card"] != h.pile[-1]:
            h.bad(f"event {h.i}: took {ev['card']}, the discard's top is {h.pile[-1]}")
        h.pile.pop()
        taken = ev["card"] if h.held[seat][ev["card"]] == 0 else None  # with two decks its twin may go
    h.held[seat][ev["card"]] += 1
    h.i += 1
    return taken


def _place(h: _Hand) -> tuple[bool, bool]:
    """The turn's melds and lay-offs (C-MELD-1, C-OUT-2); returns whether it placed cards and
    whether any went onto a table meld."""
    held = h.held[h.seat]
    placed = laid_off = False
    while h.i < len(h.events) and h.events[h.i]["action"] in ("meld", "layoff"):
        ev, i = h.events[h.i], h.i
        cards = ev["cards"] if ev["action"] == "meld" else [ev["card"]]
        if any(held[c] < cards.count(c) for c in cards):
            h.bad(f"event {i}: seat {h.seat} {ev['action']}s {' '.join(cards)} it does not hold")
        if sum(held.values()) - len(cards) < 1:
            h.bad(f"event {i}: the last card is never melded or laid off; going out ends with a discard (C-OUT-2)")
        if ev["action"] == "meld":
            if not is_meld(cards):
                h.bad(f"event {i}: {' '.join(cards)} is not a meld (C-MELD-1)")
            h.table.append(list(cards))
        else:
            m = ev["meld"]
            if not 0 <= m < len(h.table):
                h.stop(f"event {i}: no table meld {m}")
            if not is_meld(h.table[m] + cards):
                h.bad(f"event {i}: {cards[0]} does not lay off on {' '.join(h.table[m])} (C-MELD-1)")
            h.table[m] = h.table[m] + cards
            laid_off = True
        held.subtract(cards)
        placed = True
        h.i += 1
    return placed, laid_off


def _discard(h: _Hand, taken: str | None) -> bool:
    """The discard that ends every turn (C-TURN-1), and whether it went out (C-OUT-1)."""
    if h.i == len(h.events) or h.events[h.i]["action"] != "discard":
        h.stop(f"seat {h.seat}'s turn {h.turns[h.seat]} ends without a discard (C-TURN-1)")
    held, card = h.held[h.seat], h.events[h.i]["card"]
    if held[card] < 1:
        h.bad(f"event {h.i}: discards {card}, which seat {h.seat} does not hold")
    elif card == taken:
        h.bad(f"event {h.i}: discards {card}, just taken from the discard pile (C-TURN-1)")
    held[card] -= 1
    h.pile.append(card)
    h.i += 1
    empty = sum(held.values()) == 0
    said_out = h.i < len(h.events) and h.events[h.i]["action"] == "out"
    if empty != said_out:
        h.stop(f"event {h.i}: seat {h.seat} " + ("went out without saying so (C-OUT-1)" if empty else
                                                  "says it went out holding cards"))
    return empty


def _go_out(h: _Hand, laid_off: bool) -> None:
    """The score of an out (C-SCORE-1, C-TEAM-1), doubled for rummy (C-SCORE-2)."""
    rules, seat, i = h.rules, h.seat, h.i
    h.winner = seat
    # C-SCORE-2: out in this one turn, nothing placed before, and (unless rummy_layoffs)
    # every card in the player's own new melds
    rummy = not h.placed_before[seat] and (rules.rummy_layoffs or not laid_off)
    h.finish = "rummy" if rummy else "out"
    if h.events[i].get("rummy") is not None and h.events[i]["rummy"] != rummy:
        h.bad(f"event {i}: rummy is {h.events[i]['rummy']}, the rules say {rummy} (C-SCORE-2)")
    h.points = sum(value(c) * n for o in range(rules.players)
                   if _side(o, rules.partners) != _side(seat, rules.partners)
                   for c, n in h.held[o].items())  # C-SCORE-1, C-TEAM-1
    h.points *= rules.rummy_factor if rummy else 1
    if i != len(h.events) - 1:
        h.bad("events after going out")


def _play_out(h: _Hand) -> None:
    """Turn after turn until a player goes out or finds the stock empty (C-WASH-1)."""
    while h.i < len(h.events):
        ev, seat = h.events[h.i], h.seat
        if ev["seat"] != seat:
            h.stop(f"event {h.i}: seat {ev['seat']} acts on seat {seat}'s turn")
        if not h.stock:  # C-WASH-1: the player to move finds the stock empty
            if ev["action"] != "wash":
                h.bad(f"event {h.i}: the stock is empty, the hand is a wash (C-WASH-1), not {ev['action']}")
            elif h.i != len(h.events) - 1:
                h.bad("events after the wash")
            return
        h.turns[seat] += 1
        if ev["turn"] != h.turns[seat]:
            h.bad(f"event {h.i}: seat {seat}'s turn {h.turns[seat]} numbered {ev['turn']}")
        taken = _take(h)
        placed, laid_off = _place(h)
        if _discard(h, taken):
            _go_out(h, laid_off)
            return
        h.placed_before[seat] = h.placed_before[seat] or placed
        h.seat = (seat + 1) % h.rules.players
    h.bad("the hand stops before anyone goes out or the stock runs out")


def _hand_result(h: _Hand, res: dict, totals: list[int]) -> None:
    """The hand's result as traced: its end, winner, points, scores, totals and cards left."""
    if res["finish"] != h.finish:
        h.bad(f"finish {res['finish']}, the replay says {h.finish}")
    if res["winner_seat"] != h.winner:
        h.bad(f"winner {res['winner_seat']}, the replay says {h.winner}")
    if res["points"] != h.points:
        h.bad(f"{res['points']} points, the replay counts {h.points} (C-SCORE-1/2)")
    scores = [h.points if p == h.winner else 0 for p in range(h.rules.players)]
    if res["scores"] != scores:
        h.bad(f"scores {res['scores']}, the replay says {scores}")
    for p in range(h.rules.players):
        totals[p] += scores[p]
    if res["totals"] != totals:
        h.bad(f"totals {res['totals']}, the replay says {totals}")
    if [Counter(x) for x in res["left"]] != [+c for c in h.held]:
        h.bad("the cards left are not what the players hold")


def _hand(rules: CardRules, hand: dict, dealer: int, totals: list[int], problems: list[str]) -> None:
    """Replay one hand of a match, adding to ``totals`` and ``problems``."""
    h = _deal_hand(rules, hand, dealer, problems)
    try:
        _play_out(h)
    except _Stop:
        return
    _hand_result(h, hand["result"], totals)


def referee(trace: dict) -> list[str]:
    """Every rule the match in ``trace`` breaks, as messages (empty: a clean match)."""
    rules = CardRules.from_dict(trace["rules"])
    players, partners = rules.players, rules.partners
    problems: list[str] = []
    totals = [0] * players
    hands = trace["hands"]
    if not hands:
        return ["a match without hands"]
    dealer = hands[0]["dealer_seat"]
    champion = None
    for k, hand in enumerate(hands):
        if hand["hand"] != k:
            problems.append(f"hand {hand['hand']} in place {k}")
        if champion is not None:
            problems.append(f"hand {k} is played after the match was won (C-MATCH-1)")
            break
        _hand(rules, hand, dealer, totals, problems)
        if problems:
            return problems
        dealer = (dealer + 1) % players  # C-SET-2, after a wash too (C-WASH-1)
        side_totals = Counter()
        for p in range(players):
            side_totals[_side(p, partners)] += totals[p]
        reached = [s for s, t in side_totals.items() if t >= rules.target]
        if reached:
            # Only the player going out scores, so one side at most reaches the target on a hand.
            champion = reached[0]
    if champion is None:
        problems.append(f"the match stops before anyone reaches {rules.target} (C-MATCH-1)")
        return problems
    res = trace["result"]
    key = "winner_team" if partners else "winner_seat"
    if res.get(key) != champion:
        problems.append(f"{key} {res.get(key)}, the replay says {champion} (C-MATCH-1)")
    if res["totals"] != totals:
        problems.append(f"final totals {res['totals']}, the replay says {totals}")
    return problems
