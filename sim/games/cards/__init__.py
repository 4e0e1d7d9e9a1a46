"""Rummy 101 with cards (docs/rules.md section C): the hand solver and whole matches played by bots.

The modules, from the rules to the data:

- :mod:`.rules`: its rules and preset;
- :mod:`.hand`: the best lay-down of a hand (numba); :mod:`.handplay` its Python face
  (:func:`sim.best_lay_down`, ``sim solve --preset rummy101-cards``), :mod:`.deals` its
  ``sim deal-stats``;
- :mod:`.engine`: the match engine and its bots (numba); :mod:`.search` the ``search`` and
  ``oracle`` bots and the matches they play in; :mod:`.play` their Python face (rules and
  policies as arrays, chunks, traced matches), as in every family;
- :mod:`.tables`: chunks of matches as the ``matches``, ``hands`` and ``players`` tables;
- :mod:`.summary`: a run's summary and its ``--until-ci`` metrics;
- :mod:`.trace`: a traced match for people and as JSON for machines;
- :mod:`.referee`: the rules referee, in plain Python, replaying JSON traces;
- :mod:`.analysis`: its own questions (matches, hands, comebacks), :mod:`.report` its
  report sections, :mod:`.solve` its ``sim solve``.
"""

from typing import ClassVar

from sim.games.cards.rules import PRESETS, CardRules
from sim.games.family import Costs, Family, Param
from sim.precision import Metric

HAND_MODULES = ("sim.deal", "sim.games.cards.hand")
# engine.POLICY_GREEDY, POLICY_CAREFUL, POLICY_EXPERT, POLICY_SEARCH, POLICY_ORACLE
POLICIES = ("greedy", "careful", "expert", "search", "oracle")
# The expert's tuning constants (sim.games.cards.expert reads them by name, X_*), in the
# order of a ``tune`` row. The defaults: see the README's "How strong the experts are".
EXPERT_PARAMS = (
    Param("near", 1.0, 0.0, 5.0, "worth per unseen copy of a card that would complete a meld with it"),
    Param("far", 0.1, 0.0, 1.0, "worth of a lone card per pair of unseen cards that would meld with it"),
    Param("points", 0.1, 0.0, 1.0, "cost of a kept card per point (C-SCORE-1: the winner scores them)"),
    Param("points_close", 0.5, 0.0, 3.0, "the same once an opponent is close to going out"),
    Param("close", 3, 1, 7, "an opponent holding this many cards or fewer is close to going out", integer=True),
    Param("feed", 4.0, 0.0, 20.0, "cost of a discard that lays off on a table meld"),
    Param("watch", 0.0, 0.0, 20.0, "cost of a discard near the card the next player last took"),
    Param("danger", 3.0, 0.0, 40.0, "cost of a discard per pair of cards the next player may hold that meld with it"),
    Param("meld", 2.0, 0.0, 5.0, "worth per point the hand can lay down, when weighing the discard on the pile"),
    Param("take", 3.0, 0.0, 10.0, "what a stock card brings on average, against taking the discard"),
    Param("hold_cards", 3, 0, 7, "lay melds down once an opponent holds this many cards or fewer", integer=True),
    Param("hold_stock", 1.0, 0.0, 5.0, "lay melds down once the stock is down to this many cards a player"),
    Param("hold_points", 200.0, 20.0, 300.0, "lay melds down once they are worth this many points"),
    Param("reach", 0.0, 0.0, 100.0, "lay melds down once an opponent is this many points from the target"),
    Param("survive", 10.0, 0.0, 20.0, "worth of a throw that leaves the hand under the points an opponent's rummy "
          "would need to end the match (the view's line)"),
    Param("shed", 3.0, 0.0, 20.0, "worth per 10 points of a thrown card while the hand is within shed_margin points "
          "of that line"),
    Param("shed_margin", 10.0, 0.0, 60.0, "how close to the line the hand sheds points"),
    Param("finish", 2.0, 0.0, 5.0, "worth per unseen card that would let the hand go out next turn, when choosing "
          "the discard of a hand that keeps few loose cards"),
    Param("take_finish", 1.0, 0.0, 5.0, "the same when weighing the discard on the pile"),
    # the search's budget (``search:N`` sets ``samples``), not the expert's judgement: not tuned
    Param("samples", 24, 1, 1024, "search: worlds each option is played out in", integer=True, tuned=False),
    Param("options", 3, 1, 8, "search: the throws it tries (the expert's and the next cheapest)", integer=True,
          tuned=False),
    Param("margin", 0.5, 0.0, 1.0, "search: how much better (mean outcome, -1 to 1) another option must do than the "
          "expert's to be chosen"),
)
FINISHES = ("out", "rummy", "wash")  # engine.FINISH_*
# The --until-ci metrics of card deal-stats (sim.games.cards.deals measures them); here, where
# `sim deal-stats --help` reads them without importing numba.
DEAL_METRICS = (
    Metric("p_meld", "p_meld", "share of dealt hands that can lay down a meld", True),
    Metric("p_out", "p_out", "share of dealt hands that could go out at once", True),
    Metric("mean_melded", "mean_melded", "mean points the hand can meld", False),
    Metric("mean_deadwood", "mean_deadwood", "mean deadwood points left", False),
)
HAND_SOLVER = "the card hand solver"  # its workload (Family.other_workload)
SEARCH_PLAY = "the card search"  # the search's and the oracle's workload (sim.games.cards.search)
ENGINE_MODULES = (*HAND_MODULES, "sim.games.cards.view", "sim.games.cards.expert", "sim.games.cards.engine")


