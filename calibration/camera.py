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
    with open(path, "rb") as file:
        data = file.read()
    if cut_short_jpeg(data):
        raise CalibrationError(f"{str(path)!r} is a JPEG cut short (its end is missing, as from a copy that "
                               "stopped): the rest of the photo would read as grey; copy it again")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
            raise CalibrationError(
                f"{str(path)!r} is a HEIC/HEIF photo (an iPhone's default), which OpenCV cannot read: "
                "export it as JPEG, or set the phone to take JPEG (iPhone: Settings > Camera > Formats > "
                "Most Compatible)")
        raise CalibrationError(f"{str(path)!r} is not an image OpenCV can read")
    return image


def lacks_colour(image: np.ndarray) -> bool:
    """Whether a BGR image is grey all over (a black-and-white photo, or one decoded from a
    single channel): its three channels nearly equal at almost every pixel.

    >>> grey = np.full((8, 8, 3), 120, np.uint8)
    >>> red = grey.copy(); red[2:4, 2:4] = (40, 40, 200)
    >>> lacks_colour(grey), lacks_colour(red)
    (True, False)
    """
    sample = image[:: max(1, image.shape[0] // 200), :: max(1, image.shape[1] // 200)].astype(np.int16)
    spread = sample.max(axis=2) - sample.min(axis=2)
    return bool((spread > 8).mean() < 0.001)  # a colour photo has far more: its noise alone


def cut_short_jpeg(data: bytes) -> bool:
    """Whether `data` is a JPEG whose data ends before its end-of-image marker: a decoder would
    fill the rest with grey. The segments are walked from the start (an EXIF thumbnail's own end
    marker does not count, and what a phone appends after the end, such as a motion photo's
    video, is not looked at); a structure not understood is left to the decoder (False).

    >>> import cv2, numpy as np
    >>> whole = cv2.imencode(".jpg", np.full((64, 64, 3), 90, np.uint8))[1].tobytes()
    >>> cut_short_jpeg(whole), cut_short_jpeg(whole[: len(whole) // 2]), cut_short_jpeg(whole + bytes(4096))
    (False, True, False)
    """
    if data[:2] != b"\xff\xd8":
        return False
    at, size = 2, len(data)
    while at + 1 < size:
        if data[at] != 0xFF:
            return False
        marker = data[at + 1]
        if marker == 0xFF:  # a fill byte before the marker
            at += 1
            continue
        if marker == 0xD9:
            return False
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:  # markers without a length
            at += 2
            continue
        if at + 4 > size:
            return True
        at += 2 + int.from_bytes(data[at + 2:at + 4], "big")
        if marker == 0xDA:  # a scan: its coded data runs to the next marker that is not a restart
            while True:
                found = data.find(b"\xff", at)
                if found < 0 or found + 1 >= size:
                    return True
                following = data[found + 1]
                if following == 0x00 or 0xD0 <= following <= 0xD7 or following == 0xFF:
                    at = found + 1 if following == 0xFF else found + 2
                    continue
                at = found
                break
    return True


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
