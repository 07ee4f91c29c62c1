"""The Commander Chess board: positions, legal turns (splits included), push/pop, FEN, endings.

>>> board = Board()
>>> board.perft(1)
116
>>> turn = next(t for t in board.legal_moves if t.name() == "T3,5_5,5")
>>> board.push(turn)
>>> board.fen()
'6c4/1n2fh1hf2/3a2s2a1/2n1gt1tg2/2ie2m2ei/11/5T5/2IE2M2EI/2N1G2TG2/3A2S2A1/1N2FH1HF2/6C4 b - - 1 1'
>>> board.pop().name()
'T3,5_5,5'
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from games.base import (
    Color,
    GameOverError,
    IllegalMoveError,
    InvalidFenError,
    Outcome,
    Point,
    Termination,
)
from games.base import Move as BaseMove
from games.commander import rules
from games.commander import terrain as tr
from games.commander.pieces import (
    BATTLE_BONUS,
    BLUE,
    RED,
    Kind,
    Piece,
    Stack,
    arrange,
    color_name,
    is_legal_stack,
    remove_pieces,
    stack_value,
)
from games.commander.rules import Act, Action, Fate

STARTING_FEN = (
    "6c4/1n2fh1hf2/3a2s2a1/2n1gt1tg2/2ie2m2ei/11/11/2IE2M2EI/2N1GT1TG2/3A2S2A1/1N2FH1HF2/6C4 r - - 0 1"
)
# §3.3 / §12.3: the 9-piece sea and air battle (rulebook image33): no commander, no HQ.
NINE_PIECE_FEN = "11/1n2f3f2/3a2s2a1/2n1g3g2/11/11/11/11/2N1G3G2/3A2S2A1/1N2F3F2/11 r - 9 0 1"

# Standard counts per side (§3.1); FEN positions may hold fewer, never more.
STANDARD_COUNTS = {
    Kind.COMMANDER: 1, Kind.HEADQUARTERS: 2, Kind.AIR_FORCE: 2, Kind.NAVY: 2, Kind.ARTILLERY: 2,
    Kind.MISSILE: 1, Kind.ANTI_AIRCRAFT: 2, Kind.TANK: 2, Kind.INFANTRY: 2, Kind.ENGINEER: 2,
    Kind.MILITIA: 1,
}


class Mode(enum.Enum):
    """How a game ends (§12)."""

    BATTLE = "battle"        # 15 minutes; sea, air, land battles and the raid (§12.1)
    TOTAL_WAR = "war"        # 30 minutes; only the commander's loss ends it (§12.2)
    NINE_PIECE = "nine"      # 15 minutes; sea and air battles, no commander (§12.3)


OBJECTIVES = ("sea", "air", "land", "raid")
_OBJECTIVE_LETTERS = {"s": "sea", "a": "air", "l": "land", "r": "raid"}


@dataclass(frozen=True, slots=True, eq=False)
class Turn(BaseMove):
    """One player's whole turn: one action, or several from the same point (a split, §7.4).

    `from_point` is the point every action starts from; `to_point` is the first action's
    target. Two turns are equal when they do the same actions with the same results,
    whatever the order they are listed in. A `penalty` turn (referee mode, §6.5) changes
    nothing on the board and passes the turn.
    """

    actions: tuple[Action, ...] = ()
    penalty: bool = False
    # The generator knows the key when it makes a turn; others compute it when first asked.
    cached_key: tuple | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, actions: Iterable[Action], penalty: bool = False, key: tuple | None = None) -> Turn:
        actions = tuple(actions)
        first = actions[0]
        return cls(tr.to_point(first.origin), tr.to_point(first.target), actions, penalty, key)

    @property
    def origin(self) -> int:
        return self.actions[0].origin

    @property
    def is_split(self) -> bool:
        return len(self.actions) > 1

    def key(self) -> tuple:
        """The actions as a sorted tuple of numbers: order-free, cheap to hash."""
        key = self.cached_key
        if key is None:
            key = (self.penalty, *sorted(map(_action_code, self.actions)))
            object.__setattr__(self, "cached_key", key)
        return key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Turn) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def name(self) -> str:
        """The move in secretary notation without annotations (see `games.commander.notation`)."""
        from games.commander.notation import write_actions

        return write_actions(self)

    def __str__(self) -> str:
        return self.name()

    def __repr__(self) -> str:
        return f"<Turn {self.name()}{' $' if self.penalty else ''}>"


@dataclass(frozen=True)
class GameResult:
    """A finished game in detail: who won, why, and the points (§11–§12)."""

    termination: Termination
    winner: Color | None
    captured: dict[Color, int]           # values of enemy pieces destroyed (§11.3)
    bonus: dict[Color, int]              # battle bonuses (§12.1)
    lost: dict[Color, tuple[str, ...]]   # objectives each side lost
    absolute: bool = False               # commander destroyed: "thắng tuyệt đối", Siêu Tư lệnh

    @property
    def points(self) -> dict[Color, int]:
        return {c: self.captured[c] + self.bonus[c] for c in (RED, BLUE)}

    def outcome(self) -> Outcome:
        return Outcome(self.termination, self.winner)

    def describe(self) -> str:
        p = self.points
        who = "draw" if self.winner is None else f"{color_name(self.winner)} wins"
        title = " (Siêu Tư lệnh)" if self.absolute else ""
        return f"{who}{title} by {self.termination.value}: Red {p[RED]}, Blue {p[BLUE]}"


@dataclass
class _Undo:
    squares: list
    scores: dict
    turn: Color
    halfmove: int
    fullmove: int
    time_up: bool


class LegalTurns:
    """The legal turns of a position, generated when asked (like python-chess's legal_moves)."""

    def __init__(self, board: Board) -> None:
        self._board = board

    def __iter__(self) -> Iterator[Turn]:
        return iter(self._board.generate_turns())

    def __len__(self) -> int:
        return len(self._board.generate_turns())

    def count(self) -> int:
        return len(self)

    def __bool__(self) -> bool:
        return self._board.result() is None and any(True for _ in self._board._origins_with_turns())

    def __contains__(self, turn: object) -> bool:
        return isinstance(turn, Turn) and self._board.is_legal(turn)


@dataclass
class _Settings:
    mode: Mode = Mode.BATTLE
    objectives: frozenset[str] = field(default_factory=lambda: frozenset(OBJECTIVES))
    ply_limit: int | None = None
    referee: bool = False
    safe: bool = False


class Board:
    """A Commander Chess position and its history.

    Red (player 1, `games.base.WHITE`) sits at VA 0–5 and Blue (`BLACK`) at VA 6–11. Points
    are `games.base.Point(file=HA, rank=VA)`; internally an index ``VA*11 + HA``.

    Options: `mode` (§12), `objectives` (battle mode; the raid is always kept, D34),
    `ply_limit` (the engine's stand-in for the clock, D34), `referee` (accept §6.5 penalty
    turns, D26), `safe` (the monorepo's filter: never leave the own commander capturable, D1).
    """

    def __init__(
        self,
        fen: str | None = STARTING_FEN,
        *,
        mode: Mode | str | None = None,
        objectives: Iterable[str] | None = None,
        ply_limit: int | None = None,
        referee: bool = False,
        safe: bool = False,
    ) -> None:
        self.squares: list[Stack | None] = [None] * tr.SQUARES
        self.turn: Color = RED
        self.scores: dict[Color, int] = {RED: 0, BLUE: 0}
        self.halfmove_clock = 0
        self.fullmove_number = 1
        self.move_stack: list[Turn] = []
        self._undo: list[_Undo] = []
        self._plies_before = 0  # plies played before `move_stack` began (a copy without its stack)
        self._time_up = False
        self._settings = _Settings(ply_limit=ply_limit, referee=referee, safe=safe)
        self._cache: dict[str, object] = {}
        if fen is not None:
            self.set_fen(fen)
        if mode is not None:
            self.set_mode(mode, objectives)
        elif objectives is not None:
            self.set_mode(self.mode, objectives)

    # ------------------------------------------------------------------ settings
    @property
    def mode(self) -> Mode:
        return self._settings.mode

    @property
    def objectives(self) -> frozenset[str]:
        return self._settings.objectives

    @property
    def referee(self) -> bool:
        return self._settings.referee

    @property
    def ply_limit(self) -> int | None:
        return self._settings.ply_limit

    def set_mode(self, mode: Mode | str, objectives: Iterable[str] | None = None) -> None:
        """Choose the ending rules (§12). In battle mode `objectives` may drop battles but
        never the raid (D34)."""
        try:
            mode = Mode(mode)
        except ValueError:
            known = ", ".join(m.value for m in Mode)
            raise InvalidFenError(f"unknown Commander Chess mode {mode!r}; known: {known}") from None
        chosen = frozenset(OBJECTIVES if objectives is None else objectives)
        unknown = chosen - set(OBJECTIVES)
        if unknown:
            raise InvalidFenError(f"unknown battle objective(s) {sorted(unknown)}; known: {', '.join(OBJECTIVES)}")
        if mode is Mode.TOTAL_WAR:
            chosen = frozenset({"raid"})
        elif mode is Mode.NINE_PIECE:
            chosen = frozenset({"sea", "air"})
        else:
            chosen = chosen | {"raid"}
        self._settings.mode = mode
        self._settings.objectives = chosen
        self._cache.clear()

    # ------------------------------------------------------------------ pieces
    def piece_at(self, point: Point) -> Stack | None:
        """The stack on `point` (carrier first), or None."""
        return self.squares[tr.from_point(point)]

    def stack_at(self, square: int) -> Stack | None:
        return self.squares[square]

    def set_stack_at(self, point: Point | int, stack: Iterable[Piece] | None) -> None:
        """Put a stack on a point (no rule checks beyond the stack's own legality)."""
        square = point if isinstance(point, int) else tr.from_point(point)
        if stack is not None:
            stack = arrange(stack)
            if not is_legal_stack(stack):
                raise InvalidFenError(f"{_stack_fen(stack)} is not a legal stack")
        self.squares[square] = stack or None
        self._cache.clear()

    def pieces(self, color: Color) -> list[tuple[int, Piece]]:
        """Every piece of `color` (carried ones too) with its point."""
        return [(s, p) for s, stack in enumerate(self.squares) if stack for p in stack if p.color is color]

    def count(self, color: Color, kind: Kind) -> int:
        return sum(1 for _, p in self.pieces(color) if p.kind is kind)

    def commander_square(self, color: Color) -> int | None:
        return rules.commander_square(self.squares, color)

    # ------------------------------------------------------------------ generation
    def _rings(self, color: Color) -> list[int]:
        key = f"rings{color.value}"
        if key not in self._cache:
            self._cache[key] = rules.ring_masks(self.squares, color)
        return self._cache[key]  # type: ignore[return-value]

    def _origins_with_turns(self) -> Iterator[int]:
        for square in range(tr.SQUARES):
            if self._turns_from(square):
                yield square

    def generate_turns(self) -> list[Turn]:
        """Every legal turn of the side to move (empty once the game is over)."""
        if "turns" not in self._cache:
            turns: list[Turn] = []
            if self.result() is None:
                for square in range(tr.SQUARES):
                    turns.extend(self._turns_from(square))
            self._cache["turns"] = turns
        return self._cache["turns"]  # type: ignore[return-value]

    @property
    def legal_moves(self) -> LegalTurns:
        return LegalTurns(self)

    def turns_from(self, point: Point | int) -> list[Turn]:
        """The legal turns that start on one point."""
        square = point if isinstance(point, int) else tr.from_point(point)
        if self.result() is not None:
            return []
        return self._turns_from(square)

    def _turns_from(self, origin: int, touched: frozenset[int] | None = None) -> list[Turn]:
        stack = self.squares[origin]
        if stack is None or stack[0].color is not self.turn:
            return []
        key = f"from{origin}" if touched is None else None
        if key is not None and key in self._cache:
            return self._cache[key]  # type: ignore[return-value]
        rings = self._rings(self.turn.other)
        turns: list[Turn] = []
        gbase = _group_code(stack) * _GROUP_SCALE + origin * _ORIGIN_SCALE
        for action in rules.group_actions(self.squares, origin, stack, rings, alone=True):
            if touched is None or _touches_only(action, touched):
                turns.append(Turn.of((action,), key=(False, gbase + action.target * 9 + _act_fate(action))))
        if len(stack) > 1:
            # A split never repeats a whole-stack action (its groups are smaller), so its
            # turns are told apart among themselves only.
            chains: dict[tuple, list[Action]] = {}
            self._split(origin, stack, (), [], chains, touched, rings)
            turns.extend(Turn.of(chain, key=key) for key, chain in chains.items())
        if self._settings.safe:
            turns = [t for t in turns if not self._exposes_commander(t)]
        if key is not None:
            self._cache[key] = turns
        return turns

    def _count_from(self, origin: int) -> int:
        """len(self._turns_from(origin)) without making the turns (perft's last ply)."""
        stack = self.squares[origin]
        if stack is None or stack[0].color is not self.turn:
            return 0
        key = f"from{origin}"
        if self._settings.safe or key in self._cache:
            return len(self._turns_from(origin))
        rings = self._rings(self.turn.other)
        count = len(rules.group_actions(self.squares, origin, stack, rings, alone=True))
        if len(stack) > 1:
            chains: dict[tuple, list[Action]] = {}
            self._split(origin, stack, (), [], chains, None, rings)
            count += len(chains)
        return count

    def _split(self, origin: int, remaining: Stack, codes: tuple[int, ...], done: list[Action],
               chains: dict[tuple, list[Action]], touched: frozenset[int] | None, rings: list[int],
               root: dict[Stack, list[list[Action]]] | None = None, dirty: tuple[int, ...] = (),
               rings_changed: bool = False, order: dict[Stack, int] | None = None,
               previous: tuple[int, int, bool, bool, bool] | None = None) -> None:
        """§7.4, D25: pieces of the stack act one after another from `origin`.

        Every order is tried; `chains` keeps one action list per distinct set of results (the
        turn key). The origin must hold a legal stack on its terrain after each action.

        Later actions reuse the first level's lists (`root`, per group and direction): an
        action changes only its target's point, so only the rays through changed targets
        (`dirty`) are walked again. Commanders (face-to-face looks off the ray), loaded
        engineers, and aircraft once the rings have changed are always generated afresh.

        Two actions on different rays that change no ring the other's flight depends on commute:
        either order gives the same position, so the same turns follow. The later order is
        skipped (`previous` describes the action just made, `order` its level's group order);
        the earlier one was found first, so the turns kept are those every order would give.
        """
        squares = self.squares
        current = squares[origin]
        assert current is not None
        current_stands = is_legal_stack(current) and _stands(current[0].kind, origin)
        groups, index = _split_groups(current, remaining, origin)
        top = root is None
        first: dict[Stack, list[Action]] = {}
        if root is None:
            # Every group of a later level is one of these, so all are listed before any acts.
            root = {}
            toward = rules.DIRECTION[origin]
            for group, left, _, _, reusable in groups:
                if not left:
                    continue
                first[group] = rules.group_actions(squares, origin, group, rings, alone=False)
                if reusable is not False:
                    by_direction: list[list[Action]] = [[] for _ in range(8)]
                    for action in first[group]:
                        by_direction[toward[action.target]].append(action)
                    root[group] = by_direction
        toward = rules.DIRECTION[origin]
        for position, (group, left, rest, rest_stands, reusable) in enumerate(groups):
            if top and not left:
                continue  # the whole stack acting together is an ordinary move
            commutes = False
            if previous is not None and order is not None and reusable is not False:
                before, previous_line, previous_provider, previous_flies, previous_special = previous
                earlier = order.get(group)
                commutes = (not previous_special and earlier is not None and earlier < before
                            and not (previous_provider and reusable is None))
            if top:
                actions = first[group]
            elif reusable or (reusable is None and not rings_changed):
                by_direction = root[group]
                if dirty:
                    again = rules.group_actions(squares, origin, group, rings, alone=False, only_directions=dirty)
                    fresh: list[list[Action]] = [[] for _ in range(8)]
                    for action in again:
                        fresh[toward[action.target]].append(action)
                    actions = [a for d in range(8) for a in (fresh[d] if d in dirty else by_direction[d])]
                else:
                    actions = [a for line in by_direction for a in line]
            else:
                actions = rules.group_actions(squares, origin, group, rings, alone=False)
            gbase = _group_code(group) * _GROUP_SCALE + origin * _ORIGIN_SCALE
            act_fate = _ACT_FATE
            needs_rings = left and any(p.kind is Kind.AIR_FORCE and not p.hero for p in left)
            for action in actions:
                if touched is not None and not _touches_only(action, touched):
                    continue
                target = action.target
                act, fate = action.act, action.fate
                occupant = squares[target]
                line = toward[target]
                provider = act is not Act.MOVE and fate is not Fate.SHOT_DOWN and occupant[0].kind in _RING_KINDS
                if commutes and line != previous_line and not (provider and previous_flies):
                    continue  # the same two actions in the other order came first
                # Carry out the action (rules.apply_action, with the origin's rest known).
                if fate is Fate.SHOT_DOWN:
                    squares[origin] = rest
                    stands = rest_stands
                elif act is Act.MOVE:
                    squares[origin] = rest
                    squares[target] = group if occupant is None else rules._combined(occupant, group)
                    stands = rest_stands
                elif fate is Fate.EXCHANGE:
                    squares[target] = None
                    squares[origin] = rest
                    stands = rest_stands
                elif act is Act.CAPTURE:
                    squares[target] = group
                    squares[origin] = rest
                    stands = rest_stands
                else:  # a strike in place: the group stays on the origin
                    squares[target] = None
                    stands = current_stands
                code = gbase + target * 9 + act_fate[act, fate]
                chain_codes = (*codes, code)
                if stands:
                    key = (False, *sorted(chain_codes))
                    if key not in chains:
                        chains[key] = [*done, action]
                if left:
                    # Rings change only when an enemy ring provider is destroyed.
                    after, changed = rings, rings_changed
                    if needs_rings and provider:
                        after, changed = rules.ring_masks(squares, self.turn.other), True
                    touched_line = dirty
                    if fate is not Fate.SHOT_DOWN and line not in dirty:  # a shot-down flight leaves the target
                        touched_line = (*dirty, line)
                    self._split(origin, left, chain_codes, [*done, action], chains, touched, after,
                                root, touched_line, changed, index,
                                (position, line, provider, reusable is None, reusable is False))
                squares[origin] = current
                squares[target] = occupant

    def _exposes_commander(self, turn: Turn) -> bool:
        """Safe mode (D1 option): the turn leaves the mover's commander capturable."""
        mover = self.turn
        saved = list(self.squares)
        for action in turn.actions:
            rules.apply_action(self.squares, action)
        exposed = self.commander_square(mover) is not None and (
            bool(rules.checking_pieces(self.squares, mover.other)) or rules.commanders_face(self.squares)
        )
        self.squares[:] = saved
        return exposed

    def is_legal(self, turn: Turn) -> bool:
        if not isinstance(turn, Turn) or not turn.actions:
            return False
        if turn.penalty:
            return self.referee and self.result() is None and turn in self.penalty_turns()
        return turn in self.turns_from(turn.origin)

    def penalty_turns(self) -> list[Turn]:
        """§6.5, D26: heavy pieces crossing deep water, which a referee puts back (`$`)."""
        out: list[Turn] = []
        rings = self._rings(self.turn.other)
        for square, stack in enumerate(self.squares):
            if stack is None or stack[0].color is not self.turn:
                continue
            groups = [stack] + ([(p,) for p in set(stack[1:])] if len(stack) > 1 else [])
            for group in groups:
                for action in rules.group_actions(self.squares, square, group, rings,
                                                  alone=len(group) == len(stack), illegal_crossings=True):
                    out.append(Turn.of((action,), penalty=True))
        return out

    # ------------------------------------------------------------------ making turns
    def push(self, turn: BaseMove) -> None:
        """Play a legal turn; IllegalMoveError (a ValueError) otherwise."""
        if self.result() is not None:
            raise GameOverError(f"the game is over ({self.result().describe()})")
        if not isinstance(turn, Turn) or not self.is_legal(turn):
            raise IllegalMoveError(f"{turn!s} is not a legal turn in {self.fen()}")
        if not turn.penalty:
            # Play the generated turn: its actions are in an order known to produce this result.
            turn = next(t for t in self.turns_from(turn.origin) if t == turn)
        self._push_unchecked(turn)

    def _push_unchecked(self, turn: Turn) -> None:
        mover = self.turn
        self._undo.append(_Undo(list(self.squares), dict(self.scores), mover, self.halfmove_clock,
                                self.fullmove_number, self._time_up))
        captured_any = False
        if not turn.penalty:
            for action in turn.actions:
                enemy_lost, own_lost = rules.apply_action(self.squares, action)
                self.scores[mover] += stack_value(enemy_lost)
                self.scores[mover.other] += stack_value(own_lost)
                captured_any = captured_any or bool(enemy_lost) or bool(own_lost)
            self._promote_heroes(mover)
        self.halfmove_clock = 0 if captured_any else self.halfmove_clock + 1
        if mover is BLUE:
            self.fullmove_number += 1
        self.turn = mover.other
        self.move_stack.append(turn)
        self._cache.clear()

    def pop(self) -> Turn:
        """Take back the last turn."""
        if not self.move_stack:
            raise IndexError("pop from an empty move stack")
        undo = self._undo.pop()
        self.squares = undo.squares
        self.scores = undo.scores
        self.turn = undo.turn
        self.halfmove_clock = undo.halfmove
        self.fullmove_number = undo.fullmove
        self._time_up = undo.time_up
        self._cache.clear()
        return self.move_stack.pop()

    def peek(self) -> Turn:
        return self.move_stack[-1]

    def _promote_heroes(self, mover: Color) -> None:
        """§10: heroes by check (D20) and the last defender (D21). None in the 9-piece mode (D30)."""
        if self.mode is Mode.NINE_PIECE:
            return
        for square, piece in rules.checking_pieces(self.squares, mover):
            if not piece.hero and piece.kind is not Kind.COMMANDER:
                self._promote(square, piece)
        for color in (RED, BLUE):
            if self.commander_square(color) is None:
                continue
            last = self._last_defender(color)
            if last is not None and not last[1].hero:
                self._promote(*last)

    def _last_defender(self, color: Color) -> tuple[int, Piece] | None:
        """The only piece of `color` besides its commander, if there is exactly one."""
        found = None
        for square, stack in enumerate(self.squares):
            if stack is None or stack[0].color is not color:
                continue
            for piece in stack:
                if piece.kind is not Kind.COMMANDER:
                    if found is not None:
                        return None
                    found = (square, piece)
        return found

    def _promote(self, square: int, piece: Piece) -> None:
        stack = self.squares[square]
        assert stack is not None
        self.squares[square] = arrange(p.promoted() if p == piece else p for p in stack)

    def perft(self, depth: int) -> int:
        """The number of turn sequences `depth` plies long (leaves of the game tree)."""
        if depth <= 0:
            return 1
        if depth == 1:
            # Count the last ply without making its turns (standard perft practice).
            if "turns" in self._cache or self.result() is not None:
                return len(self.generate_turns())
            return sum(self._count_from(square) for square in range(tr.SQUARES))
        turns = self.generate_turns()
        total = 0
        for turn in list(turns):
            self._push_unchecked(turn)
            total += self.perft(depth - 1)
            self.pop()
        return total

    # ------------------------------------------------------------------ check and facing
    def checkers(self, color: Color | None = None) -> list[tuple[Point, Piece]]:
        """The pieces of `color` (default: the side not to move) that check the enemy commander."""
        color = self.turn.other if color is None else color
        return [(tr.to_point(s), p) for s, p in rules.checking_pieces(self.squares, color)]

    def is_check(self) -> bool:
        """§9.2: the side to move has its commander under attack."""
        return bool(rules.checking_pieces(self.squares, self.turn.other))

    def is_checkmate(self) -> bool:
        """§9.2, §13.1 `^`: the side to move is in check and no turn saves its commander.

        A reply saves it when the commander is no longer capturable afterwards, or when the
        reply ends the game (D1: turns that leave it capturable are legal, they just do not
        save it). A game already ended some other way (a battle, the clock) is no checkmate;
        one ended because the checked side has no legal turn (safe mode, D32) is.

        >>> from games.commander.notation import SECRETARY
        >>> board = Board("9ic/10i/11/11/10A/11/11/11/11/11/11/4C3I2 r - w 0 1")
        >>> board.is_checkmate()
        False
        >>> board.push(SECRETARY.parse(board, "P7,10_8,10"))
        >>> board.is_check(), board.is_checkmate(), board.result() is None
        (True, True, True)
        """
        result = self.result()
        if result is not None and result.termination is not Termination.NO_LEGAL_MOVE:
            return False
        if not self.is_check():
            return False
        attacker = self.turn.other
        for turn in list(self.generate_turns()):
            self._push_unchecked(turn)
            try:
                if self.result() is not None or not rules.checking_pieces(self.squares, attacker):
                    return False
            finally:
                self.pop()
        return True

    def gives_check(self, turn: Turn) -> bool:
        self._push_unchecked(turn)
        try:
            return bool(rules.checking_pieces(self.squares, self.turn.other))
        finally:
            self.pop()

    def commanders_face(self) -> bool:
        """§9.3: the two top-level commanders see each other along a line."""
        return rules.commanders_face(self.squares)

    # ------------------------------------------------------------------ endings
    def declare_time_up(self) -> None:
        """The clock's word (§12): the game time has run out. Points decide."""
        self._time_up = True
        self._cache.clear()

    @property
    def time_up(self) -> bool:
        return self._time_up

    def lost_objectives(self, color: Color) -> tuple[str, ...]:
        """The battles `color` has lost on the board (§12.1, §12.3)."""
        kinds = self._census()[color]
        lost = []
        if "sea" in self.objectives and kinds[Kind.NAVY] == 0:
            lost.append("sea")
        if "air" in self.objectives and kinds[Kind.AIR_FORCE] == 0:
            lost.append("air")
        if "land" in self.objectives and kinds[Kind.INFANTRY] + kinds[Kind.TANK] + kinds[Kind.ARTILLERY] == 0:
            lost.append("land")
        if "raid" in self.objectives and self.mode is not Mode.NINE_PIECE and kinds[Kind.COMMANDER] == 0:
            lost.append("raid")
        return tuple(lost)

    def _census(self) -> dict[Color, list[int]]:
        """Per colour, the number of pieces of each kind (carried ones too)."""
        if "census" not in self._cache:
            counts = {RED: [0] * len(Kind), BLUE: [0] * len(Kind)}
            for stack in self.squares:
                if stack is not None:
                    row = counts[stack[0].color]
                    for piece in stack:
                        row[piece.kind] += 1
            self._cache["census"] = counts
        return self._cache["census"]  # type: ignore[return-value]

    def result(self) -> GameResult | None:
        """The finished game with its points, or None while it goes on (§11–§12)."""
        if "result" in self._cache:
            return self._cache["result"]  # type: ignore[return-value]
        result = self._compute_result()
        self._cache["result"] = result
        return result

    def _compute_result(self) -> GameResult | None:
        lost = {RED: self.lost_objectives(RED), BLUE: self.lost_objectives(BLUE)}
        captured = dict(self.scores)
        no_bonus = {RED: 0, BLUE: 0}
        if lost[RED] or lost[BLUE]:
            bonus = {c: BATTLE_BONUS if lost[c.other] else 0 for c in (RED, BLUE)}
            raid = [c for c in (RED, BLUE) if "raid" in lost[c]]
            if len(raid) == 1:  # §12.1, D8: destroying the commander is an absolute win
                return GameResult(Termination.COMMANDER_CAPTURED, raid[0].other, captured, bonus, lost, True)
            return GameResult(Termination.BATTLE_WON, _by_points(captured, bonus), captured, bonus, lost)
        played = self._plies_before + len(self.move_stack)
        if self._time_up or (self.ply_limit is not None and played >= self.ply_limit):
            return GameResult(Termination.POINTS, _by_points(captured, no_bonus), captured, no_bonus, lost)
        if not any(True for _ in self._origins_with_turns()):
            return GameResult(Termination.NO_LEGAL_MOVE, _by_points(captured, no_bonus), captured, no_bonus, lost)
        return None

    def outcome(self) -> Outcome | None:
        result = self.result()
        return None if result is None else result.outcome()

    def is_game_over(self) -> bool:
        return self.result() is not None

    # ------------------------------------------------------------------ FEN
    def board_fen(self) -> str:
        rows = []
        for va in range(tr.VA_COUNT - 1, -1, -1):
            row, empty = [], 0
            for ha in range(tr.HA_COUNT):
                stack = self.squares[tr.index(va, ha)]
                if stack is None:
                    empty += 1
                    continue
                if empty:
                    row.append(str(empty))
                    empty = 0
                row.append(_stack_fen(stack))
            if empty:
                row.append(str(empty))
            rows.append("".join(row))
        return "/".join(rows)

    def fen(self) -> str:
        """Placement, side (r/b), scores (`-` or `R,B`), mode, plies since a capture, move number.

        Stacks are written in parentheses, carrier first; `+` marks a hero (as the monorepo).
        The mode field is `-` (battle, all objectives), `b` + objective letters s a l r,
        `w` (total war) or `9` (9-piece battle).
        """
        scores = "-" if not any(self.scores.values()) else f"{self.scores[RED]},{self.scores[BLUE]}"
        return (f"{self.board_fen()} {'r' if self.turn is RED else 'b'} {scores} {self._mode_token()} "
                f"{self.halfmove_clock} {self.fullmove_number}")

    def _mode_token(self) -> str:
        if self.mode is Mode.TOTAL_WAR:
            return "w"
        if self.mode is Mode.NINE_PIECE:
            return "9"
        if self.objectives == frozenset(OBJECTIVES):
            return "-"
        return "b" + "".join(letter for letter, name in _OBJECTIVE_LETTERS.items() if name in self.objectives)

    def set_fen(self, fen: str) -> None:
        """Read a FEN (see `fen`); InvalidFenError names what is wrong."""
        if not isinstance(fen, str):
            raise InvalidFenError(f"a FEN must be text, not {type(fen).__name__}")
        fields = fen.split()
        if not fields:
            raise InvalidFenError("empty FEN")
        if len(fields) > 6:
            raise InvalidFenError(f"FEN has {len(fields)} fields; at most 6 (placement side scores mode plies move)")
        squares = _parse_placement(fields[0])
        side = fields[1] if len(fields) > 1 else "r"
        if side not in ("r", "b", "w"):
            raise InvalidFenError(f"side to move {side!r} must be r (Red) or b (Blue)")
        scores = _parse_scores(fields[2] if len(fields) > 2 else "-")
        mode, objectives = _parse_mode(fields[3] if len(fields) > 3 else "-")
        halfmove = _parse_counter(fields[4] if len(fields) > 4 else "0", "plies since a capture", 0)
        fullmove = _parse_counter(fields[5] if len(fields) > 5 else "1", "move number", 1)
        self.squares = squares
        self.turn = BLUE if side == "b" else RED
        self.scores = scores
        self.halfmove_clock = halfmove
        self.fullmove_number = fullmove
        self.move_stack = []
        self._undo = []
        self._plies_before = 0  # a FEN does not say how many plies were played: the limit counts from it
        self._time_up = False
        self._cache = {}
        self.set_mode(mode, objectives)

    def copy(self, stack: bool = True) -> Board:
        other = Board(None)
        other.squares = list(self.squares)
        other.turn = self.turn
        other.scores = dict(self.scores)
        other.halfmove_clock = self.halfmove_clock
        other.fullmove_number = self.fullmove_number
        other._time_up = self._time_up
        other._settings = _Settings(self.mode, self.objectives, self.ply_limit, self.referee, self._settings.safe)
        if stack:
            other.move_stack = list(self.move_stack)
            other._undo = [_Undo(list(u.squares), dict(u.scores), u.turn, u.halfmove, u.fullmove, u.time_up)
                           for u in self._undo]
            other._plies_before = self._plies_before
        else:
            other._plies_before = self._plies_before + len(self.move_stack)  # the stand-in clock runs on
        return other

    def __str__(self) -> str:
        lines = []
        for va in range(tr.VA_COUNT - 1, -1, -1):
            cells = []
            for ha in range(tr.HA_COUNT):
                stack = self.squares[tr.index(va, ha)]
                empty = "~" if tr.is_sea(tr.index(va, ha)) else "."
                cells.append((_stack_fen(stack) if stack else empty).ljust(4))
            lines.append(f"{va:>2} " + "".join(cells).rstrip())
            if va == 6:
                lines.append("   " + "=" * 40)
        lines.append("   " + "".join(str(ha).ljust(4) for ha in range(tr.HA_COUNT)).rstrip())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"


# ---------------------------------------------------------------------- helpers
_ACT_CODES = {Act.MOVE: 0, Act.CAPTURE: 1, Act.STRIKE: 2}
_FATE_CODES = {Fate.NORMAL: 0, Fate.SHOT_DOWN: 1, Fate.EXCHANGE: 2}


def _action_code(action: Action) -> int:
    code = 0
    for piece in action.group:
        code = code * 64 + piece.kind * 4 + (piece.color is BLUE) * 2 + piece.hero + 1
    code = (code * tr.SQUARES + action.origin) * tr.SQUARES + action.target
    return (code * 3 + _ACT_CODES[action.act]) * 3 + _FATE_CODES[action.fate]


_RING_KINDS = frozenset(kind for kind in Kind if rules.ring_radius(Piece(kind, RED)))  # §8.1 providers
_ORIGIN_SCALE = tr.SQUARES * 9
_GROUP_SCALE = tr.SQUARES * _ORIGIN_SCALE


def _group_code(group: Stack) -> int:
    code = 0
    for piece in group:
        code = code * 64 + piece.kind * 4 + (piece.color is BLUE) * 2 + piece.hero + 1
    return code


_ACT_FATE = {(act, fate): _ACT_CODES[act] * 3 + _FATE_CODES[fate] for act in Act for fate in Fate}


def _act_fate(action: Action) -> int:
    """The last digit of `_action_code`: act and fate."""
    return _ACT_FATE[action.act, action.fate]


_SplitGroup = tuple[Stack, Stack, "Stack | None", bool, "bool | None"]
_SPLIT_GROUPS: dict[tuple[Stack, Stack, int], tuple[list[_SplitGroup], dict[Stack, int]]] = {}
_SPLIT_GROUPS_LIMIT = 20_000


def _split_groups(current: Stack, remaining: Stack, origin: int) -> tuple[list[_SplitGroup], dict[Stack, int]]:
    """For each sub-stack `group` of `remaining` that may act: (group, the pieces left to act,
    the origin's stack once the group has gone, whether that stack may stand there, whether
    its first-level actions may be reused: True, False, or None for an aircraft that rings
    can shoot down (reusable while the rings stay as they were)); and each group's place in
    that list."""
    key = (current, remaining, origin)
    cached = _SPLIT_GROUPS.get(key)
    if cached is None:
        if len(_SPLIT_GROUPS) > _SPLIT_GROUPS_LIMIT:
            _SPLIT_GROUPS.clear()  # a long-lived process meets many stacks; keep memory bounded
        found = []
        for group in _subgroups(remaining):
            rest = remove_pieces(current, group) or None
            stands = rest is None or (is_legal_stack(rest) and _stands(rest[0].kind, origin))
            carrier = group[0]
            reusable: bool | None = True
            if carrier.kind is Kind.COMMANDER or (carrier.kind is Kind.ENGINEER and len(group) > 1):
                reusable = False
            elif carrier.kind is Kind.AIR_FORCE and not carrier.hero:
                reusable = None
            found.append((group, _minus(remaining, group), rest, stands, reusable))
        cached = _SPLIT_GROUPS[key] = found, {entry[0]: i for i, entry in enumerate(found)}
    return cached


def _by_points(captured: dict[Color, int], bonus: dict[Color, int]) -> Color | None:
    red, blue = captured[RED] + bonus[RED], captured[BLUE] + bonus[BLUE]
    if red == blue:
        return None  # equal points: a draw (§12.1)
    return RED if red > blue else BLUE


def _stands(kind: Kind, square: int) -> bool:
    return tr.is_navy_point(square) if kind is Kind.NAVY else tr.is_land(square)


def misplaced(piece: Piece, point: Point) -> str | None:
    """Why `piece` can never stand on `point`, as a single piece or as a stack's carrier, or
    None (§2: a navy only on the sea, the coast and the navigable river; every other piece only
    on land, the coast included).

    >>> misplaced(Piece(Kind.TANK, RED), tr.to_point(tr.parse_point("a5")))
    'Red tank cannot stand on a5 (sea; §2)'
    >>> misplaced(Piece(Kind.NAVY, BLUE), tr.to_point(tr.parse_point("c5"))) is None
    True
    """
    square = tr.from_point(point)
    if _stands(piece.kind, square):
        return None
    return f"{color_name(piece.color)} {piece.kind.label} cannot stand on {tr.square_name(square)} " \
           f"({_terrain_word(square)}; §2)"


def _touches_only(action: Action, touched: frozenset[int]) -> bool:
    """The points `action` changes all lie in `touched` (used by the vision query)."""
    if action.fate is Fate.SHOT_DOWN:
        return action.origin in touched
    if action.act is Act.STRIKE and action.fate is Fate.NORMAL:
        return action.target in touched
    return action.origin in touched and action.target in touched


def _minus(stack: Stack, group: Stack) -> Stack:
    rest = list(stack)
    for piece in group:
        rest.remove(piece)
    return tuple(rest)


def _subgroups(stack: Stack) -> list[Stack]:
    """Every distinct sub-stack (a legal stack of 1–3 pieces) of `stack`."""
    n = len(stack)
    found: dict[Stack, None] = {}
    for mask in range(1, 1 << n):
        group = arrange(stack[i] for i in range(n) if mask >> i & 1)
        if is_legal_stack(group):
            found.setdefault(group)
    return list(found)


def _stack_fen(stack: Stack) -> str:
    text = "".join(p.fen() for p in stack)
    return f"({text})" if len(stack) > 1 else text


def _parse_counter(text: str, what: str, minimum: int) -> int:
    if not text.isdigit() or int(text) < minimum or len(text) > 6:
        raise InvalidFenError(f"{what} {text!r} must be a whole number ≥ {minimum}")
    return int(text)


def _parse_scores(text: str) -> dict[Color, int]:
    if text == "-":
        return {RED: 0, BLUE: 0}
    parts = text.split(",")
    if len(parts) != 2 or not all(p.isdigit() and len(p) <= 6 for p in parts):
        raise InvalidFenError(f"scores {text!r} must be '-' or 'RED,BLUE' like '30,10'")
    return {RED: int(parts[0]), BLUE: int(parts[1])}


def _parse_mode(text: str) -> tuple[Mode, frozenset[str] | None]:
    if text == "-":
        return Mode.BATTLE, None
    if text == "w":
        return Mode.TOTAL_WAR, None
    if text == "9":
        return Mode.NINE_PIECE, None
    letters = text[1:]
    if text.startswith("b") and all(ch in _OBJECTIVE_LETTERS for ch in letters) and len(set(letters)) == len(letters):
        return Mode.BATTLE, frozenset(_OBJECTIVE_LETTERS[ch] for ch in text[1:])
    raise InvalidFenError(f"mode {text!r} must be '-', 'w', '9' or 'b' followed by objective letters s a l r")


def _parse_placement(text: str) -> list[Stack | None]:
    rows = text.split("/")
    if len(rows) != tr.VA_COUNT:
        raise InvalidFenError(f"placement has {len(rows)} ranks; Commander Chess has {tr.VA_COUNT}")
    squares: list[Stack | None] = [None] * tr.SQUARES
    counts: Counter = Counter()
    for row_number, row in enumerate(rows):
        va = tr.VA_COUNT - 1 - row_number
        ha, i = 0, 0
        while i < len(row):
            ch = row[i]
            if ch.isdigit():
                j = i
                while j < len(row) and row[j].isdigit():
                    j += 1
                ha += int(row[i:j])
                i = j
                continue
            if ha >= tr.HA_COUNT:
                raise InvalidFenError(f"rank {va + 1} ({row!r}) has more than {tr.HA_COUNT} points")
            if ch == "(":
                end = row.find(")", i)
                if end < 0:
                    raise InvalidFenError(f"rank {va + 1} ({row!r}): stack opened at character {i + 1} is not closed")
                pieces = _parse_pieces(row[i + 1:end], va)
                i = end + 1
                if len(pieces) < 2:
                    raise InvalidFenError(f"rank {va + 1}: a stack in parentheses needs 2–3 pieces")
            else:
                j = i + 1 if ch != "+" else i + 2
                pieces = _parse_pieces(row[i:j], va)
                i = j
            stack = arrange(pieces)
            square = tr.index(va, ha)
            name = tr.square_name(square)
            if not is_legal_stack(stack):
                raise InvalidFenError(f"{_stack_fen(stack)} on {name} is not a legal stack (§7.1)")
            if not _stands(stack[0].kind, square):
                raise InvalidFenError(f"{_stack_fen(stack)} cannot stand on {name} ({_terrain_word(square)}; §2)")
            squares[square] = stack
            for piece in stack:
                counts[piece.color, piece.kind] += 1
            ha += 1
        if ha != tr.HA_COUNT:
            raise InvalidFenError(f"rank {va + 1} ({row!r}) has {ha} points; it needs {tr.HA_COUNT}")
    for (color, kind), n in counts.items():
        if n > STANDARD_COUNTS[kind]:
            raise InvalidFenError(f"{color_name(color)} has {n} × {kind.label}; at most {STANDARD_COUNTS[kind]}")
    return squares


def _parse_pieces(text: str, va: int) -> list[Piece]:
    pieces, i = [], 0
    while i < len(text):
        j = i + 2 if text[i] == "+" else i + 1
        if j > len(text):
            raise InvalidFenError(f"rank {va + 1}: '+' must be followed by a piece letter")
        pieces.append(Piece.from_fen(text[i:j]))
        i = j
    return pieces


def _terrain_word(square: int) -> str:
    if tr.is_sea(square):
        return "sea"
    if tr.is_navy_point(square):
        return "coast or river bank"
    return "land"
