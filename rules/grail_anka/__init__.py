"""The anka Holy Grail War: committed secrets, anchor numbers and win-rate tables (rules/grail_anka.md)."""
