-- transit_busiest_lanes: run by src/db/transit.repository.ts

(
  SELECT
    carrier_code,
    origin_country,
    origin_state,
    destination_country,
    destination_state,
    deliveries,
    p10_hours,
    median_hours,
    p90_hours
  FROM
    transit_lanes
  WHERE
    scope_user_id = 0
    AND origin_country = '*'
)
UNION ALL
(
  SELECT
    carrier_code,
    origin_country,
    origin_state,
    destination_country,
    destination_state,
    deliveries,
    p10_hours,
    median_hours,
    p90_hours
  FROM
    transit_lanes
  WHERE
    scope_user_id = 0
    AND origin_country <> '*'
    AND origin_state <> '*'
  ORDER BY
    deliveries DESC,
    carrier_code,
    origin_country,
    origin_state,
    destination_country,
    destination_state
  LIMIT
    $1
);
