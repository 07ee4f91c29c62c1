"""vision — see DESIGN.md."""
