"""The contract between a rule family and the shared layers, and the pieces the round
families share.

A family package (``sim/games/<family>/``) defines one :class:`Family` subclass and an
instance ``FAMILY``, registered by one line in :mod:`sim.games`. The subclass states what
the shared layers need as class attributes (checked when the class is made: a missing
one is an error at import, not when a run starts) and supplies the rest through the
modules of its package, by convention (see :class:`Family`): the runner plays chunks
through :meth:`Family.chunk_tables`, the CLI parses rules through
:attr:`Family.rules_class`, solves through :meth:`Family.solve`, prints traces through
:meth:`Family.trace_text`; the report adds :meth:`Family.report_sections`.
``tests/shared/test_family_contract.py`` holds every family to it.

Nothing here, nor in a family's ``__init__``, imports numba or a kernel: a family's
kernels are imported by the methods that play, and compile only when it plays.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from sim.precision import Metric

if TYPE_CHECKING:
    import numpy as np
    import polars as pl

    from sim.dealstats import DealKind
    from sim.jit import Workload
    from sim.precision import Target
    from sim.rules import Rules


# The policies that take a budget (``search:32``) and the tuning constant it sets.
BUDGETS = {"search": "samples"}


def split_policy(name: str, known: tuple[str, ...]) -> tuple[str, int | None]:
    """A seat's policy name as ``(bot, budget)``: ``search:32`` is the search with 32 worlds
    an option, ``expert`` has no budget (None); a name not in ``known`` is an error."""
    from sim.errors import RulesError

    base, sep, budget = name.partition(":")
    if base not in known:
        raise RulesError(f"unknown policy {name!r}; policies: {', '.join(known)}")
    if not sep:
        return base, None
    takes = [b for b in BUDGETS if b in known]
    if base not in BUDGETS:
        raise RulesError(f"policy {name!r}: only {' and '.join(takes) or 'no policy'} takes a budget (e.g. "
                         f"{takes[0] if takes else 'search'}:32)")
    if not (budget.isascii() and budget.isdigit()) or int(budget) <= 0:
        raise RulesError(f"policy {name!r}: the budget must be a positive integer (the worlds each option is "
                         f"played out in), e.g. {base}:32")
    return base, int(budget)


def policy_codes(policies: list[str] | tuple[str, ...], players: int, known: tuple[str, ...]) -> np.ndarray:
    """Policy names per seat as their indices in ``known`` (a family's bots; ``search:32``
    counts as ``search``); one name is used for every seat."""
    import numpy as np

    from sim.errors import RulesError

    names = list(policies)
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise RulesError(f"policies: {players} seats need {players} policies, got {len(names)}")
    return np.array([known.index(split_policy(n, known)[0]) for n in names], dtype=np.int64)


def policy_tune(params: tuple[Param, ...], policies: list[str] | tuple[str, ...], players: int,
                known: tuple[str, ...], tune: np.ndarray | None = None) -> np.ndarray | None:
    """Each seat's tuning constants with the budget its policy name gives (``search:32``
    sets ``samples`` to 32): ``tune`` (or the defaults) with those set; ``tune`` itself when
    no name has a budget."""
    names = list(policies) * (players if len(policies) == 1 else 1)
    budgets = [split_policy(n, known) for n in names]
    if all(b is None for _, b in budgets):
        return tune
    tune = seat_tune(params, players, tune).copy()
    for seat, (base, budget) in enumerate(budgets):
        if budget is not None:
            tune[seat, param_index(params, BUDGETS[base])] = budget
    return tune


def per_variant(tables: dict[str, pl.DataFrame], keys: list[str], summarise_one) -> dict:
    """A run's summary: ``summarise_one(combo, rounds, players)`` for every variant of a
    sweep (``keys``: the swept fields, columns of both tables) or once for a run; the
    players table gains the round's ``winner_seat`` and ``deal_id``."""

    rounds, players = tables["rounds"], tables["players"]
    extra = ["deal_id"] if "deal_id" in rounds.columns else []
    players = players.join(rounds.select("round_id", *keys, "winner_seat", *extra), on=["round_id", *keys],
                           how="left")
    combos = rounds.select(keys).unique().sort(keys).rows(named=True) if keys else [{}]
    variants = []
    for combo in combos:
        variants.append(summarise_one(combo, of_variant(rounds, combo), of_variant(players, combo)))
    return {"rounds": rounds.height, "variants": variants}


def select_columns(tables: dict[str, pl.LazyFrame | pl.DataFrame], wanted: dict[str, tuple[str, ...]],
                   keys: list[str]) -> dict[str, pl.LazyFrame]:
    """The columns ``wanted`` of each table, with the swept ``keys``, those the table has, lazily."""
    out = {}
    for name, columns in wanted.items():
        lf = tables[name].lazy()
        have = set(lf.collect_schema().names())
        out[name] = lf.select([c for c in dict.fromkeys([*keys, *columns]) if c in have])
    return out


