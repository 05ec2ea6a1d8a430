"""The shared slash commands; each module is an extension with a `setup`."""
