import { actorName, type Actor } from '../../domain/audit'
import { may, type Action, type Role } from '../../domain/operators'
import { html, type Html } from '../../domain/html'

export const NAV = [
  ['overview', 'Overview', '/console'],
  ['users', 'API users', '/console/users'],
  ['tasks', 'Tasks', '/console/tasks'],
  ['deliveries', 'Failing deliveries', '/console/deliveries'],
  ['carriers', 'Carriers', '/console/carriers'],
  ['transit', 'Transit times', '/console/transit'],
  ['settings', 'Settings', '/console/settings'],
  ['operators', 'Operators', '/console/operators'],
  ['audit', 'Audit log', '/console/audit'],
] as const

/** A page's place in the navigation ('account': the signed-in operator's own, linked from the header). */
export type Section = (typeof NAV)[number][0] | 'account'

export interface PageContext {
  csrfToken: string
  /** Who is signed in, and the role their pages offer actions for (the routes enforce it). */
  actor: Actor
  role: Role
  notice?: { kind: 'ok' | 'error'; text: string }
}

function document(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · Tracking console</title>
<link rel="icon" href="/console/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
${body}
</body>
</html>`
}

/** A page of the signed-in console: the navigation, a sign-out form, the notice, the content. */
export function page(section: Section, title: string, context: PageContext, content: Html): Html {
  return document(
    title,
    html`<a class="skip" href="#content">Skip to content</a>
<header class="top">
  <a class="brand" href="/console">Tracking console</a>
  <nav class="main" aria-label="Console">
    ${NAV.map(([key, label, href]) => html`<a href="${href}"${key === section ? html` aria-current="page"` : ''}>${label}</a>`)}
  </nav>
  <div class="who"><a href="/console/account">${actorName(context.actor)}</a> <span class="badge role">${context.role}</span>
  <form method="post" action="/console/sign-out"><input type="hidden" name="_csrf" value="${context.csrfToken}"><button type="submit">Sign out</button></form></div>
</header>
<main id="content">
  <h1>${title}</h1>
  ${context.notice ? html`<div class="notice ${context.notice.kind}" role="${context.notice.kind === 'error' ? 'alert' : 'status'}">${context.notice.text}</div>` : ''}
  ${content}
</main>`,
  )
}

/** The sign-in: an operator's email and password; the admin token below, to start or for the one who holds it. */
export function signInPage(message?: string, email = ''): Html {
  return document(
    'Sign in',
    html`<main id="content" class="signin">
  <h1>Tracking console</h1>
  ${message ? html`<div class="notice error" role="alert">${message}</div>` : ''}
  <form method="post" action="/console/sign-in">
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" maxlength="254" value="${email}" required autofocus>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" maxlength="256" required>
    <button type="submit">Sign in</button>
  </form>
  <details class="token-sign-in">
    <summary>Sign in with the admin token</summary>
    <form method="post" action="/console/sign-in">
      <p class="muted">The service's <code>ADMIN_TOKEN</code>: it can do everything, and creates the first operators.</p>
      <label for="token">Admin token</label>
      <input id="token" name="token" type="password" autocomplete="off" required>
      <button type="submit" class="secondary">Sign in with the token</button>
    </form>
  </details>
</main>`,
  )
}

/** A page for a person, not a program: what went wrong and where to go. */
export function errorPage(status: number, message: string, signedIn: boolean): Html {
  return document(
    `Error ${status}`,
    html`<main id="content" class="signin">
  <h1>${status === 404 ? 'Not found' : 'Something went wrong'}</h1>
  <p>${message}</p>
  <p><a href="${signedIn ? '/console' : '/console/sign-in'}">${signedIn ? 'Back to the overview' : 'Sign in'}</a></p>
</main>`,
  )
}

/** A secret shown once, with a copy button. */
export function secretBlock(id: string, label: string, value: string): Html {
  return html`<div class="secret"><span>${label}</span><code id="${id}">${value}</code><button type="button" class="secondary" data-copy="${id}">Copy</button></div>`
}

/** A POST form of one button, with the CSRF token; nothing when the signed-in role may not take `does`. */
export function actionButton(
  action: string,
  label: string,
  context: PageContext,
  does: Action,
  options: { confirm?: string; kind?: 'secondary' | 'danger'; fields?: Record<string, string> } = {},
): Html {
  if (!may(context.role, does)) return html``
  return html`<form class="inline" method="post" action="${action}"${options.confirm ? html` data-confirm="${options.confirm}"` : ''}><input type="hidden" name="_csrf" value="${context.csrfToken}">${Object.entries(options.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<button type="submit"${options.kind ? html` class="${options.kind}"` : ''}>${label}</button></form>`
}

export function badge(value: string): Html {
  return html`<span class="badge ${value}">${value.replaceAll('_', ' ')}</span>`
}

/** A time to the second, in UTC, with how long ago (or how soon) it is from `now`. */
export function when(date: Date | string | null | undefined, now = Date.now()): Html {
  if (!date) return html`<span class="muted">—</span>`
  const iso = typeof date === 'string' ? date : date.toISOString()
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time> <span class="muted">(${relativeTime(Date.parse(iso), now)})</span>`
}

/** A duration as an operator reads it: 30 s, 45 min, 2 h, 1 d 6 h. */
export function durationOf(seconds: number): string {
  const s = Math.round(seconds)
  if (s < 120) return `${s} s`
  if (s < 7200) return `${Math.round(s / 60)} min`
  if (s < 172_800) return `${Math.round(s / 3600)} h`
  return `${Math.floor(s / 86_400)} d ${Math.round((s % 86_400) / 3600)} h`
}

/** "now", "40 s ago", "3 min ago", "in 2 h", "5 d ago". */
export function relativeTime(ms: number, now: number): string {
  const seconds = Math.round((now - ms) / 1000)
  const abs = Math.abs(seconds)
  if (abs < 5) return 'now'
  const [n, unit] =
    abs < 120 ? [abs, 's'] : abs < 7200 ? [Math.round(abs / 60), 'min'] : abs < 172_800 ? [Math.round(abs / 3600), 'h'] : [Math.round(abs / 86_400), 'd']
  return seconds > 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`
}
