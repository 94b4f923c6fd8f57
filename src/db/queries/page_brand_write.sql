-- page_brand_write: run by src/db/tracking-page.repository.ts

INSERT INTO
  tracking_page_brands (
    user_id,
    display_name,
    logo_url,
    accent_color,
    support_url,
    support_email,
    show_reference,
    default_language
  )
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (user_id) DO UPDATE
SET
  (
    display_name,
    logo_url,
    accent_color,
    support_url,
    support_email,
    show_reference,
    default_language,
    updated_at
  ) = (
    EXCLUDED.display_name,
    EXCLUDED.logo_url,
    EXCLUDED.accent_color,
    EXCLUDED.support_url,
    EXCLUDED.support_email,
    EXCLUDED.show_reference,
    EXCLUDED.default_language,
    now()
  )
RETURNING
  display_name,
  logo_url,
  accent_color,
  support_url,
  support_email,
  show_reference,
  default_language;
