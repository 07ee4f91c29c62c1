"""Camera and board geometry: printed layouts, markers, homographies, profiles.

The path of a frame starts here: `Calibration` maps the sheet (mm) to the image and back,
so every later stage can look at each point of the board.
"""

from calibration.homography import Calibration, CalibrationError, parse_corners
from calibration.layout import BoardLayout

__all__ = ["BoardLayout", "Calibration", "CalibrationError", "parse_corners"]
