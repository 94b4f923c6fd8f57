-- task_upsert_many: run by src/db/task.repository.ts

INSERT INTO
  tracking_tasks (user_id, carrier_code, tracking_number, callback_url, external_reference_no, page_token, updated_at)
SELECT
  user_id,
  carrier_code,
  tracking_number,
  callback_url,
  external_reference_no,
  page_token,
  now()
FROM
  unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS i (user_id, carrier_code, tracking_number, callback_url, external_reference_no, page_token, ord)
ORDER BY
  ord
ON CONFLICT (user_id, carrier_code, tracking_number) DO UPDATE
SET
  callback_url = EXCLUDED.callback_url,
  external_reference_no = EXCLUDED.external_reference_no,
  updated_at = EXCLUDED.updated_at
RETURNING
  id,
  user_id,
  carrier_code,
  tracking_number,
  standard_status,
  (xmax = 0) AS created;
