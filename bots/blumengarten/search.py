"""A solver for Blumengarten over a compact, canonical state.

Representation (internal, for speed; the engine checks every line the solver reports):

* a card is an int ``rank << 2 | suit`` (ace 1 … king 13; suits S H D C = 0 … 3),
  so every card is 4 … 55 and fits in six bits;
* a column is one int, six bits per card, the exposed card in the lowest bits
  (``column & 63`` is the exposed card, ``column >> 6`` the rest, 0 an empty column);
* the columns are kept sorted, because their order does not matter: the sorted tuple
  and the bouquet bit set together are a position's key in the transposition table,
  and they determine the foundations (a card in neither place is on its foundation).

Three searches share the time, in turns (:func:`solve`):

* the **prover**, a depth-first search over every move that can matter (see
  :func:`_expand` for the moves left out and why that is safe), with the safe
  foundation moves made at once (see :func:`_settle`) and the children of a position
  tried best first. It keeps a table of every position it generated and never cuts a
  position by depth except at the move cap, so when it runs out of positions without
  having hit the cap, no winning line exists: the deal is **lost**. Only the prover
  proves losses.
* two **scouts**, best-first searches that gamble for speed: positions that differ
  only in the suits of cards that are not next for their foundation count as one
  (their table key *blurs* those suits, so the many reshufflings of equal ranks are
  searched once), and one scout makes every possible foundation move at once, not
  only the safe ones. Either may miss a win, so a scout that runs out of positions
  proves nothing; but between them they find most wins in a few thousand positions.

Positions are judged by :class:`_Judge`: cards on the foundations, how deep the next
few cards of each suit lie, cards stuck over a lower card of their suit, empty columns.
"""

from __future__ import annotations

import heapq
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Final, Literal

from engines.blumengarten import FOUNDATION, BlumengartenState, Move, move
from engines.cards import RANKS, SUITS, Card

Status = Literal["won", "lost", "unknown"]

WON: Final = "won"
LOST: Final = "lost"
UNKNOWN: Final = "unknown"

_EMPTY: Final = 0
"""Target of a step into an empty column (otherwise a step's target is the card it
goes onto, or _TO_FOUNDATION)."""
_TO_FOUNDATION: Final = -1
_ALL_CARDS: Final = 52
_KING: Final = 13

Step = tuple[int, int]
"""One elementary move inside the search: (card, target)."""
Columns = tuple[int, ...]
Key = tuple[Columns, int]
"""A position: the sorted columns and the bouquet bit set."""
Child = tuple[Columns, int, tuple[int, ...], tuple[Step, ...]]
"""A successor: columns, bouquet, foundations, and the steps that lead to it (the move,
then the foundation moves made at once after it)."""


@dataclass(frozen=True)
class SolveResult:
    """What the solver found.

    Attributes:
        status: ``won`` (``line`` wins), ``lost`` (proved: no winning line exists) or
            ``unknown`` (the time or node budget ran out first).
        line: the winning line, or else the line to the best score found, as engine
            actions from the position that was solved.
        score: the cards on the foundations at the end of ``line``.
        nodes: positions expanded by all the searches together.
        seconds: time spent.
    """

    status: Status
    line: tuple[Move, ...]
    score: int
    nodes: int
    seconds: float


def card_code(card: Card) -> int:
    """The search's int for ``card``."""
    return card.rank << 2 | SUITS.index(card[1])


def code_card(code: int) -> Card:
    """The card of a search int."""
    return Card(RANKS[(code >> 2) - 1] + SUITS[code & 3])


