-- recipients_set: run by src/db/recipient.repository.ts

INSERT INTO
  task_recipients (task_id, user_id, email, email_hash, phone, phone_hash, name, language)
SELECT
  t.id,
  t.user_id,
  r.email,
  r.email_hash,
  r.phone,
  r.phone_hash,
  r.name,
  r.language
FROM
  unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS r (task_id, email, email_hash, phone, phone_hash, name, language)
  JOIN tracking_tasks t ON t.id = r.task_id
  AND t.user_id = $1
ON CONFLICT (task_id) DO UPDATE
SET
  email = EXCLUDED.email,
  email_hash = EXCLUDED.email_hash,
  phone = EXCLUDED.phone,
  phone_hash = EXCLUDED.phone_hash,
  name = EXCLUDED.name,
  language = EXCLUDED.language,
  updated_at = now()
RETURNING
  task_id;
