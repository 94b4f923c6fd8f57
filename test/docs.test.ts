import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CARRIERS } from '../src/carriers/registry'
import { ERROR_CODES } from '../src/domain/errors'
import { EVENT_TYPES } from '../src/domain/event-types'
import { SETTING_SPECS, settingRange } from '../src/domain/settings'
import { STANDARD_STATUSES, WEBHOOK_STATUSES } from '../src/domain/statuses'
import { HTTP_STATUS } from '../src/http/error-handler'
import { MILESTONE_NAMES } from '../src/domain/milestones'
import { renderStatusTable } from './support/status-table-doc'
import { MCP_TOOLS } from '../src/http/mcp/mcp-tools'

// The docs say what the code does: where they list a closed set of the code's (statuses, error
// reasons, carriers, settings, event types), the list is rendered from the code's constant and
// must appear in the docs as rendered. Adding a value to a constant without the docs fails here.

const doc = (name: string) => readFileSync(new URL(`../docs/${name}`, import.meta.url), 'utf8')
const codeList = (values: readonly string[]) => values.map((v) => `\`${v}\``).join(', ')

describe('docs/api.md', () => {
  const api = doc('api.md')

  it('lists the statuses as the code has them', () => {
    expect(api).toContain(`Standard statuses: ${codeList(STANDARD_STATUSES)}.`)
    expect(api).toContain(`Webhook statuses: ${codeList(WEBHOOK_STATUSES)}.`)
  })

  it('gives every error reason its HTTP status, as the error handler does', () => {
    for (const code of ERROR_CODES) expect(api, code).toMatch(new RegExp(`\\| ${HTTP_STATUS[code]} \\| \`${code}\` \\|`))
  })

  it('names the supported carriers and the settings with their bounds', () => {
    const own = CARRIERS.map((c) => c.code)
    expect(api).toContain(`carriers of the registry (${codeList(own)})`)
    expect(api).toContain(`(supported: ${own.join(', ')})`)
    for (const [name, s] of SETTING_SPECS)
      expect(api).toContain(`\`${name}\` (${s.kind === 'integer' ? 'integer ' : ''}${settingRange(s)}, default ${s.default})`)
  })
})

describe('docs/webhooks.md', () => {
  it('describes every event type', () => {
    const webhooks = doc('webhooks.md')
    for (const type of EVENT_TYPES) expect(webhooks).toContain(`\`${type}\``)
  })
})

describe('docs/carriers.md', () => {
  it("shows each carrier's status and milestone table as the code has it", () => {
    const carriers = doc('carriers.md')
    for (const carrier of CARRIERS) expect(carriers, carrier.code).toContain(renderStatusTable(`${carrier.name} codes`, carrier.statusTable))
  })

  it('lists the milestones in docs/api.md', () => {
    expect(doc('api.md')).toContain(`Milestones: ${codeList(MILESTONE_NAMES)}.`)
  })
})

describe('docs/mcp.md', () => {
  it('lists every tool with the operation it runs', () => {
    const mcp = doc('mcp.md')
    const rows = [...mcp.matchAll(/^\| `(\w+)` \| `(\w+)` \|/gm)].map((m) => [m[1], m[2]])
    expect(rows).toEqual(MCP_TOOLS.map((tool) => [tool.name, tool.operationId]))
  })
})
