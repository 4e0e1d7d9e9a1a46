"""The ``expert`` bot's judgement (numba): how much a card is worth keeping, which card to
throw, when to take the discard and when to lay melds down. It reads only the seat's
:class:`~.view.View` (its hand, the table, the pile, what it has not seen, the others'
hand sizes and takes), the rules and its row of tuning constants
(:data:`sim.games.cards.EXPERT_PARAMS`, ``X_*`` here).

A card's worth to its hand counts its *outs*: the unseen copies of the cards that would
complete a run or a set of three with it and another card the hand keeps (C-MELD-1), so
that a 5 of hearts beside a 6 whose 4s and 7s are all on the table or in the pile is worth
nothing, and no copy another player took from the pile and still holds (it took the card to
meld it, not to throw it back: :func:`drawable`); a lone card counts for the pairs of
unseen cards that would meld with it, a little (``far``). Against its worth a card costs
its points (C-SCORE-1: they go to whoever goes out), the more so once an opponent is close
to going out (``close``). The discard is the card worth least, less what throwing it gives
away: a card that lays off on a table meld (``feed``), one near the card the next player
last took from the pile (``watch``: the same rank, or the same suit within two; 0 by
default, as ``danger`` says it better), and one the next player could meld (``danger``):
the chance that it holds two cards making a set or a run of three with it, summed over
those pairs, each card held for certain if the seat saw it taken from the pile and not
since laid down or thrown, never if it lies in view, else with the next player's share of
the unseen cards. A player takes from the pile what it can meld, and in a two-player hand,
where the first to go rummy usually wins the match, about half the outs take the last card
from the other's discard.

A hand that keeps few loose cards (:data:`FINISH_LOOSE` or fewer beside the throw) also
counts, for each card it could throw, its ways out: the unseen cards it may still draw that
would let it go out on the next turn (C-OUT-1, :func:`finishing_outs`), ``finish`` each, so
that of two throws it keeps the one that leaves more of them (a 5D beside a run 5H-9H and
the sixes, when the 5S or 5C would finish the hand, rather than a lone KD).

A hand also keeps an eye on what an opponent's rummy would score from it (C-SCORE-2): the
match ends when a rummy brings the scorer's side to the target (C-MATCH-1), and heads-up, where
most matches are one hand won by a rummy, a hand holding fewer points than the view's ``line``
(:func:`.view.survival_line`: about 50 at the first hand to 101) leaves the loser another
hand. A throw that brings the hand under the line is worth ``survive``, and while the hand is
within ``shed_margin`` points of it, each thrown card ``shed`` per 10 of its points (against
careful heads-up: 59.1% of the decided matches without it and 60.7% with it on 24,000 duplicate
deals, 60.7% on 36,000 others).

The discard on the pile is taken when it lets the hand go out (C-OUT-1), or when the hand
with it, after its best throw, is worth more than the hand now plus what a stock card
brings on average (``take``): melded points count ``meld`` each, kept cards their worth,
each way out the hand then has ``take_finish``;
but never, short of going out, a card it threw itself this hand (the engine's
``expert_takes``: experts would otherwise pass the same cards round the pile for ever).

Going rummy doubles the hand (C-SCORE-2), so melds are held in the hand while no opponent
is close: the hand lays down once an opponent holds ``hold_cards`` cards or fewer, the
stock is down to ``hold_stock`` cards a player, an opponent is one hand's points
(``reach``) from the target, or its melds are worth ``hold_points`` or more (what going
caught with them would give away). Once it has laid anything down it lays down all it can.
"""

from __future__ import annotations

from sim.games.cards import EXPERT_PARAMS
from sim.games.cards.hand import CARDS, OP_LEAVE, RANKS, SUITS, card_value, fits, goes_out
from sim.games.family import param_index
from sim.jit import F1, I1, I2, boolean, f64, i64, kernel

from .view import VIEW

