"""hardware — see DESIGN.md."""
