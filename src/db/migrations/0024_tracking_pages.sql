-- The public tracking page (docs/api.md, "The tracking page"): each task's page token, and each API user's
-- branding of the pages of their tasks.

-- A new page token, 24 bytes written base64url (32 characters), never derived from the task's
-- id: six bytes of the clock (microseconds), then eighteen of gen_random_uuid()'s strong
-- randomness (a whole UUID's sixteen and two of a second's: at least 138 random bits). The clock
-- first puts new tokens at the right end of their unique index, as a sequence's keys are: wholly
-- random keys split pages all over it (a batch subscribe lost a fifth of its items a second).
-- Rotating a page sets a new one.
CREATE FUNCTION new_page_token() RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT translate(encode(substring(int8send((extract(epoch FROM clock_timestamp()) * 1000000)::bigint) FROM 3 FOR 6)
                          || uuid_send(gen_random_uuid()) || substring(uuid_send(gen_random_uuid()) FROM 1 FOR 2), 'base64'), '+/', '-_')
$$;

-- Every task has one from its insert on. A volatile default gives each existing row its own token
-- as the column is added (one rewrite of the table, at the upgrade).
ALTER TABLE tracking_tasks ADD COLUMN page_token text NOT NULL DEFAULT new_page_token();
CREATE UNIQUE INDEX tracking_tasks_page_token_key ON tracking_tasks (page_token);

-- A user's branding; no row: the defaults (docs/api.md, "The tracking page").
CREATE TABLE tracking_page_brands (
  user_id          bigint      PRIMARY KEY REFERENCES api_users (id),
  display_name     text        NOT NULL DEFAULT '',
  logo_url         text,
  accent_color     text,
  support_url      text,
  support_email    text,
  show_reference   boolean     NOT NULL DEFAULT false,
  default_language text        NOT NULL DEFAULT 'en',
  updated_at       timestamptz NOT NULL DEFAULT now()
);
