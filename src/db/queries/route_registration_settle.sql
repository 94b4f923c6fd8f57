-- route_registration_settle: run by src/db/route-registration.repository.ts

UPDATE route_registrations r
SET
  state = COALESCE(o.state, r.state),
  lease_until = CASE
    WHEN o.retry_in_ms IS NULL THEN NULL
    ELSE now() + make_interval(secs => o.retry_in_ms / 1000)
  END,
  registered_at = CASE
    WHEN o.state = 'registered' THEN COALESCE(r.registered_at, now())
    ELSE r.registered_at
  END,
  stopped_at = CASE
    WHEN o.state = 'stopped' THEN now()
    ELSE r.stopped_at
  END,
  refusal = o.refusal,
  updated_at = now()
FROM
  unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::text[]) AS o (carrier_code, tracking_number, state, retry_in_ms, refusal)
WHERE
  r.carrier_code = o.carrier_code
  AND r.tracking_number = o.tracking_number;