def solve(
    state: BlumengartenState,
    *,
    time_limit: float | None = 10.0,
    node_limit: int | None = None,
) -> SolveResult:
    """Search ``state`` for a winning line within the time and node budgets.

    The line found (winning, or best-scoring) is replayed through the engine's checked
    path before it is returned, so it is legal from ``state``.

    Raises:
        ValueError: ``state`` is already over.
    """
    if state.is_terminal():
        raise ValueError("the game is already over")
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    columns = tuple(sorted(_pack(column) for column in state.columns))
    bouquet = 0
    for card in state.bouquet:
        bouquet |= 1 << card_code(card)
    foundations = tuple(state.foundations[suit] for suit in SUITS)
    sequences: bool = state.options.sequences
    start = (columns, bouquet, foundations, sequences, state.moves_left)
    prover = _DepthFirst(*start)
    searches: list[_Search] = [_BestFirst(*start, eager=True), _BestFirst(*start, eager=False)]
    searches.append(prover)
    turns = list(searches)
    status: Status = UNKNOWN
    while turns:
        if deadline is not None and time.perf_counter() > deadline:
            break
        if node_limit is not None and sum(s.nodes for s in searches) >= node_limit:
            break
        search = turns.pop(0)
        outcome = search.run(search.slice)
        if outcome == WON:
            status = WON
            steps = search.winning_steps()
            break
        if outcome is None:
            turns.append(search)
        elif search is prover and not prover.cut:
            status = LOST
            break
    if status != WON:
        steps = max((search.best_steps() for search in searches), key=lambda best: best[0])[1]
    # A line can only be too long when the foundation moves made at the very start
    # already overrun the move cap; its first moves are still legal.
    line = _to_engine_line(state, steps)[: state.moves_left]
    final = state.clone()
    for action in line:
        final.apply_action(action)
    return SolveResult(
        status=status,
        line=tuple(line),
        score=final.score,
        nodes=sum(search.nodes for search in searches),
        seconds=time.perf_counter() - started,
    )


def _pack(cards: tuple[Card, ...]) -> int:
    column = 0
    for card in cards:
        column = column << 6 | card_code(card)
    return column


def _to_engine_line(state: BlumengartenState, steps: list[Step]) -> list[Move]:
    """Turn internal steps (card onto card / into an empty column / to the foundation)
    into engine actions, which name target columns by number."""
    columns = [list(column) for column in state.columns]
    line = []
    for code, target in steps:
        card = code_card(code)
        moved = [card]
        for column in columns:
            if card in column:
                at = column.index(card)
                moved = column[at:]
                del column[at:]
                break
        if target == _TO_FOUNDATION:
            line.append(move(card, FOUNDATION))
            continue
        if target == _EMPTY:
            index = next(i for i, column in enumerate(columns) if not column)
        else:
            onto = code_card(target)
            index = next(i for i, column in enumerate(columns) if column and column[-1] == onto)
        columns[index].extend(moved)
        line.append(move(card, index))
    return line


# -- the searches -------------------------------------------------------------------


class _Search(ABC):
    """What :func:`solve` needs of a search: resumable runs and the best line so far."""

    slice: int
    """Positions to expand per turn."""
    nodes: int

    @abstractmethod
    def run(self, budget: int) -> Status | None:
        """Expand up to ``budget`` positions; WON, LOST (nothing left to search) or None."""

    @abstractmethod
    def winning_steps(self) -> list[Step]:
        """The steps of the winning line, after ``run`` returned WON."""

    @abstractmethod
    def best_steps(self) -> tuple[int, list[Step]]:
        """The best score reached within the move cap and the steps to it."""


class _DepthFirst(_Search):
    """The prover: depth-first over every move that can matter, safe foundation moves
    made at once, best child first, exact positions in the table."""

    slice = 500  # it rarely wins; its share matters once both scouts have run dry

    def __init__(
        self,
        columns: Columns,
        bouquet: int,
        foundations: tuple[int, ...],
        sequences: bool,
        moves_left: int,
    ) -> None:
        self.sequences = sequences
        self.moves_left = moves_left
        self.nodes = 0
        self.cut = False
        self.judge = _Judge()
        mutable = list(columns)
        mutable_foundations = list(foundations)
        root_steps: list[Step] = []
        bouquet = _settle(mutable, bouquet, mutable_foundations, root_steps, eager=False)
        mutable.sort()
        root: Child = (tuple(mutable), bouquet, tuple(mutable_foundations), tuple(root_steps))
        self.seen: set[Key] = {(root[0], root[1])}
        # stack[k], path[k] and moves[k] belong to the k-th position on the current line:
        # its children still to try, the steps that led to it and its number of moves.
        self.stack: list[list[Child]] = [[]]
        self.path: list[tuple[Step, ...]] = [()]
        self.moves: list[int] = [0]
        self.pending: Child | None = root
        self.best_score = -1
        self.best_line: list[Step] = []

    def run(self, budget: int) -> Status | None:
        stack, path, moves, seen = self.stack, self.path, self.moves, self.seen
        sequences, moves_left, value = self.sequences, self.moves_left, self.judge.value
        expanded = 0
        while stack:
            if self.pending is not None:
                columns, bouquet, foundations, steps = self.pending
                self.pending = None
            else:
                children = stack[-1]
                if not children:
                    stack.pop()
                    path.pop()
                    moves.pop()
                    continue
                columns, bouquet, foundations, steps = children.pop()
            count = moves[-1] + len(steps)
            if count > moves_left:
                self.cut = True
                continue
            score = sum(foundations)
            if score > self.best_score:
                self.best_score = score
                self.best_line = [step for part in path for step in part]
                self.best_line.extend(steps)
                if score == _ALL_CARDS:
                    self.nodes += expanded
                    return WON
            if count == moves_left:
                self.cut = True
                continue
            expanded += 1
            fresh = []
            for child in _expand(columns, bouquet, foundations, sequences, eager=False):
                key = (child[0], child[1])
                if key not in seen:
                    seen.add(key)
                    fresh.append((value(child[0], child[2]), child))
            fresh.sort(key=_first)
            stack.append([child for _, child in fresh])
            path.append(steps)
            moves.append(count)
            if expanded >= budget:
                self.nodes += expanded
                return None
        self.nodes += expanded
        return LOST

    def winning_steps(self) -> list[Step]:
        return self.best_line

    def best_steps(self) -> tuple[int, list[Step]]:
        return self.best_score, self.best_line


