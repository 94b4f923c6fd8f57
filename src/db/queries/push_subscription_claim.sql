-- push_subscription_claim: run by src/db/push-subscription.repository.ts

WITH
  wanted AS (
    SELECT DISTINCT
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
      -- Never subscribed, or ending soon, and not being subscribed (a lapsed lease: its process died, or its retry is due).
      AND (
        p.state IS NULL
        OR (
          p.state <> 'refused'
          AND (
            p.lease_until IS NULL
            OR p.lease_until <= now()
          )
          AND (
            p.subscribed_until IS NULL
            OR p.subscribed_until <= now() + make_interval(secs => $3::float8 / 1000)
          )
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
