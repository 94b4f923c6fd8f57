-- refresh_claim: run by src/db/refresh.repository.ts

WITH
  lapsed AS (
    DELETE FROM refresh_claims
    WHERE
      carrier_code = $1
      AND lease_until <= now()
  ),
  held AS (
    SELECT
      unnest(c.task_ids) AS task_id
    FROM
      refresh_claims c
    WHERE
      c.carrier_code = $1
      AND c.lease_until > now()
  ),
  picked AS (
    -- Each carrier's oldest due tasks from its own part of the due index (a route's channel
    -- fetches several carriers, $5), then the oldest $2 of them all.
    SELECT
      s.task_id,
      s.carrier_code,
      s.next_refresh_at,
      s.refresh_failures
    FROM
      unnest($5::text[]) AS c (carrier_code)
      CROSS JOIN LATERAL (
        SELECT
          d.task_id,
          d.carrier_code,
          d.next_refresh_at,
          d.refresh_failures
        FROM
          task_schedule d
        WHERE
          d.carrier_code = c.carrier_code
          AND d.next_refresh_at <= now()
          AND d.task_id NOT IN (
            SELECT
              task_id
            FROM
              held
          )
        ORDER BY
          d.next_refresh_at
        LIMIT
          $2
      ) s
    ORDER BY
      s.next_refresh_at
    LIMIT
      $2
  ),
  claimed AS (
    INSERT INTO
      refresh_claims (lease_token, carrier_code, task_ids, lease_until)
    SELECT
      $4,
      $1,
      array_agg(task_id),
      now() + make_interval(secs => $3::float8 / 1000)
    FROM
      picked
    HAVING
      count(*) > 0
  )
SELECT
  p.task_id AS id,
  p.carrier_code,
  t.tracking_number,
  p.refresh_failures,
  p.next_refresh_at::text AS due_at,
  t.answer_fingerprint,
  t.quiet_since
FROM
  picked p
  -- Each claimed task by its key (OFFSET 0 keeps it a lookup per row): joined, a small table
  -- was read whole for every claim.
  CROSS JOIN LATERAL (
    SELECT
      tracking_number,
      answer_fingerprint,
      COALESCE(last_new_event_at, created_at) AS quiet_since
    FROM
      tracking_tasks
    WHERE
      id = p.task_id
    OFFSET
      0
  ) t
ORDER BY
  p.next_refresh_at;
