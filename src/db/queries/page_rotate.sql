-- page_rotate: run by src/db/tracking-page.repository.ts

UPDATE tracking_tasks t
SET
  page_token = $3,
  updated_at = now()
WHERE
  t.user_id = $1
  AND t.id = $2
RETURNING
  current_setting('app.public_base_url') || '/t/' || t.page_token AS url;
