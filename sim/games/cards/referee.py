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

from sim.games.cards.rules import CardRules
from sim.rules import Rules

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


def _hand(rules: Rules, hand: dict, dealer: int, totals: list[int], problems: list[str]) -> None:
    """Replay one hand of a match, adding to ``totals`` and ``problems``."""
    players, partners = rules.players, rules.partners
    tag = f"hand {hand['hand']}"

    def bad(text: str) -> None:
        problems.append(f"{tag}: {text}")

    deal = hand["deal"]
    if hand["dealer_seat"] != dealer:
        bad(f"dealt by seat {hand['dealer_seat']}, the deal moves one seat left: seat {dealer} (C-SET-2)")
    held = [Counter(cards) for cards in deal["hands"]]
    if len(held) != players or any(sum(h.values()) != rules.deal_size() for h in held):
        bad(f"every player is dealt {rules.deal_size()} cards (C-SET-1)")
    if Counter([c for cards in deal["hands"] for c in cards] + [deal["upcard"]] + deal["stock"]) != \
            full_deck(rules.decks):
        bad(f"the deal is not the {rules.decks} deck(s) of 52 cards")
    stock = list(deal["stock"])
    pile = [deal["upcard"]]
    table: list[list[str]] = []
    placed_before = [False] * players  # C-SCORE-2: melded or laid off earlier in the hand
    turns = [0] * players
    seat = (hand["dealer_seat"] + 1) % players
    events = hand["events"]
    i = 0
    finish, winner, points = "wash", None, 0
    while i < len(events):
        ev = events[i]
        if ev["seat"] != seat:
            bad(f"event {i}: seat {ev['seat']} acts on seat {seat}'s turn")
            return
        if not stock:  # C-WASH-1: the player to move finds the stock empty
            if ev["action"] != "wash":
                bad(f"event {i}: the stock is empty, the hand is a wash (C-WASH-1), not {ev['action']}")
            elif i != len(events) - 1:
                bad("events after the wash")
            break
        turns[seat] += 1
        if ev["turn"] != turns[seat]:
            bad(f"event {i}: seat {seat}'s turn {turns[seat]} numbered {ev['turn']}")
        if ev["action"] != "draw":
            bad(f"event {i}: a turn starts with a draw (C-TURN-1), not {ev['action']}")
            return
        taken = None  # C-TURN-1: the card taken from the discard, unless a twin was held
        if ev["from"] == "stock":
            if ev["card"] != stock[0]:
                bad(f"event {i}: drew {ev['card']}, the stock's top is {stock[0]}")
            stock.pop(0)
        else:
            if ev["card"] != pile[-1]:
                bad(f"event {i}: took {ev['card']}, the discard's top is {pile[-1]}")
            pile.pop()
            taken = ev["card"] if held[seat][ev["card"]] == 0 else None  # with two decks its twin may go
        h = held[seat]
        h[ev["card"]] += 1
        placed_now = False
        laid_off = False
        i += 1
        while i < len(events) and events[i]["action"] in ("meld", "layoff"):
            ev = events[i]
            cards = ev["cards"] if ev["action"] == "meld" else [ev["card"]]
            if any(h[c] < cards.count(c) for c in cards):
                bad(f"event {i}: seat {seat} {ev['action']}s {' '.join(cards)} it does not hold")
            if sum(h.values()) - len(cards) < 1:
                bad(f"event {i}: the last card is never melded or laid off; going out ends with a discard (C-OUT-2)")
            if ev["action"] == "meld":
                if not is_meld(cards):
                    bad(f"event {i}: {' '.join(cards)} is not a meld (C-MELD-1)")
                table.append(list(cards))
            else:
                m = ev["meld"]
                if not 0 <= m < len(table):
                    bad(f"event {i}: no table meld {m}")
                    return
                if not is_meld(table[m] + cards):
                    bad(f"event {i}: {cards[0]} does not lay off on {' '.join(table[m])} (C-MELD-1)")
                table[m] = table[m] + cards
                laid_off = True
            h.subtract(cards)
            placed_now = True
            i += 1
        if i == len(events) or events[i]["action"] != "discard":
            bad(f"seat {seat}'s turn {turns[seat]} ends without a discard (C-TURN-1)")
            return
        ev = events[i]
        card = ev["card"]
        if h[card] < 1:
            bad(f"event {i}: discards {card}, which seat {seat} does not hold")
        elif card == taken:
            bad(f"event {i}: discards {card}, just taken from the discard pile (C-TURN-1)")
        h[card] -= 1
        pile.append(card)
        i += 1
        empty = sum(h.values()) == 0
        said_out = i < len(events) and events[i]["action"] == "out"
        if empty != said_out:
            bad(f"event {i}: seat {seat} " + ("went out without saying so (C-OUT-1)" if empty else
                                              "says it went out holding cards"))
            return
        if empty:
            winner = seat
            # C-SCORE-2: out in this one turn, nothing placed before, and (unless
            # rummy_layoffs) every card in the player's own new melds
            rummy = not placed_before[seat] and (rules.rummy_layoffs or not laid_off)
            finish = "rummy" if rummy else "out"
            if events[i].get("rummy") is not None and events[i]["rummy"] != rummy:
                bad(f"event {i}: rummy is {events[i]['rummy']}, the rules say {rummy} (C-SCORE-2)")
            points = sum(value(c) * n for o in range(players) if _side(o, partners) != _side(seat, partners)
                         for c, n in held[o].items())  # C-SCORE-1, C-TEAM-1
            points *= rules.rummy_factor if rummy else 1
            if i != len(events) - 1:
                bad("events after going out")
            break
        placed_before[seat] = placed_before[seat] or placed_now
        seat = (seat + 1) % players
    else:
        bad("the hand stops before anyone goes out or the stock runs out")
    res = hand["result"]
    if res["finish"] != finish:
        bad(f"finish {res['finish']}, the replay says {finish}")
    if res["winner_seat"] != winner:
        bad(f"winner {res['winner_seat']}, the replay says {winner}")
    if res["points"] != points:
        bad(f"{res['points']} points, the replay counts {points} (C-SCORE-1/2)")
    scores = [points if p == winner else 0 for p in range(players)]
    if res["scores"] != scores:
        bad(f"scores {res['scores']}, the replay says {scores}")
    for p in range(players):
        totals[p] += scores[p]
    if res["totals"] != totals:
        bad(f"totals {res['totals']}, the replay says {totals}")
    if [Counter(x) for x in res["left"]] != [+c for c in held]:
        bad("the cards left are not what the players hold")


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
