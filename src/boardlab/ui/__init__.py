"""User interfaces on top of the library: the terminal game (needs the ``play`` extra)."""
