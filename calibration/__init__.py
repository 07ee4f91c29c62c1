"""calibration — see DESIGN.md."""
