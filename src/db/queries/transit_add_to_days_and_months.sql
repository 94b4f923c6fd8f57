-- transit_add_to_days_and_months: run by src/db/transit-writes.ts

WITH
  d AS (
    SELECT
      *
    FROM
      unnest(
        $1::bigint[],
        $2::date[],
        $3::text[],
        $4::text[],
        $5::text[],
        $6::text[],
        $7::text[],
        $8::int[],
        $9::boolean[],
        $10::boolean[],
        $11::boolean[]
      ) AS d (
        user_id,
        delivered_on,
        carrier_code,
        origin_country,
        origin_state,
        destination_country,
        destination_state,
        transit_bucket,
        with_eta,
        on_time,
        passed_exception
      )
  ),
  days AS (
    INSERT INTO
      transit_days AS x (
        user_id,
        delivered_on,
        carrier_code,
        origin_country,
        origin_state,
        destination_country,
        destination_state,
        transit_bucket,
        deliveries,
        with_eta,
        on_time,
        exceptions
      )
    SELECT
      user_id,
      delivered_on,
      carrier_code,
      origin_country,
      origin_state,
      destination_country,
      destination_state,
      transit_bucket,
      count(*),
      count(*) FILTER (
        WHERE
          with_eta
      ),
      count(*) FILTER (
        WHERE
          on_time
      ),
      count(*) FILTER (
        WHERE
          passed_exception
      )
    FROM
      d
    GROUP BY
      user_id,
      delivered_on,
      carrier_code,
      origin_country,
      origin_state,
      destination_country,
      destination_state,
      transit_bucket
    ORDER BY
      user_id,
      delivered_on,
      carrier_code,
      origin_country,
      origin_state,
      destination_country,
      destination_state,
      transit_bucket
    ON CONFLICT (
      user_id,
      delivered_on,
      carrier_code,
      origin_country,
      origin_state,
      destination_country,
      destination_state,
      transit_bucket
    ) DO UPDATE
    SET
      deliveries = x.deliveries + EXCLUDED.deliveries,
      with_eta = x.with_eta + EXCLUDED.with_eta,
      on_time = x.on_time + EXCLUDED.on_time,
      exceptions = x.exceptions + EXCLUDED.exceptions
  )
INSERT INTO
  transit_months AS x (
    user_id,
    month,
    carrier_code,
    origin_country,
    origin_state,
    destination_country,
    destination_state,
    transit_bucket,
    deliveries,
    with_eta,
    on_time,
    exceptions
  )
SELECT
  user_id,
  date_trunc('month', delivered_on)::date,
  carrier_code,
  origin_country,
  origin_state,
  destination_country,
  destination_state,
  transit_bucket,
  count(*),
  count(*) FILTER (
    WHERE
      with_eta
  ),
  count(*) FILTER (
    WHERE
      on_time
  ),
  count(*) FILTER (
    WHERE
      passed_exception
  )
FROM
  d
GROUP BY
  user_id,
  date_trunc('month', delivered_on)::date,
  carrier_code,
  origin_country,
  origin_state,
  destination_country,
  destination_state,
  transit_bucket
ORDER BY
  user_id,
  date_trunc('month', delivered_on)::date,
  carrier_code,
  origin_country,
  origin_state,
  destination_country,
  destination_state,
  transit_bucket
ON CONFLICT (
  user_id,
  month,
  carrier_code,
  origin_country,
  origin_state,
  destination_country,
  destination_state,
  transit_bucket
) DO UPDATE
SET
  deliveries = x.deliveries + EXCLUDED.deliveries,
  with_eta = x.with_eta + EXCLUDED.with_eta,
  on_time = x.on_time + EXCLUDED.on_time,
  exceptions = x.exceptions + EXCLUDED.exceptions;
