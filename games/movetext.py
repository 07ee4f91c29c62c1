"""Numbered move lists, the same shape in every notation: ``1. Phe2 Mg7 2. Pb1 Bg5``.

>>> split_movetext("1. Phe2 Mg7 2.Pb1 Bg5 1-0")
['Phe2', 'Mg7', 'Pb1', 'Bg5']
>>> split_movetext("1. (HTK)H9.2@H11.2/T9.2_9.4/ K9.2>*11.4 *11,4_11,5")
['(HTK)H9.2@H11.2/T9.2_9.4/K9.2>*11.4', '*11,4_11,5']
>>> number_moves(["Phe2", "Mg7", "Pb1"], first_fullmove=1, black_first=False)
'1. Phe2 Mg7 2. Pb1'
>>> is_compact("1.X4-7 B2.1"), number_moves(["Xc8", "Bb3"], compact=True)
(True, '1.Xc8 Bb3')
"""

from __future__ import annotations

import re
import unicodedata

# A move number, but not the start of a WXF soldier move such as "33.4" (digit after the dots).
_NUMBER = re.compile(r"^\d+\s*\.+(?!\d)")
RESULTS = frozenset({"1-0", "0-1", "1/2-1/2", "½-½", "*"})


def is_compact(text: str) -> bool:
    """Does `text` write its move numbers without a space after them (``1.X4-7``)?"""
    numbers = re.findall(r"(?:^|\s)\d+\s*\.+(?!\d)(\s?)", text)
    return bool(numbers) and not numbers[0]


def split_movetext(text: str) -> list[str]:
    """The move tokens of `text`: numbers, results and ``{comments}`` are dropped."""
    text = re.sub(r"\{[^}]*\}", " ", text.removeprefix("\ufeff"))
    tokens: list[str] = []
    glue = False
    for word in text.split():
        if word in RESULTS:
            continue
        # Full-width move numbers ("１．炮二平五", as Chinese records write them) are numbers too.
        plain = unicodedata.normalize("NFKC", word)
        if _NUMBER.match(plain):
            word = _NUMBER.sub("", plain)
        if not word or word.strip(".…") == "":  # "1. ... Mg7": the place of the side that does not move
            continue
        # A Commander Chess split turn may be written with spaces around '/': one token.
        if tokens and (glue or word.startswith("/")):
            tokens[-1] += word
        else:
            tokens.append(word)
        glue = word.endswith("/")
    return tokens


def number_moves(tokens: list[str], first_fullmove: int = 1, black_first: bool = False,
                 compact: bool = False) -> str:
    """Join move tokens with move numbers; ``1... Mg7`` when Black moves first.

    `compact` writes ``1.Xc8`` (no space after the number), as seed 004 does.
    """
    space = "" if compact else " "
    parts: list[str] = []
    number = first_fullmove
    white_to_move = not black_first
    for index, token in enumerate(tokens):
        # A move that starts with a digit (WXF's "77=6") keeps the space: "1.77=6" would read as
        # the soldier move "1.77" and a stray "=6".
        gap = " " if token[:1].isdigit() else space
        if white_to_move:
            parts.append(f"{number}.{gap}{token}")
        else:
            if index == 0:
                parts.append(f"{number}...{gap}{token}")
            else:
                parts.append(token)
            number += 1
        white_to_move = not white_to_move
    return " ".join(parts)


def play_movetext(variant, board, text: str, notation: str | None = None) -> list:
    """Parse and push every move of `text` on `board`; returns the moves.

    With `notation` only that notation is read, else any the game knows. An error names the
    token, its move number and the side, and leaves `board` as it was before the call.
    """
    from games.base import BancoError

    reader = variant.notation(notation) if notation else None
    moves = []
    start = len(board.move_stack)
    for token in split_movetext(text):
        number = board.fullmove_number
        side = "White" if board.turn.value == "w" else "Black"
        try:
            move = parse_token(variant, reader, board, token)
            board.push(move)
        except BancoError as error:
            while len(board.move_stack) > start:
                board.pop()
            raise type(error)(f"move {number} ({side}) {token!r}: {error}") from None
        moves.append(move)
    return moves


def parse_token(variant, reader, board, token: str):
    """The move `token` writes, in `reader`'s notation (None: any the game knows); a move
    annotated as other programs do (``C2.5!``, ``炮二平五?!``) is read without its marks when the
    notation does not read them itself."""
    from games.base import BancoError

    def parse(text):
        return reader.parse(board, text) if reader else variant.parse_move(board, text)

    try:
        return parse(token)
    except BancoError:
        bare = token.rstrip("!?")
        if not bare or bare == token:
            raise
        return parse(bare)
