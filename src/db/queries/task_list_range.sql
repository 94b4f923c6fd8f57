-- task_list_range: run by src/db/task-list.sql.ts

-- the tasks a range of the change time holds (pages sorted by creation)
SELECT
  count(*)::int AS n
FROM
  (
    SELECT
      1
    FROM
      tracking_tasks t
    WHERE
      user_id = $1
      AND updated_at >= COALESCE(
        (
          SELECT
            $2::timestamptz
        ),
        '-infinity'
      )
      AND updated_at < COALESCE(
        (
          SELECT
            $3::timestamptz
        ),
        'infinity'
      )
      AND t.inactive_since IS NULL
    UNION ALL
    SELECT
      1
    FROM
      tracking_tasks t
    WHERE
      user_id = $1
      AND updated_at >= COALESCE(
        (
          SELECT
            $2::timestamptz
        ),
        '-infinity'
      )
      AND updated_at < COALESCE(
        (
          SELECT
            $3::timestamptz
        ),
        'infinity'
      )
      AND t.inactive_since IS NOT NULL
    LIMIT
      20001
  ) x;

-- the tasks a range of the creation time holds (pages sorted by change)
SELECT
  count(*)::int AS n
FROM
  (
    SELECT
      1
    FROM
      tracking_tasks t
    WHERE
      user_id = $1
      AND created_at >= COALESCE(
        (
          SELECT
            $2::timestamptz
        ),
        '-infinity'
      )
      AND created_at < COALESCE(
        (
          SELECT
            $3::timestamptz
        ),
        'infinity'
      )
      AND t.inactive_since IS NULL
    UNION ALL
    SELECT
      1
    FROM
      tracking_tasks t
    WHERE
      user_id = $1
      AND created_at >= COALESCE(
        (
          SELECT
            $2::timestamptz
        ),
        '-infinity'
      )
      AND created_at < COALESCE(
        (
          SELECT
            $3::timestamptz
        ),
        'infinity'
      )
      AND t.inactive_since IS NOT NULL
    LIMIT
      20001
  ) x;
