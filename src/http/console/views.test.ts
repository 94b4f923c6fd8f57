import { describe, expect, it } from 'vitest'
import type { CarrierPacing } from '../../services/carrier-catalog.service'
import type { ConsoleCarrier } from '../../services/console.service'
import { html } from '../../domain/html'
import { carriersView, deliveriesView } from './operations.view'
import { defaultReplayForm } from './replay-form'
import { overviewView } from './overview.view'

const carrier = (code: string, circuit: ConsoleCarrier['circuit']): ConsoleCarrier & CarrierPacing => ({
  carrierCode: code,
  name: code,
  available: true,
  numbersPerRequest: 30,
  formats: [{ name: `${code} format`, example: '1' }],
  mode: 'live',
  requestBudget: '50/second',
  activeTasks: 1200,
  effectiveIntervalSeconds: 7200,
  circuit,
})

describe('console views', () => {
  it('escape every value', () => {
    const evil = '<script>alert(1)</script>"\''
    expect(html`<p title="${evil}">${evil}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;">&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;</p>',
    )
  })

  it('show a carrier outage on the carriers page and on the overview', () => {
    const carriers = [
      carrier('FEDEX', { state: 'open', failures: 5, retryAt: '2026-11-24T10:00:30.000Z', lastError: 'could not reach the carrier: connect ECONNREFUSED' }),
      carrier('UPS', { state: 'closed', failures: 0, retryAt: null, lastError: null }),
    ]
    const page = carriersView(carriers).text
    expect(page).toContain('<span class="badge open">open</span> until <time datetime="2026-11-24T10:00:30.000Z">')
    expect(page).toContain('connect ECONNREFUSED')
    const overview = overviewView(
      { byStatus: {}, byMilestone: {}, byCarrier: {}, lastDay: [], backlog: [], successRate: null, takenAt: new Date() },
      carriers,
    ).text
    expect(overview).toContain('1 in trouble')
    expect(overview).toContain('FEDEX: circuit open, could not reach the carrier')
  })

  it("show each receiving host's adaptive limit and its pause on the deliveries page", () => {
    const page = deliveriesView(
      [],
      [{ host: 'shop.example', limit: 24, sending: 7, pausedUntil: new Date('2026-11-24T10:00:02.000Z') }],
      { csrfToken: 't', actor: { kind: 'admin_token', address: '127.0.0.1' }, role: 'viewer' },
      defaultReplayForm(Date.parse('2026-11-24T10:00:00Z')),
    ).text
    expect(page).toContain('No delivery is failing')
    expect(page).toContain(
      '<td data-label="Host" class="url"><div>shop.example</div></td><td data-label="Limit"><div>24</div></td><td data-label="Sending now"><div>7</div></td><td data-label="Paused"><div>until <time datetime="2026-11-24T10:00:02.000Z">',
    )
    // A viewer is not offered the bulk replay (and the route refuses it: console.team.test.ts).
    expect(page).not.toContain('/console/deliveries/replay')
  })
})
