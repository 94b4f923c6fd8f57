import { LANGUAGES, type Language, type TrackingPage } from '../../domain/tracking-page'
import { html, type Html } from '../../domain/html'
import { label, LANGUAGE_NAMES, MILESTONE_LABELS, type LabelKey } from '../../domain/customer-labels'
import { eventText, eventTimeText, expectedText, formatTime, placeText } from '../../domain/customer-time'

/**
 * The public tracking page as HTML: server-rendered, readable without JavaScript (it has none),
 * every value escaped by the html tag. Its stylesheet is /t/assets/page.css; the shop's colour is
 * the one inline style, allowed by its hash in the page's CSP (tracking-page.routes.ts).
 */

/** The inline style that gives the page its shop's colour. */
export const accentStyle = (page: { shop: { accentColor: string } }) => `:root{--accent:${page.shop.accentColor}}`

/** The page's labels in its language. */
const labelsOf =
  (language: Language) =>
  (key: LabelKey, values?: Record<string, string>): string =>
    label(language, key, values)

const format = formatTime

function expected(page: TrackingPage): Html | undefined {
  const { language } = page
  const l = labelsOf(language)
  const line = expectedText(page)
  if (page.deliveredAt !== null) {
    return html`<section class="card" aria-labelledby="delivered"><h2 id="delivered">${MILESTONE_LABELS[language].delivered}</h2>
      <p class="big"><time datetime="${page.deliveredAt}">${line}</time></p></section>`
  }
  if (page.ended) return undefined
  let body: Html
  if (page.expected === null) body = html`<p class="big">${l('noEstimate')}</p>`
  else if (page.expected.source === 'carrier') {
    body = html`<p class="big"><time datetime="${page.expected.at}">${line}</time></p>
      <p class="muted">${l('expectedByCarrier', { carrier: page.carrier.name })}</p>`
  } else {
    body = html`<p class="big">${line}</p>
      <p class="muted">${l('expectedPredicted')}</p>`
  }
  return html`<section class="card" aria-labelledby="expected"><h2 id="expected">${l('expected')}</h2>${body}</section>`
}

function proof(page: TrackingPage): Html | undefined {
  const pod = page.proofOfDelivery
  if (!pod) return undefined
  const l = labelsOf(page.language)
  return html`<section class="card" aria-labelledby="pod"><h2 id="pod">${l('proofOfDelivery')}</h2>
    <dl>
      ${pod.signedBy ? html`<dt>${l('signedBy')}</dt><dd>${pod.signedBy}</dd>` : ''}
      ${pod.location ? html`<dt>${l('leftAt')}</dt><dd>${pod.location}</dd>` : ''}
    </dl>
    ${pod.signatureAvailable ? html`<p>${l('signatureOnFile')}</p>` : ''}
    ${pod.documentUrl ? html`<p><a href="${pod.documentUrl}" rel="noopener noreferrer">${l('podDocument')}</a></p>` : ''}
  </section>`
}

function timeline(page: TrackingPage): Html {
  const { language } = page
  const items = page.events.map((event) => {
    const where = placeText(event.place)
    return html`<li class="${event.milestone ?? ''}">
      <p class="what">${eventText(language, event)}</p>
      <p class="muted"><time datetime="${event.at}">${eventTimeText(language, event)}</time>${where ? html` · ${where}` : ''}</p>
    </li>`
  })
  return html`<section class="card" aria-labelledby="history"><h2 id="history">${label(language, 'history')}</h2>
    ${items.length > 0 ? html`<ol class="timeline">${items}</ol>` : html`<p class="muted">${label(language, 'noEvents')}</p>`}
  </section>`
}

