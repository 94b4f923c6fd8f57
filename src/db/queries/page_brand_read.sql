-- page_brand_read: run by src/db/tracking-page.repository.ts

SELECT
  display_name,
  logo_url,
  accent_color,
  support_url,
  support_email,
  show_reference,
  default_language
FROM
  tracking_page_brands
WHERE
  user_id = $1;
