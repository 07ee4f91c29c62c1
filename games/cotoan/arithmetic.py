"""The calculation behind a capture (seed 002, "Bắt quân"): which distances A op B gives.

An attacker A stands next to a front piece B of its own side; ``A op B`` gives the distance,
counted from B onward in the direction A → B, of the enemy piece A may capture.

>>> distances(8, 5, "-"), distances(8, 5, "+"), distances(5, 8, "+")
((3,), (3,), (3,))
>>> distances(8, 5, ":")   # 8 : 5 = 1 rest 3
(1, 3)
>>> distances(5, 2, "*")   # 10 ends in 0: no value
()
>>> distances(5, 8, "-")   # the smaller piece may only add
()
"""

from __future__ import annotations

from functools import cache

from games.base import BancoError

# Canonical order and the symbols written in records. The seed writes ×  as "x" and ÷ as ":";
# "x" already marks a capture in the notation, so multiplication is written "*".
OPERATIONS = "+-*:"
OPERATION_NAMES = {"+": "addition", "-": "subtraction", "*": "multiplication", ":": "division"}
# Other spellings accepted on input.
OPERATION_ALIASES = {"−": "-", "–": "-", "×": "*", "·": "*", "÷": ":", "/": ":"}


class InvalidOperationError(BancoError):
    """An operation symbol or a set of operations that Cờ Toán does not know."""


def normalize_operation(symbol: str) -> str:
    """The canonical symbol of an operation: one of ``+ - * :``."""
    canonical = OPERATION_ALIASES.get(symbol, symbol)
    if len(canonical) != 1 or canonical not in OPERATIONS:
        raise InvalidOperationError(
            f"{symbol!r} is not an operation; use + - * : (or − × ÷ /)")
    return canonical


def normalize_operations(symbols: str | frozenset[str] | set[str] | tuple[str, ...] | list[str]) -> str:
    """The allowed operations as a canonical string in the order ``+-*:``, e.g. ``"+-"``."""
    items = list(symbols)
    if not items:
        raise InvalidOperationError("at least one operation must be allowed")
    chosen = {normalize_operation(item) for item in items}
    return "".join(op for op in OPERATIONS if op in chosen)


def _units(result: int) -> tuple[int, ...]:
    # "Nếu kết quả ... lớn hơn 10 thì chỉ lấy số của hàng đơn vị" and
    # "Phép cộng và nhân có số 0 ở hàng đơn vị thì được tính là không có giá trị".
    digit = result % 10
    return (digit,) if digit else ()


def distances(attacker: int, front: int, operation: str) -> tuple[int, ...]:
    """The capture distances that ``attacker operation front`` gives, smallest first.

    Empty when the operation has no value: the attacker is the 0 (it never moves), the smaller
    piece uses anything but +, the units digit is 0, or a division by the 0.
    """
    if attacker == 0:
        return ()
    if attacker < front and operation != "+":
        return ()
    if operation == "+":
        return _units(attacker + front)
    if operation == "-":
        difference = attacker - front
        return (difference,) if difference else ()
    if operation == "*":
        return _units(attacker * front)
    if operation == ":":
        if front == 0:
            return ()
        quotient, remainder = divmod(attacker, front)
        return tuple(sorted({value for value in (quotient, remainder) if value}))
    raise InvalidOperationError(f"{operation!r} is not an operation; use + - * :")


@cache
def capture_table(operations: str) -> tuple[tuple[tuple[tuple[str, int], ...], ...], ...]:
    """For each attacker 0–9 and front 0–9: the (operation, distance) pairs allowed.

    Built once per set of operations, so move generation only looks the answer up.
    """
    return tuple(
        tuple(
            tuple((op, distance) for op in operations for distance in distances(attacker, front, op))
            for front in range(10)
        )
        for attacker in range(10)
    )