X_NEAR = param_index(EXPERT_PARAMS, "near")
X_FAR = param_index(EXPERT_PARAMS, "far")
X_POINTS = param_index(EXPERT_PARAMS, "points")
X_POINTS_CLOSE = param_index(EXPERT_PARAMS, "points_close")
X_CLOSE = param_index(EXPERT_PARAMS, "close")
X_FEED = param_index(EXPERT_PARAMS, "feed")
X_WATCH = param_index(EXPERT_PARAMS, "watch")
X_DANGER = param_index(EXPERT_PARAMS, "danger")
X_MELD = param_index(EXPERT_PARAMS, "meld")
X_TAKE = param_index(EXPERT_PARAMS, "take")
X_HOLD_CARDS = param_index(EXPERT_PARAMS, "hold_cards")
X_HOLD_STOCK = param_index(EXPERT_PARAMS, "hold_stock")
X_HOLD_POINTS = param_index(EXPERT_PARAMS, "hold_points")
X_REACH = param_index(EXPERT_PARAMS, "reach")
X_FINISH = param_index(EXPERT_PARAMS, "finish")
X_SURVIVE = param_index(EXPERT_PARAMS, "survive")
X_SHED = param_index(EXPERT_PARAMS, "shed")
X_SHED_MARGIN = param_index(EXPERT_PARAMS, "shed_margin")
X_TAKE_FINISH = param_index(EXPERT_PARAMS, "take_finish")
FINISH_LOOSE = 3  # finishing_outs: at most this many loose cards beside the throw
X_SAMPLES = param_index(EXPERT_PARAMS, "samples")
X_OPTIONS = param_index(EXPERT_PARAMS, "options")
X_MARGIN = param_index(EXPERT_PARAMS, "margin")


@kernel(I2, i64, I1)
def leaves(path, steps, left):
    """The cards arrangement ``path`` keeps in the hand (its ``OP_LEAVE`` steps) as counts
    into ``left`` (jit-compiled)."""
    left[:] = 0
    for d in range(steps):
        if path[d, 0] == OP_LEAVE:
            left[path[d, 1]] += 1


@kernel(inline=True)
def drawable(v, k):
    """The unseen copies of card ``k`` the seat may still draw: none that another seat took
    from the pile and holds (a card taken is held to meld, not thrown back). With two decks a
    copy taken and since put back in view still counts as held, as in :func:`held_chance`."""
    n = v.unseen[k]
    for o in range(v.sizes.shape[0]):
        if o != v.seat:
            n -= v.took[o, k]
    return max(n, 0)


@kernel(VIEW, I1, i64, F1)
def card_worth(v, left, c, tune):
    """How much card ``c``, kept among the cards ``left``, is worth keeping for its outs (see
    the module docstring) (jit-compiled)."""
    suit, rank = c // RANKS, c % RANKS + 1
    near = 0.0
    far = 0.0
    # a set of its rank: another suit kept makes a pair, the two other suits its outs
    alike, outs = 0, 0
    for s in range(SUITS):
        if s != suit:
            k = s * RANKS + rank - 1
            if left[k] > 0:
                alike += 1
            else:
                outs += drawable(v, k)
    if alike > 0:
        near += outs
    else:
        far += outs * (outs - 1) / 2.0
    # runs of three holding it (ace low only: C-MELD-1)
    for first in range(rank - 2, rank + 1):
        if first < 1 or first + 2 > RANKS:
            continue
        have, one, both = 0, 0, 1
        for r in range(first, first + 3):
            if r == rank:
                continue
            k = suit * RANKS + r - 1
            if left[k] > 0:
                have += 1
            else:
                one = drawable(v, k)
                both *= one
        if have == 1:
            near += one
        elif have == 0:
            far += both
    return tune[X_NEAR] * near + tune[X_FAR] * far


@kernel(VIEW, i64)
def unknown_share(v, o):
    """Seat ``o``'s share of the unseen cards it was not seen to take: the chance that it
    holds any one of them (jit-compiled)."""
    known, unseen = 0, 0
    for k in range(CARDS):
        unseen += v.unseen[k]
        if v.took[o, k] > 0 and v.unseen[k] > 0:
            known += 1
    if unseen <= known:
        return 0.0
    return (v.sizes[o] - known) / (unseen - known)


@kernel(VIEW, i64, i64, f64)
def held_chance(v, o, c, share):
    """The chance that seat ``o`` holds card ``c``, from the seat's view: 1 for a card it took
    from the pile and has not laid down or thrown since, 0 for a card seen elsewhere, else
    ``share`` (:func:`unknown_share`) (jit-compiled)."""
    if v.unseen[c] == 0:
        return 0.0
    if v.took[o, c] > 0:
        return 1.0
    return share


