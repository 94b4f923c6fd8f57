import { label, MILESTONE_LABELS, TRIGGER_HEADLINES, type LabelKey } from '../domain/customer-labels'
import { eventText, eventTimeText, expectedText, placeText } from '../domain/customer-time'
import { html, type Html } from '../domain/html'
import type { Trigger } from '../domain/notifications'
import { STEPS, type Language, type TrackingPage } from '../domain/tracking-page'

/**
 * A notification email (docs/notifications.md): its subject, plain text and HTML, from the tracking
 * page's model in the recipient's language. The HTML is the page's look for mail clients: one
 * column of at most 600 px, tables for layout, inline styles only, the shop's accent on the line
 * and the button, readable with images off (the logo has the shop's name as its text).
 */

export interface EmailInput {
  page: TrackingPage
  trigger: Trigger
  /** The customer's name (null: greeted without one). */
  name: string | null
  pageUrl: string
  unsubscribeUrl: string
}

export interface EmailMessage {
  subject: string
  text: string
  html: string
}

/** The newest event: what happened, when (at its place's time), where. */
function newest(page: TrackingPage): { what: string; when: string; where: string } | undefined {
  const event = page.events[0]
  return event && { what: eventText(page.language, event), when: eventTimeText(page.language, event), where: placeText(event.place) }
}

/** The expected delivery as one line and its source; undefined when there is none to show. */
function expected(page: TrackingPage): { line: string; source: string } | undefined {
  const line = expectedText(page)
  if (line === '') return undefined
  const { language } = page
  if (page.deliveredAt !== null) return { line, source: MILESTONE_LABELS[language].delivered }
  return {
    line,
    source: page.expected?.source === 'carrier' ? label(language, 'expectedByCarrier', { carrier: page.carrier.name }) : label(language, 'expectedPredicted'),
  }
}

