-- recipient_set: run by src/db/recipient.repository.ts

INSERT INTO
  task_recipients (task_id, user_id, email, email_hash, phone, name, language)
SELECT
  t.id,
  t.user_id,
  $3,
  $4,
  $5,
  $6,
  $7
FROM
  tracking_tasks t
WHERE
  t.id = $1
  AND t.user_id = $2
ON CONFLICT (task_id) DO UPDATE
SET
  email = EXCLUDED.email,
  email_hash = EXCLUDED.email_hash,
  phone = EXCLUDED.phone,
  name = EXCLUDED.name,
  language = EXCLUDED.language,
  updated_at = now()
RETURNING
  task_id;
