import { describe, expect, it } from 'vitest'
import { CircuitBreaker } from './circuit-breaker'

const policy = { failureThreshold: 3, baseOpenMs: 1000, maxOpenMs: 4000 }

describe('CircuitBreaker', () => {
  it('opens after the threshold of failures in a row, and a success in between resets the count', () => {
    const circuit = new CircuitBreaker(policy)
    circuit.failed(0, 'refused')
    circuit.failed(0, 'refused')
    circuit.succeeded()
    circuit.failed(0, 'refused')
    circuit.failed(0, 'refused')
    expect(circuit.state(0)).toBe('closed')
    expect(circuit.allowedRequests(0)).toBe(Infinity)
    circuit.failed(10, 'refused')
    expect(circuit.view(10)).toEqual({ state: 'open', failures: 3, retryAt: new Date(1010).toISOString(), lastError: 'refused' })
    expect(circuit.allowedRequests(1009)).toBe(0)
  })

  it('opens on the first failure that retrying does not mend (refused credentials)', () => {
    const circuit = new CircuitBreaker(policy)
    circuit.failed(0, 'no tracking scope', true)
    expect(circuit.view(0)).toMatchObject({ state: 'open', failures: 1, lastError: 'no tracking scope' })
  })

  it('holds refused credentials for minutes: three requests out when the first is refused, none more in 90 s', () => {
    const circuit = new CircuitBreaker()
    const asked = [0, 0, 0]
    const refusals = [100, 200, 300]
    for (let now = 0; now <= 90_000; now += 100) {
      if (refusals[0] === now) {
        refusals.shift()
        circuit.failed(now, 'refused', true)
      }
      if (circuit.allowedRequests(now) > 0 && refusals.length === 0) {
        circuit.startProbe()
        asked.push(now)
        refusals.push(now + 100)
      }
    }
    expect(asked).toEqual([0, 0, 0])
    expect(circuit.view(90_000)).toMatchObject({ state: 'open', lastError: 'refused' })
    // Then a probe after two minutes, the next after four more, up to half an hour between.
    const probes: number[] = []
    for (let now = 90_000; now <= 4 * 3_600_000; now += 1000) {
      if (circuit.allowedRequests(now) > 0) {
        probes.push(now)
        circuit.startProbe()
        circuit.failed(now, 'refused', true)
      }
    }
    const gaps = probes.slice(1).map((t, i) => t - probes[i]!)
    expect(probes[0]).toBe(121_000) // open until 120.3 s (the last refusal in flight), looked at each second
    expect(gaps.slice(0, 4)).toEqual([240_000, 480_000, 960_000, 1_800_000])
  })

  it('lets one probe through when half open; its failure doubles the wait up to the cap, its success closes', () => {
    const circuit = new CircuitBreaker(policy)
    for (let i = 0; i < 3; i++) circuit.failed(0, 'timeout')
    const waits: number[] = []
    let now = 0
    for (let probe = 0; probe < 4; probe++) {
      const openedAt = now
      while (circuit.allowedRequests(now) === 0) now += 100
      waits.push(now - openedAt)
      expect(circuit.state(now)).toBe('half_open')
      expect(circuit.allowedRequests(now)).toBe(1)
      circuit.startProbe()
      expect(circuit.allowedRequests(now)).toBe(0)
      circuit.failed(now, 'timeout')
    }
    expect(waits).toEqual([1000, 2000, 4000, 4000])
    while (circuit.allowedRequests(now) === 0) now += 100
    circuit.startProbe()
    circuit.succeeded()
    expect(circuit.view(now)).toEqual({ state: 'closed', failures: 0, retryAt: null, lastError: null })
  })

  it('gives the probe back when there was nothing to ask', () => {
    const circuit = new CircuitBreaker(policy)
    for (let i = 0; i < 3; i++) circuit.failed(0, 'x')
    circuit.startProbe()
    circuit.cancelProbe()
    expect(circuit.allowedRequests(1000)).toBe(1)
  })
})
