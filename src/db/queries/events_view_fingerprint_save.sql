-- events_view_fingerprint_save: run by src/db/events-view.ts

INSERT INTO
  derived_definitions (name, fingerprint)
VALUES
  ('events_view', $1)
ON CONFLICT (name) DO UPDATE
SET
  fingerprint = EXCLUDED.fingerprint,
  updated_at = now();
