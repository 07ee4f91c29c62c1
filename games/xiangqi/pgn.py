"""Xiangqi games in PGN: ``[Game "Chinese Chess"]``, ``[Format "ICCS"|"WXF"]``, ``[FEN]``,
``{[%clk 0:14:32]}`` clock comments, other comments and the result.

>>> game = read_game('''[Game "Chinese Chess"]
... [Format "WXF"]
...
... 1. C2=5 {[%clk 0:14:32] central cannon} H8+7 {[%clk 0:14:50]} 1-0''')
>>> [m.move.iccs() for m in game.moves], game.moves[0].clock, game.moves[0].comment
(['h2e2', 'h9g7'], 872.0, 'central cannon')
>>> print(write_game(game, "iccs"))
[Game "Chinese Chess"]
[Result "1-0"]
[Format "ICCS"]
<BLANKLINE>
1. H2-E2 {[%clk 0:14:32] central cannon} 1... H9-G7 {[%clk 0:14:50]} 1-0
<BLANKLINE>
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from games.base import WHITE, BancoError
from games.xiangqi.board import STARTING_FEN, Board, Move
from games.xiangqi.notation import NOTATIONS


class PgnError(BancoError):
    """PGN text that cannot be read; the message names the line and the token."""


# Format header values and the notation each one means. "vn-coord", "vn" and "Chinese" are
# banco's own extensions; the Chinese Chess PGN habit knows only ICCS and WXF.
FORMATS = {"iccs": "iccs", "wxf": "wxf", "vn-coord": "vn-coord", "vncoord": "vn-coord",
           "vn": "vn", "chinese": "chinese"}
FORMAT_NAMES = {"iccs": "ICCS", "wxf": "WXF", "vn-coord": "vn-coord", "vn": "vn", "chinese": "Chinese"}
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
# The results as other programs and Chinese records write them.
_RESULT_WORDS = {"½-½": "1/2-1/2", "1–0": "1-0", "0–1": "0-1", "1:0": "1-0", "0:1": "0-1",
                 "红胜": "1-0", "紅勝": "1-0", "红先胜": "1-0", "紅先勝": "1-0",
                 "黑胜": "0-1", "黑勝": "0-1", "红负": "0-1", "紅負": "0-1", "红先负": "0-1", "紅先負": "0-1",
                 "和棋": "1/2-1/2", "和局": "1/2-1/2", "红和": "1/2-1/2", "紅和": "1/2-1/2",
                 "红先和": "1/2-1/2", "紅先和": "1/2-1/2"}
_GAME_NAMES = {"chinese chess", "xiangqi", "co tuong", "cotuong", "象棋", "中国象棋", "中國象棋"}
_FIRST_HEADERS = ("Game", "Event", "Site", "Date", "Round", "Red", "Black", "White", "Result")


@dataclass
class GameMove:
    """One move of a game with the clock after it (seconds left) and a comment."""

    move: Move
    clock: float | None = None
    comment: str = ""


@dataclass
class Game:
    """A recorded game: headers, the moves from the root position, comments and result.

    >>> game = Game()
    >>> game.add_move(Move.from_iccs("h2e2"), clock=600)
    >>> game.board().fen()
    'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1'
    """

    headers: dict[str, str] = field(default_factory=lambda: {"Game": "Chinese Chess"})
    moves: list[GameMove] = field(default_factory=list)
    comment: str = ""
    result: str = "*"

    @property
    def root_fen(self) -> str:
        return self.headers.get("FEN", STARTING_FEN)

    def root(self) -> Board:
        return Board(self.root_fen)

    def board(self) -> Board:
        """The position after the last move (with the moves on its move stack)."""
        board = self.root()
        for played in self.moves:
            board.push(played.move)
        return board

    def add_move(self, move: Move, clock: float | None = None, comment: str = "") -> None:
        """Append a move; raises `IllegalMoveError` if it is not legal at the end."""
        self.board().push(move)
        self.moves.append(GameMove(move, clock, comment))

    @classmethod
    def from_board(cls, board: Board, headers: dict[str, str] | None = None) -> Game:
        """A game with the moves on `board`'s move stack, from its root position."""
        game = cls(headers=dict(headers or {"Game": "Chinese Chess"}))
        if board.root_fen != STARTING_FEN:
            game.headers["FEN"] = board.root_fen
        game.moves = [GameMove(move) for move in board.move_stack]
        outcome = board.outcome()
        game.result = outcome.result() if outcome else "*"
        return game


# ------------------------------------------------------------------------- reading
_HEADER = re.compile(r'\[\s*([A-Za-z0-9_]+)\s*"((?:[^"\\\n]|\\.)*)"\s*\]')
_CLOCK = re.compile(r"\[%clk\s+([^\]\s]*)\s*\]")
_NUMBER = re.compile(r"\d+\.+(?!\d)")  # "12." and "12...", but not WXF "33.4"
_WORD = re.compile(r"[^\s{}()\[\];]+")


def read_game(text: str) -> Game:
    """The first game in `text`. Raises `PgnError` (a ValueError) naming line and token."""
    found = read_games(text)
    if not found:
        raise PgnError("no game in the PGN text")
    return found[0]


