"""Player-facing wording, by feature: the only place Discord text lives (``tests/adapter/test_wording.py``).

Nothing here imports discord: functions take engine values and a ``names`` mapping (player id -> display name) and
return plain strings (Discord Markdown allowed) or renderer snapshots. Public texts never include a card that is
still in someone's hand; private texts (DMs, ephemeral replies) say so in their docstrings. Import from the module
of the feature:

- :mod:`.common`: names, chips, cards as text, meld snapshots and status pills, replies every command shares;
- :mod:`.table`: the board, its snapshot and event lines, end-of-hand outcome, turn pings, table commands;
- :mod:`.hand`: the My hand panel, play labels, private results, hand DMs, hints, /pan settings;
- :mod:`.bank`: balance, daily, grants, rebuys, leaderboard;
- :mod:`.league`: seasons, standings, stats, flags, winners' roles;
- :mod:`.tournament`: announcements, registration, moves, standings and results of tournaments;
- :mod:`.replay`: history, replays, sharing and watching with consent;
- :mod:`.admin`: /panadmin config and channels, status and audit, moderator refusals;
- :mod:`.guide`: the rules guide.
"""
