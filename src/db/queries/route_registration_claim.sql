-- route_registration_claim: run by src/db/route-registration.repository.ts

WITH
  wanted AS (
    SELECT DISTINCT
      rt.carrier_code,
      rt.tracking_number
    FROM
      route_tasks rt
      LEFT JOIN route_registrations r ON r.carrier_code = rt.carrier_code
      AND r.tracking_number = rt.tracking_number
    WHERE
      rt.carrier_code = ANY ($1::text[])
      AND EXISTS (
        SELECT
          1
        FROM
          task_schedule s
        WHERE
          s.task_id = rt.task_id
          AND s.carrier_code = rt.carrier_code
          AND s.next_refresh_at IS NOT NULL
      )
      -- Never registered, stopped, or a claim whose lease lapsed (its process died, or the quota ran out).
      AND (
        r.state IS NULL
        OR (
          r.state <> 'registered'
          AND r.state <> 'refused'
          AND (
            r.lease_until IS NULL
            OR r.lease_until <= now()
          )
        )
      )
    LIMIT
      $2
  )
INSERT INTO
  route_registrations AS r (carrier_code, tracking_number, state, lease_until)
SELECT
  carrier_code,
  tracking_number,
  'registering',
  now() + make_interval(secs => $3::float8 / 1000)
FROM
  wanted
ON CONFLICT (carrier_code, tracking_number) DO UPDATE
SET
  state = 'registering',
  lease_until = EXCLUDED.lease_until,
  updated_at = now()
RETURNING
  r.carrier_code,
  r.tracking_number,
  r.registered_at IS NOT NULL AS restart;