export function renderEmail({ page, trigger, name, pageUrl, unsubscribeUrl }: EmailInput): EmailMessage {
  const language: Language = page.language
  const l = (key: LabelKey, values?: Record<string, string>) => label(language, key, values)
  const shop = page.shop.name || page.carrier.name
  const headline = TRIGGER_HEADLINES[language][trigger]
  const greeting = name ? l('greeting', { name }) : l('greetingNoName')
  const latest = newest(page)
  const eta = expected(page)
  const support = [
    page.shop.supportUrl ? `${l('supportSite')}: ${page.shop.supportUrl}` : '',
    page.shop.supportEmail ? l('supportEmail', { address: page.shop.supportEmail }) : '',
  ]
  const subject = `${headline} · ${page.carrier.name} ${page.carrier.trackingNumber}`

  const text = [
    greeting,
    '',
    `${headline}.`,
    l('emailIntro', { shop }),
    '',
    `${l('carrier')}: ${page.carrier.name}`,
    `${l('trackingNumber')}: ${page.carrier.trackingNumber}`,
    ...(page.reference ? [`${l('reference')}: ${page.reference}`] : []),
    ...(eta ? [`${page.deliveredAt ? eta.source : l('expected')}: ${eta.line}${page.deliveredAt ? '' : ` (${eta.source})`}`] : []),
    ...(latest ? ['', `${l('latestUpdate')}: ${latest.what}`, `${latest.when}${latest.where ? ` · ${latest.where}` : ''}`] : []),
    '',
    `${l('trackButton')}: ${pageUrl}`,
    '',
    ...(support.some((s) => s) ? [l('help'), ...support.filter((s) => s), ''] : []),
    '--',
    l('emailReason', { shop }),
    `${l('unsubscribe')}: ${unsubscribeUrl}`,
    '',
  ].join('\n')

  const accent = page.shop.accentColor
  const steps = page.progress.map((p, i) => {
    const color = p.state === 'todo' ? '#d0d5dd' : page.trouble && p.state === 'current' ? '#b42318' : accent
    return html`<td style="padding:0 2px;width:25%;vertical-align:top"><div style="height:6px;border-radius:3px;background:${color}"></div>
      <p style="margin:6px 0 0;font-size:12px;line-height:16px;color:${p.state === 'todo' ? '#475467' : '#101828'};${p.state === 'current' ? 'font-weight:bold' : ''}">${MILESTONE_LABELS[language][STEPS[i]!]}</p></td>`
  })
  const row = (content: Html) => html`<tr><td style="padding:0 24px 16px">${content}</td></tr>`
  const body = html`<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${headline}</title>
</head>
<body style="margin:0;padding:0;background:#f2f4f7;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#101828">
<div style="display:none;max-height:0;overflow:hidden">${headline} · ${page.carrier.trackingNumber}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f2f4f7"><tr><td align="center" style="padding:16px 8px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px;background:#ffffff;border-radius:8px;border-top:4px solid ${accent}">
<tr><td style="padding:20px 24px 8px">${
    page.shop.logoUrl
      ? html`<img src="${page.shop.logoUrl}" alt="${shop}" height="40" style="display:block;height:40px;width:auto;border:0;font-size:18px;font-weight:bold;color:#101828">`
      : html`<p style="margin:0;font-size:18px;font-weight:bold">${shop}</p>`
  }</td></tr>
${row(html`<h1 style="margin:8px 0 0;font-size:22px;line-height:28px">${headline}</h1>`)}
${row(html`<p style="margin:0;font-size:16px;line-height:24px">${greeting}<br>${l('emailIntro', { shop })}</p>`)}
${row(html`<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr>${steps}</tr></table>`)}
${
  eta
    ? row(
        html`<p style="margin:0;font-size:13px;color:#475467">${page.deliveredAt ? eta.source : l('expected')}</p><p style="margin:2px 0 0;font-size:18px;font-weight:bold">${eta.line}</p>${
          page.deliveredAt ? '' : html`<p style="margin:2px 0 0;font-size:13px;color:#475467">${eta.source}</p>`
        }`,
      )
    : ''
}
${
  latest
    ? row(
        html`<p style="margin:0;font-size:13px;color:#475467">${l('latestUpdate')}</p><p style="margin:2px 0 0;font-size:16px">${latest.what}</p><p style="margin:2px 0 0;font-size:13px;color:#475467">${latest.when}${latest.where ? html` · ${latest.where}` : ''}</p>`,
      )
    : ''
}
${row(
  html`<table role="presentation" cellpadding="0" cellspacing="0"><tr><td style="border-radius:6px;background:${accent}"><a href="${pageUrl}" style="display:inline-block;padding:12px 20px;font-size:16px;font-weight:bold;color:#ffffff;text-decoration:none">${l('trackButton')}</a></td></tr></table>`,
)}
${row(
  html`<p style="margin:0;font-size:13px;line-height:20px;color:#475467">${l('carrier')}: ${page.carrier.name} · ${l('trackingNumber')}: ${page.carrier.trackingNumber}${
    page.reference ? html` · ${l('reference')}: ${page.reference}` : ''
  }</p>`,
)}
${
  page.shop.supportUrl || page.shop.supportEmail
    ? row(
        html`<p style="margin:0;font-size:14px;line-height:20px">${l('help')} ${
          page.shop.supportUrl ? html`<a href="${page.shop.supportUrl}" style="color:${accent}">${l('supportSite')}</a>` : ''
        }${page.shop.supportUrl && page.shop.supportEmail ? ' · ' : ''}${
          page.shop.supportEmail
            ? html`<a href="mailto:${page.shop.supportEmail}" style="color:${accent}">${l('supportEmail', { address: page.shop.supportEmail })}</a>`
            : ''
        }</p>`,
      )
    : ''
}
</table>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px"><tr><td style="padding:12px 24px;font-size:12px;line-height:18px;color:#475467">
${l('emailReason', { shop })} <a href="${unsubscribeUrl}" style="color:#475467">${l('unsubscribe')}</a>
</td></tr></table>
</td></tr></table>
</body>
</html>`
  return { subject, text, html: body.text }
}
