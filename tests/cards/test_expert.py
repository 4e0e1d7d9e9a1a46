"""The card ``expert`` bot (issue 27): worked positions where it must play as a good player
would (go out, take the discard that goes out, hold its melds for rummy until an opponent is
close, not feed the next player's visible collection), the fix every bot shares (a discard
that goes out through a table run), and the information-set property: re-dealing the cards
its seat has not seen (the other hands, keeping their sizes) never changes what it does.
The referee over thousands of expert matches is in test_matches.py."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sim
from sim.games.cards import EXPERT_PARAMS, FAMILY, search
from sim.games.cards import engine as e
from sim.games.cards.hand import MELD_RUN, MELD_SET, RANKS
from sim.games.cards.play import policy_codes, rules_params
from sim.games.family import expert_tune
from sim.tiles import card_name, parse_card

CARDS = sim.preset("rummy101-cards")
ACTIONS = {e.ACT_DRAW: "draw", e.ACT_MELD: "meld", e.ACT_LAYOFF: "layoff", e.ACT_DISCARD: "discard",
           e.ACT_OUT: "out", e.ACT_WASH: "wash"}


def counts(text):
    v = np.zeros(52, dtype=np.int64)
    for c in text.split():
        v[parse_card(c)] += 1
    return v


def run(text):
    """A table run ``"5D-10D"`` as a meld row."""
    lo, hi = (parse_card(c) for c in text.split("-"))
    return (MELD_RUN, lo // RANKS, lo % RANKS + 1, hi % RANKS + 1)


def a_set(text):
    cards = [parse_card(c) for c in text.split()]
    return (MELD_SET, cards[0] % RANKS + 1, sum(1 << (c // RANKS) for c in cards), 0)


def turn(hands, drawn, pile="", table=(), policies=("expert",), seat=0, takes=None, laid=None, rules=None,
         stock=20, totals=None, took=None, tune=None):
    """Seat ``seat``'s turn from the position given (hands as text, one per seat; the pile's
    top last; table meld rows): its actions as ``(action, card)`` pairs (card: the card drawn,
    laid off or thrown; for a draw, ``"pile"`` or ``"stock"`` second)."""
    FAMILY.prepare(progress=False, policies=("search",))  # play_one_turn plays every bot
    rules = rules or CARDS.replace(players=len(hands))
    players = rules.players
    hand_rows = np.stack([counts(h) for h in hands])
    rows = np.zeros((e.MAX_MELDS, 4), dtype=np.int64)
    for i, row in enumerate(table):
        rows[i] = row
    pile_cards = [parse_card(c) for c in pile.split()]
    pile_row = np.zeros(52 * rules.decks, dtype=np.int64)
    pile_row[:len(pile_cards)] = pile_cards
    take_row = np.array([-1 if t is None else parse_card(t) for t in (takes or [None] * players)], dtype=np.int64)
    # every card each seat took this hand: ``took`` (text, one per seat), else the last take
    took_rows = np.zeros((players, 52), dtype=np.int64)
    for p, cards in enumerate(took or [t or "" for t in (takes or [None] * players)]):
        for c in cards.split():
            took_rows[p, parse_card(c)] += 1
    ev = np.zeros((64, e.EV_FIELDS), dtype=np.int64)
    n = search.play_one_turn(rules_params(rules), expert_tune(EXPERT_PARAMS, players, tune),
                             policy_codes(list(policies), players), hand_rows, rows, len(table), pile_row,
                             len(pile_cards), take_row, took_rows, np.array(laid or [0] * players, dtype=np.int64),
                             np.array(totals or [0] * players, dtype=np.int64), seat, parse_card(drawn), stock, ev)
    out = []
    for row in ev[:n]:
        action = ACTIONS[int(row[e.EV_ACTION])]
        if action == "draw":
            out.append(("draw", card_name(int(row[e.EV_A])), "pile" if row[e.EV_B] else "stock"))
        elif action in ("layoff", "discard"):
            out.append((action, card_name(int(row[e.EV_A]))))
        elif action == "out":
            out.append(("out", "rummy" if row[e.EV_B] else "plain"))
        else:
            out.append((action,))
    return out


def thrown(actions):
    return next(a[1] for a in actions if a[0] == "discard")


OTHER = "2H 3C 5C 8H JC QD KS 9C 10H"  # an opponent's hand that takes no part


@pytest.mark.parametrize("policy", ["greedy", "careful", "expert"])
@pytest.mark.parametrize(("hand", "top", "table", "laid_off"), [
    ("4H 4D", "3D", "5D-10D", {"3D", "4D"}),  # at the run's foot, with the 4D between
    ("10H 9D", "10D", "5D-8D", {"9D", "10D"}),  # on its top, with the 9D between
])
def test_C_OUT_1_every_bot_takes_the_discard_that_goes_out_through_a_table_run(policy, hand, top, table, laid_off):
    """Issue 27's trace (seed 1, match 165, hand 19): holding 4H 4D with 5D..10D on the table,
    the discard 3D goes out (3D and 4D laid off at the run's foot, 4H thrown); every bot,
    greedy first (its idea is to go out the moment it can), takes it and goes out."""
    actions = turn([hand, OTHER], "KC", pile=f"QH {top}", table=[run(table)], policies=(policy, "greedy"),
                   laid=[1, 0])
    assert actions[0] == ("draw", top, "pile")
    assert {a[1] for a in actions if a[0] == "layoff"} == laid_off
    assert actions[-1] == ("out", "plain")


def test_the_expert_goes_rummy_when_it_can():
    """C-SCORE-2: ten cards in its own new melds at once, nothing placed before: rummy."""
    actions = turn(["AS 2S 3S 4H 5H 6H 7D 7C 7S KD", OTHER + " 2D"], "4S")
    assert [a[0] for a in actions] == ["draw", "meld", "meld", "meld", "discard", "out"]
    assert thrown(actions) == "KD" and actions[-1] == ("out", "rummy")


def test_the_expert_holds_its_melds_for_rummy_until_an_opponent_is_close():
    """Going rummy doubles the hand (C-SCORE-2): with a set and a run in hand and the
    opponent holding ten cards it lays nothing down; with the opponent down to two cards
    (``hold_cards``: three or fewer) it lays them down, so that its points are not caught."""
    hand = "7S 7H 7D 2C 3C 4C QS 9H JD KH"
    far = turn([hand, OTHER + " 2D"], "5D")
    assert "meld" not in [a[0] for a in far] and thrown(far) != "7S"
    close = turn([hand, "2D 8H"], "5D")
    assert [a[0] for a in close].count("meld") == 2


def test_the_expert_does_not_feed_the_next_player_s_visible_collection():
    """The next player took 7H from the pile: it is collecting sevens or hearts near 7.
    Greedy throws its highest card that is in no pair or run draw, the 7S; the expert keeps it
    and throws the 6C, as it does not when nothing was taken."""
    hand = "2S 3S 4S 7S 6C"
    seen = turn([hand, OTHER], "5S", takes=[None, "7H"], policies=("expert", "greedy"))
    assert thrown(seen) == "6C"
    assert thrown(turn([hand, OTHER], "5S", takes=[None, "7H"], policies=("greedy", "greedy"))) == "7S"
    assert thrown(turn([hand, OTHER], "5S", policies=("expert", "greedy"))) == "7S"


def test_the_expert_counts_no_outs_in_a_card_another_player_took_and_holds():
    """A pair is worth the unseen cards that would make it a set. Holding 9H 9D and 6C 6D
    beside a run, the expert throws a nine (more points, as many outs); once it has seen
    the player after next take 6S and 6H from the pile (kept: neither has come back to
    view), the sixes have no card left to draw, and it throws a six."""
    hand = "2S 3S 4S 9H 9D 6C 6D"
    others = ["QC JD 10S 8C 3H KD AH", "6S 6H KH QS 2C 4D AD"]
    bots = ("expert", "greedy", "greedy")
    assert thrown(turn([hand, *others], "5S", policies=bots)) in ("9H", "9D")
    assert thrown(turn([hand, *others], "5S", policies=bots, took=["", "", "6S 6H"])) in ("6C", "6D")


def test_C_OUT_1_the_expert_keeps_the_card_that_leaves_ways_out():
    """After drawing the KD the hand holds a run 5H-9H and the sixes 6S 6D 6C, and three
    loose cards: 5D, AC, KD. Kept with either other card, the 5D leaves two ways to go out on
    the next turn (C-OUT-1): the 5S or the 5C make a set of fives with the run's 5H (the run
    then 6H-9H), the last loose card thrown; the AC and KD kept together leave none. The
    expert throws the KD (``finish``: each such card is worth keeping for); counting by each
    card's own outs and points alone (``finish`` 0), it threw the 5D."""
    hands = ["6S 5H 6H 7H 8H 9H 5D 6D AC 6C", "2D KH 9C 3H QD 5S QC 10H 10C 3C"]
    bots = ("expert", "greedy")
    assert thrown(turn(hands, "KD", pile="7S", policies=bots)) == "KD"
    assert thrown(turn(hands, "KD", pile="7S", policies=bots, tune={"finish": 0.0})) == "5D"


