-- refresh_claim_tasks: run by src/db/refresh.repository.ts

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
    SELECT
      s.task_id,
      s.carrier_code,
      s.next_refresh_at,
      s.refresh_failures
    FROM
      task_schedule s
    WHERE
      s.task_id = ANY ($2::bigint[])
      AND s.next_refresh_at IS NOT NULL
      AND s.task_id NOT IN (
        SELECT
          task_id
        FROM
          held
      )
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