class _BestFirst(_Search):
    """A scout: best-first over positions with blurred keys (see the module docstring);
    with ``eager``, every foundation move is made at once, else only the safe ones."""

    def __init__(
        self,
        columns: Columns,
        bouquet: int,
        foundations: tuple[int, ...],
        sequences: bool,
        moves_left: int,
        *,
        eager: bool,
    ) -> None:
        self.sequences = sequences
        self.moves_left = moves_left
        self.eager = eager
        self.slice = 2000 if eager else 1000
        self.nodes = 0
        self.judge = _Judge()
        self._blurred_columns: dict[int, int] = {}
        self._blurred_bouquets: dict[int, int] = {}
        mutable = list(columns)
        mutable_foundations = list(foundations)
        root_steps: list[Step] = []
        bouquet = _settle(mutable, bouquet, mutable_foundations, root_steps, eager=eager)
        mutable.sort()
        root_foundations = tuple(mutable_foundations)
        root_key = self._key(tuple(mutable), bouquet, root_foundations)
        self.parents: dict[tuple[int, ...], tuple[tuple[int, ...] | None, tuple[Step, ...]]] = {
            root_key: (None, tuple(root_steps))
        }
        self.heap: list[tuple[int, int, Columns, int, tuple[int, ...], int]] = []
        if len(root_steps) <= moves_left:
            self.heap.append((0, 0, tuple(mutable), bouquet, root_foundations, len(root_steps)))
        self.counter = 0
        self.best: tuple[int, tuple[int, ...]] = (sum(root_foundations), root_key)

    def run(self, budget: int) -> Status | None:
        heap, parents, key_of = self.heap, self.parents, self._key
        sequences, moves_left, eager = self.sequences, self.moves_left, self.eager
        value = self.judge.value
        expanded = 0
        counter = self.counter
        best_score = self.best[0]
        while heap and expanded < budget:
            _, _, columns, bouquet, foundations, moves = heapq.heappop(heap)
            expanded += 1
            key = key_of(columns, bouquet, foundations)
            for child in _expand(columns, bouquet, foundations, sequences, eager=eager):
                child_moves = moves + len(child[3])
                if child_moves > moves_left:
                    continue
                child_key = key_of(child[0], child[1], child[2])
                if child_key in parents:
                    continue
                parents[child_key] = (key, child[3])
                score = sum(child[2])
                if score > best_score:
                    best_score = score
                    self.best = (score, child_key)
                    if score == _ALL_CARDS:
                        self.nodes += expanded
                        return WON
                if child_moves < moves_left:
                    counter += 1
                    heapq.heappush(
                        heap,
                        (
                            -value(child[0], child[2]),
                            -counter,  # ties: the newest first, which dives deeper
                            child[0],
                            child[1],
                            child[2],
                            child_moves,
                        ),
                    )
        self.counter = counter
        self.nodes += expanded
        return None if heap else LOST

    def _key(self, columns: Columns, bouquet: int, foundations: tuple[int, ...]) -> tuple[int, ...]:
        """The blurred key: in the columns, every card but the next of its suit shows
        only its rank; the bouquet is its next-of-suit cards plus a count per rank."""
        tag = foundations[0] | foundations[1] << 4 | foundations[2] << 8 | foundations[3] << 12
        cache = self._blurred_columns
        blurred = []
        for column in columns:
            entry = column << 16 | tag
            value = cache.get(entry)
            if value is None:
                value = _blur_column(column, foundations)
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                cache[entry] = value
            blurred.append(value)
        blurred.sort()
        near = (
            1 << ((foundations[0] + 1) << 2)
            | 1 << ((foundations[1] + 1) << 2 | 1)
            | 1 << ((foundations[2] + 1) << 2 | 2)
            | 1 << ((foundations[3] + 1) << 2 | 3)
        )
        far = bouquet & ~near
        counts = self._blurred_bouquets.get(far)
        if counts is None:
            counts = 0
            for rank in range(1, _KING + 1):
                counts |= _NIBBLE_COUNT[far >> (rank << 2) & 15] << (3 * rank)
            if len(self._blurred_bouquets) >= _CACHE_LIMIT:
                self._blurred_bouquets.clear()
            self._blurred_bouquets[far] = counts
        blurred.append(bouquet & near)
        blurred.append(counts)
        return tuple(blurred)

    def _steps_to(self, key: tuple[int, ...]) -> list[Step]:
        parts: list[tuple[Step, ...]] = []
        at: tuple[int, ...] | None = key
        while at is not None:
            at, steps = self.parents[at]
            parts.append(steps)
        return [step for steps in reversed(parts) for step in steps]

    def winning_steps(self) -> list[Step]:
        return self._steps_to(self.best[1])

    def best_steps(self) -> tuple[int, list[Step]]:
        return self.best[0], self._steps_to(self.best[1])


