-- push_subscription_claim: run by src/db/push-subscription.repository.ts

WITH
  wanted AS (
    -- New: the numbers of tasks later than $5 with no subscription, or one due (by the tasks' key).
    (
      SELECT
        rt.carrier_code,
        rt.tracking_number
      FROM
        route_tasks rt
        JOIN task_schedule s ON s.task_id = rt.task_id
        AND s.carrier_code = rt.carrier_code
        AND s.next_refresh_at IS NOT NULL
        LEFT JOIN push_subscriptions p ON p.carrier_code = rt.carrier_code
        AND p.tracking_number = rt.tracking_number
      WHERE
        rt.carrier_code = $1
        AND rt.task_id > $5::bigint
        AND (
          p.state IS NULL
          OR (
            p.state <> 'refused'
            AND (
              p.lease_until IS NULL
              OR p.lease_until <= now()
            )
            AND COALESCE(p.subscribed_until, '-infinity'::timestamptz) <= now() + make_interval(secs => $3::float8 / 1000)
          )
        )
    )
    UNION
    -- Due: subscriptions ending soon, or whose last call failed, soonest first by their renewal
    -- index, of a number still active (a sweep forgets the others: few are due meanwhile).
    (
      SELECT
        d.carrier_code,
        d.tracking_number
      FROM
        (
          SELECT
            p.carrier_code,
            p.tracking_number
          FROM
            push_subscriptions p
          WHERE
            p.carrier_code = $1
            AND p.state <> 'refused'
            AND COALESCE(p.subscribed_until, '-infinity'::timestamptz) <= now() + make_interval(secs => $3::float8 / 1000)
            AND (
              p.lease_until IS NULL
              OR p.lease_until <= now()
            )
          ORDER BY
            COALESCE(p.subscribed_until, '-infinity'::timestamptz)
          LIMIT
            1000
        ) d
      WHERE
        EXISTS (
          SELECT
            1
          FROM
            route_tasks rt
            JOIN task_schedule s ON s.task_id = rt.task_id
            AND s.carrier_code = rt.carrier_code
            AND s.next_refresh_at IS NOT NULL
          WHERE
            rt.carrier_code = d.carrier_code
            AND rt.tracking_number = d.tracking_number
        )
    )
    LIMIT
      $2
  )
INSERT INTO
  push_subscriptions AS p (carrier_code, tracking_number, state, lease_until)
SELECT
  carrier_code,
  tracking_number,
  'subscribing',
  now() + make_interval(secs => $4::float8 / 1000)
FROM
  wanted
ON CONFLICT (carrier_code, tracking_number) DO UPDATE
SET
  state = 'subscribing',
  lease_until = EXCLUDED.lease_until,
  updated_at = now()
RETURNING
  p.tracking_number;
