"""Rule cases written by hand from RULES.md: each ``rules_cases/*.pan`` says what every seat must hold.

The expected chips are worked out from the spec (the comment at the top of each file shows the
sum), never copied from the engine's output, so a wrong rule fails here even if it is consistent
with itself. A case is a transcript in the engine's notation with three additions:

- ``deal first=F | 0: <10 cards> | 1: <10 cards> | ... | stock: <cards>`` deals those hands (seat k
  gets ``k:``) and puts the stock in that order (a readable ``start shoe=...``);
- ``! <action> => <Error>: <regex>`` the action must be refused with that error type (one of
  ``pancog.game.errors``) and a message matching the regex, and change nothing;
- ``expect stacks=a,b,c singles=n [doubles=n]`` the chips every seat holds (``-``: the seat is empty) and the
  pots there.

The california preset's going-out units are being changed (RULES.md §0), so every case names the
options it relies on explicitly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import pancog.game as game
import pancog.game.errors as game_errors
from pancog.game import Action, Rules, StartHand, TableState, apply, initial_state, parse_action, parse_cards
from pancog.game.notation import parse_rules

HERE = Path(__file__).resolve().parent / "rules_cases"
CASES = sorted(p.stem for p in HERE.glob("*.pan"))


def deal_action(line: str) -> StartHand:
    """``deal first=0 | 0: ... | 1: ... | stock: ...`` as a StartHand with a stacked shoe."""
    head, *parts = [p.strip() for p in line.split("|")]
    first = int(head.split("first=")[1])
    hands: dict[int, tuple[game.Card, ...]] = {}
    stock: tuple[game.Card, ...] = ()
    for part in parts:
        key, _, cards = part.partition(":")
        if key.strip() == "stock":
            stock = parse_cards(cards)
        else:
            hands[int(key)] = parse_cards(cards)
            assert len(hands[int(key)]) == 10, f"seat {key} is dealt 10 cards"
    seats = sorted(hands)
    rotation = seats[seats.index(first) :] + seats[: seats.index(first)]
    shoe: list[game.Card] = []
    for packet in range(2):  # two rounds of five, from the first hand in rotation (§2.4)
        for seat in rotation:
            shoe.extend(hands[seat][5 * packet : 5 * packet + 5])
    return StartHand(shoe=(*shoe, *stock), first_seat=first)


def check_expect(state: TableState, line: str, where: str) -> None:
    fields = dict(item.split("=", 1) for item in line.split()[1:])
    stacks = [s.stack if s is not None else None for s in state.seats]
    want = [None if x == "-" else int(x) for x in fields["stacks"].split(",")]  # "-": an empty seat
    assert stacks[: len(want)] == want, f"{where}: stacks {stacks[: len(want)]}, the rules say {want}"
    if "singles" in fields:
        assert state.singles_tops == int(fields["singles"]), f"{where}: singles tops {state.singles_tops}"
    if "doubles" in fields:
        assert state.doubles_tops == int(fields["doubles"]), f"{where}: doubles tops {state.doubles_tops}"


def check_refused(state: TableState, line: str, where: str) -> None:
    text, _, expected = line[1:].partition("=>")
    kind, _, pattern = expected.strip().partition(":")
    error = getattr(game, kind.strip(), None) or getattr(game_errors, kind.strip())
    assert isinstance(error, type) and issubclass(error, game.RuleViolation), f"{where}: {kind} is not an error"
    action: Action = parse_action(text.strip())
    with pytest.raises(error, match=pattern.strip()):
        apply(state, action)


def play_case(name: str) -> tuple[TableState, int]:
    """Replay one case, checking its refusals and expectations; returns (final state, expectations met)."""
    state: TableState | None = None
    rules: Rules | None = None
    checked = 0
    for number, raw in enumerate((HERE / f"{name}.pan").read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        where = f"{name}.pan:{number}"
        if not line or line.startswith("#"):
            continue
        if rules is None:
            rules = parse_rules(line)
            state = initial_state(rules)
            continue
        assert state is not None
        if line.startswith("expect"):
            check_expect(state, line, where)
            checked += 1
        elif line.startswith("!"):
            check_refused(state, line, where)
            checked += 1
        else:
            action = deal_action(line) if line.startswith("deal") else parse_action(line)
            try:
                state = apply(state, action).state
            except game.RuleViolation as exc:  # pragma: no cover - the failure message
                pytest.fail(f"{where}: {line!r} refused: {exc}")
    assert state is not None
    return state, checked


@pytest.mark.parametrize("name", CASES)
def test_rules_case(name: str) -> None:
    _state, checked = play_case(name)
    assert checked, "a case must expect something"


def test_the_issue_situations_have_cases() -> None:
    """Issue #21's list of rule errors that no test noticed: each has a hand-written case."""
    wanted = {
        "run_king_end_pays_once",
        "suited_ak_pays_off",
        "invalid_spread_not_in_outs",
        "second_foul_call_refused",
        "borrow_remade_pieces_collect",
        "deferred_claim",
        "going_out_units_two",
        "going_out_units_zero",
    }
    assert wanted <= set(CASES), wanted - set(CASES)


