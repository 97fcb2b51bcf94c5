"""Table state codec: one compact JSON text per :class:`TableState`, for start-up snapshots.

``load_state(dump_state(s)) == s`` for every reachable state: every field of every state class is
written (cards as two-letter codes run together, ``"5SJHKD"``; enums by value; tuples as JSON arrays
and read back as tuples). The text carries a format version (``"v"``). Reading is strict: an object
must hold exactly the fields its class has, so a snapshot written before a field was added (or after
one was removed) is refused with :class:`StateFormatError` and the caller replays the action log
instead. Bump :data:`FORMAT_VERSION` whenever the layout changes.

>>> from .state import initial_state
>>> s = initial_state(table_id=7)
>>> load_state(dump_state(s)) == s
True
"""

from __future__ import annotations

import dataclasses
import json
import operator
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, Final, TypeVar

from . import _fast
from .cards import ALL_CARDS, Card, Suit
from .errors import RuleViolation
from .melds import Condition, Meld, MeldKind
from .rules import Rules
from .state import (
    DrawSource,
    EndReason,
    ForceBack,
    HandState,
    Phase,
    PlayerHand,
    PlayerStatus,
    Seat,
    Step,
    TableState,
    Turn,
)

__all__ = ["FORMAT_VERSION", "StateFormatError", "dump_state", "load_state"]

FORMAT_VERSION: Final = 1
"""The layout written by :func:`dump_state`; :func:`load_state` reads only this version."""


class StateFormatError(ValueError):
    """A state text that is not valid JSON, has another format version, or does not describe a valid state."""


_E = TypeVar("_E", bound=Enum)
_T = TypeVar("_T")

_CARD_BY_CODE: Final[dict[str, Card]] = {str(c): c for c in ALL_CARDS}
_CODE_BY_CARD: Final[dict[Card, str]] = {c: code for code, c in _CARD_BY_CODE.items()}


def _names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


_SEAT: Final = _names(Seat)
_MELD: Final = _names(Meld)
_PLAYER: Final = _names(PlayerHand)
_TURN: Final = _names(Turn)
_FORCE_BACK: Final = _names(ForceBack)
_HAND: Final = _names(HandState)
_TABLE: Final = _names(TableState)
_RULES: Final = _names(Rules)

# --------------------------------------------------------------------------------------------- writing


def dump_state(state: TableState) -> str:
    """The state as compact JSON text (ASCII), with the format version."""
    return json.dumps({"v": FORMAT_VERSION, "state": _w_table(state)}, separators=(",", ":"))


def _w_cards(cards: Sequence[Card]) -> str:
    return "".join([_CODE_BY_CARD[c] for c in cards])


def _w_card(card: Card | None) -> str | None:
    return None if card is None else _CODE_BY_CARD[card]


def _w_enum(value: Enum | None) -> object:
    return None if value is None else value.value


def _w_rules(rules: Rules) -> dict[str, object]:
    out: dict[str, object] = {}
    for f in dataclasses.fields(Rules):
        value = getattr(rules, f.name)
        if isinstance(value, Enum):
            out[f.name] = value.value
        elif isinstance(value, tuple):
            out[f.name] = _w_cards(value)
        else:
            out[f.name] = value
    return out


def _w_seat(seat: Seat | None) -> dict[str, object] | None:
    if seat is None:
        return None
    return {
        "player_id": seat.player_id,
        "stack": seat.stack,
        "doubles": seat.doubles,
        "away": seat.away,
        "leaving": seat.leaving,
    }


def _w_meld(meld: Meld) -> dict[str, object]:
    return {
        "id": meld.id,
        "kind": meld.kind.value,
        "cards": _w_cards(meld.cards),
        "condition": meld.condition.value,
        "suit": _w_enum(meld.suit),
        "paid": meld.paid,
        "paid_high": meld.paid_high,
        "valid": meld.valid,
    }


def _w_player(p: PlayerHand | None) -> dict[str, object] | None:
    if p is None:
        return None
    return {
        "seat": p.seat,
        "status": p.status.value,
        "multiplier": p.multiplier,
        "hand": _w_cards(p.hand),
        "melds": [_w_meld(m) for m in p.melds],
        "next_meld_id": p.next_meld_id,
        "received": [list(r) for r in p.received],
        "unclaimed": p.unclaimed,
        "timeouts": p.timeouts,
    }


def _w_turn(t: Turn | None) -> dict[str, object] | None:
    if t is None:
        return None
    return {
        "seat": t.seat,
        "step": t.step.value,
        "drawn": _w_card(t.drawn),
        "source": _w_enum(t.source),
        "extra_pluck": t.extra_pluck,
        "forced_back": t.forced_back,
        "new_units": t.new_units,
        "enhanced_units": t.enhanced_units,
    }


