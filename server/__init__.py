"""server — see DESIGN.md."""
