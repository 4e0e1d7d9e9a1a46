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
    from collections import Counter

    (tmp_path / "map.txt").write_text("1000 a\n2000 b\n")
    far = 0x2000 + profile.FAR + 1
    samples = Counter({
        0x1000: 20,  # a's first byte
        0x1FFF: 11,  # still a
        0x2010: 9,  # b
        0x0FFF: 6,  # before any function: not counted
        far: 4,  # too far past b: not counted
        0x7F0000000000: 150,  # Python (libpython), far from any compiled function
    })
    shares, jit = profile.attribute(samples, 200, tmp_path / "map.txt")
    assert dict(shares) == {"a": 15.5, "b": 4.5}  # percent of all 200 samples
    assert jit == 20.0


def test_samples_go_to_source_lines_through_the_objects_sections(tmp_path, monkeypatch):
    """--lines: a section's load address is what most of its functions' addresses agree on
    (a helper linked into several libraries may be found at another library's copy), each
    sample's offset in its section is what addr2line is asked, and a sample outside every
    function of the objects is not counted."""
    import json
    from collections import Counter

    symbols = [(".ltext", 0x0, 0x100, "f"), (".ltext", 0x100, 0x80, "g"), (".ltext", 0x180, 0x40, "h")]
    monkeypatch.setattr(profile, "_symbols", lambda path: symbols)
    # f and g loaded at 0x5000 + their offsets; h found at another library's copy
    (tmp_path / "objects.json").write_text(json.dumps([{"path": "x.o", "loaded": {"f": 0x5000, "g": 0x5100,
                                                                                   "h": 0x9000}}]))
    asked = []

    def addr2line(command, capture_output, text, check):
        offsets = command[6:]
        asked.append((command[3], offsets))
        lines = []
        for offset in offsets:
            lines += ["f" if int(offset, 16) < 0x100 else "h", f"/src/mod.py:{int(offset, 16)}"]
        return type("Done", (), {"stdout": "\n".join(lines) + "\n"})()

    monkeypatch.setattr(profile.subprocess, "run", addr2line)
    samples = Counter({0x5010: 3, 0x5190: 1, 0x51C0: 5, 0x9000: 1})  # f, h (own copy), past h, h's other copy
    shares = profile.attribute_lines(samples, 10, tmp_path / "objects.json")
    assert asked == [(".ltext", ["10", "190"])]
    assert dict(shares) == {"/src/mod.py:16 (f)": 30.0, "/src/mod.py:400 (h)": 10.0}
