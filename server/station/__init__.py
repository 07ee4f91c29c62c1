"""Stations: the orchestrator that turns one board's camera, clock and LEDs into its record."""
