"""benchmarks/profile_kernels.py puts each perf sample in compiled code to the numba function
whose address precedes it, and names functions from numba's mangled names."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("profile_kernels", ROOT / "benchmarks" / "profile_kernels.py")
profile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(profile)


def test_numbas_mangled_names_read_as_dotted_paths():
    assert profile._short("_ZN3sim5games8rummikub11tablesolver7_searchB3v92B48c8tJTIeFIjx") == \
        "sim.games.rummikub.tablesolver._search"
    assert profile._short("_ZN7cpython3sim4deal10round_deckB2v5") == "sim.deal.round_deck"  # a Python wrapper
    assert profile._short("NRT_decref") == "NRT_decref"


def test_samples_go_to_the_function_before_them_and_none_beyond_reach(tmp_path):
    (tmp_path / "map.txt").write_text("1000 a\n2000 b\n")
    far = 0x2000 + profile.FAR + 1
    report = "\n".join([
        "# a comment line",
        "    10.00%  [.] 0x0000000000001000",  # a's first byte
        "     5.50%  [.] 0x0000000000001fff",  # still a
        "     4.50%  [.] 0x0000000000002010",  # b
        "     3.00%  [.] 0x0000000000000fff",  # before any function: not counted
        f"     2.00%  [.] 0x{far:016x}",  # too far past b: not counted
        "     9.00%  [.] _PyEval_EvalFrameDefault",  # Python, not compiled code
    ])
    shares, jit = profile.attribute(report, tmp_path / "map.txt")
    assert dict(shares) == {"a": 15.5, "b": 4.5}
    assert jit == 20.0
