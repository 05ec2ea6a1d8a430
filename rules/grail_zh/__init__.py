"""The Chinese Fate/stay night d20 game (rules/grail_zh.md)."""
