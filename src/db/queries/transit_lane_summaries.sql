-- transit_lane_summaries: run by src/db/transit-writes.ts

INSERT INTO
  transit_lanes AS l (
    scope_user_id,
    carrier_code,
    origin_country,
    origin_state,
    destination_country,
    destination_state,
    deliveries,
    p10_hours,
    median_hours,
    p90_hours
  )
SELECT
  *
FROM
  unnest(
    $1::bigint[],
    $2::text[],
    $3::text[],
    $4::text[],
    $5::text[],
    $6::text[],
    $7::int[],
    $8::float8[],
    $9::float8[],
    $10::float8[]
  )
ON CONFLICT (scope_user_id, carrier_code, origin_country, origin_state, destination_country, destination_state) DO UPDATE
SET
  deliveries = EXCLUDED.deliveries,
  p10_hours = EXCLUDED.p10_hours,
  median_hours = EXCLUDED.median_hours,
  p90_hours = EXCLUDED.p90_hours;
