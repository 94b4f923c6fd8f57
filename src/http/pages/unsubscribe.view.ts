import { label } from '../../domain/customer-labels'
import { html, type Html } from '../../domain/html'
import { DEFAULT_ACCENT, readableAccent, type Language, type TrackingPageBrand } from '../../domain/tracking-page'
import { pageDocument } from './tracking-page.view'

/**
 * /u/{token}: the unsubscribe page in the recipient's language, in the tracking page's look. Its
 * button posts the form back (the page's form-action is the page itself); a mail client's one-click
 * POST (RFC 8058) gets an empty 200 instead (unsubscribe.routes.ts).
 */

/** The shop as the page shows it. */
export const shopOf = (brand: TrackingPageBrand) => ({
  name: brand.displayName,
  logoUrl: brand.logoUrl,
  accentColor: readableAccent(brand.accentColor ?? DEFAULT_ACCENT),
  supportUrl: brand.supportUrl,
  supportEmail: brand.supportEmail,
})

export function unsubscribeHtml(language: Language, brand: TrackingPageBrand, state: 'ask' | 'done'): Html {
  const shop = brand.displayName || '—'
  const main =
    state === 'ask'
      ? html`<h1>${label(language, 'unsubscribeTitle')}</h1><p>${label(language, 'unsubscribeText', { shop })}</p>
        <form method="post"><button class="button" type="submit">${label(language, 'unsubscribe')}</button></form>`
      : html`<h1>${label(language, 'unsubscribedTitle')}</h1><p>${label(language, 'unsubscribedText', { shop })}</p>`
  return pageDocument(language, label(language, state === 'ask' ? 'unsubscribeTitle' : 'unsubscribedTitle'), shopOf(brand), main, html``)
}

export function unsubscribeNotFoundHtml(language: Language): Html {
  return pageDocument(language, label(language, 'unsubscribeTitle'), undefined, html`<h1>${label(language, 'unsubscribeNotFoundText')}</h1>`, html``)
}
