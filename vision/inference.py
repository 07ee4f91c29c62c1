"""Which legal move — or short legal sequence — best explains what the camera sees?

The camera proposes, the rules engine disposes. Given the last legal position and per-point
class probabilities, every legal move is scored by the log-likelihood of the observation
against the position it produces (`appearance`: what the camera should see at each point);
so is every legal sequence of two or three plies, for moves the camera missed. Occluded
points carry no evidence. Sequences are never enumerated blindly: each ply may touch only
points that changed (or that the camera cannot see), the pruning `games.commander.observe`
uses for Commander Chess split turns, and one piece may stop on an empty point and leave it
again (a stopover looks unchanged).

A `Verdict` says what to do: commit the best explanation when it beats the runner-up by a
margin and leaves no point unexplained; otherwise report `ambiguous`, `illegal` (the points
no legal result explains), or `occluded`.

>>> import games, numpy as np
>>> board = games.get("xiangqi").board()
>>> after = board.copy(); after.push(games.get("xiangqi").parse_move(after, "h2e2"))
>>> evidence = Evidence.exact("xiangqi", after)     # a perfect camera
>>> verdict = decide(board, evidence)
>>> verdict.status, [str(m) for m in verdict.moves]
('commit', ['h2e2'])
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

import games
from games import Board, Move, Point
from vision.classes import EMPTY, OCCLUDED, appearance, classes

# A point may have changed when another class beats the expected one at all, or the expected
# class is not even odds-on: moves are searched only among such points (and unseen ones).
CHANGE_NATS = 0.0
DOUBT_PROBABILITY = 0.5
# A point is unexplained by a position when the observed class beats it by this many nats.
RESIDUAL_NATS = 2.5
# The best explanation must beat the runner-up by this many nats to be committed.
COMMIT_MARGIN = 3.0
# Each ply beyond the first is a small surprise: the camera usually sees every move.
EXTRA_PLY_COST = 1.0
# No probability is taken below this: one misread crop costs at most log(1/floor) nats.
PROBABILITY_FLOOR = 1e-4
# Enough hypotheses: a search this large means too much is unseen to decide anything.
MAX_HYPOTHESES = 20000
# A penalty turn the camera never saw (Commander Chess §6.5, referee mode: the hand put the
# crossing piece back before it left the board) is a rarer surprise than a missed move.
UNSEEN_PENALTY_COST = 2.0
# A piece that goes and comes straight back while the camera looks away is rarer still: the
# sequence must not explain away what a penalty turn or a misread explains as well.
ROUND_TRIP_COST = 3.0


# ---------------------------------------------------------------------------- appearance
def game_classes(game: str) -> tuple[str, ...]:
    """Every class a point can show in `game` (empty first, occluded excluded)."""
    return tuple(c for c in classes(game) if c != OCCLUDED)


def _commander_class(stack) -> str:
    from games.commander.pieces import RED

    top = stack[0]  # the carrier: `arrange` puts it first, and only it shows
    return f"{'red' if top.color is RED else 'blue'}_{top.kind.name.lower()}"


# ---------------------------------------------------------------------------- evidence
@dataclass
class Evidence:
    """Per-point log-probabilities over a game's classes, and which points the camera sees."""

    game: str
    classes: tuple[str, ...]
    points: list[Point]
    logp: np.ndarray  # len(points) × len(classes)
    seen: np.ndarray  # bool per point: False where occluded (no evidence)

    @classmethod
    def from_probabilities(cls, game: str, classes: Sequence[str], points: Sequence[Point],
                           probabilities: np.ndarray, occluded: np.ndarray | None = None) -> Evidence:
        """From class probabilities (rows over `classes`) as `vision.detector.Observation` holds them."""
        wanted = game_classes(game)
        index = {name: i for i, name in enumerate(classes)}
        missing = [c for c in wanted if c not in index]
        if missing:
            raise ValueError(f"the observation lacks classes {missing}")
        probs = np.asarray(probabilities, dtype=np.float64)[:, [index[c] for c in wanted]]
        probs = np.clip(probs, PROBABILITY_FLOOR, None)
        probs /= probs.sum(axis=1, keepdims=True)
        order = {p: i for i, p in enumerate(points)}
        geometry_points = list(games.get(game).geometry.points())
        rows = [order[p] for p in geometry_points]
        seen = np.ones(len(points), bool) if occluded is None else ~np.asarray(occluded, bool)
        return cls(game, wanted, geometry_points, np.log(probs[rows]), seen[rows])

    @classmethod
    def from_observation(cls, observation) -> Evidence:
        """From a `vision.detector.Observation`."""
        return cls.from_probabilities(observation.game, observation.classes, observation.points,
                                      observation.probabilities, observation.occluded)

    @classmethod
    def exact(cls, game: str, board: Board, confidence: float = 0.99) -> Evidence:
        """What a near-perfect camera would report for `board` (for tests and examples)."""
        wanted = game_classes(game)
        view = appearance(game, board)
        points = list(games.get(game).geometry.points())
        probs = np.full((len(points), len(wanted)), (1 - confidence) / (len(wanted) - 1))
        for i, p in enumerate(points):
            probs[i, wanted.index(view[p])] = confidence
        return cls.from_probabilities(game, wanted, points, probs)

    def best_classes(self) -> list[str]:
        return [self.classes[i] for i in np.argmax(self.logp, axis=1)]

    def unseen_points(self) -> list[Point]:
        return [p for p, s in zip(self.points, self.seen, strict=True) if not s]


