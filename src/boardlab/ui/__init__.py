"""User interfaces on top of the library, drawn from the games' board models: the terminal
game (Rich) and SVG boards for the browser and the rules pages."""
