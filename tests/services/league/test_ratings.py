"""The rating model: a better rank never gains less (ties included); conservative display; provisional."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from pancog.services.league import HandDigest, PlayerLine, Rating, TourneyDigest, display, rate, rating_match

ranks_strategy = st.integers(min_value=2, max_value=8).flatmap(
    lambda n: st.lists(st.integers(min_value=1, max_value=n), min_size=n, max_size=n)
)
prior_strategy = st.tuples(
    st.floats(min_value=0.0, max_value=50.0, allow_nan=False), st.floats(min_value=0.5, max_value=8.4, allow_nan=False)
)


@settings(max_examples=400, deadline=None)
@given(ranks=ranks_strategy, prior=prior_strategy)
def test_rate_better_rank_never_gains_less(ranks: list[int], prior: tuple[float, float]) -> None:
    """Equal priors: a strictly better rank gains at least as much (mu and mu - 3 sigma); a tie gains the same."""
    mu, sigma = prior
    after = rate([Rating(mu, sigma)] * len(ranks), ranks)
    for i, ri in enumerate(ranks):
        for j, rj in enumerate(ranks):
            if ri < rj:
                assert after[i].mu >= after[j].mu - 1e-9
                assert after[i].conservative >= after[j].conservative - 1e-9
            elif ri == rj:
                assert after[i].mu == pytest.approx(after[j].mu, abs=1e-9)
    assert all(r.rated == 1 for r in after)


def test_rate_default_plackett_luce_would_fail_the_property() -> None:
    """Why the model is not openskill's default: Plackett-Luce puts three players tied 1st below the 2nd."""
    model = PlackettLuce()
    out = model.rate([[model.rating()] for _ in range(5)], ranks=[1, 1, 1, 2, 3])
    assert out[0][0].mu < out[3][0].mu  # the defect the property test guards against
    ours = rate([Rating()] * 5, [1, 1, 1, 2, 3])
    assert ours[0].mu > ours[3].mu > ours[4].mu


def test_rate_winner_gains_and_losers_lose() -> None:
    after = rate([Rating()] * 3, [1, 2, 2])
    assert after[0].mu > Rating().mu > after[1].mu
    assert after[1].mu == pytest.approx(after[2].mu)


def test_rate_refuses_a_single_player() -> None:
    with pytest.raises(ValueError):
        rate([Rating()], [1])


def test_display_is_conservative_and_marked_until_thirty_results() -> None:
    fresh = Rating()
    assert fresh.score == round(1000 * (fresh.mu - 3 * fresh.sigma))
    assert fresh.provisional and display(fresh.score, 0).endswith("?")
    assert display(12345, 30) == "12.3"
    assert not Rating(25.0, 3.0, 30).provisional and Rating(25.0, 3.0, 29).provisional


def _hand(
    reason: str, winner: int | None, lines: list[tuple[int, bool, bool]], splitters: tuple[int, ...] = ()
) -> HandDigest:
    return HandDigest(
        table_id=1,
        hand_no=1,
        reason=reason,
        winner=winner,
        splitters=splitters,
        players=[PlayerLine(user_id=u, played=p, on_top=t) for u, p, t in lines],
    )


def test_rating_match_cash_hand_rules() -> None:
    """The one who went out beats the others in the hand; on-top players and computers take no part."""
    d = _hand("out", 2, [(1, True, False), (2, True, False), (3, False, True), (4, True, False)])
    assert rating_match(d) == ([1, 2, 4], [2, 1, 2])
    # a computer went out: no human is ranked above another -> not rated
    assert rating_match(_hand("out", -5, [(1, True, False), (2, True, False), (-5, True, False)])) is None
    # a computer in the hand is simply left out
    assert rating_match(_hand("out", 1, [(1, True, False), (2, True, False), (-5, True, False)])) == ([1, 2], [1, 2])
    assert rating_match(_hand("split", None, [(1, True, False), (2, True, False), (3, True, False)], (1, 2))) == (
        [1, 2, 3],
        [1, 1, 2],
    )
    assert rating_match(_hand("lone", 1, [(1, True, False), (2, False, True)])) is None
    assert rating_match(_hand("void", None, [(1, True, False), (2, True, False)])) is None


def test_rating_match_tournament_order_humans_only() -> None:
    t = TourneyDigest(tourney_id=9, places=[(5, 3, False), (6, 1, True), (-2, 2, True), (7, 4, False)])
    assert rating_match(t) == ([6, 5, 7], [1, 3, 4])
