"""The ``sim`` command: solve racks, run dealt-rack statistics, list presets and rules.

Every bad input (a tile token, a rules value, a flag, a damaged file) ends in one line
``error: ...`` on standard error and exit status 2; nothing is written.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from sim.errors import SimError
from sim.games import DEFAULT_PRESET, FAMILIES, family_of

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help texts are plain: "[default: ...]" must not be read as markup
    help="Simulation and analytics for rummy games with tiles and cards. The rules of play, with the id every "
         "message cites (T-OPEN-4, K-JOKER-2, C-SCORE-2, ...), are in docs/rules.md.",
)



def _print_version(value: bool) -> None:
    if value:
        from sim.store import git_commit
        from sim.version import __version__

        typer.echo(f"sim {__version__} (commit {git_commit() or 'unknown'})")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True, help="Print the version and the git commit, then exit.")]
        = False) -> None:
    """Simulation and analytics for rummy games with tiles and cards."""


PresetOpt = Annotated[str, typer.Option("--preset", "-p", help="Rules preset (see `sim presets`).")]
SetOpt = Annotated[list[str] | None, typer.Option(
    "--set", help="Change a rules field: --set open_points=91 (repeatable).")]


RoundsOpt = Annotated[int | None, typer.Option(
    "--rounds", "-n", help="Rounds to play (per variant in a sweep) [default: 100,000 for a run, 10,000 for a sweep].",
    show_default=False)]
MatchesOpt = Annotated[int | None, typer.Option(
    "--matches", "-m", help="Card Rummy 101: matches to play (per variant in a sweep) [default: 10,000 for a run, "
    "2,000 for a sweep].", show_default=False)]
SeedOpt = Annotated[int, typer.Option(
    "--seed", min=0, max=2**63 - 1, help="Seed, 0 to 2**63-1: the same seed and settings give the same data.")]
JobsOpt = Annotated[int | None, typer.Option("--jobs", "-j", help="Worker processes [default: all cores].")]
PolicyOpt = Annotated[str | None, typer.Option(
    "--policy", help="Bot for every seat [default: the family's first, greedy]; see the README.", show_default=False)]
SeatPolicyOpt = Annotated[str | None, typer.Option(
    "--seat-policy", help="Bots by seat, e.g. 0=greedy,1=careful (the others take --policy).")]
ChunkOpt = Annotated[int | None, typer.Option(
    "--chunk", min=1, help="Rounds (matches) per chunk file, which does not change the data [default: 10,000 rounds, "
    "1,000 matches].", show_default=False)]
OverwriteOpt = Annotated[bool, typer.Option(
    "--overwrite", help="Replace a run with other settings in --out.")]
ProgressOpt = Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the summary as one JSON object.")]


def _scheduler_address(text: str) -> str:
    """A dask scheduler address, ``[SCHEME://]HOST:PORT`` (tcp when no scheme is given),
    checked as the flags are read: a text that is no address is refused before anything
    is played (dask's own ValueError came after the first chunks were set up)."""
    from urllib.parse import urlsplit

    schemes = ("tcp", "tls", "ws", "wss", "ucx")
    wanted = f"expected a dask scheduler address SCHEME://HOST:PORT ({', '.join(schemes)}), e.g. tcp://10.0.0.5:8786"
    try:
        url = urlsplit(text if "://" in text else f"tcp://{text}")
        ok = (url.scheme in schemes and bool(url.hostname) and bool(url.port) and not any(c.isspace() for c in text)
              and not (url.path or url.query or url.fragment or url.username or url.password))
    except ValueError:  # a port that is not a number 0-65535, a bracket left open
        ok = False
    if not ok:
        raise typer.BadParameter(f"{text!r}: {wanted}")
    return text


SchedulerOpt = Annotated[str | None, typer.Option(
    "--scheduler", parser=_scheduler_address, metavar="<str>",
    help="Run the chunks on an existing dask.distributed scheduler, e.g. tcp://10.0.0.5:8786.")]
ClusterOpt = Annotated[str | None, typer.Option(
    "--cluster", help="Start a dask LocalCluster for the run: local (one worker per core) or local:N.")]
PlayersOpt = Annotated[int | None, typer.Option("--players", help="2, 3 or 4 [default: the preset's].")]
DuplicateOpt = Annotated[bool, typer.Option(
    "--duplicate", help="Play every deal once per seat rotation (its hands moved one seat each time, the bots "
    "and the starter's extra tile unchanged; a card match: its every hand, the first dealer moved too): seat and "
    "bot comparisons without the deal's luck. Rounds (matches) carry deal_id and rotation; --rounds (--matches) "
    "and --chunk are rounded to whole deals.")]


def _out_path(text: str) -> Path:
    """An ``--out`` path (every command's), refused before anything is read or played when
    it cannot be written: empty, holding a NUL, not UTF-8 (the manifest and the Parquet
    metadata record it as text), or with a name or a whole longer than the filesystem takes."""
    text = str(text)
    if not text.strip():
        raise typer.BadParameter("an empty path: give a file or directory, e.g. --out data/run1")
    if "\0" in text:
        raise typer.BadParameter(f"{text!r}: a path cannot hold a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # bytes the locale could not decode, kept as surrogates
        shown = os.fsencode(text).decode("utf-8", "backslashreplace")
        raise typer.BadParameter(f"'{shown}' is not valid UTF-8: give a UTF-8 path") from None
    path = Path(text)
    name_max, path_max = _path_limits(path)
    for part in path.parts:
        if len(os.fsencode(part)) > name_max:
            raise typer.BadParameter(f"the name {part[:40]!r}... is {len(os.fsencode(part)):,} bytes long; "
                                     f"this filesystem takes at most {name_max} a name")
    if len(os.fsencode(os.path.abspath(text))) >= path_max:
        raise typer.BadParameter(f"{text[:40]!r}... is longer than this filesystem's {path_max:,} bytes a path")
    return path


# --out of the commands that play a dataset and read it back (sim tournament, sim skill, sim balance)
PlayedOpt = Annotated[Path | None, typer.Option(
    "--out", "-o", parser=_out_path, metavar="<path>", help="Directory of the rounds played.")]


def _path_limits(path: Path) -> tuple[int, int]:
    """The longest name and path of the filesystem that ``path`` would be on: that of its
    nearest folder that exists (255 and 4,096 bytes where it does not say)."""
    for folder in (path, *path.parents):
        try:
            return os.pathconf(folder, "PC_NAME_MAX"), os.pathconf(folder, "PC_PATH_MAX")
        except (OSError, ValueError):  # not there (yet), or a name too long for it
            continue
    return 255, 4096


def _metric_groups(kind: str) -> list[tuple[str, tuple]]:
    """``(who, metrics)`` for --until-ci: metrics several groups share listed once, under
    all their names, then each group's own."""
    from sim.games import families

    groups = [(f.title, f.deal_metrics if kind == "deal" else f.metrics) for f in families()]
    shared = [m for m in groups[0][1] if sum(m in own for _, own in groups) > 1]
    holders = [who for who, own in groups if all(m in own for m in shared)]
    out = [(" and ".join(holders), tuple(shared))] if shared else []
    for who, own in groups:
        rest = tuple(m for m in own if m not in shared or who not in holders)
        if rest:
            out.append((who + (" also" if shared and who in holders else ""), rest))
    return out


def _until_help(kind: str) -> str:
    groups = "; ".join(f"{who}: {', '.join(m.name for m in metrics)}" for who, metrics in _metric_groups(kind))
    return ("Keep playing chunks until the 95% interval half-width of METRIC is at most HALFWIDTH "
            f"(--rounds/--samples is then the most used). METRIC (T a turn, S a seat): {groups}. "
            "What each measures: sim metrics.")


UntilRunOpt = Annotated[str | None, typer.Option("--until-ci", help=_until_help("run"), metavar="METRIC=HALFWIDTH")]
UntilDealOpt = Annotated[str | None, typer.Option("--until-ci", help=_until_help("deal"), metavar="METRIC=HALFWIDTH")]


def _fail(message: str, code: int = 2):
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _friendly(fn):
    """Turn our input errors into one line and exit status 2."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except SimError as e:
            _fail(str(e))
    return wrapper


def _rules(preset_name: str, settings: list[str] | None, players: int | None = None):
    """The preset with ``--set`` fields and ``--players`` applied (validated)."""
    from sim.games import preset

    rules = preset(preset_name)
    pairs = {}
    for item in settings or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SimError(f"--set {item!r}: expected key=value, e.g. --set open_points=91")
        pairs[key.strip()] = value
    # --set and --players validated together, whatever the order of the flags
    return rules.with_settings(pairs, players=players)


@app.command()
@_friendly
def presets() -> None:
    """List the rules presets."""
    from sim.games import family_of, presets

    for name, r in presets().items():
        typer.echo(f"{name:22} {family_of(r).describe(r)}")


@app.command()
@_friendly
def rules(name: Annotated[str, typer.Argument(help="Preset name.")] = DEFAULT_PRESET,
          settings: SetOpt = None) -> None:
    """Print a preset's rules as JSON (with --set changes applied); every field is explained in docs/rules.md."""
    typer.echo(json.dumps(_rules(name, settings).to_dict(), indent=2))


@app.command()
@_friendly
def solve(
    rack: Annotated[list[str], typer.Argument(
        help="The rack, e.g. R7 R8 R9 K12 B12 Y12 J (quoted or not); "
             "'-' reads one rack per line from stdin.")],
    preset_name: PresetOpt = DEFAULT_PRESET,
    must_use: Annotated[str | None, typer.Option(
        "--must-use", help="A tile that must lie in a meld: the discard just taken (T-TAKE-2).")] = None,
    table: Annotated[str | None, typer.Option(
        "--table", help="Rummikub: the table's melds, e.g. 'R1 R2 R3; B5 K5 J(Y5)'; answers the best "
                        "play of the rack onto it, the table rebuilt as a whole (K-PLAY-1).")] = None,
    objective: Annotated[str, typer.Option(
        "--objective", help="With --table: place the most rack value (value) or the most rack tiles "
                            "(tiles).")] = "value",
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print JSON (one object per line with '-').")] = False,
    settings: SetOpt = None,
) -> None:
    """Best opening of a rack (melds value and melds, most pairs, whether it can open), or
    with --table the best Rummikub play onto a table; for card Rummy 101 the best lay-down
    of a hand (melds and lay-offs on --table, deadwood, whether it can go out)."""
    rules = _rules(preset_name, settings)
    family = family_of(rules)
    options = {"must_use": must_use, "table": table, "objective": objective}
    family.check_solve_options(options)
    text = " ".join(rack)
    if text.strip() != "-":
        typer.echo(json.dumps(family.solve(text, rules, options)) if as_json
                   else family.describe_solution(text, rules, options))
        return
    failed = 0
    for number, line in enumerate(sys.stdin, start=1):
        line = line.strip()
        if not line:
            continue
        try:
            result = family.solve(line, rules, options)
        except SimError as e:
            failed += 1
            result = {"line": number, "input": line, "error": str(e)}
        if as_json:
            typer.echo(json.dumps(result))
        elif "error" in result:
            typer.echo(f"line {number}: error: {result['error']}")
        else:
            typer.echo(family.solution_line(result, options))
    if failed:
        typer.echo(f"error: {failed} line(s) could not be read", err=True)
        raise typer.Exit(1)


@app.command("deal-stats")
@_friendly
def deal_stats(
    preset_name: PresetOpt = DEFAULT_PRESET,
    rack_size: Annotated[int | None, typer.Option(
        "--rack-size", help="Tiles per rack [default: the preset's deal, 21 in rummy101].")] = None,
    samples: Annotated[int, typer.Option("--samples", "-n", help="Racks to deal.")] = 100_000,
    seed: SeedOpt = 1,
    jobs: JobsOpt = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", parser=_out_path, metavar="<path>",
        help="Parquet file [default: data/deal-stats/<preset>-r<size>-n<samples>-s<seed>.parquet].")] = None,
    as_json: JsonOpt = False,
    overwrite: Annotated[bool, typer.Option(
        "--overwrite", help="Replace --out even if it is not a deal-stats table.")] = False,
    progress: ProgressOpt = True,
    settings: SetOpt = None,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
    until_ci: UntilDealOpt = None,
) -> None:
    """Deal racks from the full tile set and tell how often they can open, or card hands and how
    often they can meld or go out (with 95% intervals)."""
    from sim import dealstats, plan
    from sim.precision import parse_target

    rules = _rules(preset_name, settings)
    until = parse_target(until_ci, dealstats.deal_kind(rules).metrics) if until_ci else None
    size = rack_size if rack_size is not None else rules.deal_size()
    if out is None:
        out = Path("data/deal-stats") / f"{rules.name}-r{size}-n{samples}-s{seed}.parquet"
    plan.check_deal_stats(rules, samples, out, dealstats.CHUNK_RACKS, jobs, scheduler, cluster, until is not None)
    dealstats.prepare_output(out, overwrite)
    stats = dealstats.run_deal_stats(rules, size, samples, seed, jobs=jobs, progress=progress,
                                     scheduler=scheduler, cluster=cluster, until=until)
    dealstats.write(stats, out)
    summary = stats.summary()
    if as_json:
        summary.update({"rack_size": size, "seed": seed, "seconds": round(stats.seconds, 3),
                        "out": str(out)})
        typer.echo(json.dumps(summary))
    else:
        typer.echo(dealstats.deal_kind(rules).format(summary, size, seed, stats.seconds, out))


def _seat_policies(family, policy: str | None, seat_policy: str | None, players: int) -> tuple[str, ...]:
    # An empty --policy is a mistake (an unset shell variable), not a request for the default.
    names = [family.policies[0] if policy is None else policy.strip()] * players
    given: dict[int, str] = {}
    if seat_policy is not None:
        for item in seat_policy.split(","):
            seat, sep, name = item.partition("=")
            if not sep or not seat.strip().isascii() or not seat.strip().isdigit():
                raise SimError(f"--seat-policy {item!r}: expected SEAT=POLICY, e.g. 0=greedy,1=careful")
            if int(seat) >= players:
                raise SimError(f"--seat-policy {item!r}: seats are 0-{players - 1}")
            if int(seat) in given:
                raise SimError(f"--seat-policy {seat_policy!r}: seat {int(seat)} given twice "
                               f"({given[int(seat)]!r} and {item.strip()!r}); give each seat once")
            given[int(seat)] = item.strip()
            names[int(seat)] = name.strip()
    from sim.errors import RulesError
    from sim.games.family import split_policy

    for name in names:
        if not name:
            raise SimError(f"no policy given; {family.title} policies: {', '.join(family.policies)}")
        try:
            split_policy(name, family.policies)
        except RulesError as e:
            raise SimError(f"{e} ({family.title})") from None
    return tuple(names) if len(set(names)) > 1 else (names[0],)


def _units(family, rounds: int | None, matches: int | None, default: int) -> int:
    """How many units (rounds, or card matches) to play: ``--rounds`` for the tile
    families, ``--matches`` for card Rummy 101, each refused for the other."""
    if family.unit == "match":
        if rounds is not None:
            raise SimError(f"{family.title} plays matches: give --matches, not --rounds")
        return default // 10 if matches is None else matches
    if matches is not None:
        raise SimError(f"{family.title} plays rounds: give --rounds, not --matches")
    return default if rounds is None else rounds


def _sizes(family, variants, rounds: int | None, matches: int | None, chunk: int | None, default: int,
           duplicate: bool) -> tuple[int, int]:
    """How many units to play and the chunk size of ``sim run`` and ``sim sweep``: whole
    deals with ``--duplicate``; chunks of 10,000 rounds or 1,000 card matches by default."""
    from sim import runner

    units = _units(family, rounds, matches, default)
    chunk = chunk or (1_000 if family.unit == "match" else 10_000)
    return runner.whole_deals(units, chunk, runner.deal_step(variants, duplicate))


def _play(spec, out: Path, as_json: bool, **how) -> None:
    """Play ``spec`` into ``out`` (``how``: the jobs, progress, overwrite, scheduler and
    cluster options) and print its summary."""
    from sim import runner

    report = runner.run(spec, out, **how)
    typer.echo(json.dumps(report.summary) if as_json else runner.format_summary(report))


MAX_ID = 2**63 - 1


def _trace_ids(text: str) -> list[int]:
    """``7``, ``3,5,9`` or ``10-19`` -> the round ids."""
    ids: list[int] = []
    for part in text.split(","):
        part = part.strip()
        first, dash, last = part.partition("-")
        try:
            lo = int(first)
            hi = int(last) if dash else lo
        except ValueError:
            raise SimError(f"--trace {text!r}: expected an id, a list 3,5,9 or a range 10-19") from None
        if lo < 0 or hi < lo:
            raise SimError(f"--trace {text!r}: ids start at 0 and a range goes up (10-19)")
        if hi > MAX_ID:  # the engines' round and match ids are int64
            raise SimError(f"--trace {text!r}: ids are 0-{MAX_ID:,} (a 64-bit signed integer)")
        if hi - lo >= 100_000:
            raise SimError(f"--trace {text!r}: at most 100,000 ids at once")
        ids.extend(range(lo, hi + 1))
    return ids


@app.command("run")
@_friendly
def run_rounds(
    preset_name: PresetOpt = DEFAULT_PRESET,
    players: PlayersOpt = None,
    rounds: RoundsOpt = None,
    matches: MatchesOpt = None,
    seed: SeedOpt = 1,
    jobs: JobsOpt = None,
    policy: PolicyOpt = "greedy",
    seat_policy: SeatPolicyOpt = None,
    settings: SetOpt = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", parser=_out_path, metavar="<path>", help="Run directory to write.")] = None,
    chunk: ChunkOpt = None,
    trace: Annotated[str | None, typer.Option(
        "--trace", help="Print every action of these rounds, checked by the referee: an id, a list 3,5,9 "
        "or a range 10-19; with --json one JSON object per round and line (README: JSON traces). Writes nothing.",
        metavar="IDS")] = None,
    as_json: JsonOpt = False,
    overwrite: OverwriteOpt = False,
    progress: ProgressOpt = True,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
    until_ci: UntilRunOpt = None,
    duplicate: DuplicateOpt = False,
) -> None:
    """Play rounds (card Rummy 101: matches) with bots in parallel and write the family's tables
    (Rummy 101, Rummikub: rounds, players; card Rummy 101: matches, hands, players)."""
    from sim import plan, runner
    from sim.games import family_of
    from sim.precision import parse_target

    rules = _rules(preset_name, settings, players)
    family = family_of(rules)
    policies = _seat_policies(family, policy, seat_policy, rules.players)
    until = parse_target(until_ci, family.metrics, rules.players) if until_ci else None
    if trace is not None:
        _print_traces(family, rules, seed, _trace_ids(trace), policies, as_json, duplicate)
        return
    if out is None:
        raise SimError("--out DIR is required (or --trace IDS to print rounds)")
    variants = (runner.Variant(rules),)
    rounds, chunk = _sizes(family, variants, rounds, matches, chunk, 100_000, duplicate)
    spec = runner.RunSpec(variants, rounds, seed, policies, chunk, until=until, duplicate=duplicate)
    plan.check_run(spec, out, jobs, scheduler, cluster)  # before anything is listed or written
    _play(spec, out, as_json, jobs=jobs, progress=progress, overwrite=overwrite, scheduler=scheduler, cluster=cluster)


def _print_traces(family, rules, seed: int, ids: list[int], policies, as_json: bool, duplicate: bool) -> None:
    seats = list(policies) * rules.players if len(policies) == 1 else list(policies)
    for unit_id in ids:
        if as_json:
            typer.echo(json.dumps(family.trace_json(rules, seed, unit_id, seats, duplicate)))
        else:
            typer.echo(family.trace_text(rules, seed, unit_id, seats, duplicate))


def _grid_variants(base, grid: list[str], settings: list[str] | None) -> tuple:
    """The variants of ``--grid field=v1,v2,...`` (repeatable) over the rules ``base``,
    each value checked and given once."""
    import math

    from sim import plan, runner

    values: dict[str, list[str]] = {}
    for item in grid:
        key, sep, text = item.partition("=")
        vals = [v.strip() for v in text.split(",") if v.strip()]
        if not sep or not key.strip() or not vals:
            raise SimError(f"--grid {item!r}: expected field=v1,v2,... e.g. --grid players=2,3,4")
        if key.strip() in values:
            raise SimError(f"--grid {key.strip()} given twice")
        values[key.strip()] = vals
    set_items = {item.partition("=")[0].strip(): item for item in settings or ()}
    for key, vals in values.items():
        if key in set_items:
            raise SimError(f"{key}: both set (--set {set_items[key]}) and swept (--grid {key}={','.join(vals)}); "
                           "give it in one of them")
        if key in base.field_names() and key not in ("name", "family"):  # others: refused by grid_variants
            typed = [base.typed_value(key, v) for v in vals]  # 91, +91 and 091 are one value
            twice = next((t for t in typed if typed.count(t) > 1), None)
            if twice is not None:
                same = [v for v, t in zip(vals, typed, strict=True) if t == twice]
                same = ", ".join(same[:-1]) + " and " + same[-1]
                shown = str(twice).lower() if isinstance(twice, bool) else twice
                raise SimError(f"--grid {key}: {same} are the same value ({shown}); give each value once")
    plan.check_variants(math.prod(map(len, values.values())))  # before each is made
    return runner.grid_variants(base, values)


@app.command()
@_friendly
def sweep(
    preset_name: PresetOpt = DEFAULT_PRESET,
    grid: Annotated[list[str] | None, typer.Option(
        "--grid", help="A rules field and its values: --grid open_points=81,91,101 (repeatable).")] = None,
    rounds: RoundsOpt = None,
    matches: MatchesOpt = None,
    seed: SeedOpt = 1,
    jobs: JobsOpt = None,
    policy: PolicyOpt = "greedy",
    settings: SetOpt = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", parser=_out_path, metavar="<path>", help="Sweep directory to write.")] = None,
    chunk: ChunkOpt = None,
    as_json: JsonOpt = False,
    overwrite: OverwriteOpt = False,
    progress: ProgressOpt = True,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
    until_ci: UntilRunOpt = None,
    duplicate: DuplicateOpt = False,
) -> None:
    """Play every combination of the --grid values into one hive-partitioned dataset, the
    same shuffled tiles for the same round id in every variant."""
    from sim import plan, runner
    from sim.games import family_of
    from sim.precision import parse_target

    if out is None:
        raise SimError("--out DIR is required")
    if not grid:
        raise SimError("give at least one --grid field=v1,v2,...")
    base = _rules(preset_name, settings)
    variants = _grid_variants(base, grid, settings)
    players = min(v.rules.players for v in variants)
    family = family_of(base)
    until = parse_target(until_ci, family.metrics, players) if until_ci else None
    rounds, chunk = _sizes(family, variants, rounds, matches, chunk, 10_000, duplicate)
    spec = runner.RunSpec(variants, rounds, seed, _seat_policies(family, policy, None, 4)[:1], chunk, kind="sweep",
                          until=until, duplicate=duplicate)
    plan.check_run(spec, out, jobs, scheduler, cluster)
    _play(spec, out, as_json, jobs=jobs, progress=progress, overwrite=overwrite, scheduler=scheduler, cluster=cluster)


@app.command()
@_friendly
def balance(
    preset_name: PresetOpt = DEFAULT_PRESET,
    players: PlayersOpt = None,
    field_name: Annotated[str, typer.Option(
        "--field", help="The numeric rules field to search, e.g. open_points.")] = "",
    value_range: Annotated[str, typer.Option(
        "--range", help="The values to search, LOW:HIGH (both ends played), e.g. 61:141.", metavar="LOW:HIGH")] = "",
    target: Annotated[list[str] | None, typer.Option(
        "--target", help="METRIC=VALUE to reach, e.g. p_open_by_turn_3=0.667 (repeatable: one answer each). "
        "Metrics: those of --until-ci (sim run --help).", metavar="METRIC=VALUE")] = None,
    tolerance: Annotated[int, typer.Option(
        "--tolerance", help="Stop when the answer is known to this many units of the field (1: the neighbouring "
        "values on each side of the target).")] = 1,
    rounds: Annotated[int, typer.Option(
        "--rounds", "-n", help="Rounds at each value tried, doubled at a value while its interval holds the target "
        "(also the chunk size).")] = 2_000,
    max_rounds: Annotated[int, typer.Option(
        "--max-rounds", help="The most rounds at one value: there, a target still inside the interval is the answer.")]
        = 64_000,
    seed: SeedOpt = 1,
    jobs: JobsOpt = None,
    policy: PolicyOpt = "greedy",
    settings: SetOpt = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", parser=_out_path, metavar="<path>", help="Directory of the rounds played (a sweep).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per target.")] = False,
    overwrite: OverwriteOpt = False,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
    progress: ProgressOpt = True,
) -> None:
    """Find the value of a rules field at which a metric reaches a target (paired bisection with
    a confidence test on common random numbers; see the README). Exit status 1 when a target
    is out of reach in the range."""
    from sim import plan
    from sim.balance import Balance, format_answer, parse_goal
    from sim.games import family_of

    rules = _rules(preset_name, settings, players)
    if not field_name:
        raise SimError("--field is required, e.g. --field open_points")
    low, sep, high = value_range.partition(":")
    try:
        lo, hi = int(low), int(high)
    except ValueError:
        raise SimError(f"--range {value_range!r}: expected LOW:HIGH integers, e.g. 61:141") from None
    if not sep:
        raise SimError(f"--range {value_range!r}: expected LOW:HIGH, e.g. 61:141")
    if not target:
        raise SimError("give at least one --target METRIC=VALUE, e.g. --target p_open_by_turn_3=0.667")
    if out is None:
        raise SimError("--out DIR is required (the rounds played are kept there, and reused when rerun)")
    family = family_of(rules)
    goals = [parse_goal(t, family.metrics, rules.players) for t in target]
    policies = _seat_policies(family, policy, None, rules.players)
    say = (lambda line: None) if as_json else (lambda line: typer.echo(line, err=True))
    search = Balance(rules, field_name, lo, hi, out, seed, policies, rounds, max_rounds, tolerance, say)
    search.overwrite = overwrite
    search.progress = progress
    plan.check_balance(search, len(goals), jobs, scheduler, cluster)
    answers, seconds = search.run(goals, jobs=jobs, scheduler=scheduler, cluster=cluster)
    for ans in answers:
        if as_json:
            typer.echo(json.dumps({**ans.to_dict(field_name), "seconds": seconds, "rounds_played": search.played,
                                   "out": str(out)}))
        else:
            typer.echo("\n".join(format_answer(search, ans)))
    if not as_json:
        total = sum(search.plan.values())
        typer.echo(f"{total:,} {family.units} over {len(search.plan)} values in {out} ({search.played:,} played now, "
                   f"{seconds:.0f} s); `sim report --data {out} --out reports/{out.name}` reports them")
    if not all(a.reachable for a in answers):
        raise typer.Exit(1)


@app.command()
@_friendly
def tournament(
    preset_name: PresetOpt = DEFAULT_PRESET,
    players: PlayersOpt = None,
    policies: Annotated[str, typer.Option(
        "--policies", help="The bots to compare, e.g. greedy,careful,expert.")] = "",
    rounds: Annotated[int | None, typer.Option(
        "--rounds", "-n", help="Rounds per seating (whole deals: each deal once per seat rotation) [default: "
        "2,400, about a minute of greedy and careful Rummikub on 2 cores].", show_default=False)] = None,
    matches: Annotated[int | None, typer.Option(
        "--matches", "-m", help="Card Rummy 101: matches per seating (whole deals: each match's hands once per "
        "seat rotation) [default: 240].", show_default=False)] = None,
    seed: SeedOpt = 1,
    jobs: JobsOpt = None,
    settings: SetOpt = None,
    out: PlayedOpt = None,
    chunk: ChunkOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as one JSON object.")] = False,
    overwrite: OverwriteOpt = False,
    progress: ProgressOpt = True,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Seat the policies in every arrangement over duplicate deals and rank them: mean score and
    win share with 95% intervals, pairwise differences paired on the deals."""
    from sim import plan, runner
    from sim import tournament as t

    rules = _rules(preset_name, settings, players)
    names = tuple(p.strip() for p in policies.split(",") if p.strip())
    if out is None:
        raise SimError("--out DIR is required")
    family = runner.family_of(rules)
    units = _units(family, rounds, matches, 2_400)
    spec = t.spec(rules, names, units, seed, chunk or (1_000 if family.unit == "match" else 10_000))
    plan.check_run(spec, out, jobs, scheduler, cluster)
    runner.run(spec, out, jobs=jobs, progress=progress, overwrite=overwrite, scheduler=scheduler, cluster=cluster)
    s = t.standings(out)
    typer.echo(json.dumps(s) if as_json else "\n".join(t.format_standings(s)))


@app.command()
@_friendly
def skill(
    preset_name: PresetOpt = DEFAULT_PRESET,
    players: PlayersOpt = None,
    policies: Annotated[str, typer.Option(
        "--policies", help="The ladder, weakest first: the first is the field in the other seats and the "
        "beginner of relative skill; oracle last gives the fictive player [default: every bot the family has of "
        "greedy,careful,expert,search,oracle].", show_default=False)] = "",
    grid: Annotated[list[str] | None, typer.Option(
        "--grid", help="A rules field and its values, each a variant of its own: --grid last_call=false,true "
        "(repeatable).")] = None,
    rounds: Annotated[int | None, typer.Option(
        "--rounds", "-n", help="Rounds per bot and variant, over its seats (whole deals) [default: 400].",
        show_default=False)] = None,
    matches: Annotated[int | None, typer.Option(
        "--matches", "-m", help="Card Rummy 101: matches per bot and variant [default: 400].",
        show_default=False)] = None,
    seed: SeedOpt = 1,
    jobs: JobsOpt = None,
    settings: SetOpt = None,
    out: PlayedOpt = None,
    chunk: ChunkOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print every measure as one JSON object.")] = False,
    overwrite: OverwriteOpt = False,
    progress: ProgressOpt = True,
    scheduler: SchedulerOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """How much skill a variant rewards: each bot of the ladder in every seat against the
    first, on the same duplicate deals; mean scores and win shares, relative skill, the
    variance shares of a score (the deal, the seat, the bot), the critical repetitions and
    the Elo ladder, with 95% intervals."""
    from sim import plan, runner
    from sim import skill as sk
    from sim.analysis import open_dataset
    from sim.games import family_of

    rules = _rules(preset_name, settings, players)
    family = family_of(rules)
    names = sk.ladder(tuple(p.strip() for p in policies.split(",") if p.strip()), family.policies)
    if out is None:
        raise SimError("--out DIR is required")
    variants = _grid_variants(rules, grid, settings) if grid else (runner.Variant(rules),)
    units = _units(family, rounds, matches, 4_000 if family.unit == "match" else 400)
    spec = sk.spec(variants, names, units, seed, chunk or 1_000)
    plan.check_run(spec, out, jobs, scheduler, cluster)
    runner.run(spec, out, jobs=jobs, progress=progress, overwrite=overwrite, scheduler=scheduler, cluster=cluster)
    s = sk.skill(open_dataset(out))
    typer.echo(json.dumps(s) if as_json else "\n".join(sk.format_skill(s)))


@app.command()
@_friendly
def report(
    data: Annotated[list[Path], typer.Option(
        "--data", "-d", help="A run or sweep directory, or a deal-stats .parquet file (repeatable).")],
    out: Annotated[Path, typer.Option("--out", "-o", parser=_out_path, metavar="<path>",
                                      help="Report directory, e.g. reports/NAME.")],
    title: Annotated[str | None, typer.Option(
        "--title", help="The report's title [default: '<family> balancing report', by the data].")] = None,
    notes: Annotated[Path | None, typer.Option(
        "--notes", help="A Markdown file of commentary to place after the key numbers.")] = None,
    baseline: Annotated[list[str] | None, typer.Option(
        "--baseline", help="Reference value of a swept field, e.g. --baseline players=4 (repeatable).")] = None,
) -> None:
    """Build a static HTML report and its Markdown twin (figures, tables with 95% intervals,
    rules and provenance) from datasets."""
    from sim.report import build_report

    prefer = {}
    for item in baseline or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise SimError(f"--baseline {item!r}: expected field=value, e.g. players=4")
        prefer[key.strip()] = value.strip()
    page = build_report(data, out, title=title, notes=notes, baseline=prefer)
    figures = len(list((out / "figures").glob("*.png")))
    typer.echo(f"report written: {page} and {page.with_suffix('.md')} ({figures} figures)")


@app.command()
@_friendly
def verify(
    data: Annotated[Path, typer.Argument(help="A run, sweep, balance or tournament directory.")],
    quick: Annotated[bool, typer.Option(
        "--quick", help="The checks every reader makes (metadata and the ledger's sizes, times and hashes), "
        "without decoding every file.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as one JSON object.")] = False,
) -> None:
    """Check that a dataset holds what its manifest says: every chunk file there, written for its
    chunk and settings, its rows matching their digest; name what is missing, damaged or does
    not belong, and what rerunning the command would replay. Exit status 1 when anything is wrong."""
    from sim import chunks
    from sim.games import family_of_manifest
    from sim.runner import read_manifest
    from sim.store import is_locked, read_metadata

    manifest = read_manifest(data)
    chunks.check_manifest(manifest, data / "manifest.json")
    family = family_of_manifest(manifest, data / "manifest.json")
    holder = is_locked(data)
    found = chunks.inspect(data, manifest, family.tables, family.id_column, deep=not quick,
                           prefix_ok=bool(manifest.get("until_ci")))
    command = next((c for rel in found.ok + found.legacy if (c := read_metadata(data / rel).get("command"))), "")
    replay = sorted({chunks.file_key(rel)[1:] for rel in [*found.bad, *found.missing]}, key=lambda k: k[1])
    result = {"path": str(data), "family": family.name, "kind": manifest["kind"], "seed": manifest["seed"],
              "clean": found.clean, "verified": len(found.ok), "legacy": len(found.legacy), "damaged": found.bad,
              "stray": found.stray, "missing": found.missing, "chunks_to_replay": len(replay),
              "command": command, "being_written_by": holder}
    if as_json:
        typer.echo(json.dumps(result))
    else:
        files = len(found.ok) + len(found.legacy) + len(found.bad)
        lines = [f"{data}: {manifest['kind']} of {family.title}, seed {manifest['seed']}, "
                 f"{len(manifest['variants'])} variant(s), {files:,} chunk file(s) of {', '.join(family.tables)}"]
        if holder:
            lines.append(f"  being written now by {holder}: the findings are of a run in progress")
        how = "by the ledger and metadata" if quick else "rows decoded, digests and ids checked"
        lines.append(f"  {len(found.ok):,} verified ({how})")
        if found.legacy:
            lines.append(f"  {len(found.legacy):,} written before chunk digests: metadata and ids checked")
        lines += [f"  damaged: {rel}: it {why}" for rel, why in found.bad.items()]
        lines += [f"  does not belong: {rel}: it {why}" for rel, why in found.stray.items()]
        lines += [f"  missing: {rel}" for rel in found.missing[:10]]
        if len(found.missing) > 10:
            lines.append(f"  ... and {len(found.missing) - 10:,} more missing")
        if found.clean:
            lines.append("  nothing wrong")
        else:
            again = f"`{command}`" if command else "the command that wrote it (the same settings)"
            lines.append(f"rerunning {again} replays {len(replay):,} chunk(s)"
                         + (f" and removes {len(found.stray):,} file(s) that do not belong" if found.stray else ""))
        typer.echo("\n".join(lines))
    if not found.clean:
        raise typer.Exit(1)


@app.command()
@_friendly
def metrics() -> None:
    """The metrics --until-ci, sim balance and sim tournament take, family by family, and
    what each measures (T a turn, S a seat)."""
    for kind, title in (("run", "sim run, sweep, balance and tournament"), ("deal", "sim deal-stats")):
        typer.echo(f"{title}:")
        for who, group in _metric_groups(kind):
            typer.echo(f"  {who}:")
            for m in group:
                typer.echo(f"    {m.name:26} {m.help}")


@app.command("compile")
@_friendly
def compile_kernels(
    family: Annotated[list[str] | None, typer.Argument(
        help=f"Families whose engines to compile: {', '.join(FAMILIES)} [default: every kernel of "
             "the package, the solvers too].", show_default=False)] = None,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", min=1, help="Processes to compile in [default: one per core].", show_default=False)] = None,
    progress: ProgressOpt = True,
) -> None:
    """Compile the numba kernels now, in parallel processes, behind a progress bar: once per
    machine (a run compiles what it needs on first use anyway); later runs load them."""
    import time

    from sim import jit
    from sim.games import families
    from sim.parallel import cap_jobs
    from sim.solver import runs
    from sim.workloads import all_workloads

    jobs = cap_jobs(jobs)  # said even when everything is compiled already
    known = {f.name: f for f in families()}
    if family:
        unknown = [name for name in family if name not in known]
        if unknown:
            raise SimError(f"unknown family {unknown[0]!r}: expected one of {', '.join(known)}")
        chosen = [known[name] for name in dict.fromkeys(family)]
        workloads = [f.workload for f in chosen]
        table = any(f.uses_run_table for f in chosen)
    else:
        workloads, table = list(all_workloads()), True
    t0 = time.perf_counter()
    if all(jit.is_ready(w) for w in workloads):
        typer.echo("compiled already: " + ", ".join(w.name for w in workloads))
    else:
        name = "every kernel of the package" if not family else ", ".join(w.name for w in workloads)
        jit.prepare(jit.together(name, workloads), progress=progress, jobs=jobs)
    if table:
        runs.run_table()
    names = ", ".join(w.name for w in workloads) if family else "every kernel of the package"
    typer.echo(f"ready in {time.perf_counter() - t0:.0f} s: {names}" + (" and the opening solver's run table"
                                                                         if table else ""))


@app.command()
@_friendly
def cache(
    clear: Annotated[bool, typer.Option("--clear", help="Remove the compiled kernels and the run table.")] = False,
) -> None:
    """Where the compiled numba kernels and the solver's run table are kept, and whether each
    workload is compiled; --clear removes them (the next run compiles again, once)."""
    from sim import jit
    from sim.solver import runs
    from sim.workloads import all_workloads

    if clear:
        removed = jit.clear_cache(all_workloads())
        table = runs.table_path()
        if table.exists():
            table.unlink()
            removed += 1
        typer.echo(f"removed {removed} cached file(s)")
        return
    for folder, files, size in jit.cache_report(all_workloads()):
        typer.echo(f"{folder}: {files} file(s), {size / 1e6:.1f} MB")
    table = runs.table_path()
    typer.echo(f"{table}: " + (f"{table.stat().st_size / 1e6:.1f} MB" if table.exists() else "not built yet"))
    for w in all_workloads():
        typer.echo(f"{w.name}: {'compiled' if jit.is_ready(w) else 'not compiled yet'}")


def main() -> None:
    """The ``sim`` command: usage errors too end in one ``error:`` line and status 2."""
    from typer.exceptions import TyperException

    try:
        code = app(standalone_mode=False)
    except TyperException as e:  # a usage error: an unknown flag, a value out of range...
        message = e.format_message() if hasattr(e, "format_message") else str(e)
        ctx = getattr(e, "ctx", None)
        where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        if message:  # no message: the help was printed (sim with no command)
            typer.echo(f"error: {message}{where}", err=True)
        sys.exit(getattr(e, "exit_code", 2))
    except typer.Abort:
        typer.echo("error: interrupted", err=True)
        sys.exit(130)
    except MemoryError as e:  # under `ulimit -v`, or a worker's, re-raised here by joblib
        import gc

        detail = f" ({e})" if str(e) else ""  # what was being done, when the step said so
        e.__traceback__ = None  # its frames hold what the failed step allocated:
        gc.collect()  # freed, so that the message itself can be written
        command = next((a for a in sys.argv[1:] if not a.startswith("-")), None)
        doing = f" in `sim {command}`" if command in _commands() else ""
        typer.echo(f"error: out of memory{doing}{detail}; use fewer --jobs or a smaller --chunk (or fewer "
                   "--rounds, --samples)", err=True)
        sys.exit(2)
    if code == 130:  # Ctrl-C (or SIGTERM, read as one): typer ends the command with 130 and says nothing
        typer.echo("error: interrupted", err=True)
    sys.exit(code if isinstance(code, int) else 0)


def _commands() -> set[str]:
    """The names of the ``sim`` commands."""
    return {c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands}


if __name__ == "__main__":
    main()
