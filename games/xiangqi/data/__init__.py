"""Bundled Xiangqi records (PGN), read with `importlib.resources`; see sample.pgn."""
