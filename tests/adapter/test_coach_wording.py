"""The coach's note worded from a stacked hand's review: each miss named, the players' names escaped."""

from __future__ import annotations

from pancog.adapter.presenters.coach import review_text
from pancog.ai.coach import review_hand
from pancog.game import Pluck
from pancog.services.coach import HandReview
from tests.ai.test_coach import force_chance


def test_the_note_names_a_force_not_taken_with_the_target_escaped() -> None:
    start, actions = force_chance()
    misses = review_hand(start, [*actions, Pluck(seat=0)], 1)
    review = HandReview(table_id=1, hand_no=4, user_id=20, seat=1, misses=misses, player_ids=(10, 20, -1))
    text = review_text(review, {10: "*Ann*", 20: "Bo"})
    assert text.splitlines() == [
        "**Coach, hand 4**",
        "• You could have forced 5♣ on \\*Ann\\*: it paid them nothing and broke up their hand.",
    ]


def test_a_hand_without_a_miss_says_so() -> None:
    start, actions = force_chance()
    misses = review_hand(start, [*actions, Pluck(seat=0)], 2)
    review = HandReview(table_id=1, hand_no=4, user_id=-1, seat=2, misses=misses, player_ids=(10, 20, -1))
    assert review_text(review, {}) == "**Coach, hand 4**: nothing missed."
