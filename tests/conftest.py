"""Shared test settings: hypothesis profiles (``HYPOTHESIS_PROFILE=ci`` is derandomised so
CI sees the same examples every run) and small strategies for racks."""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))



@pytest.fixture(scope="session")
def small_data(tmp_path_factory):
    """A small sweep over players and threshold modes, an open_points sweep, a Rummikub sweep
    over players and the bar, a card Rummy 101 sweep over players and the target, a skill run
    (heads-up card matches: greedy, expert, oracle) and a deal-stats file, shared by the
    report and notebook tests."""
    import sim
    from sim import dealstats, runner

    root = tmp_path_factory.mktemp("small-data")
    base = sim.preset("rummy101")
    variants = runner.grid_variants(base, {"players": ["2", "4"], "threshold_mode": ["fixed", "increasing"]})
    runner.run(runner.RunSpec(variants, 150, 3, ("greedy",), 150, kind="sweep"), root / "variants",
               jobs=1, progress=False)
    thresholds = runner.grid_variants(base, {"open_points": ["91", "111"]})
    runner.run(runner.RunSpec(thresholds, 150, 3, ("greedy",), 150, kind="sweep"), root / "thresholds",
               jobs=1, progress=False)
    rummikub = runner.grid_variants(sim.preset("rummikub"), {"players": ["2", "4"], "open_points": ["30", "50"]})
    runner.run(runner.RunSpec(rummikub, 40, 3, ("greedy",), 40, kind="sweep"), root / "rummikub",
               jobs=1, progress=False)
    cards = runner.grid_variants(sim.preset("rummy101-cards"), {"players": ["2", "4"], "target": ["101", "200"]})
    runner.run(runner.RunSpec(cards, 60, 3, ("greedy",), 60, kind="sweep"), root / "cards", jobs=1, progress=False)
    from sim import skill

    two = sim.preset("rummy101-cards").replace(players=2)
    runner.run(skill.spec((runner.Variant(two),), ("greedy", "expert", "oracle"), 16, 3, 16), root / "skill",
               jobs=1, progress=False)
    deal = dealstats.run_deal_stats(base, 22, 3000, seed=1, jobs=1, progress=False)
    dealstats.write(deal, root / "deal.parquet")
    return root
