"""Game-agnostic core: options, games and positions, outcomes, errors, registry, records."""
