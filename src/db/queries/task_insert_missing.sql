-- task_insert_missing: run by src/db/task.sql.ts

WITH
  limits AS (
    SELECT
      batch_max_items
    FROM
      settings
    WHERE
      id
  ),
  input AS (
    -- The setting as a scalar subquery (evaluated once): joined as a table instead, ten
    -- concurrent statements on PostgreSQL took 2 s each instead of 14 ms (measured, 2 cores).
    SELECT
      i.*,
      i.batch_size <= (
        SELECT
          batch_max_items
        FROM
          limits
      ) AS allowed,
      (
        SELECT
          batch_max_items
        FROM
          limits
      ) AS batch_max_items
    FROM
      unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[]) WITH ORDINALITY AS i (
        user_id,
        carrier_code,
        tracking_number,
        callback_url,
        external_reference_no,
        batch_size,
        page_token,
        ord
      )
  ),
  inserted AS (
    INSERT INTO
      tracking_tasks (user_id, carrier_code, tracking_number, callback_url, external_reference_no, page_token)
    SELECT
      user_id,
      carrier_code,
      tracking_number,
      callback_url,
      external_reference_no,
      page_token
    FROM
      input
    WHERE
      allowed
    ORDER BY
      ord
    ON CONFLICT (user_id, carrier_code, tracking_number) DO NOTHING
    RETURNING
      id,
      user_id,
      carrier_code,
      tracking_number
  )
SELECT
  i.ord,
  i.batch_max_items,
  CASE
    WHEN i.allowed THEN COALESCE(
      n.id,
      (
        SELECT
          t.id
        FROM
          tracking_tasks t
        WHERE
          t.user_id = i.user_id
          AND t.carrier_code = i.carrier_code
          AND t.tracking_number = i.tracking_number
      )
    )
  END AS id,
  n.id IS NOT NULL AS created
FROM
  input i
  LEFT JOIN inserted n ON n.user_id = i.user_id
  AND n.carrier_code = i.carrier_code
  AND n.tracking_number = i.tracking_number;