def read_games(text: str) -> list[Game]:
    """Every game in `text`, in order."""
    if not isinstance(text, str):
        raise PgnError(f"PGN must be text, not {type(text).__name__}")
    # A file saved with a byte-order mark (as Windows editors write UTF-8) reads as without, and
    # one with old Mac line ends (a lone CR) or Windows ones as with Unix ones: a ';' comment ends
    # with its line, and errors name the right line.
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return _Reader(text).games()


def parse_clock(text: str) -> float:
    """``0:14:32`` (or ``14:32``, ``0:14:32.5``) as seconds."""
    parts = text.split(":")
    if not 1 <= len(parts) <= 3 or not all(re.fullmatch(r"\d+(\.\d+)?", p) for p in parts):
        raise PgnError(f"clock {text!r} is not H:MM:SS")
    seconds = 0.0
    for part in parts:
        seconds = seconds * 60 + float(part)
    return seconds


def format_clock(seconds: float) -> str:
    whole = int(seconds)
    text = f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
    fraction = round(seconds - whole, 3)
    return text + (f"{fraction:.3f}".rstrip("0")[1:] if fraction else "")


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.found: list[Game] = []
        self._new_game()

    def _new_game(self) -> None:
        self.game = Game(headers={})
        self.board: Board | None = None
        self.started = False  # movetext seen
        self.finished = False  # result token seen
        self.header_lines: dict[str, int] = {}

    def _error(self, message: str, line: int | None = None) -> PgnError:
        return PgnError(f"line {line or self.line}: {message}")

    def _advance(self, end: int) -> str:
        chunk = self.text[self.pos:end]
        self.line += chunk.count("\n")
        self.pos = end
        return chunk

    def games(self) -> list[Game]:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char.isspace():
                self._advance(self.pos + 1)
            elif char == "%" and (self.pos == 0 or text[self.pos - 1] == "\n"):
                self._skip_line()
            elif char == "[":
                self._header()
            elif char == "{":
                self._comment()
            elif char == ";":
                line = self.line
                self._attach_comment(self._skip_line()[1:].strip(), line)
            elif char == "(":
                self._variation()
            elif char in ")}]":
                raise self._error(f"unexpected {char!r}")
            else:
                self._word()
        self._close_game()
        return self.found

    def _skip_line(self) -> str:
        end = self.text.find("\n", self.pos)
        return self._advance(len(self.text) if end < 0 else end)

    def _header(self) -> None:
        found = _HEADER.match(self.text, self.pos)
        if not found:
            snippet = self.text[self.pos:self.pos + 40].split("\n")[0]
            raise self._error(f"malformed header {snippet!r} (like [Event \"name\"])")
        if self.started or self.finished:
            self._close_game()
        name, value = found.group(1), re.sub(r"\\(.)", r"\1", found.group(2))
        self.game.headers[name] = value
        self.header_lines[name] = self.line
        self._advance(found.end())

    def _comment(self) -> None:
        end = self.text.find("}", self.pos)
        if end < 0:
            raise self._error("comment '{' is never closed")
        line = self.line
        body = self._advance(end + 1)[1:-1]
        self._attach_comment(body, line)

    def _attach_comment(self, body: str, line: int) -> None:
        clocks = _CLOCK.findall(body)
        rest = " ".join(_CLOCK.sub(" ", body).split())
        if not self.game.moves:
            if clocks:
                raise self._error(f"clock [%clk {clocks[0]}] before the first move", line)
            self.game.comment = " ".join(filter(None, [self.game.comment, rest]))
            return
        last = self.game.moves[-1]
        for clock in clocks:
            try:
                last.clock = parse_clock(clock)
            except PgnError as error:
                raise self._error(str(error), line) from None
        last.comment = " ".join(filter(None, [last.comment, rest]))

    def _variation(self) -> None:
        depth, start_line = 0, self.line
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "{":
                end = self.text.find("}", self.pos)
                if end < 0:
                    break
                self._advance(end + 1)
                continue
            if char == ";":  # a comment to the end of the line: its brackets are words
                self._skip_line()
                continue
            depth += {"(": 1, ")": -1}.get(char, 0)
            self._advance(self.pos + 1)
            if depth == 0:
                return  # variations are read over and dropped (see NOTATION.md)
        raise self._error("variation '(' is never closed", start_line)

    def _word(self) -> None:
        found = _WORD.match(self.text, self.pos)
        word = self._advance(found.end())
        if self.finished:
            self._close_game()
        # Full-width move numbers ("１．", as Chinese records write them) read as ASCII ones.
        number = _NUMBER.match(unicodedata.normalize("NFKC", word))
        if number:
            word = unicodedata.normalize("NFKC", word)[number.end():]
            if not word:
                return
        word = _RESULT_WORDS.get(word, word)
        if word.strip(".…") == "":
            return  # "1. ... h9g7", "1. …… 马8进7": the place of the side that does not move
        if word in RESULTS:
            self.game.result = word
            self.finished = True
            return
        if re.fullmatch(r"\$\d+", word):
            return  # numeric annotation glyph
        self._move(word.rstrip("!?"), word)

    def _move(self, token: str, word: str) -> None:
        board = self._board()
        side = "White" if board.turn is WHITE else "Black"
        where = f"move {board.fullmove_number} ({side}) {word!r}"
        if not token:
            raise self._error(f"{where} is not a move")
        self.started = True
        try:
            move = self.reader(board, token)
            board.push(move)
        except BancoError as error:
            raise self._error(f"{where}: {error}") from None
        self.game.moves.append(GameMove(move))

    def _board(self) -> Board:
        if self.board is not None:
            return self.board
        headers = self.game.headers
        game_name = headers.get("Game")
        if game_name is not None and _plain(game_name) not in _GAME_NAMES:
            raise self._error(f'[Game "{game_name}"] is not Chinese Chess', self.header_lines.get("Game"))
        fen = headers.get("FEN", STARTING_FEN)
        try:
            self.board = Board(fen)
        except ValueError as error:  # InvalidFenError, or a plain ValueError from odd digits
            raise self._error(f"[FEN {fen!r}]: {error}", self.header_lines.get("FEN")) from None
        written = headers.get("Format")
        if written is None:
            from games.xiangqi.variant import VARIANT

            self.reader = VARIANT.parse_move
        else:
            key = FORMATS.get(" ".join(written.lower().split()))
            if key is None:
                known = ", ".join(FORMAT_NAMES.values())
                raise self._error(f'[Format "{written}"] is not one of {known}', self.header_lines.get("Format"))
            self.reader = NOTATIONS[key].parse
        return self.board

    def _close_game(self) -> None:
        if self.started or self.finished or self.game.headers or self.game.comment:
            if self.board is None:
                self._board()  # check the headers of a game without moves
            if not self.finished and "Result" in self.game.headers:
                self.game.result = _RESULT_WORDS.get(self.game.headers["Result"], self.game.headers["Result"])
            if self.game.result not in RESULTS:
                raise self._error(f"result {self.game.result!r} is not one of {', '.join(RESULTS)}",
                                  self.header_lines.get("Result"))
            self.game.headers["Result"] = self.game.result
            self.found.append(self.game)
        self._new_game()