@kernel(VIEW, i64, i64)
def danger(v, c, o):
    """The chance that seat ``o`` holds two cards that make a meld with card ``c`` (a set of
    its rank, or a run of three through it; C-MELD-1), from :func:`held_chance` of each,
    summed over the pairs (jit-compiled)."""
    suit, rank = c // RANKS, c % RANKS + 1
    share = unknown_share(v, o)
    d, single, total = 0.0, 0.0, 0.0
    for s in range(SUITS):  # a set: any two of the other suits
        if s != suit:
            q = held_chance(v, o, s * RANKS + rank - 1, share)
            total += q
            single += q * q
    d += (total * total - single) / 2.0
    # runs of three through it: the two ranks below, one each side, the two above
    lo2 = held_chance(v, o, c - 2, share) if rank >= 3 else 0.0
    lo1 = held_chance(v, o, c - 1, share) if rank >= 2 else 0.0
    hi1 = held_chance(v, o, c + 1, share) if rank <= RANKS - 1 else 0.0
    hi2 = held_chance(v, o, c + 2, share) if rank <= RANKS - 2 else 0.0
    return d + lo2 * lo1 + lo1 * hi1 + hi1 * hi2


@kernel(VIEW, I1, i64, i64, boolean, F1)
def throw_cost(v, left, c, next_seat, close, tune):
    """What throwing card ``c`` of the kept cards ``left`` costs the seat: its worth, less its
    points, plus what it gives the next player (see the module docstring) (jit-compiled)."""
    points = tune[X_POINTS_CLOSE] if close else tune[X_POINTS]
    cost = card_worth(v, left, c, tune) - points * card_value(c)
    suit, rank = c // RANKS, c % RANKS + 1
    if fits(c, v.table, v.nt):
        cost += tune[X_FEED]
    near = v.takes[next_seat]
    if near >= 0:
        ns, nr = near // RANKS, near % RANKS + 1
        if nr == rank or (ns == suit and abs(nr - rank) <= 2):
            cost += tune[X_WATCH]
    if tune[X_DANGER] > 0:
        cost += tune[X_DANGER] * danger(v, c, next_seat)
    if v.line + tune[X_SHED_MARGIN] > 0:  # a hand may get under the line (heads-up, or partners)
        held = -card_value(c)  # the hand's points once c is thrown
        for k in range(CARDS):
            held += v.hand[k] * card_value(k)
        if held < v.line:
            cost -= tune[X_SURVIVE]
        elif held < v.line + tune[X_SHED_MARGIN]:
            cost -= tune[X_SHED] * card_value(c) / 10.0
    return cost


@kernel(VIEW, I1, i64, i64, boolean, F1)
def expert_discard(v, left, forbid, next_seat, close, tune):
    """The card to throw among the kept cards ``left``: the one that costs least (C-TURN-1:
    not ``forbid``, the card taken from the pile, unless the hand holds a second copy), the
    higher card on a tie; -1 if none may go (jit-compiled)."""
    best, best_cost = -1, 0.0
    for c in range(CARDS):
        if left[c] == 0 or (c == forbid and v.hand[c] < 2):
            continue
        cost = throw_cost(v, left, c, next_seat, close, tune)
        if best < 0 or cost < best_cost - 1e-9 or (abs(cost - best_cost) <= 1e-9 and card_value(c) > card_value(best)):
            best, best_cost = c, cost
    return best


@kernel(inline=True)
def _reaches(cards, x):
    """Whether card ``x`` could make a meld with one of ``cards`` (counts): the same rank, or
    the same suit within two ranks (C-MELD-1)."""
    suit, rank = x // RANKS, x % RANKS
    for s in range(SUITS):
        if cards[s * RANKS + rank] > 0:
            return True
    for r in range(max(0, rank - 2), min(RANKS, rank + 3)):
        if cards[suit * RANKS + r] > 0:
            return True
    return False


