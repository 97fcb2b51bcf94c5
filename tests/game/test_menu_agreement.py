"""The legal menu and ``apply`` agree, both ways (the role perft plays for chess engines).

Over random positions of every preset and of the rule options that change what may be played
(deferred and forfeit claims, beans, make-good under ``enforcement = players``, doubles, stock
exhaustion, mandatory and no forcing, no option card, upcards, rope borrowing, solo play):

- every action ``plays`` lists for any seat applies (a refusal fails the test, it is never skipped);
- every action of a broad generated set (draws, discards of every card, new melds of every small
  card group, adds, splits, borrows, make-goods, forces, foul calls, declarations, split offers,
  claims) that ``apply`` accepts is on the menu, or gives exactly the state of a menu action (the
  same meld written in another card order). The one exception is the rule itself: under
  ``enforcement = players`` an invalid spread is accepted but not listed, and then it must have
  left an invalid meld on the board.

The playouts also lay invalid spreads under ``enforcement = players`` and call fouls on them.
Deterministic (seeded) and a few seconds long.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from pancog.game import (
    AcceptSplit,
    Action,
    AddToMeld,
    Borrow,
    Claim,
    ClaimMode,
    DeclineSplit,
    Discard,
    Enforcement,
    Force,
    ForceMode,
    FoulCall,
    FoulCause,
    GoOnTop,
    Knock,
    MakeGood,
    NewMeld,
    OfferSplit,
    OneLeft,
    PanError,
    Pluck,
    Rebuy,
    Rules,
    RuleViolation,
    SetAway,
    SetCharacter,
    Sit,
    Stand,
    StartHand,
    StartMode,
    Step,
    StockExhausted,
    TableState,
    TakeOption,
    Timeout,
    apply,
    initial_state,
    parse_cards,
    plays,
    to_act,
)
from pancog.game.melds import invalid_meld
from pancog.game.moves import make_good_cards
from tests.game.conftest import chips

VARIANTS: dict[str, tuple[Rules, int]] = {
    "california": (Rules.preset("california"), 6),
    "classic": (Rules.preset("classic"), 6),
    "online": (Rules.preset("online"), 6),
    "deferred_claims": (Rules(claim_mode=ClaimMode.DEFERRED), 4),
    "forfeit_claims": (Rules(claim_mode=ClaimMode.FORFEIT, split_tops=False), 4),
    "beans": (Rules(beans=True, rake=1), 4),
    "players_enforce": (Rules(enforcement=Enforcement.PLAYERS, abandon_timeouts=1), 4),
    "players_enforce_deferred": (Rules(enforcement=Enforcement.PLAYERS, claim_mode=ClaimMode.DEFERRED), 3),
    # 80 cards and 6 players: the stock runs out and the muck is reshuffled, then the hand is void
    "stock_exhaustion": (Rules(deck_count=2, start_mode=StartMode.UPCARD, borrow_split_rope=True), 6),
    "void_on_exhaustion": (Rules(deck_count=2, stock_exhausted=StockExhausted.VOID_HAND), 6),
    "mandatory_settle_now": (Rules(force_mode=ForceMode.MANDATORY, one_left=OneLeft.SETTLE_NOW), 4),
    "no_force_no_option": (Rules(force_mode=ForceMode.OFF, option_card=False), 4),
    "option_new_meld_only": (Rules(option_card_layoff=False, retire_forfeit_chips=2), 4),
    "doubles_two_players": (Rules(allow_doubles=True), 2),
}

ACTIONS = 160  # per session
CHECK_EVERY = 4  # the generated-set check on every fourth position (the menu check runs at every one)


def _multiset_combos(cards: tuple, sizes: range) -> Iterator[tuple]:
    seen: set[tuple] = set()
    for k in sizes:
        for combo in itertools.combinations(sorted(cards), k):
            if combo not in seen:
                seen.add(combo)
                yield combo


def generated(state: TableState, seat: int, rng: random.Random, split_adds: int = 1) -> list[Action]:
    """A broad set of candidate actions for ``seat``: legal ones and many illegal ones."""
    h = state.hand
    out: list[Action] = [Stand(seat=seat), SetAway(seat=seat, away=True), SetAway(seat=seat, away=False)]
    if h is None:
        return out
    out += [Knock(seat=seat), GoOnTop(seat=seat), Pluck(seat=seat), TakeOption(seat=seat), Claim(seat=seat)]
    out += [OfferSplit(seat=seat), AcceptSplit(seat=seat), DeclineSplit(seat=seat), Discard(seat=seat)]
    n = len(h.players)
    for target in range(-1, n + 1):
        out += [FoulCall(seat=seat, target=target, cause=cause) for cause in FoulCause]
    force_cards = {h.option} | {fb.card for fb in h.force_backs}
    for target in [None, *range(n)]:
        for card in force_cards | {None}:
            out.append(Force(seat=seat, target=target, card=card))
    pl = h.players[seat] if 0 <= seat < n else None
    if pl is None:
        return out
    hand = pl.hand
    drawn = h.turn.drawn if h.turn is not None and h.turn.seat == seat else None
    out += [Discard(seat=seat, card=c) for c in {*hand, *(() if drawn is None else (drawn,))}]
    if h.turn is None or h.turn.seat != seat:
        if h.make_good is not None and h.make_good[0] == seat:
            pass  # a make-good demanded out of turn: generated below
        else:
            return out
    melds = pl.melds
    meld_ids = [m.id for m in melds] + [max([0, *(m.id for m in melds)]) + 1]
    # new melds: every group of 1 to 4 distinct-by-multiset hand cards (the drawn card joins automatically)
    out += [NewMeld(seat=seat, cards=c) for c in _multiset_combos(hand, range(5))]
    # adds of 0 to 2 hand cards to every meld (and to a meld that does not exist)
    small = list(_multiset_combos(hand, range(3)))
    out += [AddToMeld(seat=seat, meld=mid, cards=c) for mid in meld_ids for c in small]
    # splits: add 0 or 1 card, cut off every 3..n-3 sub-multiset (also impossible cuts)
    for m in melds:
        for add in _multiset_combos(hand, range(split_adds + 1)):
            pool = (*m.cards, *add, *(() if drawn is None else (drawn,)))
            if len(pool) > 10:
                continue
            for cut in _multiset_combos(pool, range(2, len(pool) - 1)):
                out.append(AddToMeld(seat=seat, meld=m.id, cards=add, split=cut))
    # borrows: one or two cards from the melds with 0 to 2 hand cards
    lendable = [(m.id, c) for m in melds for c in dict.fromkeys(m.cards)]
    for taken in [*((x,) for x in lendable), *itertools.combinations(lendable, 2)]:
        for c in small:
            out.append(Borrow(seat=seat, cards=c, taken=taken))
    # make good every meld with 1 or 2 hand cards
    for m in melds:
        out += [MakeGood(seat=seat, meld=m.id, cards=c) for c in _multiset_combos(hand, range(1, 3))]
    return out


def _menu(state: TableState, seat: int) -> tuple[Action, ...]:
    return tuple(a for a, _ in plays(state, seat, table_actions=True))


def _invalid_melds(state: TableState, seat: int) -> int:
    pl = state.hand.players[seat] if state.hand is not None else None
    return sum(not m.valid for m in pl.melds) if pl is not None else 0


def check_menu_applies(state: TableState, tally: Counter) -> None:
    """Every listed action of every seat applies, and collects the chips the menu shows for it: a meld
    play that does not end the hand (auto claims: collected at once, §4.5), a Claim (§4.5 deferred) and a
    discard (nothing, §2.9)."""
    auto = state.rules.claim_mode is ClaimMode.AUTO and not state.rules.beans  # beans: claimed, or lapses
    for seat in range(len(state.seats)):
        for action, shown in plays(state, seat, table_actions=True):
            try:
                result = apply(state, action)
            except PanError as exc:  # pragma: no cover - the failure message
                pytest.fail(f"listed but refused: {action!r}: {exc}")
            if isinstance(action, Stand | SetAway):
                assert shown == 0, f"{action!r}: a table action collects nothing, the menu shows {shown}"
            if isinstance(action, NewMeld | AddToMeld | Borrow) and result.state.hand is not None:
                # the menu offers legal melds only; an invalid spread (enforcement = players) is the player's own
                assert _invalid_melds(result.state, seat) <= _invalid_melds(state, seat), f"listed: {action!r}"
            meld_play = isinstance(action, NewMeld | AddToMeld | Borrow) and auto
            if (meld_play and result.state.hand is not None) or isinstance(action, Claim | Discard):
                got = chips(result.events, payee=seat)
                assert got == shown, f"{action!r}: the menu shows {shown} chips, applying it collects {got}"
                tally["value-checked"] += 1
            tally[type(action).__name__] += 1
            if isinstance(action, AddToMeld) and action.split is not None:
                tally["Split"] += 1
            if isinstance(action, FoulCall):
                tally[f"FoulCall:{action.cause.value}"] += 1


def check_generated_are_listed(state: TableState, rng: random.Random, tally: Counter, split_adds: int = 1) -> None:
    """Every accepted generated action is on the menu (or equals a menu action's result)."""
    rules = state.rules
    for seat in range(len(state.seats)):
        menu = _menu(state, seat)
        listed = set(menu)
        results: set[TableState] | None = None
        for action in generated(state, seat, rng, split_adds):
            if action in listed:
                continue
            try:
                after = apply(state, action).state
            except RuleViolation:
                continue
            if results is None:
                results = {apply(state, a).state for a in menu}
            if after in results:
                tally["same-as-listed"] += 1
                continue
            if rules.enforcement is Enforcement.PLAYERS and isinstance(action, NewMeld):
                h = after.hand
                assert h is not None and any(not m.valid for p in h.players if p is not None for m in p.melds), (
                    f"accepted, not listed and not an invalid spread: {action!r}"
                )
                tally["invalid-spread-accepted"] += 1
                continue
            pytest.fail(f"apply accepts {action!r} for seat {seat} but the menu does not list it")


def _invalid_spread(state: TableState, seat: int, rng: random.Random) -> NewMeld | None:
    """Under enforcement=players: a new meld of the drawn card and two hand cards that is not valid."""
    h = state.hand
    if h is None or h.turn is None or h.make_good is not None:
        return None
    pl = h.players[seat]
    if pl is None or h.turn.step not in (Step.DRAWN, Step.MUST_USE) or len(pl.hand) < 3:
        return None
    drawn = h.turn.drawn
    assert drawn is not None
    listed = {x for x, _ in plays(state, seat)}
    invalid = [NewMeld(seat=seat, cards=p) for p in _multiset_combos(pl.hand, range(2, 3))]
    invalid = [a for a in invalid if a not in listed]
    if not invalid:
        return None
    fixable = []  # spreads the rest of the hand can make good (so a foul call demands make-good)
    for a in invalid:
        rest = list(pl.hand)
        for c in a.cards:
            rest.remove(c)
        if make_good_cards(invalid_meld(0, (*a.cards, drawn)), rest) is not None:
            fixable.append(a)
    return rng.choice(fixable if fixable and rng.random() < 0.7 else invalid)


def session(rules: Rules, players: int, seed: int, budget: int) -> Iterator[TableState]:
    """Random play that fails on any refusal of a listed action; yields every position."""
    rng = random.Random(seed)
    s = initial_state(rules, table_id=seed)
    for i in range(players):
        doubles = rules.allow_doubles and rng.random() < 0.3
        s = apply(s, Sit(player_id=100 + i, buy_in=rng.choice([40, 60]), doubles=doubles)).state
    for _ in range(budget):
        yield s
        if s.hand is None:
            for i, seat in enumerate(s.seats):
                if seat is not None and seat.stack <= 2 * (rules.ante_chips + rules.rake) + 2:
                    s = apply(s, Rebuy(seat=i, amount=rules.min_buyin_chips * 2)).state
            s = apply(s, StartHand(seed=rng.randrange(10**9))).state
            continue
        actor = to_act(s)
        assert actor is not None
        roll = rng.random()
        if roll < 0.03:
            s = apply(s, Timeout(seat=actor)).state  # the turn clock is always accepted for the seat to act
            continue
        if roll < 0.15:  # someone out of turn: a force, a foul call, a split offer or answer
            others = [i for i in range(len(s.seats)) if i != actor]
            other = rng.choice(others)
            extra = [a for a in _menu(s, other) if not isinstance(a, (Stand, SetAway))]
            if extra:
                s = apply(s, rng.choice(extra)).state
                continue
        if rules.enforcement is Enforcement.PLAYERS and roll < 0.35:
            bad = _invalid_spread(s, actor, rng)
            if bad is not None:
                s = apply(s, bad).state  # must be accepted: players enforce validity at this table
                yield s
                callers = [
                    a
                    for i in range(len(s.seats))
                    for a in _menu(s, i)
                    if isinstance(a, FoulCall) and a.cause is FoulCause.INVALID_MELD
                ]
                if callers and rng.random() < 0.6:  # called at once: make it good if the hand can
                    s = apply(s, rng.choice(callers)).state
                continue
        menu = [a for a, _ in plays(s, actor)]
        assert menu, f"seat {actor} is to act but has no legal action"
        s = apply(s, menu[0] if rng.random() < 0.4 else rng.choice(menu)).state


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_menu_and_apply_agree(name: str) -> None:
    rules, players = VARIANTS[name]
    rng = random.Random(name)
    tally: Counter = Counter()
    positions = 0
    for k, state in enumerate(session(rules, players, seed=len(name), budget=ACTIONS)):
        check_menu_applies(state, tally)
        if k % CHECK_EVERY == 0:
            check_generated_are_listed(state, rng, tally)
            positions += 1
    assert positions >= ACTIONS // CHECK_EVERY
    assert tally["Pluck"] and tally["Discard"] and tally["NewMeld"] and tally["value-checked"], tally


def test_the_playouts_reach_every_situation() -> None:
    """Across the variants the menus offered (and so applied) every kind of play the rules allow."""
    tally: Counter = Counter()
    events: Counter = Counter()
    for rules, players in VARIANTS.values():
        prev: TableState | None = None
        for state in session(rules, players, seed=7, budget=ACTIONS):
            for seat in range(len(state.seats)):
                for action in _menu(state, seat):
                    tally[type(action).__name__] += 1
                    if isinstance(action, AddToMeld) and action.split is not None:
                        tally["Split"] += 1
                    if isinstance(action, FoulCall):
                        tally[f"FoulCall:{action.cause.value}"] += 1
            if prev is not None and prev.hand is not None and state.hand is not None:
                if state.hand.make_good is not None and prev.hand.make_good is None:
                    events["make_good_demanded"] += 1
                if state.hand.reshuffled and not prev.hand.reshuffled:
                    events["reshuffled"] += 1
            prev = state
    wanted = {
        "Knock", "GoOnTop", "Pluck", "TakeOption", "NewMeld", "AddToMeld", "Split", "Borrow", "Discard",
        "Claim", "Force", "FoulCall:invalid_meld", "FoulCall:abandoned", "OfferSplit",
        "AcceptSplit", "DeclineSplit", "Stand", "SetAway",
    }  # fmt: skip
    assert wanted <= set(tally), wanted - set(tally)
    assert events["reshuffled"], events  # make-good: see the stacked case below


def test_invalid_spread_made_good_by_choice_or_on_demand() -> None:
    """enforcement=players: ``5H 5H 5D`` is accepted; the menu offers every way to make it good, and
    after a foul call only those; each listed way applies and nothing else is accepted."""
    from tests.game.conftest import chips, table

    rules = Rules(enforcement=Enforcement.PLAYERS)
    s = table(
        ["5H 5D 5C 5H 2C 4D QD KD JC 7S", "2S 3S 4S 6S QS KS AS JS 3D 7D", "2H 3H 4H 6H QH KH AH JH 4C 6C"],
        stock="5H",
        rules=rules,
    )
    for seat in (0, 1, 2):
        s = apply(s, Knock(seat=seat)).state
    s = apply(s, Pluck(seat=0)).state
    h5, d5, c5 = parse_cards("5H 5D 5C")
    s = apply(s, NewMeld(seat=0, cards=(h5, d5))).state  # 5H 5H 5D: not valid; accepted at this table
    rng, tally = random.Random(0), Counter()
    offered = {a.cards for a in _menu(s, 0) if isinstance(a, MakeGood)}
    assert offered == {(c5,), (h5,), (c5, h5)}, offered  # 5C: three suits; 5H: three hearts; or both
    check_menu_applies(s, tally)
    check_generated_are_listed(s, rng, tally)
    t = apply(s, FoulCall(seat=1, target=0, cause=FoulCause.INVALID_MELD))
    assert [type(e).__name__ for e in t.events] == ["FoulCalled", "MakeGoodDemanded"]
    s = t.state
    table_level = (Stand, SetAway)
    assert {a.cards for a in _menu(s, 0) if not isinstance(a, table_level)} == offered  # only the make-good now
    assert [a for a in _menu(s, 1) if not isinstance(a, table_level)] == []  # nobody else acts meanwhile
    check_menu_applies(s, tally)
    check_generated_are_listed(s, rng, tally)
    t = apply(s, MakeGood(seat=0, meld=1, cards=(h5,)))  # 5H 5H 5H 5D: three hearts, a C2 = 2 units
    assert chips(t.events, payee=0) == 4


@pytest.mark.parametrize("rules", [Rules(), Rules(set_character=SetCharacter.DYNAMIC)], ids=["static", "dynamic"])
def test_set_splits_agree(rules: Rules) -> None:
    """A five-card set 5S 5S 5S 5H 5D with four 5C in hand: every split the engine accepts (adding up
    to four cards, e.g. 5C 5C 5C cut off a six-card set) is listed, and every listed one applies."""
    from tests.game.conftest import table

    s = table(
        ["5S 5S 5H 5D 5C 5C 5C 5C 5H 2D", "2S 3S 4S 6S QS KS AS JS 3D 7C", "2H 3H 4H 6H QH KH AH JH 4C 6C"],
        stock="5S",
        rules=rules,
    )
    for seat in (0, 1, 2):
        s = apply(s, Knock(seat=seat)).state
    s = apply(s, Pluck(seat=0)).state
    s = apply(s, NewMeld(seat=0, cards=parse_cards("5S 5S 5H 5D"))).state
    tally: Counter = Counter()
    check_menu_applies(s, tally)
    check_generated_are_listed(s, random.Random(1), tally, split_adds=4)
    splits = {a.split for a in _menu(s, 0) if isinstance(a, AddToMeld) and a.split is not None}
    assert any(sorted(p) == sorted(parse_cards("5C 5C 5C")) for p in splits), splits


def test_no_declaration_between_hands() -> None:
    s = initial_state(Rules())
    for i in range(2):
        s = apply(s, Sit(player_id=i + 1, buy_in=20)).state
    for action in (Knock(seat=0), GoOnTop(seat=1)):
        with pytest.raises(RuleViolation, match="No hand is in progress"):
            apply(s, action)
