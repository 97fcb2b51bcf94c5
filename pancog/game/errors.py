"""The one family of errors whose message is safe to show a player.

Only :class:`PanError` subclasses ever reach a user as text; anything else is a bug.
Tests assert on ``code`` (stable), never on wording.
"""

from __future__ import annotations

from typing import ClassVar

from pancog.game.i18n import tr


class PanError(Exception):
    """Base for errors whose message is safe to show to players (plain sentences, no markup)."""

    code: ClassVar[str] = "pan_error"

    def __init__(self, message: str, /, **fields: object) -> None:
        """``message``: a sentence (an English catalog id, marked ``N_`` where it is raised), its ``{fields}`` given
        as keywords; ``.message`` is the English text (logs, tests), :meth:`said` the reader's language."""
        text = message.format(**fields) if fields else message
        super().__init__(text)
        self.message = text
        self.template = message
        self.fields = fields

    def said(self) -> str:
        """The message in the language of the task showing it (the catalog's sentence, its fields filled)."""
        return tr(self.template, **self.fields)


class NotationError(PanError):
    """A card or action could not be read (parse error, not a rule error)."""

    code = "bad_notation"


class RuleViolation(PanError):
    """The action is well formed but the rules forbid it now."""

    code = "rule_violation"


class NotYourTurn(RuleViolation):
    code = "not_your_turn"


class IllegalMeld(RuleViolation):
    code = "illegal_meld"


class CardsNotInHand(RuleViolation):
    code = "cards_not_in_hand"


# The engine's refusals, one class per kind of reason (``code`` is what tests assert on).


class NoHandInProgress(RuleViolation):
    code = "no_hand"


class HandInProgress(RuleViolation):
    code = "hand_in_progress"


class SeatError(RuleViolation):
    code = "seat_error"


class ChipsError(RuleViolation):
    code = "chips_error"


class WrongStep(RuleViolation):
    code = "wrong_step"


class NoHit(RuleViolation):
    code = "no_hit"


class OptionRefused(RuleViolation):
    code = "option_refused"


class ForceRefused(RuleViolation):
    code = "force_refused"


class NoCause(RuleViolation):
    code = "no_cause"


class SplitRefused(RuleViolation):
    code = "split_refused"


class MustUse(RuleViolation):
    code = "must_use"


class DeclarationClosed(RuleViolation):
    code = "declaration_closed"
