-- What a console form's answer shows once (a new token, a new webhook secret, the notice naming
-- what was made), kept for the page the form redirects to, so that reloading that page repeats
-- nothing. Encrypted with a key derived from the session's cookie, which the database never
-- holds: only a request carrying the cookie can read it. Taken by the first view of its page, or
-- dropped after a few minutes.
ALTER TABLE console_sessions
  ADD COLUMN shown_once bytea,
  ADD COLUMN shown_once_path text,
  ADD COLUMN shown_once_until timestamptz;
