"""Crest Magia: 2d6 plus a stat die, keep two (rules/crest_magia.md)."""
