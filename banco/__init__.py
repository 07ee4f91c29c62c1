"""banco: a camera companion for real boards. The command line lives in `banco.cli`.

`banco` is the lowest room of DESIGN.md's layout: it may import every other folder, and
nothing imports it.
"""

__version__ = "0.1.0"