def test_a_wrong_expectation_fails() -> None:
    """The checker itself: a case whose expected chips are off by one fails."""
    state, _ = play_case("suited_ak_pays_off")
    with pytest.raises(AssertionError, match="the rules say"):
        check_expect(state, "expect stacks=98,103,97", "probe")
    with pytest.raises((AssertionError, pytest.fail.Exception)):
        check_refused(state, "! 0 knock => RuleViolation: this message does not exist", "probe")


def test_deal_puts_the_cards_where_the_case_says() -> None:
    start = deal_action("deal first=1 | 0: " + "2C " * 10 + "| 1: " + "3D " * 10 + "| stock: 5S")
    assert start.first_seat == 1
    assert start.shoe is not None and [str(c) for c in start.shoe[:6]] == ["3D"] * 5 + ["2C"]
    assert str(start.shoe[-1]) == "5S"


# --------------------------------------------------------------------------------------------- option checks


@pytest.mark.parametrize(
    ("options", "ok"),
    [
        ({"max_players": 15}, True),  # §2.1: configurable up to 15
        ({"max_players": 2}, True),
        ({"max_players": 16}, False),
        ({"max_players": 1}, False),
        ({"deck_count": 1}, True),  # one pack is a small shoe, not an invalid one
        ({"deck_count": 0}, False),
        ({"going_out_units": 0}, True),  # the casino reading (§4.6)
        ({"going_out_units": -1}, False),
        ({"retire_forfeit_chips": -1}, False),
        ({"unsuited_valle_increment": -1}, False),
        ({"ante_chips": -1}, False),
        ({"rake": -1}, False),
        ({"min_buyin_chips": 0}, False),
        ({"abandon_timeouts": 0}, False),
        ({"abandon_timeouts": 1}, True),  # positive is enough
        ({"turn_timeout_seconds": 0}, False),
        ({"turn_timeout_seconds": 1}, True),
    ],
)
def test_option_bounds(options: dict[str, int], ok: bool) -> None:
    """The option checks accept the spec's range (2-15 seats, any number of packs, units >= 0) and
    refuse what is outside it, with the reason."""
    if ok:
        rules = Rules.preset("california", **options)
        for name, value in options.items():
            assert getattr(rules, name) == value
    else:
        with pytest.raises(game.RuleViolation, match=r"seats 2 to 15|at least one pack|negative|positive"):
            Rules.preset("california", **options)


def test_deck_options_cannot_remove_more_than_the_packs_hold() -> None:
    """§1.1: one pack holds one spade set, so removing two is an option error when the rules are made (not
    a crash at the first deal); removing one from one pack is allowed (30 cards)."""
    with pytest.raises(game.RuleViolation, match="remove more cards than the packs hold"):
        Rules(deck_count=1, remove_spade_sets=2)
    assert len(Rules(deck_count=1, remove_spade_sets=1).shoe()) == 30


def test_unknown_options_and_presets_are_refused() -> None:
    with pytest.raises(game.RuleViolation, match="Unknown table option going_out"):
        Rules.preset("california", going_out=2)
    with pytest.raises(game.RuleViolation, match="Unknown rules preset 'vegas'"):
        Rules.preset("vegas")