def test_C_SCORE_2_the_expert_heads_up_gets_under_what_a_rummy_needs_to_end_the_match():
    """Heads-up, first hand to 101: the other's rummy scores twice the points left in this
    hand (C-SCORE-2), so a hand holding 50 or fewer leaves it short of the target (C-MATCH-1)
    and the match goes on. After drawing the 9C the hand holds 60 points: throwing the KD
    (breaking the pair of kings) leaves 50, any other card more. The expert throws the KD;
    without ``survive`` and ``shed`` it throws the lone 8D, and so it does when the other side
    already has 30 points (a rummy then needs only 36 from this hand: no throw gets under)."""
    hands = ["2S 3S 4S 3H 3D 3C KD KC 8D 5H", "AH 7S 10H JD QS 4C 6C 10C JC 9S"]
    bots = ("expert", "greedy")
    assert thrown(turn(hands, "9C", pile="7D", policies=bots)) == "KD"
    assert thrown(turn(hands, "9C", pile="7D", policies=bots, tune={"survive": 0.0, "shed": 0.0})) == "8D"
    assert thrown(turn(hands, "9C", pile="7D", policies=bots, totals=[0, 30])) == "8D"


def test_the_expert_does_not_throw_the_card_between_two_the_next_player_took():
    """The next player took JD and KD from the pile this hand, and neither has come back to
    view: the QD would make it a run (C-MELD-1). The expert throws the 7C instead, as it does
    not when it saw nothing taken, or only the KD (then the JD is only one of the unseen cards
    that next player may hold: ``danger`` counts its share)."""
    hand, other = "2S 3S 4S 6H QD", "JD KD 2H 3C 5C 8H JC 9C 10H"
    seen = turn([hand, other], "7C", takes=[None, "KD"], took=["", "JD KD"], policies=("expert", "greedy"))
    assert thrown(seen) == "7C"
    assert thrown(turn([hand, other], "7C", policies=("expert", "greedy"))) == "QD"
    assert thrown(turn([hand, other], "7C", takes=[None, "KD"], policies=("expert", "greedy"))) == "QD"


