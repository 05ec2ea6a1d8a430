"""Storage: typed models, the engine factory, migrations and the atomic state changes."""
