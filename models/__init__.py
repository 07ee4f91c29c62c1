"""models — see DESIGN.md."""