# --- the information-set property ------------------------------------------------------------


@st.composite
def positions(draw):
    """A position mid-hand: the seat's hand, the pile, a table run or set, the stock's top card,
    the others' hands and what each took, from one shuffled deck; then the others' hands
    re-dealt among themselves, keeping their sizes."""
    players = draw(st.integers(2, 4))
    deck = draw(st.permutations(range(52)))
    size = draw(st.integers(2, 10 if players == 2 else 7))
    sizes = [draw(st.integers(1, 10 if players == 2 else 7)) for _ in range(players - 1)]
    at = 0

    def take(n):
        nonlocal at
        cards = list(deck[at:at + n])
        at += n
        return cards

    own = take(size)
    pile = take(draw(st.integers(1, 6)))
    drawn = take(1)[0]
    others = [take(n) for n in sizes]
    # a table run of three from what is left, if the shuffle holds one
    left = set(deck[at:])
    table = []
    for c in sorted(left):
        if c % RANKS <= RANKS - 3 and {c + 1, c + 2} <= left and draw(st.booleans()):
            table.append((MELD_RUN, c // RANKS, c % RANKS + 1, c % RANKS + 3))
            left -= {c, c + 1, c + 2}
            break
    hidden = [c for hand in others for c in hand]
    shuffled = draw(st.permutations(hidden))
    redealt, i = [], 0
    for n in sizes:
        redealt.append(list(shuffled[i:i + n]))
        i += n
    # what each was seen to take from the pile this hand (the last one: ``takes``)
    took = [[]] + [draw(st.lists(st.sampled_from(list(map(card_name, hand))), max_size=2, unique=True))
                   for hand in others]
    takes = [t[-1] if t else None for t in took]
    laid = [draw(st.integers(0, 1)) for _ in range(players)]
    return players, own, pile, drawn, others, redealt, table, takes, [" ".join(t) for t in took], laid


def _text(cards):
    return " ".join(card_name(c) for c in cards)


@given(positions())
@settings(max_examples=150, deadline=None)
def test_the_expert_decides_from_its_seat_s_view_only(position):
    """Issue 27: re-deal the cards the seat has not seen (the other hands, keeping their
    sizes, and what each was seen to take: the last card and every card this hand) and the
    expert's turn is the same: take or draw,
    lay down or hold, what it throws."""
    players, own, pile, drawn, others, redealt, table, takes, took, laid = position
    rules = CARDS.replace(players=players)

    def play(hands):
        return turn([_text(own), *map(_text, hands)], card_name(drawn), pile=_text(pile), table=table,
                    takes=takes, took=took, laid=laid, rules=rules)

    assert play(others) == play(redealt)


# --- every hand ends ---------------------------------------------------------------------------


def test_experts_do_not_pass_the_same_cards_round_the_pile():
    """C-WASH-1 ends a hand when the stock runs out, which only drawing from it brings about:
    two experts once took and threw 8C, 7S and 6H back and forth, turn after turn (seed 2026,
    two players, match 30094), until the engine's 5,000-turn cap. An expert never takes a card
    it threw itself this hand (unless it goes out with it): the match ends, and the referee
    finds it clean."""
    from sim.games.cards.play import trace_match
    from sim.games.cards.referee import referee
    from sim.games.cards.trace import match_json

    rules = CARDS.replace(players=2)
    t = trace_match(rules, 2026, 30094, policy_codes(["expert"], 2))
    trace = match_json(t, 2026, 30094, ["expert", "expert"])
    assert referee(trace) == []
    assert max(len(h["events"]) for h in trace["hands"]) < 400


@st.composite
def constants(draw):
    """Any expert constants in their ranges, a set per seat, and a table of 2-4 players."""
    players = draw(st.integers(2, 4))
    rows = [[draw(st.integers(int(p.low), int(p.high)) if p.integer else st.floats(p.low, p.high))
             for p in EXPERT_PARAMS] for _ in range(players)]
    return players, np.array(rows, dtype=np.float64), draw(st.integers(0, 2**32))


@given(constants())
@settings(max_examples=40, deadline=None)
def test_experts_of_any_constants_finish_every_hand(case):
    """Whatever constants the tuner tries (each within its range, each seat its own), every
    hand ends: 20 matches play out without reaching the engine's caps."""
    players, tune, seed = case
    tables = FAMILY.chunk_tables(CARDS.replace(players=players), seed, 0, 20, ["expert"], tune=tune)
    assert tables["matches"].height == 20 and tables["hands"].height >= 20
