-- derived_definitions_create: run by src/db/events-view.ts

CREATE TABLE IF NOT EXISTS derived_definitions (name text PRIMARY KEY, fingerprint text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());
