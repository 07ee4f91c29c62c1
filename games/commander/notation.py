"""Secretary notation ("biên bản", §13): read and write whole turns, splits included.

Grammar (whitespace is ignored; see games/commander/RULES.md for the letters)::

    turn        := [stack] part ("/" part)* annotation*
    stack       := "(" letter letter [letter] ")"          carrier first: (HTK)
    part        := [group] point op [target] point [stack]  T9.2_9.4, H9.2@H11.2, B4,2_4,3(TB)
    group       := letter | stack                           omitted when the whole stack moves
    op          := "_" move | "@" capture (replace) | "@_" capture in place (also "@̲")
                 | '@"' aircraft shot down (also "@”") | "><" one-for-one
                 | ">" a piece left on the point gives check (K9.2>*11.4)
    letter      := ["#"] one of * B T D C P X L K H S       "#" marks a hero
    point       := VA,HA or VA.HA (3,5) or a1 … k12
    annotation  := > ^ !! + ++ - -- = ? $

>>> from games.commander.board import Board
>>> board = Board()
>>> turn = SECRETARY.parse(board, "T3.5_5.5")
>>> SECRETARY.format(board, turn)
'T3,5_5,5'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from games.base import IllegalMoveError, NotationError, Termination
from games.commander import terrain as tr
from games.commander.pieces import FROM_SECRETARY, Kind, Stack
from games.commander.rules import Act, Action, Fate

_ANNOTATIONS = ("!!", "++", "--", ">", "^", "+", "-", "=", "?", "$")
_OPS = ('@"', "@”", "@\u0332", "@_", "><", "@", "_", ">")


def op_of(action: Action) -> str:
    """The ASCII operator of an action (D28)."""
    if action.fate is Fate.SHOT_DOWN:
        return '@"'
    if action.fate is Fate.EXCHANGE:
        return "><"
    return {Act.MOVE: "_", Act.CAPTURE: "@", Act.STRIKE: "@_"}[action.act]


def _letters(stack: Stack) -> str:
    return "".join(p.secretary() for p in stack)


def _group_text(stack: Stack) -> str:
    return _letters(stack) if len(stack) == 1 else f"({_letters(stack)})"


def _point(square: int, squares_style: bool) -> str:
    return tr.square_name(square) if squares_style else tr.seed_name(square)


def write_actions(turn, before: list | None = None, squares_style: bool = False) -> str:
    """The turn's parts without annotations. `before` is the position's squares, which
    lets the writer name captured pieces and boarded stacks."""
    first = turn.actions[0]
    origin = first.origin
    whole = before[origin] if before is not None else None
    parts = []
    simple = len(turn.actions) == 1 and (whole is None or first.group == whole)
    squares = list(before) if before is not None else None
    for action in turn.actions:
        text = "" if simple and len(first.group) > 1 else _group_text(action.group)
        text += _point(action.origin, squares_style) + op_of(action)
        occupant = squares[action.target] if squares is not None else None
        if action.act is not Act.MOVE and occupant is not None:
            text += occupant[0].secretary()
        text += _point(action.target, squares_style)
        if (action.act is Act.MOVE and action.fate is Fate.NORMAL and occupant is not None):
            text += f"({_letters(_merged(occupant, action.group))})"
        parts.append(text)
        if squares is not None:
            from games.commander.rules import apply_action

            apply_action(squares, action)
    prefix = ""
    if whole is not None and len(whole) > 1:
        prefix = f"({_letters(whole)})"
    elif before is None and len(first.group) > 1 and simple:
        prefix = f"({_letters(first.group)})"
    return prefix + "/".join(parts)


def _merged(occupant: Stack, group: Stack) -> Stack:
    from games.commander.pieces import arrange

    return arrange(occupant + group)


class SecretaryNotation:
    """The seed's secretary notation with VA,HA points (or a1…k12 with `squares_style`)."""

    def __init__(self, name: str = "secretary", squares_style: bool = False) -> None:
        self.name = name
        self.squares_style = squares_style

    def format(self, board, turn) -> str:
        """Write a legal turn in `board`, with check (`>`), checkmate or decisive blow (`^`) and `$`."""
        text = write_actions(turn, board.squares, self.squares_style)
        if turn.penalty:
            return text + "$"
        board._push_unchecked(turn)
        try:
            checkers = board.checkers(board.turn.other)
            result = board.result()
            # N13: `^` marks the blow that decides a battle of the game (it ends the game) and
            # a checkmate, where the game goes on but no reply saves the commander.
            decisive = result is not None and result.termination in (Termination.COMMANDER_CAPTURED,
                                                                       Termination.BATTLE_WON)
            mate = not decisive and bool(checkers) and board.is_checkmate()
            moved = {(a.origin, p) for a in turn.actions for p in a.group}
            stayed_checks = []
            other_check = False
            for point, piece in checkers:
                square = tr.from_point(point)
                if turn.is_split and square == turn.origin and (square, piece) not in moved:
                    target = board.commander_square(board.turn)
                    stayed_checks.append(f"{piece.secretary()}{_point(square, self.squares_style)}>"
                                         f"*{_point(target, self.squares_style)}")
                else:
                    other_check = True
        finally:
            board.pop()
        for check in dict.fromkeys(stayed_checks):
            text += "/" + check
        if other_check and not mate:
            text += ">"  # a checkmate's `^` says check too, as chess's `#` replaces `+`
        if decisive or mate:
            text += "^"
        return text

    def parse(self, board, text: str):
        """Read a turn and find it among the legal turns (or the referee's `$` turns)."""
        if not isinstance(text, str):
            raise NotationError(f"a move must be text, not {type(text).__name__}")
        parsed = _parse(text)
        origin = parsed.origin
        stack = board.squares[origin]
        where = f"{text!r}"
        if stack is None:
            raise IllegalMoveError(f"{where}: there is no piece on {tr.seed_name(origin)}")
        if parsed.stack is not None and Counter(parsed.stack) != Counter(p.kind for p in stack):
            raise IllegalMoveError(f"{where}: the stack on {tr.seed_name(origin)} is "
                                   f"{_group_text(stack)}, not ({''.join(k.letter for k in parsed.stack)})")
        for kinds in parsed.stay_checks:
            if not set(kinds) <= {p.kind for p in stack}:
                raise IllegalMoveError(f"{where}: no {kinds[0].letter} on {tr.seed_name(origin)} to give check")
        wanted = Counter()
        for part in parsed.parts:
            group = part.group if part.group is not None else tuple(sorted(p.kind for p in stack))
            wanted[(tuple(sorted(group)), part.origin, part.op, part.target)] += 1
        if parsed.penalty and not board.referee:
            raise IllegalMoveError(f"{where}: '$' turns are accepted only in referee mode")
        candidates = board.penalty_turns() if parsed.penalty else board.turns_from(origin)
        for turn in candidates:
            have = Counter((tuple(sorted(p.kind for p in a.group)), a.origin, _op_class(a), a.target)
                           for a in turn.actions)
            if have == wanted and self._targets_match(board, turn, parsed):
                return turn
        raise IllegalMoveError(f"{where} is not a legal turn in {board.fen()}")

    @staticmethod
    def _targets_match(board, turn, parsed) -> bool:
        for part in parsed.parts:
            if part.target_kind is None:
                continue
            occupant = board.squares[part.target]
            if occupant is None or occupant[0].kind is not part.target_kind:
                return False
        return True


