-- route_stop_claim: run by src/db/route-registration.repository.ts

UPDATE route_registrations r
SET
  state = 'stopping',
  lease_until = now() + make_interval(secs => $3::float8 / 1000),
  updated_at = now()
FROM
  (
    SELECT
      g.carrier_code,
      g.tracking_number
    FROM
      route_registrations g
    WHERE
      g.carrier_code = ANY ($1::text[])
      AND (
        g.state = 'registered'
        OR (
          g.state = 'stopping'
          AND g.lease_until <= now()
        )
      )
      AND NOT EXISTS (
        SELECT
          1
        FROM
          route_tasks rt
        WHERE
          rt.carrier_code = g.carrier_code
          AND rt.tracking_number = g.tracking_number
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
      )
    LIMIT
      $2
    FOR UPDATE
      SKIP LOCKED
  ) AS idle
WHERE
  r.carrier_code = idle.carrier_code
  AND r.tracking_number = idle.tracking_number
RETURNING
  r.carrier_code,
  r.tracking_number;