def _w_force_back(fb: ForceBack) -> dict[str, object]:
    return {
        "card": _w_card(fb.card),
        "owner": fb.owner,
        "position": fb.position,
        "draws": fb.draws,
        "drawers": list(fb.drawers),
        "pluck": fb.pluck,
    }


def _w_hand(h: HandState | None) -> dict[str, object] | None:
    if h is None:
        return None
    return {
        "hand_no": h.hand_no,
        "seed": h.seed,
        "first": h.first,
        "order": list(h.order),
        "players": [_w_player(p) for p in h.players],
        "phase": h.phase.value,
        "declare_pos": h.declare_pos,
        "draws": h.draws,
        "stock": _w_cards(h.stock),
        "muck": _w_cards(h.muck),
        "dead": _w_cards(h.dead),
        "option": _w_card(h.option),
        "option_from": h.option_from,
        "turn": _w_turn(h.turn),
        "suspended": _w_turn(h.suspended),
        "force_backs": [_w_force_back(fb) for fb in h.force_backs],
        "make_good": None if h.make_good is None else list(h.make_good),
        "split_offer": h.split_offer,
        "reshuffled": h.reshuffled,
        "solo": h.solo,
        "winner": h.winner,
        "end_reason": _w_enum(h.end_reason),
    }


def _w_table(s: TableState) -> dict[str, object]:
    return {
        "rules": _w_rules(s.rules),
        "table_id": s.table_id,
        "seats": [_w_seat(seat) for seat in s.seats],
        "singles_tops": s.singles_tops,
        "doubles_tops": s.doubles_tops,
        "house": s.house,
        "married": [list(pair) for pair in s.married],
        "previous_winner": s.previous_winner,
        "previous_first": s.previous_first,
        "hand_no": s.hand_no,
        "hand": _w_hand(s.hand),
        "last_hand": _w_hand(s.last_hand),
        "seq": s.seq,
    }


# --------------------------------------------------------------------------------------------- reading


