"""Reading one image: a file, or a single frame from a camera index or stream URL."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from calibration.homography import CalibrationError


def read_image(path: Path) -> np.ndarray:
    if Path(path).is_dir():
        raise CalibrationError(f"{str(path)!r} is a folder, not an image")
    if not Path(path).is_file():
        raise CalibrationError(f"image {str(path)!r} does not exist")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        with open(path, "rb") as file:
            head = file.read(16)
        if head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS:
            raise CalibrationError(
                f"{str(path)!r} is a HEIC/HEIF photo (an iPhone's default), which OpenCV cannot read: "
                "export it as JPEG, or set the phone to take JPEG (iPhone: Settings > Camera > Formats > "
                "Most Compatible)")
        raise CalibrationError(f"{str(path)!r} is not an image OpenCV can read")
    return image


# ISO base media files name their kind in their first box: these brands are HEIF/HEIC/AVIF stills.
_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1", b"avif"}


def grab_frame(source: str, attempts: int = 10) -> np.ndarray:
    """One frame from a camera (``0``, ``1`` …) or a video file or URL."""
    capture = cv2.VideoCapture(int(source) if source.isdigit() else source)
    try:
        if not capture.isOpened():
            raise CalibrationError(f"camera {source!r} cannot be opened")
        for _ in range(attempts):  # cameras often deliver a few dark frames first
            ok, frame = capture.read()
            if ok and frame is not None and frame.mean() > 8:
                return frame
        raise CalibrationError(f"camera {source!r} gave no usable frame")
    finally:
        capture.release()
