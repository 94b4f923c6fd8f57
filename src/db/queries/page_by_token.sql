-- page_by_token: run by src/db/tracking-page.repository.ts

SELECT
  t.carrier_code,
  t.tracking_number,
  t.external_reference_no,
  t.milestone,
  t.estimated_delivery_at,
  t.prediction,
  t.origin_address,
  t.destination_address,
  t.proof_of_delivery,
  t.updated_at,
  COALESCE(
    (
      SELECT
        json_agg(
          json_build_object(
            'eventTime',
            e.event_time,
            'utcOffset',
            e.utc_offset,
            'description',
            e.description,
            'city',
            e.city,
            'state',
            e.state,
            'country',
            e.country,
            'milestone',
            NULLIF(e.milestone, '')
          )
          ORDER BY
            e.event_time DESC,
            e.id DESC
        )
      FROM
        tracking_events e
      WHERE
        e.task_id = t.id
    ),
    '[]'
  ) AS events,
  b.display_name,
  b.logo_url,
  b.accent_color,
  b.support_url,
  b.support_email,
  b.show_reference,
  b.default_language
FROM
  tracking_tasks t
  LEFT JOIN tracking_page_brands b ON b.user_id = t.user_id
WHERE
  t.page_token = $1;
