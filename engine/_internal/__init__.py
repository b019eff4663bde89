"""Private helpers shared across the engine's packages."""
