"""The dice engine side by side with the `d20` library, on the same everyday expressions.

Run from the project root after `pip install -e '.[bench]'`: `python -m benchmarks.dice_vs_d20 [rounds]`.

Each timing covers the whole path of a roll: parse, roll, render to text. The two engines alternate
expression by expression in one process, so both see the same machine state. Two passes:

* warm: each expression typed again and again, as players do. Both engines keep parsed expressions
  (`d20` in its LFU cache, this engine in its own), so this is what a busy table costs.
* cold: every text new (a numbered comment), so nothing is remembered and each roll is parsed again.
  `d20` is asked to read comments too, which is the path it takes without its cache.
"""

import statistics
import sys
import time
from collections.abc import Callable
from importlib import metadata

import d20

from rules.dice import DEFAULT_LIMITS, SystemDice, parse, render

# (ours, d20's spelling of the same roll): the notations differ for explosions and rerolls.
EVERYDAY = [
    ("1d20+5", "1d20+5"),
    ("4d6kh3", "4d6kh3"),
    ("2d20kl1", "2d20kl1"),
    ("8d6", "8d6"),
    ("3d6!", "3d6e6"),
    ("2d6ro1", "2d6ro1"),
    ("10d10kh5+3", "10d10kh5+3"),
    ("1d100", "1d100"),
    ("2d20kh1+7", "2d20kh1+7"),
    ("6d6r<2", "6d6rr1"),
]
WARMUP_ROUNDS = 200

_dice = SystemDice()


def ours(expression: str) -> str:
    return render(parse(expression, DEFAULT_LIMITS).evaluate(_dice))


def theirs(expression: str) -> str:
    return str(d20.roll(expression).result)


def theirs_reading_comments(expression: str) -> str:
    return str(d20.roll(expression, allow_comments=True).result)


def timed(roll: Callable[[str], str], expression: str) -> float:
    start = time.perf_counter()
    roll(expression)
    return (time.perf_counter() - start) * 1e6


def compare(title: str, rounds: int, cold: bool) -> float:
    their_roll = theirs_reading_comments if cold else theirs
    timings: dict[str, tuple[list[float], list[float]]] = {mine: ([], []) for mine, _ in EVERYDAY}
    for round_number in range(WARMUP_ROUNDS + rounds):
        comment = f" # {round_number}" if cold else ""
        for mine, their_spelling in EVERYDAY:
            our_time = timed(ours, mine + comment)
            their_time = timed(their_roll, their_spelling + comment)
            if round_number >= WARMUP_ROUNDS:
                timings[mine][0].append(our_time)
                timings[mine][1].append(their_time)

    print(f"\n{title} ({rounds} rounds, microseconds per roll)")
    print(f"{'expression':12} {'ours':>8} {'p99':>8} {'d20':>8} {'p99':>8} {'speed-up':>9}")
    our_total = their_total = 0.0
    for mine, (our_times, their_times) in timings.items():
        our_median, their_median = statistics.median(our_times), statistics.median(their_times)
        our_total += our_median
        their_total += their_median
        print(
            f"{mine:12} {our_median:8.1f} {percentile_99(our_times):8.1f} "
            f"{their_median:8.1f} {percentile_99(their_times):8.1f} {their_median / our_median:8.2f}x"
        )
    speed_up = their_total / our_total
    print(f"{'whole set':12} {our_total:8.1f} {'':8} {their_total:8.1f} {'':8} {speed_up:8.2f}x")
    return speed_up


def percentile_99(timings: list[float]) -> float:
    ordered = sorted(timings)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(f"Python {sys.version.split()[0]}, d20 {metadata.version('d20')}")
    compare("warm: the same expressions again and again", rounds, cold=False)
    compare("cold: every text new, parsed each time", rounds, cold=True)


if __name__ == "__main__":
    main()
