"""The Xiangqi board as something to draw or to read from a photo."""

from games.base import Geometry, Point

FILES, RANKS = 9, 10


def _lines() -> tuple[tuple[Point, Point], ...]:
    lines = [(Point(0, r), Point(FILES - 1, r)) for r in range(RANKS)]
    for f in range(FILES):
        if f in (0, FILES - 1):
            lines.append((Point(f, 0), Point(f, RANKS - 1)))
        else:  # the river interrupts the inner files
            lines.append((Point(f, 0), Point(f, 4)))
            lines.append((Point(f, 5), Point(f, RANKS - 1)))
    for low in (0, 7):
        lines.append((Point(3, low), Point(5, low + 2)))
        lines.append((Point(5, low), Point(3, low + 2)))
    return tuple(lines)


def _region(files, ranks) -> frozenset[Point]:
    return frozenset(Point(f, r) for f in files for r in ranks)


GEOMETRY = Geometry(
    name="xiangqi",
    files=FILES,
    ranks=RANKS,
    placement="intersections",
    file_names=tuple("abcdefghi"),
    rank_names=tuple("0123456789"),
    regions={
        "palace:white": _region(range(3, 6), range(0, 3)),
        "palace:black": _region(range(3, 6), range(7, 10)),
        "side:white": _region(range(FILES), range(0, 5)),
        "side:black": _region(range(FILES), range(5, 10)),
    },
    lines=_lines(),
    # Cannon and soldier starting points carry small crosses on printed boards.
    marks=tuple([Point(1, 2), Point(7, 2), Point(1, 7), Point(7, 7)]
                + [Point(f, 3) for f in range(0, 9, 2)] + [Point(f, 6) for f in range(0, 9, 2)]),
)
