-- V3: per-player preferences for the Discord adapter (hand DMs, sort order, four-colour deck, DMs refused).
-- One JSON text per user, owned by pancog/services/prefs.py; the remembered "DMs closed" flag lives here.

CREATE TABLE player_settings (
    user_id    INTEGER PRIMARY KEY,
    prefs      TEXT NOT NULL,
    updated_at REAL NOT NULL
);
