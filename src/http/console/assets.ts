/** The console's stylesheet and its one script (copy buttons), served from /console/assets. */

export const CONSOLE_CSS = `
:root { --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; --card: #fff; --accent: #0b5cad; --ok: #1a7f37; --bad: #b42318; --warn: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 8px; z-index: 10; }
header.top { background: #0d1b2a; color: #fff; padding: 10px 16px; display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; }
header.top .brand { font-weight: 700; margin-right: auto; color: #fff; text-decoration: none; }
nav.main { display: flex; flex-wrap: wrap; gap: 4px; }
nav.main a { color: #e6edf3; text-decoration: none; padding: 6px 10px; border-radius: 6px; }
nav.main a[aria-current="page"] { background: #1f6feb; color: #fff; }
header.top form { margin: 0; }
header.top button { background: transparent; color: #e6edf3; border: 1px solid #57606a; }
main { max-width: 1200px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.6rem; margin: 8px 0 16px; } h2 { font-size: 1.2rem; margin: 24px 0 8px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 16px; margin-bottom: 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 16px; min-width: 0; }
.card h2 { margin-top: 0; font-size: 1.05rem; }
.stat { font-size: 2rem; font-weight: 700; }
.muted { color: var(--muted); }
table { width: 100%; border-collapse: collapse; background: var(--card); }
th, td { text-align: left; padding: 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .85rem; color: var(--muted); font-weight: 600; }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 8px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: .85rem; background: #eaeef2; }
.badge.delivered, .badge.success, .badge.closed, .badge.live, .badge.ok, .badge.active, .badge.enabled { background: #dafbe1; color: #116329; }
.badge.exception, .badge.failed, .badge.open, .badge.unavailable, .badge.returned, .badge.denied, .badge.refused, .badge.disabled { background: #ffebe9; color: #a40e26; }
.badge.admin { background: #fbefff; color: #6e40c9; } .badge.support { background: #ddf4ff; color: #0a3069; }
.badge.retry_wait, .badge.half_open, .badge.simulator, .badge.pending { background: #fff8c5; color: #7d4e00; }
.badge.in_transit, .badge.sending { background: #ddf4ff; color: #0a3069; }
form.inline { display: inline; }
form.row, div.row { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: start; margin: 8px 0 16px; }
form.row { align-items: end; }
form.card, details.card { margin-bottom: 16px; }
label { display: block; font-weight: 600; font-size: .9rem; }
label.inline { display: inline; font-weight: 400; }
select { max-width: 100%; } .row > div { min-width: 0; max-width: 100%; }
input, select { font: inherit; padding: 6px 8px; border: 1px solid #8c959f; border-radius: 6px; background: #fff; color: var(--ink); min-width: 0; }
button, .button { font: inherit; padding: 6px 12px; border-radius: 6px; border: 1px solid #1f6feb; background: #1f6feb; color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary { background: #fff; color: var(--accent); border-color: #8c959f; }
button.danger { background: var(--bad); border-color: var(--bad); }
.notice { padding: 12px 16px; border-radius: 8px; margin: 0 0 16px; border: 1px solid; }
.notice.ok { background: #dafbe1; border-color: #4ac26b; } .notice.error { background: #ffebe9; border-color: #ff8182; }
.secret { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; }
.secret code { background: #fff; border: 1px solid var(--line); padding: 6px 8px; border-radius: 6px; word-break: break-all; }
.empty { padding: 24px; text-align: center; color: var(--muted); background: var(--card); border: 1px dashed var(--line); border-radius: 8px; }
.timeline { list-style: none; padding: 0; margin: 0; border-left: 3px solid var(--line); }
.timeline li { margin: 0 0 12px 12px; position: relative; }
.timeline li::before { content: ""; position: absolute; left: -20px; top: 6px; width: 11px; height: 11px; border-radius: 50%; background: var(--accent); }
.bars { display: grid; gap: 2px; list-style: none; margin: 0; padding: 0; }
.bar-row { display: grid; grid-template-columns: minmax(6rem, 38%) 1fr auto; gap: 8px; align-items: center; font-size: .9rem; }
a.bar-row { color: var(--ink); text-decoration: none; padding: 2px 4px; border-radius: 4px; }
a.bar-row:hover { background: var(--bg); } a.bar-row:hover .bar-label { text-decoration: underline; }
.bar-label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
svg.bar { width: 100%; height: 14px; display: block; }
.bar-value { font-variant-numeric: tabular-nums; min-width: 3ch; text-align: right; }
figure.hourly { margin: 0; }
.ranges { display: grid; gap: 6px; }
.range-row { display: grid; grid-template-columns: minmax(6rem, 34%) 1fr minmax(9rem, auto); gap: 8px; align-items: center; font-size: .9rem; }
.range-row .scale { display: flex; justify-content: space-between; font-size: .8rem; color: var(--muted); }
figure.rates { margin: 0; }
.rate-plot { display: grid; grid-template-columns: auto 1fr; gap: 6px; }
.rate-plot svg.columns { height: 100px; }
.scale-y { display: flex; flex-direction: column; justify-content: space-between; font-size: .75rem; color: var(--muted); text-align: right; }
figure.rates .axis { margin-left: 3rem; }
figure.rates figcaption { margin-top: 4px; font-size: .9rem; }
@media (max-width: 600px) { .range-row { grid-template-columns: 1fr; gap: 2px; } .range-row .bar-value { text-align: left; } .range-axis span:empty { display: none; } }
svg.columns { width: 100%; height: 160px; display: block; border-bottom: 1px solid var(--line); }
.axis { display: flex; justify-content: space-between; font-size: .8rem; color: var(--muted); }
figure.hourly figcaption { margin-top: 6px; font-size: .9rem; }
svg.key { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 8px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; word-break: break-word; }
details summary { overflow-wrap: anywhere; }
details { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; margin: 8px 0; }
pre { white-space: pre-wrap; word-break: break-all; font-size: .85rem; }
.url { font-size: .85rem; overflow-wrap: anywhere; }
iframe.email-preview { width: 100%; height: 42rem; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
dl.card { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; } dl.card dd { margin: 0; overflow-wrap: anywhere; }
.who { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; } .who > a { color: #e6edf3; overflow-wrap: anywhere; }
.who .badge.role { background: #1f6feb; color: #fff; }
fieldset { border: 0; padding: 0; margin: 0; min-width: 0; }
fieldset:disabled button { opacity: .5; cursor: not-allowed; }
h1 { overflow-wrap: anywhere; }
.token-sign-in { margin-top: 16px; }
details.replay { margin: 0 0 16px; } details.replay summary { font-weight: 600; cursor: pointer; }
@media (max-width: 640px) {
  table.stack thead { position: absolute; left: -9999px; }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: 100%; }
  table.stack tr { border-bottom: 1px solid var(--line); padding: 8px 0; }
  table.stack td { display: grid; grid-template-columns: 7rem minmax(0, 1fr); gap: 8px; border: 0; padding: 2px 12px; overflow-wrap: anywhere; }
  table.stack td::before { content: attr(data-label); color: var(--muted); font-size: .85rem; font-weight: 600; }
  table.stack td:has(> div:empty) { display: none; }
  .table-wrap { overflow-x: visible; }
}
.signin { max-width: 420px; margin: 10vh auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 24px; }
.signin input { width: 100%; margin: 4px 0 16px; }
form.import { margin-top: 16px; }
form.import label { display: block; margin-bottom: 6px; }
form.import progress { display: block; width: 100%; height: 10px; margin: 10px 0 4px; accent-color: var(--accent, #58a6ff); }
form.import progress[hidden] { display: none; }
@media (max-width: 600px) { main { padding: 12px; } th, td { padding: 6px; } .hide-narrow { display: none; } }
`