_NIBBLE_COUNT: Final = tuple(bin(nibble).count("1") for nibble in range(16))


def _blur_column(column: int, foundations: tuple[int, ...]) -> int:
    """The column with seven bits per card: the next card of a suit as it is, every
    other card as its rank with bit 64 set."""
    blurred = 0
    shift = 0
    while column:
        card = column & 63
        if (card >> 2) - foundations[card & 3] > 1:
            card = (card >> 2) << 2 | 64
        blurred |= card << shift
        shift += 7
        column >>= 6
    return blurred


def _first(pair: tuple[int, Child]) -> int:
    return pair[0]


# -- moves ------------------------------------------------------------------------------


def _settle(
    columns: list[int], bouquet: int, foundations: list[int], steps: list[Step], *, eager: bool
) -> int:
    """Make foundation moves at once, in place, appending them to ``steps``: every
    possible one when ``eager`` (the scout's gamble), else only the safe ones.

    A card of rank r whose foundation is at r − 1 is *safe* when every foundation is
    at least at r − 2. Proof that moving it at once never loses a win: in play it
    could only serve as a base for cards of rank r − 1 (in a column, or after being
    laid on one from the bouquet). Every card of rank r − 2 is already on a
    foundation, so each rank r − 1 card that could be laid on it can go to its own
    foundation instead, and nothing can ever be laid on such a card either. Replaying
    any winning line with these cards on the foundations early (and their later moves
    skipped) is therefore legal move by move: every column shows the same exposed card
    as in the original line, or is empty where the original is not, and the
    foundations hold the same cards plus the early ones. The replay wins in no more
    moves.
    """
    while True:
        floor = 99 if eager else min(foundations) + 2
        moved = False
        for suit in range(4):
            rank = foundations[suit] + 1
            if rank > floor or rank > _KING:
                continue
            code = rank << 2 | suit
            bit = 1 << code
            if bouquet & bit:
                bouquet ^= bit
            else:
                for index, column in enumerate(columns):
                    if column & 63 == code and column:
                        columns[index] = column >> 6
                        break
                else:
                    continue
            foundations[suit] = rank
            steps.append((code, _TO_FOUNDATION))
            moved = True
        if not moved:
            return bouquet


