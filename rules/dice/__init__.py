"""Dice-notation engine: parse, validate, roll and render tabletop dice expressions.

Pure Python, no dependencies; nothing here knows about Discord or the database.

Usage::

    result = roll("4d6kh3 + 2 # strength", SystemDice())
    render(result)            # '4d6kh3 [5, 3, ~~1~~, 6] + 2 = 16'
    result.to_dict()          # JSON-friendly, for the event log
    roll("2D6>=7", SystemDice(), dialect="bcdice").rolls[0].met   # True or False

`parse()` validates everything that can be known before rolling, so every refusal except
`too_many_dice_rolled` happens before a single die is touched; `ParsedRoll.evaluate(dice)` rolls it.

Dialects
========
Two forms clash between dice engines, and `dialect` (`dialects.py`) says how they read:

    roll20   `5d10>7` counts the dice above 7; `4d6k3` keeps the highest three   (the default)
    bcdice   `2D6>=7` compares the total with 7; `4d6k3` keeps the highest three  (Japanese tables)
    d20      `1d20>15` compares the total with 15; `4d6k3` keeps the dice showing 3   (Avrae)

Everything else reads the same in all three.

Grammar
=======
Case-insensitive (`1D20`). Full-width characters from CJK input methods (`１ｄ２０＋５`) are read as their ASCII
forms, and so are the minus signs a Japanese input method types (`ー`, `−`). Whitespace is allowed between
tokens, never inside one: `4d6 kh3` is `4d6kh3`, `4 d6` is an error.
Error positions are 0-based character offsets into the original text.

    roll        := [repeats "#"] (expression [target] | bulk) [comment]
    repeats     := integer                       (1..max_repeats; a leading `N#` is always a repeat)
    target      := comparison-operator constant  the total against a number (`2d6+3>=10`); only after dice
    constant    := expression without dice       (`>=5+3`, as BCDice allows)
    bulk        := integer "b" integer ("+" integer "b" integer)* [comparison-operator constant]
                                                 BCDice's bulk roll; with a comparison, how many dice meet it
    expression  := product (("+" | "-") product)*
    product     := unary (("*" | "/" | "//") unary)*      `/` and `//` both round down
    unary       := "-"* primary annotation*
    annotation  := "[" text "]"                  d20's `9[fire]`: shown beside its term
    primary     := integer | dice | d66 | "(" expression ")" [pick] | set      (nesting up to max_depth)
    set         := "(" expression "," [expression ("," expression)* [","]] ")" [pick]
    d66         := "d66" ["a" | "s" | "d" | "n"]  tens and ones: as rolled (none, `n`), ascending (`a`, `s`),
                                                 descending (`d`); `1d66` is a 66-sided die
    dice        := [integer] "d" (integer | "%") modifier*  (`d20` = `1d20`, `d%` = `1d100`)
    modifier    := reroll | explode | bound | pick | success  (each kind at most once, any order)
    reroll      := ("r" | "rr") faces            reroll while the face matches (until it does not)
                 | "ro" faces                    reroll at most once
    explode     := "!" [faces] | "e" faces       a matching face adds another die, which may explode again;
                                                 bare `!` explodes on the highest face
                 | "ra" faces                    reroll and add: the first matching die adds one die, once
    bound       := ("mi" | "ma") integer         each face at least / at most this (`7→10`)
    pick        := ("kh" | "kl" | "dh" | "dl" | "ph" | "pl") [integer]   keep highest/lowest, drop highest/
                                                 lowest (`p` = drop); the count defaults to 1
                 | ("k" | "p") comparison        keep / drop the matching faces (or a set's values)
                 | "k" [integer]                 the highest `integer` (default 1); in d20's reading `k3` keeps 3s
                 | "p" integer                   drop the dice showing `integer`
    success     := comparison                    count the kept dice that match instead of summing (Roll20's
                                                 reading; in the others a comparison after dice is the target)
    faces       := integer | comparison          a bare integer means `=`
    comparison  := ("=" | ">" | ">=" | "<" | "<=") integer      `>` and `<` are strict
    comment     := "#" any text
                 | any text that starts with a non-ASCII character
                 | whitespace, then a word that starts with an ASCII letter, contains no digit, and whose
                   leading letters are not a notation keyword (d, k, kh, kl, dh, dl, p, ph, pl, r, rr, ro, ra,
                   e, mi, ma)

A comparison written directly after `!`, `e`, `r`, `rr`, `ro`, `ra`, `k` or `p` belongs to that modifier:
`3d6!>5` explodes on 6, while in the Roll20 reading `3d6! >5` explodes on the maximum and counts dice above 5.
Attached to a term, modifier keywords may run together (`2d20khr1` = keep 1, reroll 1s); after whitespace a word
is a modifier only if all its letters form a keyword, so `1d20 rogue` is a comment rather than a broken `ro`.

Semantics
---------
* Modifiers apply in a fixed order whatever the written order: rerolls, then explosions, then minimum and
  maximum, then keep/drop, then success counting. Rerolls and explosions look at the face rolled; the rest at
  the face once bounded. Dice added by explosions join the pool and can be kept, dropped and counted; an
  exploded-in die can itself be rerolled (with `ro`, a die that replaces a rerolled die is never rerolled again).
* Keeping more dice than the pool holds keeps them all; dropping at least as many drops them all (value 0).
  Keep/drop counts of 0 are refused. Among equal faces the earlier-rolled die is kept or dropped first.
* A keep or drop after parentheses applies to the dice or set inside, among those still kept (d20's nested
  keeps, `((10d6kh5)kl2)kh1`), or, around one value of another kind, to that value as a set of one.
  A set's value is the sum of its kept elements.
* Success counting: the term's value is the number of kept dice that match. Such terms combine freely with
  numbers and with each other (`5d10>7 + 2` adds two automatic successes; `2*(3d6=6)` doubles them), but an
  expression that mixes success-counting dice with summed dice is refused (`bad_success_use`), as the total
  would be meaningless. `RollResult.is_success_count` tells callers which kind of total they have, and
  `RollResult.criteria` by what the dice were counted.
* A target roll compares each total with `RollResult.target`; `ExpressionRoll.met` says whether it met it.
* Repeats (`6#4d6kh3`) evaluate the expression independently N times; `RollResult.total` is the sum of the
  repeats' totals (for a target roll, how many met the target), each repeat's own total is in `RollResult.rolls`.
* Dice are recorded in the order they were rolled: the base dice first, then each wave of rerolls/explosions.
  `FixedDice` hands out its values in exactly that order.

Why the comment rule: free text is convenient (`1d20+5 stealth check`), but a typo must not quietly become a
comment. Whitespace makes modifiers after it still parse (`4d6 kh3` keeps 3), and a would-be comment that
starts with a notation keyword or contains digits (`1d20 kh`, `4d6 kx3`) is a syntax error instead. Use `#`
for anything else (`1d20 # 2nd attack`). Comments are at most `max_comment_length` characters, stripped.

Limits (`DiceLimits`, all inclusive)
====================================
    max_expression_length  200            characters of notation (the comment is not counted)
    max_comment_length     200
    max_dice               500            physical dice across the whole roll incl. repeats, rerolls, explosions
    max_sides              1000
    max_depth              10             parenthesis nesting
    max_repeats            20
    max_magnitude          1_000_000_000  static bound on |total|, so totals fit a 32-bit column

The dice cap is checked twice: base dice (count x repeats) before rolling (`too_many_dice`), and every die
actually rolled, so an unlucky explosion/reroll chain stops with `too_many_dice_rolled`.

Error codes (`DiceError.code`, `DiceError.params`)
=================================================
    empty                 {}                               nothing but whitespace and/or a comment
    syntax                {position, found}                `found` is the offending text up to whitespace
                                                           (at most 12 chars; "" at the end of input)
    too_long              {limit}                          notation longer than max_expression_length
    comment_too_long      {limit, length}
    too_deep              {limit, position}                parentheses nested deeper than max_depth
    too_many_dice         {limit, requested}               base dice x repeats over max_dice
    too_many_dice_rolled  {limit}                          rerolls/explosions went over max_dice while rolling
    too_many_sides        {limit, sides, position}
    too_many_repeats      {limit, repeats}
    too_large             {limit}                          the total could exceed max_magnitude
    zero_dice             {position}                       `0d6`
    zero_sides            {position}                       `1d0`
    zero_repeats          {position}                       `0#1d6`
    zero_keep_drop        {position}                       `4d6kh0`
    always_explodes       {position}                       `1d1!`, `1d6!>1`, `1d6r<6!`
    always_rerolls        {position}                       `1d1r1`, `1d6r<7` (`ro` is allowed: it ends)
    duplicate_modifier    {position, modifier}             `4d6kh3kl1`, `3d6!!`
    bad_success_use       {position}                       `5d10>7 + 1d6` (position of the summed term)
    division_by_zero      {position}                       `10/(1d6-1)`: a divisor that could be zero

`ERROR_CODES` lists them all, for checking that every code has a translation.

Rendering
=========
`render()` gives one line `<term> [<dice>] <op> ... = <total>`, or for repeats one `i: ...` line per repeat and
a final `Σ = <sum>` line. Dropped and rerolled-away dice are struck through (`~~1~~`), as are a set's dropped
elements; a die that added another is followed by `!` (`6!`), a bounded die shows both faces (`7→10`), a
counted success is bold (`**8**`), multiplication is shown as `×`, annotations follow their term (`5 [fire]`).
Given the caller's `RollWords`, it ends with what the numbers mean (`summaries()`: the successes counted, the
verdict or the tally of a target roll), and each repeat of a target roll with its verdict. Over `max_length`
(1500 by default) it shows as many dice per term as fit and summarises the rest as `…+N`.
"""

