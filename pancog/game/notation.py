"""One-line text notation for actions and events, and whole-hand transcripts.

Actions (``format_action`` / ``parse_action`` round-trip)::

    sit 123 buyin=20 [doubles] [seat=2]     rebuy 2 20        stand 2        away 2 on|off
    start seed=7 [first=0]                  start shoe=5S 5H ... [first=0]
    2 knock    2 top    2 pluck    2 option    2 discard    2 discard 5H    2 claim
    2 meld 5D 5C                            2 add 1 6H 7H [split QH JH 7H]
    2 borrow 5D from 1:5H 3:5S              2 makegood 1 5H
    3 force [2] [7H]     3 foul 2 abandoned     floor foul 2
    2 split offer|accept|decline            2 timeout

A transcript is a ``rules`` line, the actions one per line, and optionally the events after a
``== events`` line (each prefixed with its seq). Lines starting with ``#`` are comments.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from .actions import (
    AcceptSplit,
    Action,
    AddToMeld,
    Borrow,
    Claim,
    DeclineDraw,
    DeclineSplit,
    Discard,
    FloorFoul,
    Force,
    FoulCall,
    FoulCause,
    GoOnTop,
    Knock,
    MakeGood,
    NewMeld,
    OfferSplit,
    Pluck,
    Rebuy,
    SetAway,
    SetStakes,
    Sit,
    Stand,
    StartHand,
    TakeOption,
    Timeout,
)
from .cards import Card, excerpt, format_cards, parse_card, parse_cards
from .errors import NotationError, RuleViolation
from .events import Event
from .rules import PRESETS, Rules, rule_overrides
from .state import TableState, initial_state


def _cards(cards: Iterable[Card]) -> str:
    return format_cards(cards)


def format_action(a: Action) -> str:
    """The one-line notation of an action (see the module docstring)."""
    match a:
        case Sit():
            text = f"sit {a.player_id} buyin={a.buy_in}"
            if a.doubles:
                text += " doubles"
            if a.seat is not None:
                text += f" seat={a.seat}"
            return text
        case Rebuy():
            return f"rebuy {a.seat} {a.amount}"
        case Stand():
            return f"stand {a.seat}"
        case SetAway():
            return f"away {a.seat} {'on' if a.away else 'off'}"
        case SetStakes():
            return f"stakes {a.ante_chips}"
        case StartHand():
            parts = ["start"]
            if a.seed is not None:
                parts.append(f"seed={a.seed}")
            if a.first_seat is not None:
                parts.append(f"first={a.first_seat}")
            if a.shoe is not None:
                parts.append("shoe=" + _cards(a.shoe))
            return " ".join(parts)
        case Knock():
            return f"{a.seat} knock"
        case GoOnTop():
            return f"{a.seat} top"
        case Pluck():
            return f"{a.seat} pluck"
        case DeclineDraw():
            return f"{a.seat} nodraw"
        case TakeOption():
            return f"{a.seat} option"
        case NewMeld():
            return f"{a.seat} meld {_cards(a.cards)}".rstrip()
        case AddToMeld():
            text = f"{a.seat} add {a.meld}"
            if a.cards:
                text += " " + _cards(a.cards)
            if a.split is not None:
                text += " split " + _cards(a.split)
            return text
        case Borrow():
            taken = " ".join(f"{m}:{c}" for m, c in a.taken)
            cards = (" " + _cards(a.cards)) if a.cards else ""
            return f"{a.seat} borrow{cards} from {taken}"
        case MakeGood():
            return f"{a.seat} makegood {a.meld} {_cards(a.cards)}"
        case Claim():
            return f"{a.seat} claim"
        case Discard():
            return f"{a.seat} discard" + (f" {a.card}" if a.card is not None else "")
        case Force():
            text = f"{a.seat} force"
            if a.target is not None:
                text += f" {a.target}"
            if a.card is not None:
                text += f" {a.card}"
            return text
        case FoulCall():
            return f"{a.seat} foul {a.target} {a.cause.value}"
        case FloorFoul():
            return f"floor foul {a.target}"
        case OfferSplit():
            return f"{a.seat} split offer"
        case AcceptSplit():
            return f"{a.seat} split accept"
        case DeclineSplit():
            return f"{a.seat} split decline"
        case Timeout():
            return f"{a.seat} timeout"
    raise NotationError("Unknown action.")


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise NotationError(f"'{excerpt(text)}' is not a number.") from None


def _kv(tokens: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for t in tokens:
        if "=" in t:
            k, v = t.split("=", 1)
            out[k] = v
        else:
            out[t] = ""
    return out


def parse_action(text: str) -> Action:
    """Read one action in notation.

    Raises:
        NotationError: if the text is not an action.
    """
    tokens = text.split()
    if not tokens:
        raise NotationError("Empty action.")
    head = tokens[0].lower()
    if head == "sit":
        if len(tokens) < 3:
            raise NotationError("Write: sit <player id> buyin=<chips>.")
        kv = _kv(tokens[2:])
        slot = kv.get("seat")
        return Sit(
            player_id=_int(tokens[1]),
            buy_in=_int(kv.get("buyin", "")),
            doubles="doubles" in kv,
            seat=_int(slot) if slot is not None else None,
        )
    if head == "rebuy" and len(tokens) == 3:
        return Rebuy(seat=_int(tokens[1]), amount=_int(tokens[2]))
    if head == "stand" and len(tokens) == 2:
        return Stand(seat=_int(tokens[1]))
    if head == "away" and len(tokens) == 3 and tokens[2] in ("on", "off"):
        return SetAway(seat=_int(tokens[1]), away=tokens[2] == "on")
    if head == "stakes" and len(tokens) == 2:
        return SetStakes(ante_chips=_int(tokens[1]))
    if head == "start":
        seed = first = None
        shoe = None
        rest = text.strip()[len("start") :].strip()
        if "shoe=" in rest:
            rest, shoe_text = rest.split("shoe=", 1)
            shoe = parse_cards(shoe_text)
        for t in rest.split():
            if t.startswith("seed="):
                seed = _int(t[5:])
            elif t.startswith("first="):
                first = _int(t[6:])
            else:
                raise NotationError(f"Unknown start option '{t}'.")
        return StartHand(seed=seed, shoe=shoe, first_seat=first)
    if head == "floor" and len(tokens) == 3 and tokens[1] == "foul":
        return FloorFoul(target=_int(tokens[2]))
    if len(tokens) < 2:
        raise NotationError(f"'{excerpt(text)}' is not an action.")
    seat = _int(tokens[0])
    verb = tokens[1].lower()
    args = tokens[2:]
    if not args:
        simple: dict[str, Action] = {
            "knock": Knock(seat=seat),
            "top": GoOnTop(seat=seat),
            "pluck": Pluck(seat=seat),
            "nodraw": DeclineDraw(seat=seat),
            "option": TakeOption(seat=seat),
            "claim": Claim(seat=seat),
            "timeout": Timeout(seat=seat),
        }
        if verb in simple:
            return simple[verb]
    if verb == "meld" and args:
        return NewMeld(seat=seat, cards=parse_cards(" ".join(args)))
    if verb == "add" and args:
        meld = _int(args[0])
        tail = args[1:]
        split = None
        if "split" in tail:
            k = tail.index("split")
            split = parse_cards(" ".join(tail[k + 1 :]))
            tail = tail[:k]
        added = parse_cards(" ".join(tail)) if tail else ()
        return AddToMeld(seat=seat, meld=meld, cards=added, split=split)
    if verb == "borrow" and "from" in args:
        k = args.index("from")
        cards = parse_cards(" ".join(args[:k])) if args[:k] else ()
        taken: list[tuple[int, Card]] = []
        for t in args[k + 1 :]:
            if ":" not in t:
                raise NotationError("Write borrowed cards as <meld>:<card>, e.g. 1:5H.")
            m, c = t.split(":", 1)
            taken.append((_int(m), parse_card(c)))
        if not taken:
            raise NotationError("Name the borrowed cards.")
        return Borrow(seat=seat, cards=cards, taken=tuple(taken))
    if verb == "makegood" and len(args) >= 2:
        return MakeGood(seat=seat, meld=_int(args[0]), cards=parse_cards(" ".join(args[1:])))
    if verb == "discard":
        if not args:
            return Discard(seat=seat)
        if len(args) == 1:
            return Discard(seat=seat, card=parse_card(args[0]))
    if verb == "force":
        target = card = None
        for t in args:
            if t.lstrip("-").isdigit() and target is None and card is None:
                target = int(t)
            else:
                card = parse_card(t)
        return Force(seat=seat, target=target, card=card)
    if verb == "foul" and len(args) == 2:
        try:
            cause = FoulCause(args[1].lower())
        except ValueError:
            raise NotationError(f"Unknown foul cause '{args[1]}'.") from None
        return FoulCall(seat=seat, target=_int(args[0]), cause=cause)
    if verb == "split" and len(args) == 1:
        kinds: dict[str, Action] = {
            "offer": OfferSplit(seat=seat),
            "accept": AcceptSplit(seat=seat),
            "decline": DeclineSplit(seat=seat),
        }
        if args[0] in kinds:
            return kinds[args[0]]
    raise NotationError(f"'{excerpt(text)}' is not an action.")


# ---------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------


def _value(v: object) -> str:
    if isinstance(v, Card):
        return str(v)
    if isinstance(v, Enum):
        return str(v.value)
    if isinstance(v, tuple):
        if v and all(isinstance(x, Card) for x in v):
            return "[" + " ".join(str(x) for x in v) + "]"
        return "[" + ",".join(_value(x) for x in v) + "]"
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        from .melds import Meld

        if isinstance(v, Meld):
            return f"{v.id}:{_cards(v.cards)}"
    return str(v)


def format_event(e: Event) -> str:
    """A readable one-line form of an event (golden files), e.g. ``5 ChipsMoved payer=2 payee=0 amount=4 ...``."""
    fields = [f"{f.name}={_value(getattr(e, f.name))}" for f in dataclasses.fields(e) if f.name not in ("seq",)]
    fields = [x for x in fields if x != "private_to=None"]
    return f"{e.seq} {type(e).__name__} " + " ".join(fields)


# ---------------------------------------------------------------------------------------------
# Rules lines and transcripts
# ---------------------------------------------------------------------------------------------


def format_rules(rules: Rules, base: str = "california") -> str:
    """``rules <preset> [option=value ...]``."""
    parts = ["rules", base]
    for name, value in rule_overrides(rules, base).items():
        if isinstance(value, tuple):
            parts.append(f"{name}={','.join(str(c) for c in value)}")
        elif isinstance(value, bool):
            parts.append(f"{name}={'on' if value else 'off'}")
        elif isinstance(value, Enum):
            parts.append(f"{name}={value.value}")
        else:
            parts.append(f"{name}={value}")
    return " ".join(parts)


def parse_rules(text: str) -> Rules:
    """Read a ``rules`` line.

    Raises:
        NotationError: for an unknown preset, option or value.
    """
    tokens = text.split()
    if not tokens or tokens[0] != "rules" or len(tokens) < 2:
        raise NotationError("Write: rules <preset> [option=value ...].")
    if tokens[1] not in PRESETS:
        raise NotationError(f"Unknown preset '{tokens[1]}'.")
    base = PRESETS[tokens[1]]
    types = {f.name: type(getattr(base, f.name)) for f in dataclasses.fields(Rules)}
    overrides: dict[str, object] = {}
    for t in tokens[2:]:
        if "=" not in t:
            raise NotationError(f"'{t}' is not option=value.")
        k, v = t.split("=", 1)
        if k not in types:
            raise NotationError(f"Unknown table option '{k}'.")
        typ = types[k]
        try:
            if typ is bool:
                overrides[k] = v in ("on", "true", "yes", "1")
            elif typ is int:
                overrides[k] = int(v)
            elif typ is tuple:
                overrides[k] = parse_cards(v.replace(",", " ")) if v else ()
            elif issubclass(typ, Enum):
                overrides[k] = typ(v)
            else:
                overrides[k] = v
        except (ValueError, NotationError) as exc:
            raise NotationError(f"Bad value for {k}: '{v}'.") from exc
    try:
        return Rules.preset(tokens[1], **overrides)
    except RuleViolation as exc:
        raise NotationError(exc.message) from exc


@dataclass(frozen=True, slots=True, kw_only=True)
class Transcript:
    rules: Rules
    actions: tuple[Action, ...]
    events: tuple[str, ...] = ()


def dump_transcript(rules: Rules, actions: Sequence[Action], events: Sequence[Event] | None = None) -> str:
    """A readable transcript: the rules line, one action per line, then (optionally) the events."""
    lines = [format_rules(rules)]
    lines.extend(format_action(a) for a in actions)
    if events is not None:
        lines.append("== events")
        lines.extend(format_event(e) for e in events)
    return "\n".join(lines) + "\n"


def load_transcript(text: str) -> Transcript:
    """Read a transcript written by :func:`dump_transcript`.

    Raises:
        NotationError: if a line cannot be read.
    """
    rules: Rules | None = None
    actions: list[Action] = []
    events: list[str] = []
    in_events = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line == "== events":
            in_events = True
            continue
        if in_events:
            events.append(line)
        elif rules is None:
            rules = parse_rules(line)
        else:
            actions.append(parse_action(line))
    if rules is None:
        raise NotationError("A transcript starts with a rules line.")
    return Transcript(rules=rules, actions=tuple(actions), events=tuple(events))


def replay(rules: Rules, actions: Iterable[Action], table_id: int = 0) -> tuple[TableState, tuple[Event, ...]]:
    """Apply ``actions`` from an empty table; return the final state and every event.

    Raises:
        RuleViolation: if an action is illegal.
    """
    from .engine import apply

    state = initial_state(rules, table_id)
    events: list[Event] = []
    for a in actions:
        t = apply(state, a)
        state = t.state
        events.extend(t.events)
    return state, tuple(events)
