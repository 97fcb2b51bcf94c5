-- V3 (PostgreSQL): per-player preferences for the Discord adapter (one JSON text per user, pancog/services/prefs.py).

CREATE TABLE player_settings (
    user_id    BIGINT PRIMARY KEY,
    prefs      TEXT NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