# ---------------------------------------------------------------------------- game rules
class Rules:
    """How inference talks to one game: views of positions and the moves worth trying."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.variant = games.get(game)
        self.points = list(self.variant.geometry.points())
        self.classes = game_classes(game)
        self._class_index = {c: i for i, c in enumerate(self.classes)}

    def view(self, board: Board) -> np.ndarray:
        """The class index the camera should see at every point."""
        seen = appearance(self.game, board)
        return np.array([self._class_index[seen[p]] for p in self.points], dtype=np.int16)

    def candidate_moves(self, board: Board, allowed: frozenset[Point]) -> Iterator[Move]:
        """Legal moves that change nothing outside `allowed` (a move always changes its two points)."""
        for move in board.legal_moves:
            if move.from_point in allowed and move.to_point in allowed:
                yield move

    def transit_moves(self, board: Board, allowed: frozenset[Point]) -> Iterator[Move]:
        """Legal moves from `allowed` to a point outside it: the first leg of a piece that leaves
        it again later in the sequence, so its stopover looks unchanged (a missed pair of plies).
        `hypotheses` keeps only sequences whose stopovers end as they began (empty)."""
        for move in board.legal_moves:
            if move.from_point in allowed and move.to_point not in allowed:
                yield move

    def write(self, board: Board, move: Move) -> str:
        return self.variant.notation().format(board, move)

    def push(self, board: Board, move: Move) -> None:
        """Play a move that `candidate_moves` generated (and so is legal)."""
        board.push(move)

    def penalty_moves(self, board: Board) -> list[tuple[Move, np.ndarray]]:
        """Penalty turns a referee may record after an illegal attempt, with the view of the attempt."""
        return []

    def unseen_penalty(self, board: Board, hint: Move | None = None) -> Move | None:
        """A penalty turn that leaves the board as it was (only the turn passes), or None.

        Every such turn looks the same to a camera that never saw the attempt, so one stands
        for all: `hint` when it is one of them (an attempt seen earlier), else the first."""
        return None


class CommanderRules(Rules):
    """Commander Chess: split turns are only generated where points changed; stacks hide
    their passengers, so an own stack or carrier may change unseen."""

    _CARRIERS = ("NAVY", "AIR_FORCE", "TANK", "ENGINEER", "HEADQUARTERS")

    def __init__(self, game: str) -> None:
        from games.commander import terrain as tr

        super().__init__(game)
        row = {p: i for i, p in enumerate(self.points)}
        self._square_row = [row[tr.to_point(s)] for s in range(tr.SQUARES)]
        self._top_cache: dict = {}

    def candidate_moves(self, board, allowed):
        from games.commander import terrain as tr

        if board.result() is not None:
            return
        changed = {tr.from_point(p) for p in allowed}
        hidden = set()
        for square, stack in enumerate(board.squares):
            if stack and stack[0].color is board.turn and (len(stack) > 1 or stack[0].kind.name in self._CARRIERS):
                hidden.add(square)
        touched = frozenset(changed | hidden)
        for origin, stack in enumerate(board.squares):
            if stack is None or stack[0].color is not board.turn:
                continue
            if origin in touched or any(_aligned(origin, c) for c in changed):
                yield from board._turns_from(origin, touched=touched)

    def view(self, board) -> np.ndarray:
        index = self._class_index
        cache = self._top_cache
        out = np.zeros(len(self.points), dtype=np.int16)
        for i, stack in enumerate(board.squares):
            if stack:
                top = stack[0]
                key = (top.kind, top.color)
                if key not in cache:
                    cache[key] = index[_commander_class(stack)]
                out[self._square_row[i]] = cache[key]
        return out

    def push(self, board, move) -> None:
        board._push_unchecked(move)  # generated by the engine: legal by construction

    def unseen_penalty(self, board, hint=None):
        if not board.referee or board.result() is not None:
            return None
        turns = board.penalty_turns()
        if hint is not None and hint in turns:
            return hint
        return turns[0] if turns else None

    def transit_moves(self, board, allowed):
        # A piece stay-captured where it stopped would need every empty point searched as a
        # stopover: six times slower on a whole game. The tracker's waiting look covers it.
        return iter(())

    def penalty_moves(self, board):
        from games.commander import rules as cr

        if not board.referee or board.result() is not None:
            return []
        out = []
        for turn in board.penalty_turns():
            attempt = board.copy()
            for action in turn.actions:
                cr.apply_action(attempt.squares, action)
            attempt._cache.clear()
            out.append((turn, self.view(attempt)))
        return out


def _aligned(a: int, b: int) -> bool:
    from games.commander import terrain as tr

    dva, dha = tr.va_of(a) - tr.va_of(b), tr.ha_of(a) - tr.ha_of(b)
    return dva == 0 or dha == 0 or abs(dva) == abs(dha)


_RULES: dict[str, Rules] = {}


def rules_for(game: str) -> Rules:
    if game not in _RULES:
        _RULES[game] = CommanderRules(game) if game == "commander" else Rules(game)
    return _RULES[game]


# ---------------------------------------------------------------------------- hypotheses
@dataclass
class Hypothesis:
    moves: list[Move]
    view: np.ndarray
    score: float  # log-likelihood minus the extra-ply cost
    start: Board | None = field(default=None, repr=False)

    @property
    def fen(self) -> str:
        """The position the moves lead to."""
        board = self.start.copy()
        for move in self.moves:
            board.push(move)
        return board.fen()


@dataclass
class Verdict:
    """What the observation says about the game.

    `status`: ``none`` (nothing changed), ``commit`` (`moves` explain it, clearly), ``unsure``
    (the likeliest explanation is not yet confirmed at every point it changes: look again), ``ambiguous``
    (`candidates` explain it about equally well), ``illegal`` (`points` that no legal result
    explains), ``occluded`` (`points` hidden, nothing decided).
    """

    status: str
    moves: list[Move] = field(default_factory=list)
    candidates: list[Hypothesis] = field(default_factory=list)
    points: list[Point] = field(default_factory=list)
    margin: float = math.inf
    changed: list[Point] = field(default_factory=list)
    alternatives: list[list[Move]] = field(default_factory=list)
    penalty: list[Move] = field(default_factory=list)
    # An illegal look where pieces are only missing from the closest legal result, nothing new
    # in sight: most often a piece still in the hand, rarely one knocked off the board.
    missing_only: bool = False


def _score(evidence: Evidence, view: np.ndarray) -> float:
    rows = np.flatnonzero(evidence.seen)
    return float(evidence.logp[rows, view[rows]].sum())


def residual(evidence: Evidence, view: np.ndarray) -> list[int]:
    """Indices of seen points where the camera clearly sees something other than `view`.

    Clearly means another side, or empty where a piece should stand, or the reverse, by
    `RESIDUAL_NATS`. Which piece of a side stands there is left to the ranking: classifiers
    confuse similar pieces of one side (confidently, on unseen styles) far more often than
    they invent or lose a piece.
    """
    rows = np.arange(len(view))
    groups = _side_groups(evidence.classes)
    group_logp = np.stack([np.logaddexp.reduce(evidence.logp[:, members], axis=1) for members in groups], axis=1)
    owner = np.zeros(len(evidence.classes), dtype=int)
    for g, members in enumerate(groups):
        owner[members] = g
    side_gap = group_logp.max(axis=1) - group_logp[rows, owner[view]]
    return [int(i) for i in np.flatnonzero((side_gap > RESIDUAL_NATS) & evidence.seen)]


_GROUPS: dict[tuple[str, ...], list[list[int]]] = {}


def _side_groups(classes: tuple[str, ...]) -> list[list[int]]:
    """Class indices grouped as empty, then one group per side (the name's prefix)."""
    if classes not in _GROUPS:
        by_side: dict[str, list[int]] = {}
        for i, name in enumerate(classes):
            by_side.setdefault(name.split("_", 1)[0] if "_" in name else name, []).append(i)
        _GROUPS[classes] = list(by_side.values())
    return _GROUPS[classes]


def _disagreements(evidence: Evidence, view: np.ndarray) -> bool:
    expected = evidence.logp[np.arange(len(view)), view]
    return bool(np.any((evidence.logp.max(axis=1) > expected) & evidence.seen))


def changed_points(evidence: Evidence, view: np.ndarray) -> list[int]:
    expected = evidence.logp[np.arange(len(view)), view]
    gap = evidence.logp.max(axis=1) - expected
    doubtful = (gap > CHANGE_NATS) | (expected < np.log(DOUBT_PROBABILITY))
    return [int(i) for i in np.flatnonzero(doubtful & evidence.seen)]


def hypotheses(board: Board, evidence: Evidence, max_plies: int = 3, rules: Rules | None = None,
               penalty_hint: Move | None = None) -> list[Hypothesis]:
    """The null hypothesis (nothing moved) and every pruned legal sequence of 1..max_plies plies.

    Where the rules allow penalty turns (Commander Chess, referee mode), a sequence may also
    pass through one the camera never saw (`Rules.unseen_penalty`; `penalty_hint` names the
    one to record), though never end with it: alone it looks like nothing happened.

    A sequence may also pass one piece through an empty point that looks unchanged
    (`Rules.transit_moves`): a horse h9-f8, the reply, then f8-g6. The point must be empty
    again at the end."""
    rules = rules or rules_for(evidence.game)
    start_view = rules.view(board)
    out = [Hypothesis([], start_view, _score(evidence, start_view), board)]
    changed = changed_points(evidence, start_view)
    if not changed:
        return out
    allowed = frozenset(evidence.points[i] for i in changed) | frozenset(evidence.unseen_points())
    row_of = {p: i for i, p in enumerate(evidence.points)}
    empty = rules.classes.index(EMPTY)
    work = board.copy()
    trail: list[Move] = []
    views = [start_view]  # the view before each ply of `trail`, then after the last
    costs = [0.0]  # the surprise of `trail` so far, the same way

    @contextmanager
    def played(move: Move, view: np.ndarray | None = None) -> Iterator[np.ndarray]:
        """`move` pushed on `work`, `trail`, `views` and `costs` for the block; its view."""
        rules.push(work, move)
        trail.append(move)
        views.append(rules.view(work) if view is None else view)
        costs.append(costs[-1] + _ply_cost(move, len(trail), views))
        try:
            yield views[-1]
        finally:
            costs.pop()
            views.pop()
            trail.pop()
            work.pop()

    # A stopover: its row, the point, and where the piece came from (it may not go straight back:
    # a piece out and back through unseen points would explain away a piece taken off the board).
    def explore(depth: int, allowed: frozenset[Point], stopover: tuple[int, Point, Point] | None) -> None:
        for move in list(rules.candidate_moves(work, allowed)):
            if len(out) >= MAX_HYPOTHESES:
                return
            if stopover is not None and (move.from_point, move.to_point) == stopover[1:]:
                continue
            with played(move) as view:
                if stopover is None or view[stopover[0]] == start_view[stopover[0]]:
                    out.append(Hypothesis(list(trail), view, _score(evidence, view) - costs[-1], board))
                if depth + 1 < max_plies:
                    explore(depth + 1, allowed, stopover)
        # A stopover needs two plies after it: the reply, then the same piece moving on.
        if stopover is None and depth + 2 < max_plies:
            for move in list(rules.transit_moves(work, allowed)):
                if len(out) >= MAX_HYPOTHESES:
                    return
                if start_view[row_of[move.to_point]] != empty:
                    continue  # a stopover that began occupied cannot look unchanged
                with played(move):
                    explore(depth + 1, allowed | {move.to_point}, (row_of[move.to_point], move.to_point,
                                                                   move.from_point))
        if depth + 1 < max_plies and not (trail and _is_penalty(trail[-1])):
            passed = rules.unseen_penalty(work, penalty_hint)
            if passed is not None:
                with played(passed, views[-1]):
                    explore(depth + 1, allowed, stopover)

    explore(0, allowed, None)
    return out


def _ply_cost(move: Move, plies: int, views: list[np.ndarray]) -> float:
    """The surprise of the `plies`-th ply of a sequence (`views`: before each ply, then after it)."""
    cost = EXTRA_PLY_COST if plies > 1 else 0.0
    if _is_penalty(move):
        cost += UNSEEN_PENALTY_COST
    if plies >= 3:
        # The same side's last two plies cancel: the second puts back exactly what the first changed.
        before, between, now = views[-4], views[-3], views[-2]
        first = before != between
        if first.any() and np.array_equal(first, now != views[-1]) and np.array_equal(views[-1][first], before[first]):
            cost += ROUND_TRIP_COST
    return cost


def _is_penalty(move: Move) -> bool:
    return bool(getattr(move, "penalty", False))


def _confirmed(evidence: Evidence, before: np.ndarray, after: np.ndarray) -> bool:
    rows = np.flatnonzero(before != after)
    groups = _side_groups(evidence.classes)
    owner = np.zeros(len(evidence.classes), dtype=int)
    for g, members in enumerate(groups):
        owner[members] = g
    for row in rows:
        group_logp = [np.logaddexp.reduce(evidence.logp[row, members]) for members in groups]
        if int(np.argmax(group_logp)) != owner[after[row]]:
            return False
    return True


def _touches_unseen(evidence: Evidence, before: np.ndarray, after: np.ndarray) -> bool:
    return bool(np.any((before != after) & ~evidence.seen))


def _common_prefix(sequences: list[list[Move]]) -> list[Move]:
    if not sequences:
        return []
    prefix = list(sequences[0])
    for moves in sequences[1:]:
        n = 0
        while n < min(len(prefix), len(moves)) and prefix[n] == moves[n]:
            n += 1
        prefix = prefix[:n]
    return prefix


def decide(board: Board, evidence: Evidence, *, max_plies: int = 3, margin: float = COMMIT_MARGIN,
           rules: Rules | None = None, penalty_hint: Move | None = None) -> Verdict:
    """Judge one (smoothed) observation against the last legal position `board` (`penalty_hint`:
    the penalty turn to record if an unseen one explains it best, see `hypotheses`)."""
    rules = rules or rules_for(evidence.game)
    unseen = evidence.unseen_points()
    # Iterative deepening: once the best explanation agrees with the camera's best reading at
    # every seen point, no longer sequence can score higher, so the search stops there. It also
    # stops once the best agrees side by side (`residual`): a longer sequence could only trade
    # one misread kind for another, and a set whose kinds read poorly (many points doubtful)
    # made every look search four plies, seconds each (Cờ Tư Lệnh render 1004). Hidden points
    # leave room for moves under them, but two plies are enough to say the board is occluded.
    for depth in range(1, max(1, max_plies) + 1):
        found = hypotheses(board, evidence, depth, rules, penalty_hint)
        leader = max(found, key=lambda h: h.score)
        if not unseen and not _disagreements(evidence, leader.view):
            break
        if (not unseen or depth >= 2) and not residual(evidence, leader.view):
            break
    null = found[0]
    changed = [evidence.points[i] for i in changed_points(evidence, null.view)]
    if len(found) >= MAX_HYPOTHESES:
        return Verdict("occluded", points=unseen, changed=changed)
    # One group per distinct view: the camera cannot tell apart sequences that look the same.
    groups: dict[bytes, list[Hypothesis]] = {}
    for hyp in found:
        groups.setdefault(hyp.view.tobytes(), []).append(hyp)
    ranked = sorted(groups.values(), key=lambda g: -max(h.score for h in g))
    for group in ranked:
        group.sort(key=lambda h: (-h.score, len(h.moves)))
    best = ranked[0]
    top = best[0]
    runner_score = ranked[1][0].score if len(ranked) > 1 else -math.inf
    gap = top.score - runner_score
    clean = not residual(evidence, top.view)
    if clean and not top.moves:
        if unseen:
            return Verdict("occluded", points=unseen, changed=changed, margin=gap)
        return Verdict("none", changed=changed, margin=gap)
    if clean and unseen and _touches_unseen(evidence, null.view, top.view):
        # The best explanation puts or takes a piece where the camera cannot see: wait.
        return Verdict("occluded", points=unseen, candidates=[top], margin=gap, changed=changed)
    if clean and top.moves and not _confirmed(evidence, null.view, top.view):
        # Every point the explanation changes must show the right side (or emptiness) as the
        # camera's best reading, not merely not contradict it: else look again.
        return Verdict("unsure", candidates=[top], margin=gap, changed=changed)
    if clean and gap >= margin:
        # Transpositions (and Cờ Toán captures by different operations) end on one position:
        # the camera cannot tell their order, the game goes on the same; commit the likeliest.
        same_position = {" ".join(h.fen.split()[:2]) for h in best if len(h.moves) == len(top.moves)}
        if len(same_position) == 1:
            others = [h.moves for h in best[1:] if len(h.moves) == len(top.moves)]
            return Verdict("commit", moves=top.moves, candidates=[top], margin=gap, changed=changed,
                           alternatives=others)
        return Verdict("ambiguous", candidates=[h for h in best if len(h.moves) == len(top.moves)][:6],
                       margin=0.0, changed=changed)
    if clean:
        close = [h for g in ranked for h in g if h.score >= top.score - margin]
        candidates = [h for h in close if h.moves][:8]
        prefix = _common_prefix([c.moves for c in candidates])
        if prefix and len(candidates) == len(close) and not unseen:
            # Every close explanation starts with the same moves: those are certain even if
            # the rest is not yet (the next look decides it).
            return Verdict("commit", moves=prefix, candidates=candidates, margin=top.score - null.score,
                           changed=changed)
        if unseen:
            return Verdict("occluded", points=unseen, candidates=candidates, margin=gap, changed=changed)
        return Verdict("ambiguous", candidates=candidates, margin=gap, changed=changed)
    # No clean explanation, though hypotheses were free to use the unseen points: what the
    # camera does see is wrong: report the points that differ from the closest legal result,
    # preferring the last legal position itself (what changed since the record's last move).
    # Each ply beyond the first counts as one more wrong point: a long sequence that passes a
    # piece through unseen points must not explain away the wrong move a referee is to see.
    closest = min(found, key=lambda h: (len(residual(evidence, h.view)) + max(len(h.moves) - 1, 0),
                                        len(h.moves), -h.score))
    rows = residual(evidence, closest.view)
    if not rows:
        # A legal result agrees with every point side by side, only less likely than one that
        # does not (the kinds of one side confused): nothing to show a referee, look again.
        return Verdict("unsure", candidates=[closest], changed=changed)
    points = [evidence.points[i] for i in rows]
    penalty = [turn for turn, view in rules.penalty_moves(board) if not residual(evidence, view)]
    # Only missing from the closest legal result, not just from the last legal position: a move
    # still waiting to be confirmed when the opponent lifts a piece to think with it (Xiangqi
    # render 1002, ply 152) is no wrong move.
    return Verdict("illegal", points=points, changed=changed, penalty=penalty[:1],
                   missing_only=_only_missing(evidence, closest.view))


def _only_missing(evidence: Evidence, view: np.ndarray) -> bool:
    """Whether every point where the camera clearly disagrees with `view` shows empty where
    `view` has a piece (pieces gone, none come)."""
    return pieces_gone(evidence, view, residual(evidence, view))


def pieces_gone(evidence: Evidence, view: np.ndarray, rows) -> bool:
    """Whether the camera reads empty at every one of `rows` (some at least) where `view` has a piece."""
    empty = evidence.classes.index(EMPTY)
    best = evidence.logp.argmax(axis=1)
    return bool(rows) and all(view[i] != empty and best[i] == empty for i in rows)
