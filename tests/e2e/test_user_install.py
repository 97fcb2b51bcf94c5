"""The user-installable ``/mypan`` group: practice, stats, replays and the guide in the bot's DM, in a private
channel and in a server the bot is not in, with practice chips that are no server's (``BankScope.practice()``)."""

from __future__ import annotations

import pytest

from pancog.services.ledger import BankScope
from tests.e2e.conftest import Pan, PanFactory, private_to
from tests.fakediscord.models import FakeChannel, FakeMessage, FakeUser


@pytest.fixture(autouse=True)
def fast_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAN_BOT_DELAY", "0")
    monkeypatch.setenv("PAN_BOT_NEXT_HAND_DELAY", "off")
    monkeypatch.setenv("PAN_DEAL_SEED", "8")


async def anywhere(pan_factory: PanFactory) -> Pan:
    pan = await pan_factory()
    await pan.h.bot.tree.sync()  # user installs see the global commands (test mode synced guild copies)
    return pan


def boards_in(pan: Pan, channel: FakeChannel) -> list[FakeMessage]:
    return [
        m
        for m in pan.h.fake.messages.values()
        if m.channel_id == channel.id and not m.ephemeral and "table.png" in [n for n, _ in m.files]
    ]


async def play_out_by_sluffing(pan: Pan, me: FakeUser, channel: FakeChannel) -> None:
    """Sluff at every turn of ``me`` until the first hand is over (the seeded deal ends that way)."""
    seat = pan.session(channel).seat_of(me.id)
    for _ in range(40):
        state = pan.session(channel).state
        if state.hand is None:
            return
        board = pan.board(channel)
        if "Sluff" not in [b.get("label") for b in board.buttons] or state.seat(seat) is None:
            return
        await pan.click(me, board, "Sluff")


async def fingerprints(pan: Pan, guild_id: int, user_id: int) -> tuple[int, int]:
    return (
        await pan.rt.ledger.balance(guild_id, user_id),
        await pan.rt.ledger.balance(BankScope.practice(guild_id), user_id),
    )


@pytest.mark.parametrize("where", ["bot_dm", "guild_without_bot"])
async def test_user_installed_practice_plays_outside_every_server(pan_factory: PanFactory, where: str) -> None:
    """``/mypan practice`` through the user's own install: a table of no server (guild 0) in that channel, its
    chips in ``BankScope.practice()``, the board posted and kept up to date through the interactions' tokens only
    (the bot cannot post there), the first hand played to its end; the server's banks never move."""
    pan = await anywhere(pan_factory)
    me = pan.users[0]
    channel = pan.h.bot_dm(me) if where == "bot_dm" else pan.h.guild_without_bot().channels[0]
    guild = pan.h.guild.id
    before = await fingerprints(pan, guild, me.id)
    reply = await pan.slash(me, "mypan practice", channel=channel, install="user", opponents=1)
    answer = reply.all_messages[0]
    assert answer.ephemeral and answer.visible_to == me.id and "practice chips" in answer.text
    session = pan.session(channel)
    assert (session.guild_id, session.channel_id) == (0, channel.id)
    assert session.bank_scope == BankScope.practice()
    assert session.find_seat(me.id) is not None
    posts = boards_in(pan, channel)
    assert len(posts) == 1 and "hand 1" in posts[0].text
    refused = [c.route for c in pan.h.fake.calls if c.status >= 400]
    assert refused == []  # nothing tried the channel itself (the bot cannot post there)
    await play_out_by_sluffing(pan, me, channel)
    assert pan.session(channel).state.hand is None, "the seeded deal ends when the only person sluffs"
    ended = [m for m in pan.h.fake.messages.values() if m.channel_id == channel.id and "is over" in m.text]
    assert ended, "the hand's result was shown in that channel"
    assert await fingerprints(pan, guild, me.id) == before  # no server's chips, practice or real
    assert await pan.rt.ledger.balance(BankScope.practice(), me.id) > 0  # the player's practice chips are here
    assert pan.h.messages(pan.h.channel) == []
    refused = [(c.route, c.status) for c in pan.h.fake.calls if c.status >= 400]
    assert refused == []


async def test_stats_replay_and_guide_answer_in_a_dm(pan_factory: PanFactory) -> None:
    """After a user-installed practice hand in the bot's DM: ``/mypan stats`` there shows the hands played at tables
    outside servers, ``/mypan replay`` steps through that hand, ``/mypan guide`` pages through the guide; each
    answer is private and nothing is refused."""
    pan = await anywhere(pan_factory)
    me = pan.users[2]
    dm = pan.h.bot_dm(me)
    await pan.slash(me, "mypan practice", channel=dm, install="user", opponents=1)
    await play_out_by_sluffing(pan, me, dm)
    assert pan.session(dm).state.hand is None
    stats = await pan.slash(me, "mypan stats", channel=dm, install="user")
    assert private_to(stats, me) and "stats.png" in [n for n, _ in stats.all_messages[0].files]
    assert me.name in stats.text and "Hands dealt: 1" in stats.text  # named, and the practice hand counted
    replay = await pan.slash(me, "mypan replay", channel=dm, install="user")
    assert private_to(replay, me) and "Hand 1" in replay.text
    guide = await pan.slash(me, "mypan guide", channel=dm, install="user")
    assert private_to(guide, me) and guide.message is not None
    page = await pan.select(me, guide.message, "pan:guide", ["words"])
    assert page.message is not None
    assert [(c.route, c.status) for c in pan.h.fake.calls if c.status >= 400] == []


async def test_the_pan_group_stays_for_servers_and_mypan_is_everywhere(pan_factory: PanFactory) -> None:
    """Discord is told: ``/mypan`` through either install, in servers, DMs and private channels; ``/pan`` in
    servers only."""
    pan = await anywhere(pan_factory)
    synced = {c["name"]: c for c in pan.h.fake.global_commands}
    assert (synced["mypan"]["integration_types"], synced["mypan"]["contexts"]) == ([0, 1], [0, 1, 2])
    assert synced["pan"]["dm_permission"] is False and synced["pan"]["integration_types"] is None
    names = {o["name"] for o in synced["mypan"]["options"]}
    assert {"practice", "stats", "replay", "guide"} <= names
    with pytest.raises(AssertionError, match="Discord would not show"):
        await pan.h.slash(pan.users[0], "pan practice", channel=pan.h.bot_dm(pan.users[0]))
