"""``pancog.ai.evaluate._forms`` (does a card form a new meld with a hand?) written out for speed: the same answer as
the plain statement of the rule below, for every face, over many hands."""

from __future__ import annotations

import random
from collections.abc import Sequence

from pancog.ai.evaluate import _forms


def plain_forms(v: Sequence[int], idx: int) -> bool:
    """The rule as first written: three of a rank (aces and kings: any three; others: two of this suit or two other
    suits), or three in sequence within the suit."""
    s, r0 = divmod(idx, 10)
    same = [v[k * 10 + r0] for k in range(4)]
    if r0 in (0, 9):
        if sum(same) >= 2:
            return True
    else:
        if same[s] >= 2:
            return True
        if sum(1 for k in range(4) if k != s and same[k]) >= 2:
            return True
    base = s * 10

    def has(r: int) -> bool:
        return 0 <= r <= 9 and v[base + r] > 0

    return (has(r0 - 1) and has(r0 - 2)) or (has(r0 - 1) and has(r0 + 1)) or (has(r0 + 1) and has(r0 + 2))


def test_forms_answers_as_the_plain_rule_for_every_face() -> None:
    rng = random.Random(7)
    hands = [[0] * 40, [1] * 40, [2] * 40]
    for _ in range(5000):
        density = rng.choice((0.05, 0.15, 0.3, 0.6))
        hands.append([rng.choice((0, 1, 1, 2, 3)) if rng.random() < density else 0 for _ in range(40)])
    answers = {True: 0, False: 0}
    for v in hands:
        for idx in range(40):
            expected = plain_forms(v, idx)
            assert _forms(v, idx) is expected, (v, idx)
            answers[expected] += 1
    assert min(answers.values()) > 10_000  # both answers well exercised