_BOUQUET_CARDS: Final = tuple(
    tuple(
        tuple(rank << 2 | suit for suit in range(4) if nibble >> suit & 1) for nibble in range(16)
    )
    for rank in range(_KING + 1)
)
"""``_BOUQUET_CARDS[rank][bouquet >> (rank << 2) & 15]``: the bouquet's cards of a rank."""


def _expand(
    columns: Columns, bouquet: int, foundations: tuple[int, ...], sequences: bool, *, eager: bool
) -> list[Child]:
    """The successors of a position, each with the foundation moves made at once after
    it (all of them when ``eager``, else the safe ones) already applied.

    Two kinds of legal moves are never generated, because a winning line never needs
    them (each is *dominated*):

    * a bouquet card into an empty column: keep it in the bouquet and put whatever
      would have been laid on it into the empty column instead; the bouquet card can
      still go wherever it would have gone later, so every later move stays legal;
    * a bouquet card onto a column, unless a card from a column follows on top of it
      at once (possibly over several bouquet cards, a *bridge*): the bouquet card can
      wait in the bouquet until just before something is laid on it, since meanwhile
      no move uses it or the card it covers. A bridge is one move here.

    Moving the only card (or, in ``sequences``, the whole column) into an empty column
    only renames the columns, so it is left out as well.
    """
    result: list[Child] = []
    count = len(columns)
    has_empty = columns[0] == 0  # the columns are sorted, empty ones first
    takers: list[list[int]] = [[] for _ in range(15)]  # column indexes by exposed rank
    for index in range(count):
        column = columns[index]
        if column:
            takers[(column & 63) >> 2].append(index)

    def add(new_columns: list[int], new_bouquet: int, source: int, steps: tuple[Step, ...]) -> None:
        # ``source`` is the column a card left (-1: none); its new exposed card, or a
        # raised foundation, is the only thing that can make a foundation move possible.
        exposed = new_columns[source] & 63 if source >= 0 else 0
        if source < 0 or (exposed and foundations[exposed & 3] == (exposed >> 2) - 1):
            new_foundations = list(foundations)
            if source < 0:
                new_foundations[steps[0][0] & 3] += 1
            settled: list[Step] = list(steps)
            new_bouquet = _settle(new_columns, new_bouquet, new_foundations, settled, eager=eager)
            new_columns.sort()
            result.append((tuple(new_columns), new_bouquet, tuple(new_foundations), tuple(settled)))
        else:
            new_columns.sort()
            result.append((tuple(new_columns), new_bouquet, foundations, steps))

    # foundation moves not yet made (an eager search has made them all)
    if not eager:
        for suit in range(4):
            rank = foundations[suit] + 1
            if rank > _KING:
                continue
            code = rank << 2 | suit
            if bouquet >> code & 1:
                add(list(columns), bouquet ^ (1 << code), -1, ((code, _TO_FOUNDATION),))
                continue
            for index in takers[rank]:
                if columns[index] & 63 == code:
                    new_columns = list(columns)
                    new_columns[index] >>= 6
                    add(new_columns, bouquet, -1, ((code, _TO_FOUNDATION),))
    for source in range(count):
        column = columns[source]
        if not column:
            continue
        size = 0
        rest = column
        previous_rank = 0
        while rest:
            code = rest & 63
            rank = code >> 2
            if size and rank != previous_rank + 1:
                break
            size += 1
            rest >>= 6
            shift = 6 * size
            run = column & ((1 << shift) - 1)
            for target in takers[rank + 1]:
                if target != source:
                    new_columns = list(columns)
                    new_columns[source] = rest
                    new_columns[target] = columns[target] << shift | run
                    add(new_columns, bouquet, source, ((code, columns[target] & 63),))
            if has_empty and rest:
                new_columns = list(columns)
                new_columns[source] = rest
                new_columns[0] = run
                add(new_columns, bouquet, source, ((code, _EMPTY),))
            if bouquet and rank < _KING - 1:
                # Bridges: bouquet cards of ranks rank+1, rank+2, … laid descending onto a
                # column, then this card (with its run) on top.
                chains: list[tuple[int, ...]] = [()]
                chain_rank = rank
                while chain_rank < _KING - 1:
                    chain_rank += 1
                    in_bouquet = _BOUQUET_CARDS[chain_rank][bouquet >> (chain_rank << 2) & 15]
                    if not in_bouquet:
                        break
                    chains = [(card, *chain) for chain in chains for card in in_bouquet]
                    for target in takers[chain_rank + 1]:
                        if target == source:
                            continue
                        below = columns[target]
                        for chain in chains:
                            stacked = below
                            steps: list[Step] = []
                            onto = below & 63
                            used = 0
                            for card in chain:
                                stacked = stacked << 6 | card
                                steps.append((card, onto))
                                onto = card
                                used |= 1 << card
                            steps.append((code, onto))
                            new_columns = list(columns)
                            new_columns[source] = rest
                            new_columns[target] = stacked << shift | run
                            add(new_columns, bouquet ^ used, source, tuple(steps))
            if not sequences:
                break
            previous_rank = rank
    return result