def test_fifteen_seats_and_one_pack_deal() -> None:
    """A 15-seat table fills every seat; a one-pack shoe deals 40 cards (3 hands and a stock)."""
    s = initial_state(Rules(max_players=15))
    for i in range(15):
        s = apply(s, game.Sit(player_id=i + 1, buy_in=20)).state
    assert all(seat is not None for seat in s.seats[:15])
    with pytest.raises(game.RuleViolation, match="full"):
        apply(s, game.Sit(player_id=99, buy_in=20))
    one = Rules(deck_count=1)
    assert len(one.shoe()) == 40
    t = initial_state(one)
    for i in range(3):
        t = apply(t, game.Sit(player_id=i + 1, buy_in=20)).state
    t = apply(t, StartHand(seed=3)).state
    assert t.hand is not None and len(t.hand.stock) == 40 - 30


def test_standing_up_between_hands_cashes_out_and_frees_the_seat() -> None:
    """Between hands a player who stands is paid his whole stack and leaves the seat at once (§8)."""
    s = initial_state(Rules())
    for i in range(3):
        s = apply(s, game.Sit(player_id=i + 1, buy_in=30 + i)).state
    t = apply(s, game.Stand(seat=1))
    assert t.state.seats[1] is None
    cashed = [e for e in t.events if isinstance(e, game.CashedOut)]
    assert len(cashed) == 1 and cashed[0].amount == 31
    with pytest.raises(game.RuleViolation, match="seat"):
        apply(t.state, game.Stand(seat=1))


@pytest.mark.parametrize("seat", [-1, 8, 9])
def test_seat_actions_outside_the_table_are_refused(seat: int) -> None:
    """Naming a seat the table does not have is refused like an empty seat (never an IndexError)."""
    s = initial_state(Rules(max_players=8))
    s = apply(s, game.Sit(player_id=1, buy_in=20)).state
    for action in (game.Stand(seat=seat), game.SetAway(seat=seat, away=True), game.Rebuy(seat=seat, amount=20)):
        with pytest.raises(game.RuleViolation, match="seat is empty"):
            apply(s, action)
    with pytest.raises(game.RuleViolation, match="seat is empty"):
        apply(s, game.Stand(seat=3))  # inside the table, nobody there


def test_rebuy_adds_to_the_stack_between_hands_only() -> None:
    """Table stakes (§4.8, [S0] "no playing behind"): chips are added only between hands."""
    s = initial_state(Rules())
    for i in range(2):
        s = apply(s, game.Sit(player_id=i + 1, buy_in=20)).state
    t = apply(s, game.Rebuy(seat=1, amount=15))
    assert [x.stack for x in t.state.seats[:2] if x is not None] == [20, 35]
    assert [(e.seat, e.amount) for e in t.events if isinstance(e, game.BoughtIn)] == [(1, 15)]
    for amount in (0, -5):
        with pytest.raises(game.RuleViolation, match="positive number of chips"):
            apply(s, game.Rebuy(seat=1, amount=amount))
    mid = apply(t.state, StartHand(seed=1)).state
    with pytest.raises(game.RuleViolation, match="only between hands"):
        apply(mid, game.Rebuy(seat=0, amount=10))


def test_rake_goes_to_the_house() -> None:
    """A rake (§8, G33) is taken from every dealt-in player with the ante; chips only move, never vanish."""
    s = initial_state(Rules(rake=2))
    for i in range(3):
        s = apply(s, game.Sit(player_id=i + 1, buy_in=30)).state
    s = apply(s, StartHand(seed=4)).state
    assert [x.stack for x in s.seats[:3] if x is not None] == [27, 27, 27]
    assert (s.singles_tops, s.house) == (3, 6)


def test_no_forcing_at_a_table_without_it() -> None:
    """force_mode = off (G10): a discard that fits its owner's board cannot be forced back; on demand
    it can (§5.2)."""
    from tests.game.conftest import table

    hands = ["4H 5H 7H 2C QC 3D KD AS JS 6C", "2S 3S 4S 6S QS KS 7D JD 3C 5C", "2H 3H QH KH AH JH 4C 2D 4D QD"]
    for mode, allowed in ((game.ForceMode.OFF, False), (game.ForceMode.ON_DEMAND, True)):
        s = table(hands, stock="6H 7S 7S", rules=Rules(force_mode=mode))
        for seat in (0, 1, 2):
            s = apply(s, game.Knock(seat=seat)).state
        s = apply(s, game.Pluck(seat=0)).state
        s = apply(s, game.NewMeld(seat=0, cards=parse_cards("4H 5H"))).state  # 4H 5H 6H on his board
        s = apply(s, game.Discard(seat=0, card=parse_cards("7H")[0])).state  # fits his own rope
        back = game.Force(seat=2, target=0)
        if allowed:
            assert game.can(s, back)
        else:
            with pytest.raises(game.RuleViolation, match="without forcing"):
                apply(s, back)


