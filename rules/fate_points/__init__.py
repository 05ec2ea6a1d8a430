"""Fate/Points: d20 roll-under, Masters and Servants (rules/fate_points.md)."""