# -- judging positions ------------------------------------------------------------------

_URGENCY: Final = 4
"""Cards up to this many ranks above their foundation count as wanted soon."""
_STUCK_WEIGHT: Final = 3
_EMPTY_COLUMN_VALUE: Final = 4
_FOUNDATION_VALUE: Final = 20
_CACHE_LIMIT: Final = 1 << 20
"""Entries a search's caches may hold before they start afresh."""


class _Judge:
    """Values positions, higher is better: 20 per card on a foundation, 4 per empty
    column, −3 per card stuck over a lower card of its suit (it must move aside once
    more) and −u per card lying above a wanted card, where u = 4 for the next card of
    a suit, 3 for the one after, …; column costs are cached per foundation heights."""

    def __init__(self) -> None:
        self._costs: dict[int, int] = {}

    def value(self, columns: Columns, foundations: tuple[int, ...]) -> int:
        score = _FOUNDATION_VALUE * (
            foundations[0] + foundations[1] + foundations[2] + foundations[3]
        )
        tag = foundations[0] | foundations[1] << 4 | foundations[2] << 8 | foundations[3] << 12
        costs = self._costs
        for column in columns:
            if not column:
                score += _EMPTY_COLUMN_VALUE
                continue
            entry = column << 16 | tag
            cost = costs.get(entry)
            if cost is None:
                cost = _column_cost(column, foundations)
                if len(costs) >= _CACHE_LIMIT:
                    costs.clear()
                costs[entry] = cost
            score -= cost
        return score


def _column_cost(column: int, foundations: tuple[int, ...]) -> int:
    cards = []
    rest = column
    while rest:
        cards.append(rest & 63)
        rest >>= 6
    cost = 0
    for depth, card in enumerate(cards):  # from the exposed card down
        urgency = _URGENCY - ((card >> 2) - foundations[card & 3] - 1)
        if urgency > 0:
            cost += urgency * depth
        suit = card & 3
        if any(lower & 3 == suit and lower < card for lower in cards[depth + 1 :]):
            cost += _STUCK_WEIGHT
    return cost


def ranked_moves(state: BlumengartenState) -> list[tuple[int, int, tuple[Move, ...], Key]]:
    """Every move worth making from ``state`` (see :func:`_expand`), each followed by
    every foundation move it makes possible: ``(value, bouquet cards spent in the
    garden, engine actions, key of the position reached)``, best value first.

    The value looks one move further: it is the better of the position's own value
    and that of its best successor less one point."""
    columns = tuple(sorted(_pack(column) for column in state.columns))
    bouquet = 0
    for card in state.bouquet:
        bouquet |= 1 << card_code(card)
    foundations = tuple(state.foundations[suit] for suit in SUITS)
    judge = _Judge()
    ranked = []
    for child in _expand(columns, bouquet, foundations, state.options.sequences, eager=True):
        spent = sum(
            1 for code, target in child[3] if bouquet >> code & 1 and target != _TO_FOUNDATION
        )
        line = _to_engine_line(state, list(child[3]))
        value = judge.value(child[0], child[2])
        for after in _expand(child[0], child[1], child[2], state.options.sequences, eager=True):
            value = max(value, judge.value(after[0], after[2]) - 1)
        ranked.append((value, spent, tuple(line), (child[0], child[1])))
    ranked.sort(key=lambda entry: -entry[0])
    return ranked


def position_key(state: BlumengartenState) -> Key:
    """The key of ``state``'s position (the same whatever the order of the columns)."""
    bouquet = 0
    for card in state.bouquet:
        bouquet |= 1 << card_code(card)
    return tuple(sorted(_pack(column) for column in state.columns)), bouquet
