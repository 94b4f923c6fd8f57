-- predictions_remake: run by src/db/prediction-writes.ts

WITH
  due AS (
    SELECT
      id
    FROM
      tracking_tasks
    WHERE
      id > $1
      AND transit_started_at IS NOT NULL
      AND standard_status NOT IN ('delivered', 'returned', 'cancelled', 'expired')
    ORDER BY
      id
    LIMIT
      $2
    FOR UPDATE
  ),
  remade AS (
    UPDATE tracking_tasks t
    SET
      (predicted_delivery_at, prediction) = (
        SELECT
          (t.transit_started_at + lane.median_hours * interval '1 hour'),
          (
            SELECT
              row_to_json(x)
            FROM
              (
                SELECT
                  lane.basis AS basis,
                  lane.deliveries AS samples,
                  to_char(
                    (t.transit_started_at + lane.p10_hours * interval '1 hour') AT TIME ZONE 'UTC',
                    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
                  ) AS earliest,
                  to_char(
                    (t.transit_started_at + lane.p90_hours * interval '1 hour') AT TIME ZONE 'UTC',
                    'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'
                  ) AS latest
              ) x
          )
        FROM
          (
            SELECT
              CASE
                WHEN (
                  SELECT
                    prediction_sharing
                  FROM
                    settings
                ) = 'own' THEN t.user_id
                ELSE 0
              END AS user_id
          ) AS scope,
          LATERAL (
            SELECT
              'states' AS basis,
              l.deliveries,
              l.p10_hours,
              l.median_hours,
              l.p90_hours
            FROM
              transit_lanes l
            WHERE
              l.scope_user_id = scope.user_id
              AND l.carrier_code = t.carrier_code
              AND (l.origin_country, l.origin_state, l.destination_country, l.destination_state) = (
                COALESCE(t.origin_address ->> 'country', ''),
                COALESCE(t.origin_address ->> 'state', ''),
                COALESCE(t.destination_address ->> 'country', ''),
                COALESCE(t.destination_address ->> 'state', '')
              )
              AND l.deliveries >= 20
            UNION ALL
            SELECT
              'countries' AS basis,
              l.deliveries,
              l.p10_hours,
              l.median_hours,
              l.p90_hours
            FROM
              transit_lanes l
            WHERE
              l.scope_user_id = scope.user_id
              AND l.carrier_code = t.carrier_code
              AND (l.origin_country, l.origin_state, l.destination_country, l.destination_state) = (
                COALESCE(t.origin_address ->> 'country', ''),
                '*',
                COALESCE(t.destination_address ->> 'country', ''),
                '*'
              )
              AND l.deliveries >= 20
            UNION ALL
            SELECT
              'carrier' AS basis,
              l.deliveries,
              l.p10_hours,
              l.median_hours,
              l.p90_hours
            FROM
              transit_lanes l
            WHERE
              l.scope_user_id = scope.user_id
              AND l.carrier_code = t.carrier_code
              AND (l.origin_country, l.origin_state, l.destination_country, l.destination_state) = ('*', '*', '*', '*')
              AND l.deliveries >= 20
          ) AS lane
        WHERE
          t.transit_started_at IS NOT NULL
          AND t.standard_status NOT IN ('delivered', 'returned', 'cancelled', 'expired')
        LIMIT
          1
      )
    FROM
      due
    WHERE
      t.id = due.id
    RETURNING
      t.id
  )
SELECT
  max(id) AS last
FROM
  remade;
