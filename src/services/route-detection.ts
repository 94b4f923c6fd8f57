import type { CarrierRoute, RouteClient } from '../carriers/carrier-route'
import type { CarrierBudget } from './carrier-budget'

/** Which carrier a number is, asked of someone who knows more carriers than our formats do. */
export interface CarrierDetector {
  /** Each number told, with its carrier code; a number it could not tell (or a failed call) is absent. */
  detect(trackingNumbers: readonly string[]): Promise<Map<string, string>>
}

/** How long a subscribe waits for the aggregator's detection before answering carrier_not_detected. */
const DETECTION_TIMEOUT_MS = 5_000

/**
 * `AUTO` through a route (docs/carriers.md, "Carriers through 17TRACK"): a number our formats
 * cannot pick a carrier for (none of them matches, or several do) is registered at the aggregator
 * without a carrier, and the carrier it detects is the task's when it is one of the route's (the
 * registration round then finds it done, free) or one a plugin of ours serves (the plugin reads
 * it; the aggregator's registration, one unit, is stopped there). A number it cannot tell costs
 * nothing. Asked under the
 * route's budget, 40 numbers a request, within a few seconds; a failure or a timeout tells nothing
 * (the caller answers carrier_not_detected, as without the route).
 */
export class RouteDetection implements CarrierDetector {
  constructor(
    private readonly route: CarrierRoute,
    private readonly client: Pick<RouteClient, 'detect' | 'stop'>,
    private readonly budget: Pick<CarrierBudget, 'acquire'>,
    /** Our plugins' carriers by their key at the aggregator (registry.ts, pluginsByAggregatorKey). */
    private readonly plugins: ReadonlyMap<number, string> = new Map(),
    private readonly timeoutMs = DETECTION_TIMEOUT_MS,
  ) {}

  async detect(trackingNumbers: readonly string[]): Promise<Map<string, string>> {
    const codes = new Map<string, string>()
    const numbers = [...new Set(trackingNumbers)]
    const requests: Promise<void>[] = []
    for (let i = 0; i < numbers.length; i += this.route.numbersPerRequest) {
      const group = numbers.slice(i, i + this.route.numbersPerRequest)
      requests.push(
        (async () => {
          await this.budget.acquire()
          const ours: string[] = []
          for (const [number, record] of await this.client.detect(group)) {
            const routed = this.route.taskOf(record)?.carrierCode
            const carrierCode = routed ?? this.plugins.get(this.route.carrierKeyOf(record))
            if (carrierCode) codes.set(number, carrierCode)
            if (carrierCode && !routed) ours.push(record)
          }
          // A plugin reads these: stopped there (free), so that the aggregator does not push them;
          // after the answer, which does not wait for it (a failed stop leaves pushes to count).
          if (ours.length > 0) {
            void this.budget
              .acquire()
              .then(() => this.client.stop(ours))
              .catch(() => {})
          }
        })(),
      )
    }
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.timeoutMs)))
    await Promise.race([Promise.allSettled(requests), timeout])
    clearTimeout(timer)
    return new Map(codes)
  }
}