def collect_columns(tables: dict[str, pl.LazyFrame | pl.DataFrame], wanted: dict[str, tuple[str, ...]],
                    keys: list[str]) -> dict[str, pl.DataFrame]:
    """:func:`select_columns` read together in one collect: a summary reads only what it
    uses (a million rounds are 716 MB in memory whole, most of it columns no summary reads)."""
    import polars as pl

    lazy = select_columns(tables, wanted, keys)
    return dict(zip(lazy, pl.collect_all(list(lazy.values())), strict=True))


def of_variant(df: pl.DataFrame, combo: dict) -> pl.DataFrame:
    """The rows of ``df`` of one variant (``combo``: swept field -> value; empty: all)."""
    import polars as pl

    return df.filter(*[pl.col(k) == v for k, v in combo.items()]) if combo else df


def variant_name(variant: dict) -> str:
    """A variant as people read it: ``players=4, wrap_runs=true``."""
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in variant.items()) or "all rounds"


def variant_key(combo: dict) -> dict:
    return {k: (v if isinstance(v, str | bool) else int(v)) for k, v in combo.items()}


def cluster_of(rounds: pl.DataFrame) -> str:
    """The column that groups a run's dependent samples: ``deal_id`` (a duplicate run's
    rotations share a deal; otherwise one deal per round), or ``round_id`` in data
    written before deals had ids."""
    return "deal_id" if "deal_id" in rounds.columns else "round_id"


def _clustered_rows(rows: pl.DataFrame, rounds: pl.DataFrame) -> tuple[pl.DataFrame, str]:
    """Players ``rows`` with their round's cluster column (:func:`cluster_of`), and its name."""
    by = cluster_of(rounds)
    if by not in rows.columns:
        rows = rows.join(rounds.select("round_id", by), on="round_id", how="left")
    return rows, by


def common_stats(target: Target, tables: dict[str, pl.DataFrame]) -> np.ndarray | None:
    """Sufficient statistics (:func:`sim.stats.cluster_stats`, clustered by deal) of one
    chunk for the targets every family with ``rounds`` and ``players`` tables shares
    (opening by turn, wins by seat, scores, turns); None for the others."""
    import polars as pl

    from sim.stats import cluster_stats

    rounds = tables["rounds"]
    players, by = _clustered_rows(tables["players"], rounds)
    m = target.metric
    seated = players if target.seat is None else players.filter(pl.col("seat") == target.seat)
    if m.startswith("p_open_by_turn"):
        return cluster_stats((seated["open_turn"] <= target.turn).fill_null(False).to_numpy(), seated[by].to_numpy())
    if m.startswith("win_seat"):
        return cluster_stats((rounds["winner_seat"] == target.seat).fill_null(False).to_numpy(), rounds[by].to_numpy())
    if m == "mean_turns":
        return cluster_stats(rounds["turns"].cast(pl.Float64).to_numpy(), rounds[by].to_numpy())
    if m.startswith("mean_score"):
        return cluster_stats(seated["score"].cast(pl.Float64).to_numpy(), seated[by].to_numpy())
    return None


# The --until-ci metrics every family with rounds and players tables has (common_stats
# measures them); a family adds its own.
SHARED_METRICS = (
    Metric("p_open_by_turn_T", r"p_open_by_turn_(?P<turn>\d+)",
           "share of players opened by their own T-th turn (all seats)", True),
    Metric("p_open_by_turn_T_seat_S", r"p_open_by_turn_(?P<turn>\d+)_seat_(?P<seat>\d+)", "the same for seat S", True),
    Metric("win_seat_S", r"win_seat_(?P<seat>\d+)", "share of rounds won by seat S alone", True),
    Metric("mean_score", "mean_score", "mean score of all players", False),
    Metric("mean_score_seat_S", r"mean_score_seat_(?P<seat>\d+)", "mean score of seat S", False),
    Metric("mean_turns", "mean_turns", "mean turns per round", False),
)


def won_or_shared(shared: bool) -> pl.Expr:
    """Whether a player row (with its round's ``winner_seat``, and ``winners`` if ``shared``)
    is among the round's winners: the winner alone, or one of the tied racks that share the
    gain (Rummikub, K-END-2: ``winner_seat`` is null then, ``winners`` lists them). Everyone
    else lost the round and pays a penalty."""
    import polars as pl

    alone = (pl.col("winner_seat") == pl.col("seat")).fill_null(False)
    return alone | pl.col("winners").list.contains(pl.col("seat")).fill_null(False) if shared else alone