def _plain(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.replace("Đ", "D").replace("đ", "d"))
    return " ".join("".join(c for c in text if not unicodedata.combining(c)).lower().split())


# ------------------------------------------------------------------------- writing
def write_game(game: Game, notation: str | None = None) -> str:
    """PGN text for `game`. `notation` defaults to the game's Format header, else ICCS.

    ICCS moves are written ``H2-E2`` as Chinese Chess PGN files do; the others as their
    notation formats them.
    """
    key = notation or FORMATS.get((game.headers.get("Format") or "iccs").lower(), "iccs")
    key = key if key in NOTATIONS else key.lower()  # named in any case, as Variant.notation takes it
    if key not in NOTATIONS:
        raise PgnError(f"unknown notation {key!r}; known: {', '.join(NOTATIONS)}")
    headers = dict(game.headers)
    headers.pop("FEN", None)
    headers["Game"] = headers.get("Game") or "Chinese Chess"
    headers["Format"] = FORMAT_NAMES[key]
    headers["Result"] = game.result
    if game.root_fen != STARTING_FEN:
        headers["FEN"] = game.root_fen
    order = [name for name in _FIRST_HEADERS if name in headers]
    order += [name for name in headers if name not in order]
    lines = [f'[{name} "{_escape(headers[name])}"]' for name in order]

    writer = NOTATIONS[key]
    board = game.root()
    words: list[str] = []
    if game.comment:
        words.append(_comment(game.comment))
    need_number = True
    for played in game.moves:
        token = writer.format(board, played.move)
        if key == "iccs":
            token = f"{token[:2]}-{token[2:]}".upper()
        if board.turn is WHITE:
            words.append(f"{board.fullmove_number}. {token}")
        elif need_number:
            words.append(f"{board.fullmove_number}... {token}")
        else:
            words.append(token)
        board.push(played.move)
        body = " ".join(filter(None, [f"[%clk {format_clock(played.clock)}]" if played.clock is not None
                                      else "", played.comment]))
        need_number = bool(body)
        if body:
            words.append(_comment(body))
    words.append(game.result)
    return "\n".join(lines) + "\n\n" + _wrap(words) + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _comment(text: str) -> str:
    return "{" + text.replace("}", ")").replace("{", "(") + "}"


def _wrap(words: list[str], width: int = 79) -> str:
    """Lines of at most `width` characters where words allow: a comment breaks between its own
    words (a reader takes a line break in a comment as a space), a move stays with its number."""
    pieces = [part for word in words for part in (word.split() if word.startswith("{") else [word])]
    lines, current = [], ""
    for word in pieces:
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    lines.append(current)
    return "\n".join(lines)


__all__ = ["FORMATS", "Game", "GameMove", "PgnError", "format_clock", "parse_clock", "read_game",
           "read_games", "write_game"]
