"""Crest Magia: 2d6 plus a stat die, keep two (rules/crest_magia.md).

`rolls`: the action roll with boons, banes and criticals (R1-R4), attack against defence (R6), the Damage and
Withstand Rolls (R7, R8). `damage`: damage on the stats' pools, overflow by the defender's choice, the d4 of a
depleted stat and the consequence ladder (R9, R10). `sheets`: character files and the creation budget (R12).
`destiny`: Destiny Points (R11). `odds`: exact hit chances by enumeration. `options`: the GM options of §5.
"""
