"""The computer players cope with other table presets and options (mandatory forcing, deferred claims, upcard)."""

from __future__ import annotations

import pytest

from pancog.ai import make_player, play_fresh_hand
from pancog.game.rules import ClaimMode, Rules


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("classic"),
        Rules.preset("online"),
        Rules.preset("california", claim_mode=ClaimMode.DEFERRED),
        Rules.preset("california", going_out_units=0, spades_double=False),
    ],
    ids=["classic", "online", "deferred-claims", "casino-pays"],
)
def test_levels_finish_hands_under_variants(rules: Rules) -> None:
    """Mixed levels play complete hands under each variant; the engine accepts every action."""
    players = [make_player(x) for x in ("normal", "easy", "random", "normal", "easy", "random")]
    for seed in range(2):
        res = play_fresh_hand(players, seed=seed, first_seat=seed, rules=rules)
        assert res.actions > 6