export function pageDocument(language: Language, title: string, shop: TrackingPage['shop'] | undefined, main: Html, footer: Html): Html {
  return html`<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="stylesheet" href="/t/assets/page.css">
${shop ? html`<style>${accentStyle({ shop })}</style>` : ''}
</head>
<body>
<header class="shop">
  ${shop?.logoUrl ? html`<img src="${shop.logoUrl}" alt="${shop.name}" height="48">` : ''}
  ${shop?.name && !shop.logoUrl ? html`<span class="name">${shop.name}</span>` : ''}
</header>
<main>${main}</main>
<footer>${footer}</footer>
</body>
</html>`
}

/** The language links: the same page in each of the others. */
const languageLinks = (language: Language) =>
  html`<nav aria-label="${label(language, 'language')}"><ul class="languages">${LANGUAGES.map((l) =>
    l === language
      ? html`<li><span aria-current="true">${LANGUAGE_NAMES[l]}</span></li>`
      : html`<li><a href="?lang=${l}" hreflang="${l}" lang="${l}">${LANGUAGE_NAMES[l]}</a></li>`,
  )}</ul></nav>`

export function trackingPageHtml(page: TrackingPage): Html {
  const { language } = page
  const l = labelsOf(language)
  const headline = MILESTONE_LABELS[language][page.milestone]
  const steps = page.progress.map(
    (p) =>
      html`<li class="${p.state}" ${p.state === 'current' ? html`aria-current="step"` : ''}><span class="dot" aria-hidden="true"></span><span>${MILESTONE_LABELS[language][p.step]}</span></li>`,
  )
  const shipment = html`<section class="card" aria-labelledby="shipment"><h2 id="shipment">${l('shipment')}</h2>
    <dl>
      <dt>${l('carrier')}</dt><dd>${page.carrier.name}</dd>
      <dt>${l('trackingNumber')}</dt><dd class="number">${page.carrier.trackingNumber}</dd>
      ${page.reference !== null ? html`<dt>${l('reference')}</dt><dd>${page.reference}</dd>` : ''}
      ${page.origin ? html`<dt>${l('from')}</dt><dd>${placeText(page.origin)}</dd>` : ''}
      ${page.destination ? html`<dt>${l('to')}</dt><dd>${placeText(page.destination)}</dd>` : ''}
    </dl>
    ${page.carrier.trackingUrl ? html`<p><a href="${page.carrier.trackingUrl}" rel="noopener noreferrer">${l('trackOnCarrier', { carrier: page.carrier.name })}</a></p>` : ''}
  </section>`
  const support =
    page.shop.supportUrl || page.shop.supportEmail
      ? html`<section class="card" aria-labelledby="help"><h2 id="help">${l('help')}</h2><p class="actions">
          ${page.shop.supportUrl ? html`<a class="button" href="${page.shop.supportUrl}" rel="noopener noreferrer">${l('supportSite')}</a>` : ''}
          ${page.shop.supportEmail ? html`<a class="button secondary" href="mailto:${page.shop.supportEmail}">${l('supportEmail', { address: page.shop.supportEmail })}</a>` : ''}
        </p></section>`
      : ''
  const main = html`<h1 class="${page.trouble ? 'trouble' : ''}">${headline}</h1>
    <p class="muted">${l('updated', { time: format(language, new Date(page.updatedAt), { dateStyle: 'medium', timeStyle: 'short' }) + ' UTC' })}</p>
    <section aria-label="${l('progress')}"><ol class="progress ${page.trouble ? 'trouble' : ''}">${steps}</ol></section>
    <div class="grid">
      <div class="summary">${expected(page)}${proof(page)}</div>
      <div class="history">${timeline(page)}</div>
      <div class="details">${shipment}${support}</div>
    </div>`
  const title = page.shop.name ? `${l('title')} · ${page.shop.name}` : l('title')
  return pageDocument(language, title, page.shop, main, languageLinks(language))
}

