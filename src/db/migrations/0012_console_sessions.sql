-- Sessions of the operator console (docs/console.md): the cookie carries a random id, the table
-- its SHA-256, so that a stolen database does not hold usable cookies. Sign-out deletes the row,
-- whichever process served the sign-in.
CREATE TABLE console_sessions (
  id_hash     bytea PRIMARY KEY,
  csrf_token  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX console_sessions_expires_idx ON console_sessions (expires_at);