@kernel(VIEW, I1, i64, boolean)
def finishing_outs(v, left, throw, bound):
    """The unseen cards the seat may still draw (:func:`drawable`) that would let its hand,
    ``throw`` thrown, go out on the next turn (C-OUT-1: all but one card melded or laid off;
    :func:`.hand.goes_out`). Counted only for a hand that keeps at most :data:`FINISH_LOOSE`
    loose cards (``left``) beside ``throw``, where one draw can finish it; else 0. Only the
    cards that could meld with a loose card (:func:`_reaches`), or with any card of the hand
    when one loose card is left (it is then the discard), are tried: a card far from the
    loose cards leaves two of them unmelded but for a rare rearrangement of the hand's melds,
    which this count (a judgement, not an exact one) leaves out. ``bound``: those cards
    counted without trying, a bound on the count (jit-compiled)."""
    loose = left.sum() - 1
    if loose > FINISH_LOOSE:
        return 0
    h = v.hand
    h[throw] -= 1
    left[throw] -= 1
    near = left if loose > 1 else h
    outs = 0
    for x in range(CARDS):
        n = drawable(v, x)
        if n > 0 and (_reaches(near, x) or fits(x, v.table, v.nt)):
            if bound:
                outs += n
                continue
            h[x] += 1
            if goes_out(h, v.table, v.nt):
                outs += n
            h[x] -= 1
    h[throw] += 1
    left[throw] += 1
    return outs


@kernel(VIEW, I1, i64, i64, boolean, F1)
def finishing_discard(v, left, forbid, next_seat, close, tune):
    """:func:`expert_discard`, each card's cost less ``finish`` per card that would then let
    the hand go out next turn (:func:`finishing_outs`): of two throws the one that leaves more
    ways out, unless it costs more than they are worth. A throw whose bound on the outs
    cannot bring it below the expert's own throw is not solved (jit-compiled)."""
    finish = tune[X_FINISH]
    first = expert_discard(v, left, forbid, next_seat, close, tune)
    if finish <= 0 or first < 0 or left.sum() - 1 > FINISH_LOOSE:
        return first
    first_outs = finishing_outs(v, left, first, False)
    limit = throw_cost(v, left, first, next_seat, close, tune) - finish * first_outs
    best, best_cost = -1, 0.0
    for c in range(CARDS):
        if left[c] == 0 or (c == forbid and v.hand[c] < 2):
            continue
        cost = throw_cost(v, left, c, next_seat, close, tune)
        if c == first:
            cost -= finish * first_outs
        elif cost - finish * finishing_outs(v, left, c, True) > limit + 1e-9:
            continue  # worse than the expert's own throw however many ways out it leaves
        else:
            cost -= finish * finishing_outs(v, left, c, False)
        if best < 0 or cost < best_cost - 1e-9 or (abs(cost - best_cost) <= 1e-9 and card_value(c) > card_value(best)):
            best, best_cost = c, cost
    return best


@kernel(VIEW, I1, i64, i64, boolean, F1)
def hand_worth(v, left, melded, throw, close, tune):
    """What the hand is worth without card ``throw`` (-1: with every card): ``meld`` a point it
    can lay down (``melded``), and every card it keeps (``left``) its worth less its points
    (jit-compiled)."""
    points = tune[X_POINTS_CLOSE] if close else tune[X_POINTS]
    worth = tune[X_MELD] * melded
    for c in range(CARDS):
        n = left[c] - (1 if c == throw else 0)
        if n > 0:
            worth += n * (card_worth(v, left, c, tune) - points * card_value(c))
    return worth


@kernel(VIEW, i64, F1, i64)
def is_close(v, partners, tune, players):
    """Whether an opponent is close to going out: it holds ``close`` cards or fewer
    (jit-compiled)."""
    for o in range(players):
        if o == v.seat or (partners and o % 2 == v.seat % 2):
            continue
        if v.sizes[o] <= tune[X_CLOSE]:
            return True
    return False


@kernel(VIEW, i64, boolean, i64, i64, i64, i64, F1)
def expert_lays(v, melded, laid, players, target, partners, rummy, tune):
    """Whether the hand lays its melds (``melded`` points) down this turn rather than hold them
    for rummy (see the module docstring); ``laid``: it has laid something down this hand;
    ``rummy``: the factor of a rummy hand (C-SCORE-2) (jit-compiled)."""
    if laid or rummy <= 1:  # C-SCORE-2: nothing more to win by holding
        return True
    if melded >= tune[X_HOLD_POINTS] or v.stock <= tune[X_HOLD_STOCK] * players:
        return True
    for o in range(players):
        if o == v.seat or (partners and o % 2 == v.seat % 2):
            continue
        if v.sizes[o] <= tune[X_HOLD_CARDS]:
            return True
        team = v.totals[o] + (v.totals[(o + 2) % players] if partners else 0)
        if target - team <= tune[X_REACH]:
            return True
    return False
