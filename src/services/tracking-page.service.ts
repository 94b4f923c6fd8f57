import { carrierNamed } from '../carriers/registry'
import type { TrackingPageRepository } from '../db/tracking-page.repository'
import type { Actor } from '../domain/audit'
import { invalid, subscriptionNotFound } from '../domain/errors'
import type { AuditTrail } from './audit-trail'
import { brandProblems, chooseLanguage, trackingPageOf, type Language, type TrackingPage, type TrackingPageBrand } from '../domain/tracking-page'

/** The public tracking pages: a page by its token, the branding of a user's pages, a page's new token. */
export class TrackingPageService {
  constructor(
    private readonly pages: TrackingPageRepository,
    private readonly audit: AuditTrail,
  ) {}

  /** The page of a token in the language asked for; undefined for a token that is not (or no longer) a page's. */
  async page(token: string, asked: { lang?: string; acceptLanguage?: string }): Promise<TrackingPage | undefined> {
    const found = await this.pages.findByToken(token)
    if (!found) return undefined
    const { source, brand } = found
    const language: Language = chooseLanguage(asked.lang, asked.acceptLanguage, brand.defaultLanguage)
    const carrier = carrierNamed(source.carrierCode)
    const name = carrier?.name ?? source.carrierCode
    return trackingPageOf(source, brand, { name, trackingUrl: carrier?.trackingPageUrl(source.trackingNumber) ?? '' }, language)
  }

  brand(userId: number): Promise<TrackingPageBrand> {
    return this.pages.brand(userId)
  }

  /** Replaces the user's branding (the HTTP schema has checked the members' types). */
  /** `actor`: an operator or the admin token changing a user's branding (the audit trail); none when the user does. */
  async saveBrand(userId: number, brand: TrackingPageBrand, actor?: Actor): Promise<TrackingPageBrand> {
    return this.audit.record(actor, { action: 'tracking_page.save', target: { kind: 'api_user', id: userId } }, async (tx) => {
      const problems = brandProblems(brand)
      if (problems.length > 0) throw invalid(problems)
      return this.pages.saveBrand(tx, userId, brand)
    })
  }

  /** The task's page under a new token (the old URL answers 404 at once). */
  async rotate(userId: number, taskId: number): Promise<string> {
    const url = await this.pages.rotate(userId, taskId)
    if (url === undefined) throw subscriptionNotFound()
    return url
  }
}