def load_state(text: str) -> TableState:
    """The state written by :func:`dump_state`.

    Raises:
        StateFormatError: not JSON, an unknown format version, or a missing, extra or ill-typed field.
    """
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as exc:  # JSONDecodeError is a ValueError
        raise StateFormatError(f"state text is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.keys() != {"v", "state"}:
        raise StateFormatError("state text must be an object with 'v' and 'state'")
    version = data["v"]
    if type(version) is not int or version != FORMAT_VERSION:
        raise StateFormatError(f"unknown state format version {version!r} (this code reads {FORMAT_VERSION})")
    return _r_table(_Obj(data["state"], None, "state", _TABLE))


def _fail(where: str, expected: str, value: object) -> StateFormatError:
    return StateFormatError(f"{where}: expected {expected}, got {repr(value)[:60]}")


def _enum_values(cls: type[_E]) -> dict[object, _E]:
    return {m.value: m for m in cls}


# A member by value, without EnumType.__call__ (slow in Python 3.11).
_ENUMS: Final[dict[type[Enum], dict[object, Any]]] = {
    cls: _enum_values(cls) for cls in (DrawSource, EndReason, Phase, PlayerStatus, Step, Condition, MeldKind, Suit)
}
_NEW_SEAT: Final = _fast.builder(Seat)
_NEW_MELD: Final = _fast.builder(Meld)
_NEW_PLAYER: Final = _fast.builder(PlayerHand)
_NEW_TURN: Final = _fast.builder(Turn)
_NEW_FORCE_BACK: Final = _fast.builder(ForceBack)
_NEW_HAND: Final = _fast.builder(HandState)
_NEW_TABLE: Final = _fast.builder(TableState)
_RULES_SEEN: dict[tuple[tuple[str, type, object], ...], Rules] = {}
"""Rules already read, by their JSON fields: tables sharing a configuration share one ``Rules`` object."""


class _Obj:
    """One JSON object that must hold exactly ``names``, with typed readers of its fields.

    The path shown in errors (``state.hand.players[2].melds[0].cards``) is only built when reading fails.
    """

    __slots__ = ("_d", "_key", "_parent")

    def __init__(self, value: object, parent: _Obj | None, key: str | int, names: frozenset[str]) -> None:
        self._parent = parent
        self._key = key
        if not isinstance(value, dict):
            raise _fail(self.path(), "an object", value)
        if value.keys() != names:
            missing = sorted(names - value.keys())
            extra = sorted(value.keys() - names)
            raise StateFormatError(f"{self.path()}: missing fields {missing}, unknown fields {extra}")
        self._d: dict[str, Any] = value

    def path(self, name: str | int | None = None) -> str:
        parts: list[str] = [] if name is None else [f"[{name}]" if isinstance(name, int) else f".{name}"]
        node: _Obj | None = self
        while node is not None:
            key = node._key
            parts.append(f"[{key}]" if isinstance(key, int) else (f".{key}" if node._parent is not None else key))
            node = node._parent
        return "".join(reversed(parts))

    def integer(self, name: str) -> int:
        v = self._d[name]
        if type(v) is int:
            return v
        raise _fail(self.path(name), "an integer", v)

    def opt_int(self, name: str) -> int | None:
        v = self._d[name]
        if v is None or type(v) is int:
            return v
        raise _fail(self.path(name), "an integer or null", v)

    def flag(self, name: str) -> bool:
        v = self._d[name]
        if v is True or v is False:
            return v
        raise _fail(self.path(name), "true or false", v)

    def text(self, name: str) -> str:
        v = self._d[name]
        if type(v) is str:
            return v
        raise _fail(self.path(name), "a string", v)

    def enum(self, cls: type[_E], name: str) -> _E:
        v = self._d[name]
        member: _E | None = _ENUMS[cls].get(v) if isinstance(v, str) else None
        if member is None:
            raise _fail(self.path(name), f"a {cls.__name__}", v)
        return member

    def opt_enum(self, cls: type[_E], name: str) -> _E | None:
        return None if self._d[name] is None else self.enum(cls, name)

    def cards(self, name: str) -> tuple[Card, ...]:
        v = self._d[name]
        if type(v) is str and not len(v) % 2:
            chars = iter(v)
            try:
                return tuple(map(_CARD_BY_CODE.__getitem__, map(operator.add, chars, chars)))  # "5SJH" -> 5S, JH
            except KeyError:
                pass
        raise _fail(self.path(name), "two-letter card codes", v)

    def card(self, name: str) -> Card:
        v = self._d[name]
        card = _CARD_BY_CODE.get(v) if type(v) is str else None
        if card is None:
            raise _fail(self.path(name), "one card", v)
        return card

    def opt_card(self, name: str) -> Card | None:
        return None if self._d[name] is None else self.card(name)

    def _list(self, name: str) -> list[Any]:
        v = self._d[name]
        if type(v) is list:
            return v
        raise _fail(self.path(name), "an array", v)

    def ints(self, name: str) -> tuple[int, ...]:
        items = self._list(name)
        if all(type(v) is int for v in items):
            return tuple(items)
        raise _fail(self.path(name), "an array of integers", items)

    def pair(self, name: str) -> tuple[int, int] | None:
        v = self._d[name]
        if v is None:
            return None
        return _pair(v, self.path, name)

    def pairs(self, name: str) -> tuple[tuple[int, int], ...]:
        return tuple([_pair(v, self.path, name) for v in self._list(name)])

    def obj(self, name: str, names: frozenset[str], read: Callable[[_Obj], _T]) -> _T:
        return read(_Obj(self._d[name], self, name, names))

    def opt_obj(self, name: str, names: frozenset[str], read: Callable[[_Obj], _T]) -> _T | None:
        v = self._d[name]
        return None if v is None else read(_Obj(v, self, name, names))

    def objs(self, name: str, names: frozenset[str], read: Callable[[_Obj], _T]) -> tuple[_T, ...]:
        node = _Obj._item(self, name)
        return tuple([read(_Obj(v, node, i, names)) for i, v in enumerate(self._list(name))])

    def opt_objs(self, name: str, names: frozenset[str], read: Callable[[_Obj], _T]) -> tuple[_T | None, ...]:
        node = _Obj._item(self, name)
        return tuple([None if v is None else read(_Obj(v, node, i, names)) for i, v in enumerate(self._list(name))])

    @staticmethod
    def _item(parent: _Obj, name: str) -> _Obj:
        """A path node standing for the array ``parent.name`` (its elements hang under it by index)."""
        node = object.__new__(_Obj)
        node._parent = parent
        node._key = name
        node._d = {}
        return node

    def rules(self) -> Rules:
        key = tuple([(k, type(v), v) for k, v in self._d.items()])  # typed: 1 and true must not match
        try:
            cached = _RULES_SEEN.get(key)
        except TypeError:  # an unhashable value: reported below
            cached = None
        if cached is not None:
            return cached
        kwargs: dict[str, Any] = {}
        for f in dataclasses.fields(Rules):
            default = f.default
            if isinstance(default, Enum):
                kwargs[f.name] = self._rules_enum(type(default), f.name)
            elif isinstance(default, bool):
                kwargs[f.name] = self.flag(f.name)
            elif isinstance(default, int):
                kwargs[f.name] = self.integer(f.name)
            elif isinstance(default, str):
                kwargs[f.name] = self.text(f.name)
            elif isinstance(default, tuple):
                kwargs[f.name] = self.cards(f.name)
            else:  # pragma: no cover - a new kind of rules field needs a reader here
                raise TypeError(f"Rules.{f.name}: no codec for {type(default).__name__}")
        try:
            rules = Rules(**kwargs)
        except RuleViolation as exc:
            raise StateFormatError(f"{self.path()}: invalid rules: {exc}") from None
        if len(_RULES_SEEN) >= 256:
            _RULES_SEEN.clear()
        _RULES_SEEN[key] = rules
        return rules

    def _rules_enum(self, cls: type[_E], name: str) -> _E:
        v = self._d[name]
        try:
            return cls(v)
        except ValueError:
            raise _fail(self.path(name), f"a {cls.__name__}", v) from None


def _pair(value: object, path: Callable[[str], str], name: str) -> tuple[int, int]:
    if type(value) is list and len(value) == 2 and type(value[0]) is int and type(value[1]) is int:
        return value[0], value[1]
    raise _fail(path(name), "a pair of integers", value)


def _r_seat(o: _Obj) -> Seat:
    return _NEW_SEAT(
        player_id=o.integer("player_id"),
        stack=o.integer("stack"),
        doubles=o.flag("doubles"),
        away=o.flag("away"),
        leaving=o.flag("leaving"),
    )


def _r_meld(o: _Obj) -> Meld:
    return _NEW_MELD(
        id=o.integer("id"),
        kind=o.enum(MeldKind, "kind"),
        cards=o.cards("cards"),
        condition=o.enum(Condition, "condition"),
        suit=o.opt_enum(Suit, "suit"),
        paid=o.integer("paid"),
        paid_high=o.integer("paid_high"),
        valid=o.flag("valid"),
    )


def _r_player(o: _Obj) -> PlayerHand:
    return _NEW_PLAYER(
        seat=o.integer("seat"),
        status=o.enum(PlayerStatus, "status"),
        multiplier=o.integer("multiplier"),
        hand=o.cards("hand"),
        melds=o.objs("melds", _MELD, _r_meld),
        next_meld_id=o.integer("next_meld_id"),
        received=o.pairs("received"),
        unclaimed=o.integer("unclaimed"),
        timeouts=o.integer("timeouts"),
    )


def _r_turn(o: _Obj) -> Turn:
    return _NEW_TURN(
        seat=o.integer("seat"),
        step=o.enum(Step, "step"),
        drawn=o.opt_card("drawn"),
        source=o.opt_enum(DrawSource, "source"),
        extra_pluck=o.flag("extra_pluck"),
        forced_back=o.flag("forced_back"),
        new_units=o.integer("new_units"),
        enhanced_units=o.integer("enhanced_units"),
    )


def _r_force_back(o: _Obj) -> ForceBack:
    return _NEW_FORCE_BACK(
        card=o.card("card"),
        owner=o.integer("owner"),
        position=o.integer("position"),
        draws=o.integer("draws"),
        drawers=o.ints("drawers"),
        pluck=o.flag("pluck"),
    )


def _r_hand(o: _Obj) -> HandState:
    return _NEW_HAND(
        hand_no=o.integer("hand_no"),
        seed=o.opt_int("seed"),
        first=o.integer("first"),
        order=o.ints("order"),
        players=o.opt_objs("players", _PLAYER, _r_player),
        phase=o.enum(Phase, "phase"),
        declare_pos=o.integer("declare_pos"),
        draws=o.integer("draws"),
        stock=o.cards("stock"),
        muck=o.cards("muck"),
        dead=o.cards("dead"),
        option=o.opt_card("option"),
        option_from=o.opt_int("option_from"),
        turn=o.opt_obj("turn", _TURN, _r_turn),
        suspended=o.opt_obj("suspended", _TURN, _r_turn),
        force_backs=o.objs("force_backs", _FORCE_BACK, _r_force_back),
        make_good=o.pair("make_good"),
        split_offer=o.opt_int("split_offer"),
        reshuffled=o.flag("reshuffled"),
        solo=o.flag("solo"),
        winner=o.opt_int("winner"),
        end_reason=o.opt_enum(EndReason, "end_reason"),
    )


def _r_table(o: _Obj) -> TableState:
    return _NEW_TABLE(
        rules=o.obj("rules", _RULES, _Obj.rules),
        table_id=o.integer("table_id"),
        seats=o.opt_objs("seats", _SEAT, _r_seat),
        singles_tops=o.integer("singles_tops"),
        doubles_tops=o.integer("doubles_tops"),
        house=o.integer("house"),
        married=o.pairs("married"),
        previous_winner=o.opt_int("previous_winner"),
        previous_first=o.opt_int("previous_first"),
        hand_no=o.integer("hand_no"),
        hand=o.opt_obj("hand", _HAND, _r_hand),
        last_hand=o.opt_obj("last_hand", _HAND, _r_hand),
        seq=o.integer("seq"),
    )
