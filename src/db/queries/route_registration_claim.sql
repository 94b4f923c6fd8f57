-- route_registration_claim: run by src/db/route-registration.repository.ts

WITH
  wanted AS (
    -- The numbers of the tasks later than $4 (by key): never registered, stopped, or a claim
    -- whose lease lapsed (its process died, or the quota ran out).
    (
      SELECT
        rt.carrier_code,
        rt.tracking_number
      FROM
        route_tasks rt
        LEFT JOIN route_registrations r ON r.carrier_code = rt.carrier_code
        AND r.tracking_number = rt.tracking_number
      WHERE
        rt.carrier_code = ANY ($1::text[])
        AND rt.task_id > $4::bigint
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
    )
    UNION
    -- Due again, of a number still active: a failed call, a lapsed lease (by the retry index).
    (
      SELECT
        r.carrier_code,
        r.tracking_number
      FROM
        route_registrations r
      WHERE
        r.state = 'registering'
        AND r.lease_until <= now()
        AND r.carrier_code = ANY ($1::text[])
        AND EXISTS (
          SELECT
            1
          FROM
            route_tasks rt
          WHERE
            rt.carrier_code = r.carrier_code
            AND rt.tracking_number = r.tracking_number
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
  r.registered_at IS NOT NULL AS restart,
  -- The same number registered under another of the route's carriers, none of whose
  -- tasks is active: the tasks' carrier changed, and the record is moved there.
  (
    SELECT
      o.carrier_code
    FROM
      route_registrations o
    WHERE
      o.carrier_code = ANY ($1::text[])
      AND o.tracking_number = r.tracking_number
      AND o.carrier_code <> r.carrier_code
      AND o.state = 'registered'
      AND NOT EXISTS (
        SELECT
          1
        FROM
          route_tasks rt
        WHERE
          rt.carrier_code = o.carrier_code
          AND rt.tracking_number = o.tracking_number
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
      1
  ) AS moved_from;