export const CONSOLE_JS = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.addEventListener('click', async () => {
    const target = document.getElementById(button.dataset.copy)
    try {
      await navigator.clipboard.writeText(target.textContent)
      button.textContent = 'Copied'
    } catch {
      const range = document.createRange()
      range.selectNodeContents(target)
      getSelection().removeAllRanges()
      getSelection().addRange(range)
      button.textContent = 'Selected: press Ctrl+C'
    }
  })
}
for (const form of document.querySelectorAll('form[data-confirm]')) {
  form.addEventListener('submit', (event) => {
    if (!confirm(form.dataset.confirm)) event.preventDefault()
  })
}
// A CSV import: the file sent as it is, its upload then its rows shown as they are written.
const count = (n) => n.toLocaleString('en')
for (const form of document.querySelectorAll('form[data-import]')) {
  const bar = form.querySelector('progress')
  const status = form.querySelector('[role=status]')
  const results = form.querySelector('[data-results]')
  const button = form.querySelector('button')
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const file = form.querySelector('input[type=file]').files[0]
    if (!file) return
    button.disabled = true
    results.replaceChildren()
    bar.hidden = false
    bar.value = 0
    status.textContent = 'Sending ' + file.name + '…'
    const xhr = new XMLHttpRequest()
    let read = 0
    const lines = () => {
      const text = xhr.responseText
      const end = text.lastIndexOf('\\n') + 1
      const fresh = text.slice(read, end).split('\\n').filter(Boolean).map((line) => JSON.parse(line))
      read = end
      return fresh
    }
    xhr.upload.addEventListener('progress', (e) => {
      if (!e.lengthComputable) return
      bar.value = (50 * e.loaded) / e.total
      status.textContent = 'Sending ' + file.name + ': ' + Math.round((100 * e.loaded) / e.total) + ' %'
    })
    // One line for each chunk written, then the results (or why it stopped midway).
    const take = () => {
      for (const line of lines()) {
        if (line.of) {
          bar.value = 50 + (50 * line.done) / line.of
          status.textContent = 'Written ' + count(line.done) + ' of ' + count(line.of) + ' rows'
        }
        if (line.error) status.textContent = line.error
        if (line.results) show(line.results)
      }
    }
    xhr.addEventListener('progress', () => {
      if (xhr.status === 200) take()
    })
    xhr.addEventListener('loadend', () => {
      button.disabled = false
      if (xhr.status !== 200) {
        bar.hidden = true
        let message = 'The import failed (HTTP ' + xhr.status + ').'
        try { message = JSON.parse(xhr.responseText).error || message } catch {}
        status.textContent = message
        return
      }
      take()
    })
    xhr.open('POST', form.dataset.import)
    xhr.setRequestHeader('content-type', 'text/csv')
    xhr.setRequestHeader('x-csrf-token', form.dataset.csrf)
    xhr.send(file)
  })
  const show = (rows) => {
    bar.value = 100
    const by = {}
    for (const row of rows) by[row.result] = (by[row.result] || 0) + 1
    const failed = rows.filter((row) => row.taskId === 0)
    status.textContent = 'Done: ' + count(rows.length) + ' rows, ' + count(by.created || 0) + ' created, ' + count(by.reused || 0) + ' already tracked, ' + count(failed.length) + ' failed.'
    if (failed.length === 0) return
    const table = document.createElement('table')
    table.className = 'stack'
    const title = document.createElement('h3')
    title.textContent = failed.length > 100 ? 'The first 100 rows that failed' : 'The rows that failed'
    table.setAttribute('aria-label', title.textContent)
    const head = table.createTHead().insertRow()
    const labels = ['Line', 'Result', 'Tracking number', 'Why']
    for (const label of labels) {
      const th = document.createElement('th')
      th.scope = 'col'
      th.textContent = label
      head.append(th)
    }
    const body = table.createTBody()
    for (const row of failed.slice(0, 100)) {
      const tr = body.insertRow()
      for (const [i, value] of [row.line, row.result.replaceAll('_', ' '), row.trackingNumber, row.message].entries()) {
        const cell = tr.insertCell()
        cell.dataset.label = labels[i]
        cell.append(document.createElement('div'))
        cell.firstChild.textContent = String(value)
      }
    }
    const wrap = document.createElement('div')
    wrap.className = 'table-wrap'
    wrap.append(table)
    results.append(title, wrap)
  }
}
`

/** A parcel, in the console's blue. */
export const CONSOLE_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0d1b2a"/><path d="M8 11l8-4 8 4v10l-8 4-8-4z" fill="none" stroke="#58a6ff" stroke-width="2" stroke-linejoin="round"/><path d="M8 11l8 4 8-4M16 15v10" fill="none" stroke="#58a6ff" stroke-width="2"/></svg>`
