"""A random game for the leak oracle: random deals, and random commands from everyone who may use the bot.

Seated players mostly make a legal play (the computer players' best, else any), through My hand's selects, the
board's buttons or the slash commands; between their moves, anyone — a player, the member a player shares his
hand with, a bystander, a moderator — uses a random command, button, select or autocomplete of any feature:
the table, play commands out of turn, the hand panel, replays (stepping, jumping, sharing), the history and its
transcripts, watching with consent, revealing a hand, stats, standings, the leaderboard, tournaments and the admin
commands. Every payload the bot sends meanwhile goes past :class:`tests.e2e.oracle.Oracle`.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import Any

from pancog.adapter.presenters.hand import action_label
from pancog.game import engine
from pancog.game.actions import Action, AddToMeld, DeclineDraw, Discard, GoOnTop, Knock, NewMeld, Pluck, TakeOption
from pancog.game.cards import ALL_CARDS
from pancog.game.state import Phase
from pancog.services.bots import ordered_legal
from tests.e2e.conftest import Pan
from tests.e2e.oracle import Oracle
from tests.fakediscord.harness import Reply
from tests.fakediscord.models import FakeMessage, FakeUser

BUTTON_OF = {Pluck: "Draw", TakeOption: "Take", Knock: "Knock", GoOnTop: "Sluff"}
SLASH_OF = {Pluck: "draw", TakeOption: "take", Knock: "knock", GoOnTop: "sluff"}
LONGEST_HAND = (2, 24)  # a hand's moves before the floor fouls the player to act (a moderator's call): it ends
EXTRAS = 0.22  # the share of steps that are someone's random command rather than a move
AUTOCOMPLETES = (("meld", "cards"), ("add", "cards"), ("borrow", "cards"), ("discard", "card"), ("borrow", "card"))


class LeakGame:
    """One table played by ``players`` members (and maybe a computer player), watched by everyone else."""

    def __init__(self, pan: Pan, rng: random.Random, *, players: int = 2, computer: bool = False) -> None:
        self.pan = pan
        self.h = pan.h
        self.rng = rng
        self.players = pan.users[:players]
        self.watcher = pan.users[players]
        self.bystander = pan.users[players + 1]
        self.moderator = pan.h.moderator
        self.everyone = [*self.players, self.watcher, self.bystander, self.moderator]
        self.computer = computer
        pan.h.plain_member(*self.players, self.watcher, self.bystander)  # only the moderator moderates
        self.oracle = Oracle(pan.h.fake, pan.rt, moderators={self.moderator.id})
        self.step_throughs: list[tuple[FakeUser, FakeMessage]] = []
        self.actions_this_hand = 0
        self.longest = rng.randint(*LONGEST_HAND)
        self.commands = 0

    # ------------------------------------------------------------------ the flow

    async def setup(self) -> None:
        await self.pan.seat(len(self.players))
        if self.computer:
            await self.pan.slash(self.players[0], "pan addbot", level="easy")

    @property
    def state(self) -> Any:
        return self.pan.session().state

    async def play(self, hands: int) -> None:
        """Play until ``hands`` more hands have finished."""
        target = self.oracle.truth.finished + hands
        stuck = 0
        while self.oracle.truth.finished < target:
            if self.state.hand is None:
                before = self.state.hand_no
                await self.between_hands()
                await self.start()
                stuck = stuck + 1 if self.state.hand_no == before else 0
                assert stuck < 5, "the table stopped dealing"
                self.actions_this_hand = 0
                self.longest = self.rng.randint(*LONGEST_HAND)
                continue
            if self.rng.random() < EXTRAS:
                await self.extra()
            else:
                await self.progress()

    async def start(self) -> None:
        for player in self.players:  # a short stack buys more first (between hands)
            seat = self.pan.session().find_seat(player.id)
            s = self.state.seat(seat) if seat is not None else None
            if s is not None and s.stack < 60:
                await self.slash(player, "pan rebuy", chips=200)
        starter = self.rng.choice(self.players)
        if self.rng.random() < 0.5 and "Start" in self.labels(self.pan.board()):
            await self.click(starter, self.pan.board(), "Start")
        else:
            await self.slash(starter, "pan start")

    async def progress(self) -> None:
        """The player to act makes a legal play (the computer players' best three times in four)."""
        state = self.state
        seat = engine.to_act(state)
        if seat is None:
            await self.pan.settle()
            return
        s = state.seat(seat)
        player = self.user_of(s.player_id) if s is not None else None
        if player is None:  # a computer player: it acts by itself
            await self.pan.settle()
            return
        self.actions_this_hand += 1
        if self.actions_this_hand > self.longest:
            await self.slash(self.moderator, "foul", player=player)  # the floor's call: the hand ends soon
            return
        plays = ordered_legal(engine.observe(state, seat))
        if not plays:
            await self.pan.settle()
            return
        if state.hand.phase is Phase.DECLARING:
            action, pays = plays[0] if self.rng.random() < 0.6 else self.rng.choice(plays)
        else:
            action, pays = plays[0] if self.rng.random() < 0.75 else self.rng.choice(plays)
        kind = type(action)
        if self.rng.random() < 0.35:  # My hand and its selects
            await self.through_my_hand(player, action, pays)
        elif kind in BUTTON_OF and self.rng.random() < 0.5 and BUTTON_OF[kind] in self.labels(self.pan.board()):
            await self.click(player, self.pan.board(), BUTTON_OF[kind])
        elif kind in SLASH_OF:
            await self.slash(player, SLASH_OF[kind])
        elif isinstance(action, Discard):
            card = action.card if action.card is not None else state.hand.turn.drawn
            await self.slash(player, "discard", card=str(card))
        elif isinstance(action, NewMeld):
            await self.slash(player, "meld", cards=" ".join(str(c) for c in action.cards))
        elif isinstance(action, AddToMeld) and action.split is None:
            await self.slash(player, "add", meld=action.meld, cards=" ".join(str(c) for c in action.cards))
        elif isinstance(action, DeclineDraw):
            await self.slash(player, "pass")
        else:
            await self.through_my_hand(player, action, pays)

    async def through_my_hand(self, player: FakeUser, action: Action, pays: int) -> None:
        panel = await self.my_hand(player)
        if panel is None:
            return
        label = action_label(action, pays)
        for menu in panel.selects:
            for option in menu.get("options") or []:
                if option["label"] == label:
                    await self.select(player, panel, menu["custom_id"], [option["value"]])
                    return
        menus = [m for m in panel.selects if m.get("options")]
        if menus:  # cut from the menu (more than 25 plays): any offered one
            menu = self.rng.choice(menus)
            await self.select(player, panel, menu["custom_id"], [self.rng.choice(menu["options"])["value"]])

    async def between_hands(self) -> None:
        for _ in range(self.rng.randint(0, 2)):
            await self.extra()

    # ------------------------------------------------------------------ anyone's commands

    async def extra(self) -> None:
        """One random command, button, select or autocomplete by a random member."""
        choices: list[tuple[float, Callable[[], Awaitable[None]]]] = [
            (3, self.look_at_hand),
            (1, self.text_view),
            (1, self.outs),
            (3, self.autocomplete),
            (0.5, self.repost),
            (2, self.replay),
            (2, self.step),
            (1.5, self.history),
            (0.7, self.share),
            (1.5, self.share_hand),
            (1.5, self.watch),
            (0.7, self.reveal),
            (1, self.league),
            (0.5, self.tourney),
            (0.7, self.admin),
            (0.5, self.rules),
            (1.5, self.junk),
            (0.5, self.settings),
            (1.5, self.board_button),
            (0.7, self.pings),
        ]
        weights = [w for w, _ in choices]
        _, run = self.rng.choices(choices, weights)[0]
        await run()

    async def look_at_hand(self) -> None:
        user = self.rng.choice(self.everyone)
        await self.my_hand(user)

    async def text_view(self) -> None:
        board = self.pan.board()
        if "Text view" in self.labels(board):
            await self.click(self.rng.choice(self.everyone), board, "Text view")

    async def outs(self) -> None:
        await self.slash(self.rng.choice(self.everyone), "outs", player=self.rng.choice(self.players))

    async def autocomplete(self) -> None:
        command, option = self.rng.choice(AUTOCOMPLETES)
        typed = self.rng.choice(["", "5", "K", "J", str(self.rng.choice(ALL_CARDS)), "2C 3C "])
        user = self.rng.choice(self.everyone)
        await self.h.autocomplete(user, command, option, typed)
        await self.pan.settle()
        self.commands += 1

    async def repost(self) -> None:
        await self.slash(self.rng.choice(self.everyone), "pan table")

    async def replay(self) -> None:
        user = self.rng.choice(self.everyone)
        hands = self.state.hand_no
        options = {"hand": self.rng.randint(1, hands)} if hands and self.rng.random() < 0.5 else {}
        reply = await self.slash(user, "pan replay", **options)
        shown = reply.all_messages[-1] if reply.all_messages else None
        if shown is not None and shown.buttons:
            self.step_throughs = [*self.step_throughs[-5:], (user, shown)]

    async def step(self) -> None:
        """A button or the jump select of a step-through someone opened."""
        if not self.step_throughs:
            await self.replay()
            return
        user, message = self.rng.choice(self.step_throughs)
        message = self.h.fake.messages[message.id]
        usable = [b for b in message.buttons if not b.get("disabled") and b.get("label") != "Share"]
        jump = next((m for m in message.selects if str(m.get("custom_id", "")).endswith(":jump")), None)
        if jump is not None and self.rng.random() < 0.3:
            await self.select(user, message, jump["custom_id"], [self.rng.choice(jump["options"])["value"]])
        elif usable:
            await self.click(user, message, self.rng.choice(usable)["custom_id"])

    async def history(self) -> None:
        user = self.rng.choice(self.everyone)
        reply = await self.slash(user, "pan history", transcript=self.rng.random() < 0.6)
        listing = reply.all_messages[-1] if reply.all_messages else None
        if listing is not None and listing.buttons and self.rng.random() < 0.4:
            opened = await self.click(user, listing, self.rng.choice(listing.buttons)["custom_id"])
            if opened.all_messages and opened.all_messages[-1].buttons:
                self.step_throughs = [*self.step_throughs[-5:], (user, opened.all_messages[-1])]

    async def share(self) -> None:
        for user, message in reversed(self.step_throughs):
            message = self.h.fake.messages[message.id]
            if "Share" in self.labels(message):
                await self.click(user, message, "Share")
                return

    async def share_hand(self) -> None:
        player = self.rng.choice(self.players)
        if self.rng.random() < 0.25:
            await self.slash(player, "pan settings", stop_sharing=True)
        else:
            await self.slash(player, "pan settings", share_hand=self.watcher)

    async def watch(self) -> None:
        """The watcher (or someone else) presses the latest 'see the shared hand' button."""
        announcement = next((m for m in reversed(self.h.messages()) if self.has_watch_button(m)), None)
        user = self.watcher if self.rng.random() < 0.7 else self.rng.choice(self.everyone)
        if announcement is None:
            await self.my_hand(user)
            return
        button = next(b for b in announcement.buttons if str(b.get("custom_id", "")).startswith("pan:w:"))
        await self.click(user, announcement, button["custom_id"])

    async def reveal(self) -> None:
        finished = [n for n in range(1, self.state.hand_no + 1) if self.state.hand is None or n < self.state.hand_no]
        if not finished:
            return
        await self.slash(self.rng.choice(self.everyone), "pan reveal", hand=self.rng.choice(finished))

    async def league(self) -> None:
        user = self.rng.choice(self.everyone)
        command = self.rng.choice(
            ["pan stats", "pan standings", "pan leaderboard", "pan balance", "pan daily", "pan rating", "pan versus"]
        )
        options: dict[str, Any] = {}
        if command in ("pan stats", "pan rating") and self.rng.random() < 0.5:
            options["player"] = self.rng.choice(self.players)
        elif command == "pan versus":
            options["member"] = self.rng.choice(self.players)
        await self.slash(user, command, **options)

    async def tourney(self) -> None:
        user = self.rng.choice(self.everyone)
        command = self.rng.choice(["tourney list", "tourney info"])
        await self.slash(user, command)

    async def admin(self) -> None:
        user = self.moderator if self.rng.random() < 0.6 else self.rng.choice(self.everyone)
        command = self.rng.choice(
            ["panadmin status", "panadmin audit", "panadmin flags", "panadmin season info", "panadmin web"]
        )
        options: dict[str, Any] = {"action": "on"} if command == "panadmin web" else {}
        await self.slash(user, command, **options)
        if user is self.moderator and self.rng.random() < 0.5:
            await self.slash(user, "pan history", transcript=True)  # floor rulings: the machine notation

    async def rules(self) -> None:
        user = self.rng.choice(self.everyone)
        if self.rng.random() < 0.5:
            reply = await self.slash(user, "pan rules")
            if reply.message is not None and "All rules" in self.labels(reply.message):
                await self.click(user, reply.message, "All rules")
        else:
            reply = await self.slash(user, "pan help")
            guide = next((m for m in reply.all_messages if m.selects), None)
            if guide is not None:
                menu = guide.selects[0]
                await self.select(user, guide, menu["custom_id"], [self.rng.choice(menu["options"])["value"]])

    async def junk(self) -> None:
        """A play command out of turn, with cards the member may not hold, or by someone not seated."""
        user = self.rng.choice(self.everyone)
        cards = " ".join(str(self.rng.choice(ALL_CARDS)) for _ in range(self.rng.randint(1, 4)))
        command = self.rng.choice(["meld", "discard", "draw", "take", "knock", "sluff", "split", "force", "hint"])
        options: dict[str, Any] = {}
        if command == "meld":
            options["cards"] = cards
        elif command == "discard":
            options["card"] = cards.split()[0]
        await self.slash(user, command, **options)

    async def settings(self) -> None:
        player = self.rng.choice(self.players)
        dms = self.rng.choice(["every", "deal", "turn", "off"])  # "every": a hand DM at each change of his hand
        await self.slash(player, "pan settings", sort=self.rng.choice(["suit", "rank"]), dms=dms)

    async def board_button(self) -> None:
        """Any button on the board (Force, Foul, Split, Take, Draw, Knock, Sluff …) by anyone; not Join or Leave,
        which would change who plays."""
        board = self.pan.board()
        usable = [b for b in board.buttons if not b.get("disabled") and b.get("label") not in ("Join", "Leave")]
        if usable:
            await self.click(self.rng.choice(self.everyone), board, self.rng.choice(usable)["custom_id"])

    async def pings(self) -> None:
        """The player to act lets the grace pass: the turn ping goes out (a public line naming the last play)."""
        await self.pan.grace_passes()

    # ------------------------------------------------------------------ helpers

    async def my_hand(self, user: FakeUser) -> FakeMessage | None:
        board = self.pan.board()
        if "My hand" in self.labels(board) and self.rng.random() < 0.5:
            reply = await self.click(user, board, "My hand")
        else:
            reply = await self.slash(user, "hand")
        return reply.all_messages[-1] if reply.all_messages else None

    async def slash(self, user: FakeUser, command: str, **options: Any) -> Reply:
        self.commands += 1
        return await self.pan.slash(user, command, **options)

    async def click(self, user: FakeUser, message: FakeMessage, target: str) -> Reply:
        self.commands += 1
        return await self.pan.click(user, message, target)

    async def select(self, user: FakeUser, message: FakeMessage, custom_id: str, values: list[str]) -> Reply:
        self.commands += 1
        return await self.pan.select(user, message, custom_id, values)

    def user_of(self, player_id: int) -> FakeUser | None:
        return next((u for u in self.everyone if u.id == player_id), None)

    @staticmethod
    def labels(message: FakeMessage) -> list[str]:
        return [str(b.get("label")) for b in message.buttons if not b.get("disabled")]

    @staticmethod
    def has_watch_button(message: FakeMessage) -> bool:
        return any(str(b.get("custom_id", "")).startswith("pan:w:") for b in message.buttons)
