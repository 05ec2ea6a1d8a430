"""Time the dice engine on the most expensive expressions its default limits allow.

Run from the project root: `.venv/bin/python benchmarks/dice_bench.py [runs]`. Each figure covers the whole
path a /roll takes: parse + validate + roll (with the production `SystemDice`) + render + to_dict.
Expressions that may legitimately hit the dice cap mid-roll (`too_many_dice_rolled`) are timed to the refusal.
"""

import statistics
import sys
import time

from rules.dice import DEFAULT_LIMITS, DiceError, SystemDice, parse, render

LIMITS = DEFAULT_LIMITS
WORST_CASES = {
    "500 dice, 20 repeats, nested 10 deep": "20#" + "(" * 10 + "25d1000kh24>500" + ")" * 10 + "*2",
    "500 dice, one term, keep half": "500d1000kh250",
    "500 dice, success count": "500d10>=8",
    "rerolls up to the cap": "250d6r<3",
    "explosions, ~420 of the 500 dice": "350d6!",
    "explode + reroll + keep + count": "200d10r1!kh150 >7",
    "28 terms, 200 chars": "+".join(["1d1000"] * 28) + "+1000",
    "66 tiny terms, 200 chars": "+".join(["d2"] * 66) + "+1",
    "long unary chain": "-" * 195 + "1d20",
    "syntax error at 200 chars": "1+" * 99 + "x",
    "too long (refused at 200)": "1+" * 500,
}
TYPICAL = {
    "1d20+5": "1d20+5 # attack",
    "4d6kh3": "4d6kh3",
    "2d20kh1+7": "2d20kh1+7 stealth",
    "6#4d6kh3": "6#4d6kh3",
    "8d6!": "8d6!",
    "5d10>7": "5d10>7",
}


def time_once(expression: str, dice: SystemDice) -> float:
    start = time.perf_counter()
    try:
        result = parse(expression, LIMITS).evaluate(dice)
        render(result)
        result.to_dict()
    except DiceError:
        pass
    return (time.perf_counter() - start) * 1e6


def report(title: str, cases: dict[str, str], runs: int) -> None:
    dice = SystemDice()
    print(f"\n{title} ({runs} runs each, microseconds)")
    print(f"{'case':40} {'median':>9} {'p99':>9} {'max':>9}")
    for name, expression in cases.items():
        for _ in range(5):
            time_once(expression, dice)
        timings = sorted(time_once(expression, dice) for _ in range(runs))
        p99 = timings[min(len(timings) - 1, int(len(timings) * 0.99))]
        print(f"{name:40} {statistics.median(timings):9.0f} {p99:9.0f} {timings[-1]:9.0f}")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    print(f"Python {sys.version.split()[0]}, limits: {LIMITS}")
    report("Worst cases allowed by the default limits", WORST_CASES, runs)
    report("Typical rolls", TYPICAL, runs)


if __name__ == "__main__":
    main()