/** The one answer to a token that is not a page's (never one, replaced, or its task deleted). */
export function notFoundHtml(language: Language): Html {
  return pageDocument(
    language,
    label(language, 'notFoundTitle'),
    undefined,
    html`<h1>${label(language, 'notFoundTitle')}</h1><p>${label(language, 'notFoundText')}</p>`,
    languageLinks(language),
  )
}

export const TRACKING_PAGE_CSS = `
:root { --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; --card: #fff; --trouble: #b42318; --accent: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); overflow-wrap: anywhere; }
a { color: var(--accent); }
a:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
header.shop { background: var(--card); border-bottom: 4px solid var(--accent); padding: 12px max(16px, calc((100% - 1100px) / 2 + 16px)); min-height: 76px; display: flex; align-items: center; }
header.shop img { height: 48px; width: auto; max-width: 100%; object-fit: contain; }
header.shop .name { font-size: 1.3rem; font-weight: 700; }
main { max-width: 1100px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.8rem; margin: 8px 0 0; }
h1.trouble { color: var(--trouble); }
h2 { font-size: 1.05rem; margin: 0 0 8px; }
.muted { color: var(--muted); margin: 4px 0; }
.big { font-size: 1.25rem; font-weight: 600; margin: 0; }
/* A phone reads the parcel's news first: when, then what happened, then the details. */
.grid { display: grid; grid-template-columns: minmax(0, 1fr); grid-template-areas: "summary" "history" "details"; column-gap: 16px; }
.summary { grid-area: summary; } .history { grid-area: history; } .details { grid-area: details; }
@media (min-width: 900px) {
  .grid { grid-template-columns: minmax(0, 5fr) minmax(0, 6fr); grid-template-areas: "summary history" "details history"; align-items: start; }
}
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 16px; margin-bottom: 16px; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 4px 16px; margin: 0 0 8px; }
dt { color: var(--muted); } dd { margin: 0; }
.number { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
ol.progress { list-style: none; display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 0; padding: 0; margin: 24px 0; }
ol.progress li { position: relative; text-align: center; font-size: .85rem; color: var(--muted); padding-top: 28px; }
ol.progress li::before { content: ""; position: absolute; top: 9px; left: -50%; width: 100%; height: 4px; background: var(--line); }
ol.progress li:first-child::before { display: none; }
ol.progress li .dot { position: absolute; top: 0; left: calc(50% - 11px); width: 22px; height: 22px; border-radius: 50%; background: var(--card); border: 4px solid var(--line); z-index: 1; }
ol.progress li.done, ol.progress li.current { color: var(--ink); }
ol.progress li.done::before, ol.progress li.current::before { background: var(--accent); }
ol.progress li.done .dot { background: var(--accent); border-color: var(--accent); }
ol.progress li.current .dot { border-color: var(--accent); }
ol.progress li.current { font-weight: 700; }
ol.progress.trouble li.current .dot { border-color: var(--trouble); background: var(--trouble); }
ol.timeline { list-style: none; margin: 0; padding: 0; border-left: 3px solid var(--line); }
ol.timeline li { margin: 0 0 14px 14px; position: relative; }
ol.timeline li::before { content: ""; position: absolute; left: -22px; top: 7px; width: 11px; height: 11px; border-radius: 50%; background: var(--line); }
ol.timeline li:first-child::before { background: var(--accent); }
ol.timeline li.exception::before, ol.timeline li.failed_attempt::before, ol.timeline li.returned::before { background: var(--trouble); }
ol.timeline .what { margin: 0; font-weight: 600; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 0; }
.button { display: inline-block; padding: 8px 14px; border-radius: 8px; background: var(--accent); color: #fff; text-decoration: none; border: 2px solid var(--accent); }
.button.secondary { background: var(--card); color: var(--accent); }
footer { max-width: 1100px; margin: 0 auto; padding: 0 16px 24px; }
ul.languages { list-style: none; display: flex; flex-wrap: wrap; gap: 12px; padding: 0; margin: 0; }
ul.languages [aria-current] { font-weight: 700; }
`