def test_the_previous_winner_is_first_hand_even_when_another_player_leaves() -> None:
    """§2.2: the winner of a hand is first hand for the next; someone else standing up between hands
    does not change that."""
    s = initial_state(Rules())
    for i in range(4):
        s = apply(s, game.Sit(player_id=i + 1, buy_in=30)).state
    s = apply(s, StartHand(seed=5)).state
    while s.hand is not None:  # seat 1 knocks, everyone else goes on top: seat 1 wins the tops
        seat = game.to_act(s)
        assert seat is not None
        s = apply(s, game.Knock(seat=seat) if seat == 1 else game.GoOnTop(seat=seat)).state
    assert s.previous_winner == 1
    s = apply(s, game.Stand(seat=3)).state
    for seed in range(6):
        started = [e for e in apply(s, StartHand(seed=seed)).events if isinstance(e, game.HandStarted)]
        assert started[0].first == 1, seed


def test_standing_twice_in_a_hand_is_refused() -> None:
    from tests.game.conftest import table

    s = table(["2C 3C 4C 5C 6C QD QD QD 7H JS"] * 3)
    for seat in (0, 1, 2):
        s = apply(s, game.Knock(seat=seat)).state
    s = apply(s, game.Stand(seat=2)).state  # in the hand: he keeps paying and leaves at its end
    assert s.seats[2] is not None and s.seats[2].leaving
    with pytest.raises(game.RuleViolation, match="already leaving"):
        apply(s, game.Stand(seat=2))


@pytest.mark.parametrize("name", sorted(game.PRESETS))
def test_describe_rules_states_each_preset(name: str) -> None:
    """``/pan rules`` wording for every preset: one line per option group, with the values that matter."""
    rules = Rules.preset(name, going_out_units=2, split_tops=True, auto_split_married=True)
    lines = game.describe_rules(rules)
    assert len(lines) == 25
    text = "\n".join(lines)
    assert f"{len(rules.shoe())} cards." in text
    assert "Going out pays the tops and the outs plus 2 units from every player in the hand." in lines
    assert "Ante (tops): 1 chip a hand; doubles players ante again into the doubles tops." in lines
    assert any(line.startswith("The last two players may split the tops") and "Married" in line for line in lines)
    no_split = game.describe_rules(Rules.preset(name, split_tops=False))
    assert "Splitting the tops is not allowed." in no_split
    # §0: the bot enforces the rules by default; enforcement = players lets spreads be called instead
    assert lines[-1] == "The bot refuses invalid spreads."
    players = game.describe_rules(Rules.preset(name, enforcement=game.Enforcement.PLAYERS))
    assert players[-1] == "Players enforce the rules: an invalid spread may be called and must be made good."


def test_an_away_previous_winner_is_not_first_hand() -> None:
    """§2.6: if the previous winner does not play, the next player to his right who plays goes first."""
    s = initial_state(Rules())
    for i in range(4):
        s = apply(s, game.Sit(player_id=i + 1, buy_in=30)).state
    s = apply(s, StartHand(seed=5)).state
    while s.hand is not None:
        seat = game.to_act(s)
        assert seat is not None
        s = apply(s, game.Knock(seat=seat) if seat == 1 else game.GoOnTop(seat=seat)).state
    s = apply(s, game.SetAway(seat=1, away=True)).state
    started = [e for e in apply(s, StartHand(seed=2)).events if isinstance(e, game.HandStarted)]
    assert 1 not in started[0].dealt and started[0].first == 2


def test_rank_neighbours_follow_section_1_2() -> None:
    """§1.2: K Q J 7 6 5 4 3 2 A, the Jack next to the 7, the Ace always low, no wrap."""
    order = list(game.Rank)
    assert [str(r.value) for r in order] == [str(v) for v in range(1, 11)]
    assert game.Rank.ACE.predecessor is None
    assert game.Rank.JACK.predecessor is game.Rank.SEVEN
    assert [r.predecessor for r in order[1:]] == order[:-1]
    assert game.Rank.KING.successor is None
    assert [r.successor for r in order[:-1]] == order[1:]
