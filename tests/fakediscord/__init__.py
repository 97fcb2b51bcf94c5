"""A local fake Discord (REST + gateway) for end-to-end tests of the real discord.py bot.

See docs/testing.md. Modules: ``server`` (FakeDiscord), ``models`` (its records), ``limits``
(Discord's payload limits), ``harness`` (user-level driving + the in-process bot), ``plugin``
(pytest fixtures). Keep this file free of imports: pytest may import the package under two names.
"""