from rules.dice.dialects import DEFAULT_DIALECT, DIALECTS, READINGS, DiceDialect, Reading, dialect_for_language
from rules.dice.errors import ERROR_CODES, DiceError, DiceErrorCode
from rules.dice.evaluate import ParsedRoll
from rules.dice.limits import DEFAULT_LIMITS, DiceLimits
from rules.dice.parser import parse
from rules.dice.render import (
    DEFAULT_RENDER_LENGTH,
    RollWords,
    SuccessCount,
    Summary,
    TargetTally,
    TargetVerdict,
    render,
    summaries,
)
from rules.dice.results import (
    AnnotationResult,
    BinaryResult,
    D66Result,
    DiceResult,
    Die,
    ExpressionRoll,
    GroupResult,
    JsonValue,
    NegationResult,
    NumberResult,
    ResultNode,
    RollResult,
    SetResult,
)
from rules.dice.source import DiceSource, FixedDice, FixedDiceError, SeededDice, SystemDice
from rules.dice.syntax import Comparison


def roll(
    expression: str, dice: DiceSource, limits: DiceLimits = DEFAULT_LIMITS, dialect: DiceDialect = DEFAULT_DIALECT
) -> RollResult:
    """Parse, validate and roll `expression`; raises `DiceError`."""
    return parse(expression, limits, dialect).evaluate(dice)


__all__ = [
    "DEFAULT_DIALECT",
    "DEFAULT_LIMITS",
    "DEFAULT_RENDER_LENGTH",
    "DIALECTS",
    "ERROR_CODES",
    "READINGS",
    "AnnotationResult",
    "BinaryResult",
    "Comparison",
    "D66Result",
    "DiceDialect",
    "DiceError",
    "DiceErrorCode",
    "DiceLimits",
    "DiceResult",
    "DiceSource",
    "Die",
    "ExpressionRoll",
    "FixedDice",
    "FixedDiceError",
    "GroupResult",
    "JsonValue",
    "NegationResult",
    "NumberResult",
    "ParsedRoll",
    "Reading",
    "ResultNode",
    "RollResult",
    "RollWords",
    "SeededDice",
    "SetResult",
    "SuccessCount",
    "Summary",
    "SystemDice",
    "TargetTally",
    "TargetVerdict",
    "dialect_for_language",
    "parse",
    "render",
    "roll",
    "summaries",
]
