import type { Milestone } from '../domain/milestones'
import { DEFAULT_BRAND, type Language, type TrackingPageBrand, type TrackingPageSource } from '../domain/tracking-page'
import type { ProofOfDelivery } from '../domain/tracking-task'
import type { Database, Queryable } from './database'
import { newPageToken } from './page-token'
import { PAGE_URL_OF_TASK } from './task-document.sql'
import { statementsOf } from './statements'

/** A page as read by its token: what it shows, its shop's branding and carrier. */
export interface PageRow {
  source: TrackingPageSource
  brand: TrackingPageBrand
}

interface PageDbRow {
  carrier_code: string
  tracking_number: string
  external_reference_no: string
  milestone: Milestone
  estimated_delivery_at: Date | null
  prediction: { earliest: string; latest: string } | null
  origin_address: { city?: string; state?: string; country?: string }
  destination_address: { city?: string; state?: string; country?: string }
  proof_of_delivery: ProofOfDelivery | null
  updated_at: Date
  events: { eventTime: string; utcOffset: string | null; description: string; city: string; state: string; country: string; milestone: Milestone | null }[]
  display_name: string | null
  logo_url: string | null
  accent_color: string | null
  support_url: string | null
  support_email: string | null
  show_reference: boolean | null
  default_language: Language | null
}

interface BrandDbRow {
  display_name: string
  logo_url: string | null
  accent_color: string | null
  support_url: string | null
  support_email: string | null
  show_reference: boolean
  default_language: Language
}

const brandOf = (row: BrandDbRow): TrackingPageBrand => ({
  displayName: row.display_name,
  logoUrl: row.logo_url,
  accentColor: row.accent_color,
  supportUrl: row.support_url,
  supportEmail: row.support_email,
  showReference: row.show_reference,
  defaultLanguage: row.default_language,
})

/** The public tracking pages: a task's page by its token, the pages' branding, a page's new token. */
export class TrackingPageRepository {
  constructor(private readonly db: Database) {}

  /** The page of the task whose token this is, or undefined (no such token: never one, replaced, or its task deleted). */
  async findByToken(token: string): Promise<PageRow | undefined> {
    const [row] = await this.db.query<PageDbRow>(PAGE_BY_TOKEN, [token], 'page_by_token')
    if (!row) return undefined
    return {
      source: {
        carrierCode: row.carrier_code,
        trackingNumber: row.tracking_number,
        externalReferenceNo: row.external_reference_no,
        milestone: row.milestone,
        estimatedDeliveryAt: row.estimated_delivery_at,
        prediction: row.prediction,
        originAddress: row.origin_address,
        destinationAddress: row.destination_address,
        proofOfDelivery: row.proof_of_delivery,
        updatedAt: row.updated_at,
        events: row.events.map((e) => ({ ...e, eventTime: new Date(e.eventTime) })),
      },
      brand: row.display_name === null ? DEFAULT_BRAND : brandOf(row as BrandDbRow),
    }
  }

  async brand(userId: number): Promise<TrackingPageBrand> {
    const [row] = await this.db.query<BrandDbRow>(BRAND_READ, [userId], 'page_brand_read')
    return row ? brandOf(row) : DEFAULT_BRAND
  }

  async saveBrand(tx: Queryable, userId: number, brand: TrackingPageBrand): Promise<TrackingPageBrand> {
    const {
      rows: [row],
    } = await tx.query<BrandDbRow>(
      BRAND_WRITE,
      [userId, brand.displayName, brand.logoUrl, brand.accentColor, brand.supportUrl, brand.supportEmail, brand.showReference, brand.defaultLanguage],
      'page_brand_write',
    )
    return brandOf(row!)
  }

  /** Gives the task a new page token (the old one answers 404 from now on): its new page URL, or undefined without such a task. */
  async rotate(userId: number, taskId: number): Promise<string | undefined> {
    const [row] = await this.db.query<{ url: string }>(PAGE_ROTATE, [userId, taskId, newPageToken()], 'page_rotate')
    return row?.url
  }
}

// The statements this module runs (each also in src/db/queries/<name>.sql: npm run queries).
const sql = statementsOf(import.meta.url)
const BRAND_COLUMNS = 'display_name, logo_url, accent_color, support_url, support_email, show_reference, default_language'
// Through tracking_tasks_page_token_key; the events through their task's index, newest first.
const PAGE_BY_TOKEN = sql(
  'page_by_token',
  `SELECT t.carrier_code, t.tracking_number, t.external_reference_no, t.milestone, t.estimated_delivery_at, t.prediction,
          t.origin_address, t.destination_address, t.proof_of_delivery, t.updated_at,
          COALESCE((SELECT json_agg(json_build_object('eventTime', e.event_time, 'utcOffset', e.utc_offset, 'description', e.description,
                                                      'city', e.city, 'state', e.state, 'country', e.country, 'milestone', NULLIF(e.milestone, ''))
                                    ORDER BY e.event_time DESC, e.id DESC)
                      FROM tracking_events e
                     WHERE e.task_id = t.id), '[]') AS events,
          ${BRAND_COLUMNS.split(', ')
            .map((c) => `b.${c}`)
            .join(', ')}
     FROM tracking_tasks t
     LEFT JOIN tracking_page_brands b ON b.user_id = t.user_id
    WHERE t.page_token = $1`,
)
const BRAND_READ = sql('page_brand_read', `SELECT ${BRAND_COLUMNS} FROM tracking_page_brands WHERE user_id = $1`)
const BRAND_WRITE = sql(
  'page_brand_write',
  `INSERT INTO tracking_page_brands (user_id, ${BRAND_COLUMNS})
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
   ON CONFLICT (user_id) DO UPDATE
      SET (${BRAND_COLUMNS}, updated_at) = (EXCLUDED.display_name, EXCLUDED.logo_url, EXCLUDED.accent_color, EXCLUDED.support_url,
                                            EXCLUDED.support_email, EXCLUDED.show_reference, EXCLUDED.default_language, now())
   RETURNING ${BRAND_COLUMNS}`,
)
// The full task shows the page's URL: a new one moves updatedAt.
const PAGE_ROTATE = sql(
  'page_rotate',
  `UPDATE tracking_tasks t SET page_token = $3, updated_at = now()
    WHERE t.user_id = $1 AND t.id = $2
   RETURNING ${PAGE_URL_OF_TASK} AS url`,
)
