-- The inbound gateway (docs/carriers.md, "Pushes"): what a carrier or an aggregator pushed,
-- written before the push is answered 2xx and applied by the workers afterwards.
CREATE TABLE inbound_pushes (
  id          bigserial PRIMARY KEY,
  source      text NOT NULL,
  -- SHA-256 of the raw body: the same push sent twice is one row, applied once.
  digest      text NOT NULL,
  body        bytea NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  -- While a worker applies it.
  lease_until timestamptz,
  attempts    integer NOT NULL DEFAULT 0,
  -- NULL until applied; then what it did (applied, unknown_number, held…).
  applied_at  timestamptz,
  outcome     text,
  CONSTRAINT inbound_pushes_once UNIQUE (source, digest)
);
-- The pushes waiting, in the order they arrived.
CREATE INDEX inbound_pushes_waiting_idx ON inbound_pushes (id) WHERE applied_at IS NULL;
-- Applied pushes are kept a week (a sender's retries come within hours), then deleted.
CREATE INDEX inbound_pushes_applied_idx ON inbound_pushes (applied_at) WHERE applied_at IS NOT NULL;