def losers(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """The players rows of the players who lost their round (:func:`won_or_shared`)."""
    shared = "winners" in tables["rounds"].columns
    rounds = tables["rounds"].select("round_id", "winner_seat", *(["winners"] if shared else []))
    return tables["players"].join(rounds, on="round_id").filter(~won_or_shared(shared))


def seat_lines(variant: dict, opened_by: tuple[int, ...], last: tuple[str, str, int]) -> list[str]:
    """A summary's table of seats: wins, opened, opened by each own turn of ``opened_by``,
    mean score, and ``last`` (header, the seat's key, width) of the family's choosing."""
    header, key, width = last
    by_turn = "".join(f"{'by t' + str(t):>8}" for t in opened_by)
    lines = [f"  {'seat':<10}{'wins':>8}{'opened':>8}{by_turn}{'mean score':>12}{header:>{width}}"]
    for seat in variant["seats"]:
        label = f"{seat['seat']}" + (" (starts)" if seat["seat"] == 0 else "")
        turns = "".join(f"{seat['opened_by_turn'][str(t)]['estimate']:>8.1%}" for t in opened_by)
        lines.append(f"  {label:<10}{seat['win']['estimate']:>8.1%}{seat['opened']['estimate']:>8.1%}"
                     f"{turns}{seat['mean_score']['estimate']:>12.1f}{seat[key]:>{width}.1f}")
    return lines


# The columns every round summary reads (per_variant and RoundSummary._variant).
ROUND_SUMMARY_COLUMNS = {
    "rounds": ("round_id", "deal_id", "winner_seat", "finish", "turns"),
    "players": ("round_id", "seat", "opened", "open_turn", "score"),
}


@dataclass(frozen=True)
class RoundSummary:
    """The summary of a round family's run (``sim run``'s closing lines and ``--json``), per
    variant: finishes, turns, and by seat wins, openings by own turn, mean score and one
    value of the rounds a seat did not win (``lost``: its key, header, what it is and width, and
    ``lost_value`` of those players rows); ``extras`` adds numbers of the rounds table
    (name -> function of it), ``headline`` and ``finish_note`` say them. ``reads``: the
    columns of each table that ``lost_value`` and ``extras`` read, beyond those every
    round summary does (:data:`ROUND_SUMMARY_COLUMNS`)."""

    opened_by: tuple[int, ...]  # own turns at which the summary tells the share opened
    lost: tuple[str, str, str, int]  # (key, header, what it is, column width)
    lost_value: Callable[[pl.DataFrame], float]
    extras: dict[str, Callable[[pl.DataFrame], float]] = field(default_factory=dict)
    headline: Callable[[dict], str] = lambda v: ""
    finish_note: Callable[[dict], str] = lambda v: ""
    finish_digits: int = 1
    reads: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def summarise(self, tables: dict[str, pl.LazyFrame | pl.DataFrame], keys: list[str]) -> dict:
        """The summary of a dataset's tables (lazy scans: only the columns it uses are read)."""
        wanted = {name: (*columns, *self.reads.get(name, ())) for name, columns in ROUND_SUMMARY_COLUMNS.items()}
        return self.summarise_frames(collect_columns(tables, wanted, keys), keys)

    def summarise_frames(self, tables: dict[str, pl.DataFrame], keys: list[str]) -> dict:
        """The summary of tables in memory, any columns beyond those it reads ignored."""
        return per_variant(tables, keys, self._variant)

    def _variant(self, combo: dict, rounds: pl.DataFrame, players: pl.DataFrame) -> dict:
        import polars as pl

        from sim.stats import mean_interval, share

        n = rounds.height
        finishes = rounds["finish"].value_counts().sort("finish")
        seats = []
        for (seat,), sub in players.sort("seat").group_by("seat", maintain_order=True):
            won = (sub["winner_seat"] == seat).fill_null(False).to_numpy()
            deal = sub["deal_id"].to_numpy() if "deal_id" in sub.columns else None  # a duplicate deal's rounds
            lost = sub.filter(~pl.Series(won))
            seats.append({
                "seat": int(seat),
                "win": share(won, deal),
                "opened": share(sub["opened"].to_numpy(), deal),
                "opened_by_turn": {str(t): share((sub["open_turn"] <= t).fill_null(False).to_numpy(), deal)
                                   for t in self.opened_by},
                "mean_score": mean_interval(sub["score"].to_numpy(), deal),
                self.lost[0]: float(self.lost_value(lost)) if lost.height else 0.0,
            })
        return {
            "variant": variant_key(combo),
            "rounds": n,
            "finish": {row["finish"]: row["count"] / n for row in finishes.iter_rows(named=True)},
            **{name: float(f(rounds)) for name, f in self.extras.items()},
            "mean_turns": float(rounds["turns"].mean()),
            "seats": seats,
        }

    def format(self, summary: dict) -> list[str]:
        key, header, what, width = self.lost
        lines = []
        for v in summary["variants"]:
            lines.append("")
            lines.append(f"{variant_name(v['variant'])}: {v['rounds']:,} rounds, {v['mean_turns']:.1f} turns"
                         + (self.headline(v) or " on average"))
            lines.append("  finish: " + "  ".join(f"{k} {x:.{self.finish_digits}%}" for k, x in v["finish"].items())
                         + self.finish_note(v))
            lines += seat_lines(v, self.opened_by, (header, key, width))
            lines.append(f"  (wins: alone; by tN: share opened by its own N-th turn; {header}: {what})")
        return lines


def deal_shape(names: list[str], on: list[str]) -> list:
    """The columns of a unit table that :func:`dealt_hand` reads, besides ``on``: the
    rotation (0 for data without one) and the number of players."""
    import polars as pl

    shape = [pl.col("rotation") if "rotation" in names else pl.lit(0).alias("rotation")]
    return shape + ([] if "players" in on else ["players"])


def dealt_hand():
    """A seat result's dealt hand: the deal and which of its hands the seat held, the same in
    every rotation (seat ``s`` of rotation ``r`` holds the hand seat ``s - r`` holds in
    rotation 0: :func:`sim.deal.rotate_hands`, and the card dealer moved ``r`` seats on), as
    one id, ``deal_id * 8 + hand``: the luck of the cards a policy is dealt (sim.skill)."""
    import polars as pl

    players = pl.col("players").cast(pl.Int64)
    hand = (pl.col("seat").cast(pl.Int64) - pl.col("rotation").cast(pl.Int64) + players) % players
    return (pl.col("deal_id").cast(pl.Int64) * 8 + hand).alias("dealt_hand")


def deal_columns(round_id: np.ndarray, players: int, duplicate: bool) -> dict[str, np.ndarray]:
    """The ``deal_id`` and ``rotation`` columns of rounds ``round_id``: with ``duplicate``
    (``sim run --duplicate``), round ``i`` is rotation ``i % players`` of deal
    ``i // players`` (:func:`sim.deal.deal_round`); otherwise every round is its own deal."""
    import numpy as np

    if not duplicate:
        return {"deal_id": round_id, "rotation": np.zeros(round_id.size, dtype=np.int8)}
    return {"deal_id": round_id // players, "rotation": (round_id % players).astype(np.int8)}


def round_schema(variant: dict, own: dict) -> dict:
    """The declared schema of a round family's ``rounds`` table: the ids, its variant
    columns, ``policies``, then its own columns (``finish``, ``winner_seat``, ...)."""
    import polars as pl

    return {"round_id": pl.Int64, "deal_id": pl.Int64, "rotation": pl.Int8, **variant, "policies": pl.String, **own}


def players_schema(policy, own: dict) -> dict:
    """The declared schema of a round family's ``players`` table: the round, the seat, its
    bot (``policy``: the family's enum of bots) and whether it opened, then its own columns."""
    import polars as pl

    return {"round_id": pl.Int64, "seat": pl.Int8, "policy": policy, "opened": pl.Boolean, **own}


def rules_columns(rules: Rules, names: tuple[str, ...], count: int,
                  narrow: tuple[str, ...] = ()) -> dict[str, pl.Series]:
    """A column of ``count`` rows per rules field of ``names`` (the variant columns of a
    unit table, a sweep's partition among them): booleans and texts as they are, numbers
    as int16, or int8 for the fields in ``narrow``."""
    import polars as pl

    out = {}
    for name in names:
        value = getattr(rules, name)
        dtype = (pl.Boolean if isinstance(value, bool) else pl.String if isinstance(value, str)
                 else pl.Int8 if name in narrow else pl.Int16)
        out[name] = pl.Series(name, [value] * count, dtype=dtype)
    return out


def seat_policies(policies: list[str], players: int) -> list[str]:
    """The policy of each seat: one name for every seat, or one per seat."""
    return list(policies) * players if len(policies) == 1 else list(policies)


def policy_column(policies: list[str], players: int, known: tuple[str, ...], rounds: int) -> pl.Series:
    """The ``policy`` column of a chunk's players table, seat after seat for ``rounds``
    rounds: each seat's bot (``search:32`` is ``search``; the budget is the rounds')."""
    import numpy as np
    import polars as pl

    bots = [split_policy(q, known)[0] for q in seat_policies(policies, players)]
    return pl.Series(np.tile(np.array(bots), rounds), dtype=pl.Enum(list(known)))


def check_engine_errors(errors: np.ndarray, start: int) -> None:
    """Raise on the first round of a chunk whose engine reported an error (its self-checks)."""
    import numpy as np

    if (errors != 0).any():
        bad = int(np.flatnonzero(errors)[0])
        raise RuntimeError(f"engine error {int(errors[bad])} in round {start + bad}")


def finish_stats(rounds: pl.DataFrame, finish: str) -> np.ndarray:
    """Statistics (:func:`sim.stats.cluster_stats`) of the share of rounds ending as ``finish``."""
    import polars as pl

    from sim.stats import cluster_stats

    by = cluster_of(rounds)
    return cluster_stats((rounds["finish"].cast(pl.String) == finish).to_numpy(), rounds[by].to_numpy())


def player_stats(tables: dict[str, pl.DataFrame], rows: pl.DataFrame, column: str) -> np.ndarray:
    """Statistics (:func:`sim.stats.cluster_stats`, clustered by deal) of a players
    ``column`` over ``rows`` (some players rows of ``tables``)."""
    import polars as pl

    from sim.stats import cluster_stats

    rows, by = _clustered_rows(rows, tables["rounds"])
    return cluster_stats(rows[column].cast(pl.Float64).to_numpy(), rows[by].to_numpy())


@dataclass(frozen=True)
class Param:
    """One tuning constant of a family's ``expert`` bot: its name, the value the bot plays
    with (found by ``benchmarks/tune_expert.py``), the range the tuner searches and what
    it weighs. The kernels read it from a ``tune`` row (:func:`expert_tune`), so that a
    tuner can try other values without recompiling."""

    name: str
    default: float
    low: float
    high: float
    what: str
    integer: bool = False  # a count (turns, tiles): the tuner tries whole numbers
    tuned: bool = True  # False: a budget (the search's), which the tuner leaves alone


def param_index(params: tuple[Param, ...], name: str) -> int:
    """Where constant ``name`` sits in a ``tune`` row (the ``X_*`` of each expert's kernels)."""
    return next(i for i, p in enumerate(params) if p.name == name)


def seat_tune(params: tuple[Param, ...], players: int, tune: np.ndarray | None = None) -> np.ndarray:
    """The expert's constants of every seat as the engines take them: ``tune`` checked (a
    float64 row of ``len(params)`` per seat), or the defaults when None."""
    import numpy as np

    from sim.errors import RulesError

    if tune is None:
        return expert_tune(params, players)
    tune = np.ascontiguousarray(tune, dtype=np.float64)
    if tune.shape != (players, len(params)):
        raise RulesError(f"tune: expected {players} rows of {len(params)} constants, got shape {tune.shape}")
    return tune


def expert_tune(params: tuple[Param, ...], players: int, overrides: list[dict] | dict | None = None) -> np.ndarray:
    """The expert's tuning constants of every seat as a float64 array ``(players, len(params))``:
    the defaults, with ``overrides`` (name -> value, one dict for every seat or one per seat)."""
    import numpy as np

    from sim.errors import RulesError

    tune = np.array([[p.default for p in params]] * players, dtype=np.float64).reshape(players, len(params))
    if overrides is None:
        return tune
    per_seat = [overrides] * players if isinstance(overrides, dict) else list(overrides)
    if len(per_seat) != players:
        raise RulesError(f"tune: {players} seats need {players} sets of values, got {len(per_seat)}")
    index = {p.name: i for i, p in enumerate(params)}
    for seat, values in enumerate(per_seat):
        for name, value in values.items():
            if name not in index:
                raise RulesError(f"tune: no expert constant {name!r}; constants: {', '.join(index) or 'none'}")
            tune[seat, index[name]] = float(value)
    return tune


@dataclass(frozen=True)
class Costs:
    """What one unit of work of a family costs, for the plan a command is checked against
    before it starts (:mod:`sim.plan`): measured on small runs of its standard game (its
    family says how), the rates rough (a shared 2-core machine, one worker process)."""

    disk_per_unit: float  # Parquet bytes of a run per round (match), every table
    units_per_second: float  # rounds (matches) one worker process plays a second
    disk_per_sample: float  # Parquet bytes of ``sim deal-stats`` per rack (hand)
    memory_per_sample: float  # bytes the parent holds per rack (hand) while it gathers the table (its peak)
    samples_per_second: float  # racks (hands) one worker process deals and solves a second


# The package modules a family supplies (by convention, see Family); the contract test
# (tests/shared/test_family_contract.py) checks that every registered family has them.
MODULES = ("rules", "tables", "summary", "trace", "referee", "report", "solve")
# The class attributes a family must set (Family.__init_subclass__ checks them).
REQUIRED = ("name", "title", "rules_class", "presets", "policies", "finishes", "metrics", "kernel_modules",
            "balance_example")


class Family(ABC):
    """What a rule family supplies to the shared layers.

    Class attributes: its names (``name`` is the rules' ``family``), its rules class and
    presets, its bots (``policies``, the default first), how a unit may end
    (``finishes``), its ``--until-ci`` metrics, the kernel modules of its engine and of
    any other workload (``workloads``), its public names (``public``: name -> module of
    the package, reached as ``sim.<name>``) and the metrics ``sim.analysis.compare_variants``
    adds for it (``variant_metrics``).

    By convention, the functions of its package's modules: ``tables.chunk_tables``,
    ``summary.summarise``/``format_summary``/``chunk_stats``, ``trace.trace_json``/
    ``format_trace``, ``referee.referee``, ``report.report_sections``/``headlines``,
    ``solve.solve``/``describe_solution``/``solution_line``, and optionally
    ``analysis`` (its own questions, ``sim.analysis.<name>``) and ``deals`` (its own
    ``sim deal-stats``). Override a method to do otherwise.
    """

    name: ClassVar[str]  # Rules.family
    title: ClassVar[str]  # for people
    rules_class: ClassVar[type[Rules]]
    presets: ClassVar[dict[str, Rules]]  # name -> rules, the standard game first
    unit: ClassVar[str] = "round"  # what one id of a run plays
    units: ClassVar[str] = "rounds"  # its plural
    tables: ClassVar[tuple[str, ...]] = ("rounds", "players")  # the first has one row per unit
    id_column: ClassVar[str] = "round_id"
    policies: ClassVar[tuple[str, ...]]  # bot names, the default first
    finishes: ClassVar[tuple[str, ...]]  # how a round may end: the ``finish`` column's values
    kernel_modules: ClassVar[tuple[str, ...]]  # sim.jit: the modules its engine compiles, callees first
    # Its other workloads (``sim compile``): (what is compiled, its modules callees first).
    other_workloads: ClassVar[tuple[tuple[str, tuple[str, ...]], ...]] = ()
    # the bots that play with one of those (``{"search": name}``): compiled when they play
    policy_workloads: ClassVar[dict[str, str]] = {}
    uses_run_table: ClassVar[bool] = False  # its engine calls the opening solver, which reads the run table
    piece: ClassVar[int | None] = None  # the most units one task plays (None: a chunk), so that a run's bar moves
    metrics: ClassVar[tuple[Metric, ...]]
    # Its sim.dealstats.DealKind as "module:name" (the tile games share the opening solver's);
    # None: its package's ``deals.DEALS``, whose --until-ci metrics are deal_metrics.
    deals_at: ClassVar[str | None] = None
    deal_metrics: ClassVar[tuple[Metric, ...]] = ()
    public: ClassVar[dict[str, str]] = {}  # sim.<name> -> the module of the package defining it
    # sim.analysis.compare_variants' metrics of its own: name -> (what it is, the finishes it counts).
    # A balancing question of the game, (field, LOW:HIGH, METRIC=VALUE): what `sim balance`
    # plays in the contract test (tests/shared/test_family_contract.py).
    balance_example: ClassVar[tuple[str, str, str]]
    referee_checks: ClassVar[str] = "every action checked"  # what its referee's verdict covers
    variant_metrics: ClassVar[dict[str, tuple[str, tuple[str, ...]]]] = {}
    # The tuning constants of its ``expert`` bot (:class:`Param`), in the order its kernels
    # read them from a ``tune`` row (:func:`expert_tune`).
    expert_params: ClassVar[tuple[Param, ...]] = ()
    # What its work costs (sim.plan checks a command against it before it starts); a family
    # measures its own, these are of the order of the families'.
    costs: ClassVar[Costs] = Costs(disk_per_unit=100, units_per_second=1_000, disk_per_sample=3,
                                   memory_per_sample=70, samples_per_second=100_000)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        missing = [a for a in REQUIRED if not hasattr(cls, a)]
        if missing:
            raise TypeError(f"family {cls.__name__} does not set {', '.join(missing)} (sim.games.family.Family)")

    @abstractmethod
    def describe(self, rules: Rules) -> str:
        """One line on what a rules preset plays, for ``sim presets``."""

    @property
    def package(self) -> str:
        return type(self).__module__

    def has_module(self, name: str) -> bool:
        import importlib.util

        return importlib.util.find_spec(f"{self.package}.{name}") is not None

    def _module(self, name: str):
        """The family package's module ``name`` (``tables``, ``summary``, ...), imported on
        first use: nothing of a family loads before it is used."""
        import importlib

        return importlib.import_module(f"{self.package}.{name}")

    # --- compiling ----------------------------------------------------------------------

    @property
    def workload(self) -> Workload:
        """What its engine compiles."""
        from sim.jit import Workload

        return Workload(f"the {self.title} engine", self.kernel_modules)

    @property
    def workloads(self) -> tuple[Workload, ...]:
        """Everything it compiles: its engine, then its other workloads."""
        from sim.jit import Workload

        return (self.workload, *(Workload(name, modules) for name, modules in self.other_workloads))

    def other_workload(self, name: str) -> Workload:
        """The other workload called ``name``."""
        return next(w for w in self.workloads if w.name == name)

    def prepare(self, progress: bool = True, jobs: int | None = None, policies=()) -> None:
        """Compile the engine now if this machine has not compiled it before (in ``jobs``
        processes, see :func:`sim.jit.prepare`), and the workloads the bots named in
        ``policies`` play with (:attr:`policy_workloads`), and build or load the opening
        solver's run table if it uses one: all once, here, before worker processes start."""
        from sim.jit import prepare

        prepare(self.workload, progress, jobs)
        for name in sorted({self.policy_workloads.get(p.partition(":")[0]) for p in policies} - {None}):
            prepare(self.other_workload(name), progress, jobs)
        if self.uses_run_table:
            from sim.solver.runs import run_table

            run_table()

    # --- rules --------------------------------------------------------------------------

    @property
    def standard(self) -> Rules:
        """The standard game: its first preset."""
        return next(iter(self.presets.values()))

    # --- playing ------------------------------------------------------------------------

    def chunk_tables(self, rules: Rules, seed: int, start: int, count: int, policies: list[str],
                     drop: tuple[str, ...] = (), duplicate: bool = False,
                     tune: np.ndarray | None = None) -> dict[str, pl.DataFrame]:
        """Play units ``start .. start+count-1`` and return every table, keyed by name;
        columns named in ``drop`` (a sweep's partition) are left to the path;
        ``duplicate``: each deal played once per seat rotation, units carrying
        ``deal_id`` and ``rotation`` (:func:`deal_columns`); ``tune``: the expert's
        constants per seat (:func:`expert_tune`; None: its defaults)
        (``<package>.tables.chunk_tables``)."""
        return self._module("tables").chunk_tables(rules, seed, start, count, policies, drop, duplicate, tune)

    @property
    def schemas(self) -> dict[str, dict]:
        """Each table's declared columns and types (``<package>.tables.SCHEMAS``): what
        :meth:`chunk_tables` returns, but for a sweep's partition columns."""
        return self._module("tables").SCHEMAS

    def summarise(self, tables: dict[str, pl.LazyFrame | pl.DataFrame], keys: list[str]) -> dict:
        """The summary of a whole dataset, per variant (``keys``: the swept fields); the
        tables lazy scans (:func:`sim.runner.scan`), of which it reads only the columns it
        uses, or frames in memory."""
        return self._module("summary").summarise(tables, keys)

    def format_summary(self, summary: dict) -> list[str]:
        """The summary as lines a person reads."""
        return self._module("summary").format_summary(summary)

    def chunk_stats(self, target: Target, tables: dict[str, pl.DataFrame]) -> np.ndarray:
        """Sufficient statistics of one chunk for an ``--until-ci`` target."""
        return self._module("summary").chunk_stats(target, tables)

    # --- traces -------------------------------------------------------------------------

    def trace_text(self, rules: Rules, seed: int, unit_id: int, policies: list[str],
                   duplicate: bool = False) -> str:
        """One unit, every action with the rule that allows it and the referee's verdict."""
        trace = self.trace_json(rules, seed, unit_id, policies, duplicate)
        problems = self.referee(trace)
        return (f"{self.format_trace(trace)}\nreferee: {self.referee_checks}: "
                + ("no violations" if not problems else "; ".join(problems)))

    def trace_json(self, rules: Rules, seed: int, unit_id: int, policies: list[str],
                   duplicate: bool = False) -> dict[str, Any]:
        """One unit in the JSON trace format (README, "JSON traces")."""
        return self._module("trace").trace_json(rules, seed, unit_id, policies, duplicate)

    def format_trace(self, trace: dict[str, Any]) -> str:
        """A JSON trace as people read it, with the referee's verdict."""
        return self._module("trace").format_trace(trace)

    def referee(self, trace: dict[str, Any]) -> list[str]:
        """The plain-Python rules referee's findings on a JSON trace (empty: every move legal)."""
        return self._module("referee").referee(trace)

    def trace_schema(self) -> dict[str, Any]:
        """The JSON Schema of its traces (``trace.schema.json`` in its package)."""
        import json
        from importlib.resources import files

        return json.loads(files(self.package).joinpath("trace.schema.json").read_text())

    # --- the CLI's solver ---------------------------------------------------------------

    def solve(self, text: str, rules: Rules, options: dict[str, Any]) -> dict[str, Any]:
        """``sim solve``: the answer for one rack or hand ``text`` (``options``: the
        command's solver options, checked by :meth:`check_solve_options`) as JSON data."""
        return self._module("solve").solve(text, rules, options)

    def check_solve_options(self, options: dict[str, Any]) -> None:
        """Refuse the ``sim solve`` options this family's solver does not take."""
        self._module("solve").check_options(options)

    def describe_solution(self, text: str, rules: Rules, options: dict[str, Any]) -> str:
        """The answer for ``text`` for people, several lines."""
        return self._module("solve").describe_solution(text, rules, options)

    def solution_line(self, result: dict[str, Any], options: dict[str, Any]) -> str:
        """:meth:`solve`'s answer in one line (``sim solve -`` reading many)."""
        return self._module("solve").solution_line(result, options)

    # --- deals, analysis, reports -------------------------------------------------------

    def deals(self) -> DealKind:
        """What ``sim deal-stats`` deals and measures (:attr:`deals_at`)."""
        import importlib

        module, _, name = (self.deals_at or f"{self.package}.deals:DEALS").partition(":")
        return getattr(importlib.import_module(module), name)

    def analysis(self):
        """The family's own analysis module (``<package>.analysis``), or None: questions only
        its datasets answer, found by :mod:`sim.analysis` (its ``__all__``), and for a family
        whose unit is not a round, ``dataset_tables``, ``UNIT_METRICS`` and ``unit_metrics``."""
        return self._module("analysis") if self.has_module("analysis") else None

    def dataset_tables(self, path, keys: tuple[str, ...]) -> dict[str, pl.LazyFrame]:
        """Lazy scans of a dataset's tables, joined with the facts analyses group by
        (:func:`sim.analysis.open_dataset`; the round families' is built in there)."""
        return self._module("analysis").dataset_tables(path, keys)

    # The metrics (sim.analysis.metrics_of) of the findings a report sets side by side for
    # two sets of bots (sim.report.bots_section), the first four in its figure.
    compared_metrics: ClassVar[tuple[str, ...]] = ("opened_by_3", "turns", "mean_penalty", "seat0_win")
    # The few metrics a designer decides on, at the top of a report (sim.report's "at a glance"):
    # the round's length, how soon and how often players open, what losing costs, the seat edge.
    glance_metrics: ClassVar[tuple[str, ...]] = ("turns", "opened_by_3", "never_opened", "mean_penalty",
                                                 "seat0_edge")
    # What :meth:`seat_results` counts a seat's score per, and how people read the two.
    score_unit: ClassVar[str] = "round"
    score_label: ClassVar[str] = "mean score per round"

    def seat_results(self, tables: dict[str, pl.LazyFrame | pl.DataFrame], keys: tuple[str, ...] = ()) -> pl.LazyFrame:
        """One row per seat and unit of a run's ``tables`` (as written, or as
        :meth:`chunk_tables` returns them; ``keys``: a sweep's partition columns), for
        comparing bots (``sim tournament``, ``benchmarks/tune_expert.py``): ``deal_id``,
        ``seat``, ``policy``, ``won`` (1.0 when the unit was won by that seat alone, or its
        team), ``decided`` (1.0 when the unit has such a winner), ``score`` (what the seat
        scored in the unit), ``per`` (what the score is counted per: 1 a round; a family
        whose unit holds several, such as a card match's hands, says how many) and
        ``dealt_hand`` (:func:`dealt_hand`). Rounds here; a family overrides it."""
        import polars as pl

        on = ["round_id", *keys]
        rounds = tables["rounds"].lazy()
        names = rounds.collect_schema().names()
        deal = "deal_id" if "deal_id" in names else "round_id"  # older data: no deals
        rounds = rounds.select(*on, pl.col(deal).alias("deal_id"), "winner_seat", *deal_shape(names, on))
        players = tables["players"].lazy().select(*on, "seat", "policy", "score").join(rounds, on=on, how="left")
        won = (pl.col("winner_seat") == pl.col("seat")).fill_null(False)
        return players.select(
            "deal_id", pl.col("seat").cast(pl.Int8), pl.col("policy").cast(pl.String),
            won.cast(pl.Float64).alias("won"), pl.col("winner_seat").is_not_null().cast(pl.Float64).alias("decided"),
            pl.col("score").cast(pl.Float64), pl.lit(1.0).alias("per"), dealt_hand())

    def report_sections(self, rep, ds, prefer: dict) -> None:
        """Add the family's sections on dataset ``ds`` to the report ``rep``
        (:class:`sim.report.Report`); ``prefer``: the reference values of swept fields."""
        self._module("report").report_sections(rep, ds, prefer)

    def headlines(self, ds, prefer: dict) -> list[str]:
        """The key numbers of dataset ``ds``, as Markdown list items."""
        return self._module("report").headlines(ds, prefer)
