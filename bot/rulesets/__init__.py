"""Rule systems: the interface (`base`), the registry, and one package per ruleset."""