class CardRummy(Family):
    name = "rummy101-cards"
    title = "card Rummy 101"
    rules_class = CardRules
    presets: ClassVar[dict] = PRESETS
    unit = "match"
    units = "matches"
    tables = ("matches", "hands", "players")
    id_column = "match_id"
    policies = POLICIES
    expert_params = EXPERT_PARAMS
    balance_example = ("target", "51:151", "mean_hands=4")
    finishes = FINISHES
    kernel_modules = ENGINE_MODULES
    other_workloads = ((HAND_SOLVER, HAND_MODULES), (SEARCH_PLAY, (*ENGINE_MODULES, "sim.games.cards.search")))
    policy_workloads: ClassVar[dict] = {"search": SEARCH_PLAY, "oracle": SEARCH_PLAY}
    deal_metrics = DEAL_METRICS
    public: ClassVar[dict] = {"LayDown": "handplay", "best_lay_down": "handplay"}
    compared_metrics = ("hands", "rummy_share", "mean_points", "first_dealer_win", "wash_share", "margin")
    glance_metrics = ("hands", "wash_share", "rummy_share", "mean_points", "first_dealer_edge")
    referee_checks = "every card and every score checked"
    # Measured with the standard game (4 players, greedy, seed 1, one worker process on the
    # shared 2-core machine): a run of 4,000 matches in chunks of 1,000 wrote 446 kB (111
    # bytes a match) at 2,600 matches/s; deal-stats of 200,000 hands wrote 474 kB (2.4 bytes
    # a hand) at 186,000 hands/s, and 2,000,000 against 6,000,000 hands raised the peak
    # memory by 68 bytes a hand.
    costs = Costs(disk_per_unit=111, units_per_second=2_600, disk_per_sample=2.4, memory_per_sample=68,
                  samples_per_second=180_000)
    metrics = (
        Metric("win_seat_S", r"win_seat_(?P<seat>\d+)", "share of matches won by seat S (with partners, team S)",
               True),
        Metric("mean_hands", "mean_hands", "mean hands per match, washes included", False),
        Metric("p_wash", "p_wash", "share of hands washed out (C-WASH-1)", True),
        Metric("p_rummy", "p_rummy", "share of hands won by going rummy (C-SCORE-2)", True),
        Metric("mean_points", "mean_points", "mean points of a hand someone went out of", False),
    )

    score_unit = "hand"
    score_label = "points per hand"

    def seat_results(self, tables, keys=()):
        """A seat's results in each match: won when its seat (with partners, its team) won
        the match; its points over the match's hands, counted per hand."""
        return self.analysis().seat_results(tables, keys)

    def describe(self, rules) -> str:
        return f"{self.title}: matches to {rules.target}, {rules.decks} deck{'s' if rules.decks > 1 else ''}"


FAMILY = CardRummy()
