import { LANGUAGES, type TrackingPageBrand } from '../../domain/tracking-page'
import { html, type Html } from '../../domain/html'
import { may } from '../../domain/operators'
import type { PageContext } from './layout'

/** The user's tracking page branding as a form (the same rules as PUT /openapi/tracking-page; empty fields are none). */
export function brandForm(userId: number, brand: TrackingPageBrand, context: PageContext): Html {
  const text = (name: keyof TrackingPageBrand, label: string, type: string, help: string, value: string | null) =>
    html`<p><label for="brand-${name}">${label}</label>
    <input id="brand-${name}" name="${name}" type="${type}" value="${value ?? ''}" aria-describedby="brand-${name}-help" maxlength="2000">
    <br><span id="brand-${name}-help" class="muted">${help}</span></p>`
  return html`<h2 id="tracking-page">Tracking page</h2>
<form method="post" action="/console/users/${userId}/tracking-page" class="card" aria-labelledby="tracking-page">
  <input type="hidden" name="_csrf" value="${context.csrfToken}">
  <fieldset${may(context.role, 'tracking_page.save') ? '' : html` disabled`}><legend class="skip">Branding</legend>
  ${text('displayName', 'Shop name', 'text', "as the shop's customers know it; shown when there is no logo", brand.displayName)}
  ${text('logoUrl', 'Logo URL', 'url', 'https only; shown 48 px high', brand.logoUrl)}
  ${text('accentColor', 'Colour', 'text', '#rrggbb; darkened on the page where it would not read on white', brand.accentColor)}
  ${text('supportUrl', 'Support page', 'url', 'https only', brand.supportUrl)}
  ${text('supportEmail', 'Support email', 'email', 'an address customers can write to', brand.supportEmail)}
  <p><label for="brand-defaultLanguage">Default language</label>
  <select id="brand-defaultLanguage" name="defaultLanguage" aria-describedby="brand-defaultLanguage-help">${LANGUAGES.map(
    (l) => html`<option${l === brand.defaultLanguage ? html` selected` : ''}>${l}</option>`,
  )}</select>
  <br><span id="brand-defaultLanguage-help" class="muted">when neither ?lang= nor the browser names one of the four</span></p>
  <p><input id="brand-showReference" name="showReference" type="checkbox" value="true"${brand.showReference ? html` checked` : ''}>
  <label for="brand-showReference" class="inline">Show the order reference (externalReferenceNo) on the page</label></p>
  <button type="submit">Save the tracking page</button></fieldset>
</form>`
}

/** A form's fields as a branding: empty text is none, the checkbox present is true. */
export function brandOfForm(form: Record<string, string>): TrackingPageBrand {
  const optional = (name: string) => (form[name]?.trim() ? form[name]!.trim() : null)
  return {
    displayName: form.displayName?.trim() ?? '',
    logoUrl: optional('logoUrl'),
    accentColor: optional('accentColor'),
    supportUrl: optional('supportUrl'),
    supportEmail: optional('supportEmail'),
    showReference: form.showReference === 'true',
    defaultLanguage: (LANGUAGES as readonly string[]).includes(form.defaultLanguage ?? '')
      ? (form.defaultLanguage as TrackingPageBrand['defaultLanguage'])
      : 'en',
  }
}
