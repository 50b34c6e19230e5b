"""Fuzz the run-file reader (and the peer-output importers, where present) with a million
mutated inputs. The only allowed outcomes are a parsed result or a clean MsgperfError with a
one-line message; anything else is printed and counted as a failure.

    .venv/bin/python bench/fuzz_readers.py [--inputs 1000000] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from msgperf.errors import MsgperfError  # noqa: E402
from msgperf.records.runfile_read import parse_run_text  # noqa: E402

TOKENS = ['"', "{", "}", "[", "]", ",", ":", "-", "NaN", "1e308", "-1", "0", "null", "true", "\n", "\\u0000",
          '"type":"run"', '"samples_s":[', "\x1b[31m", "<script>", "9" * 30]


def seeds() -> list[tuple[str, object]]:
    from tests.records.test_read import good_text
    targets: list[tuple[str, object]] = [(good_text(), lambda text: parse_run_text(text, "fuzz"))]
    try:
        from msgperf.records import importers
    except ImportError:
        return targets
    peer_dir = ROOT / "tests" / "data" / "peer-outputs"
    for path in sorted(peer_dir.glob("*")):
        tool = "netpipe" if path.suffix == ".np" else path.name.split("_")[0]
        if tool in importers.TOOLS:
            targets.append((path.read_text(),
                            lambda text, tool=tool, name=path.name: importers.parse_foreign(tool, text, name)))
    return targets


def mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(text) + 1)
        op = rng.random()
        if op < 0.3:
            text = text[:at] + text[at + rng.randint(1, 50):]
        elif op < 0.6:
            text = text[:at] + rng.choice(TOKENS) + text[at:]
        elif op < 0.8:
            text = text[:at] + chr(rng.randrange(0, 0x250)) + text[at + 1:]
        else:
            cut = rng.randrange(len(text) + 1)
            text = text[:cut]
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    targets = seeds()
    outcomes = {"parsed": 0, "clean error": 0, "FAILURE": 0}
    start = time.perf_counter()
    for i in range(args.inputs):
        seed_text, parse = targets[i % len(targets)]
        text = mutate(seed_text, rng)
        try:
            parse(text)
            outcomes["parsed"] += 1
        except MsgperfError as exc:
            if "\n" in str(exc):
                outcomes["FAILURE"] += 1
                print(f"multi-line error for input {i}: {exc!r}")
            else:
                outcomes["clean error"] += 1
        except Exception as exc:  # noqa: BLE001 - this is what the fuzzer hunts
            outcomes["FAILURE"] += 1
            print(f"input {i}: {type(exc).__name__}: {exc}\n{json.dumps(text[:300])}")
    elapsed = time.perf_counter() - start
    print(f"{args.inputs} inputs over {len(targets)} seed files in {elapsed:.1f} s "
          f"({args.inputs / elapsed:,.0f}/s): " + ", ".join(f"{k} {v}" for k, v in outcomes.items()))
    return 1 if outcomes["FAILURE"] else 0


if __name__ == "__main__":
    sys.exit(main())