def _op_class(action: Action) -> str:
    op = op_of(action)
    return op


@dataclass
class _Part:
    group: tuple[Kind, ...] | None
    origin: int
    op: str
    target_kind: Kind | None
    target: int


@dataclass
class _Parsed:
    stack: tuple[Kind, ...] | None
    parts: list[_Part]
    stay_checks: list[tuple[Kind, ...]]
    penalty: bool

    @property
    def origin(self) -> int:
        return self.parts[0].origin


class _Scanner:
    def __init__(self, text: str) -> None:
        self.source = text
        self.text = "".join(text.split())
        self.i = 0

    def error(self, what: str) -> NotationError:
        near = self.text[self.i:self.i + 8] or "the end"
        return NotationError(f"{self.source!r}: {what} at character {self.i + 1} (near {near!r})")

    def peek(self, n: int = 1) -> str:
        return self.text[self.i:self.i + n]

    def done(self) -> bool:
        return self.i >= len(self.text)

    def letter(self) -> Kind | None:
        start = self.i
        if self.peek() == "#":
            self.i += 1
        ch = self.peek()
        if ch in FROM_SECRETARY:
            self.i += 1
            return FROM_SECRETARY[ch]
        self.i = start
        return None

    def letters_group(self) -> tuple[Kind, ...] | None:
        """A letter, or 2–3 letters in parentheses."""
        if self.peek() == "(":
            start = self.i
            self.i += 1
            kinds = []
            while (kind := self.letter()) is not None:
                kinds.append(kind)
            if self.peek() != ")" or not 1 <= len(kinds) <= 3:
                self.i = start
                raise self.error("a stack is written as 1–3 piece letters in parentheses, like (TB)")
            self.i += 1
            return tuple(kinds)
        kind = self.letter()
        return None if kind is None else (kind,)

    def point(self) -> int:
        start = self.i
        text = self.text
        j = self.i
        if j < len(text) and text[j].isdigit():
            while j < len(text) and text[j].isdigit():
                j += 1
            if j < len(text) and text[j] in ".,":
                j += 1
                while j < len(text) and text[j].isdigit():
                    j += 1
        elif j < len(text) and text[j] in tr.FILE_LETTERS:
            j += 1
            while j < len(text) and text[j].isdigit() and j - self.i < 3:
                j += 1
        token = text[start:j]
        if not token:
            raise self.error("expected a point (VA,HA like 3,5 or a1…k12)")
        try:
            square = tr.parse_point(token)
        except NotationError as error:
            raise self.error(str(error).split(": ")[-1] if False else f"bad point {token!r}") from None
        self.i = j
        return square

    def op(self) -> str:
        for op in _OPS:
            if self.text.startswith(op, self.i):
                self.i += len(op)
                return {"@”": '@"', "@\u0332": "@_"}.get(op, op)
        raise self.error("expected an operator (_ @ @_ @\" >< >)")


