-- A task's addresses as the JSON text the full task writes them (compact, the interface's
-- members in its order: country, state, city, postalCode, address), so that a list page emits
-- each as stored: rebuilt from jsonb (five ->> and a row_to_json each) the two addresses were a
-- third of the database's time for a page. The refresh writes them so (refresh-writes.ts).
-- Rewrites tracking_tasks once (its indexes too): minutes for tens of millions of tasks.
CREATE FUNCTION pg_temp.address_as_written(a jsonb) RETURNS json LANGUAGE sql IMMUTABLE AS $$
  SELECT row_to_json(x) FROM (SELECT a->>'country' AS "country", a->>'state' AS "state", a->>'city' AS "city",
                                     a->>'postalCode' AS "postalCode", a->>'address' AS "address") x
$$;

ALTER TABLE tracking_tasks
  ALTER COLUMN origin_address DROP DEFAULT,
  ALTER COLUMN destination_address DROP DEFAULT;
ALTER TABLE tracking_tasks
  ALTER COLUMN origin_address TYPE json USING pg_temp.address_as_written(origin_address),
  ALTER COLUMN destination_address TYPE json USING pg_temp.address_as_written(destination_address);
ALTER TABLE tracking_tasks
  ALTER COLUMN origin_address SET DEFAULT '{"country":"","state":"","city":"","postalCode":"","address":""}',
  ALTER COLUMN destination_address SET DEFAULT '{"country":"","state":"","city":"","postalCode":"","address":""}';