def _parse(text: str) -> _Parsed:
    scan = _Scanner(text)
    if scan.done():
        raise NotationError("empty move")
    stack = None
    if scan.peek() == "(":
        stack = scan.letters_group()
        if stack is not None and len(stack) < 2:
            raise scan.error("a stack prefix needs 2–3 pieces")
    parts: list[_Part] = []
    stay_checks: list[tuple[Kind, ...]] = []
    while True:
        group = scan.letters_group()
        if group is None and not (stack is not None and not parts):
            raise scan.error("expected a piece letter (* B T D C P X L K H S)")
        origin = scan.point()
        op = scan.op()
        target_group = scan.letters_group()
        target = scan.point()
        if op == ">":
            if target_group is None or group is None:
                raise scan.error("a check mark inside a split names the piece and its target, like K9.2>*11.4")
            stay_checks.append(group)
        else:
            if op == "_" and target_group is not None:
                raise scan.error("a quiet move names no target piece")
            target_kind = target_group[0] if target_group else None
            parts.append(_Part(group, origin, op, target_kind, target))
            if op == "_" and scan.peek() == "(":
                scan.letters_group()  # the stack formed by boarding: informative only
        if parts and origin != parts[0].origin:
            raise NotationError(f"{text!r}: every part of a split starts from {tr.seed_name(parts[0].origin)}")
        if scan.peek() == "/":
            scan.i += 1
            continue
        break
    if not parts:
        raise NotationError(f"{text!r}: no move, only check marks")
    penalty = False
    while not scan.done():
        for mark in _ANNOTATIONS:
            if scan.text.startswith(mark, scan.i):
                scan.i += len(mark)
                penalty = penalty or mark == "$"
                break
        else:
            raise scan.error("unexpected text")
    if stack is None and parts[0].group is None:
        raise NotationError(f"{text!r}: name the piece that moves")
    return _Parsed(stack, parts, stay_checks, penalty)


SECRETARY = SecretaryNotation()
SECRETARY_SQUARES = SecretaryNotation("secretary-squares", squares_style=True)
NOTATIONS = {"secretary": SECRETARY, "secretary-squares": SECRETARY_SQUARES}
