import { CANADAPOST } from './canadapost/canadapost.plugin'
import type { CarrierPlugin } from './carrier-plugin'
import { DHL } from './dhl/dhl.plugin'
import { FEDEX } from './fedex/fedex.plugin'
import { GLS } from './gls/gls.plugin'
import { LAPOSTE } from './laposte/laposte.plugin'
import { UPARCEL } from './uparcel/uparcel.plugin'
import { UPS } from './ups/ups.plugin'
import { USPS } from './usps/usps.plugin'
import { CarrierSimulator, type SimulatorOptions } from '../simulator/simulator'

/** The one list of carriers. A new carrier is its folder and one line here. */
export const CARRIERS: readonly CarrierPlugin[] = [FEDEX, UPARCEL, UPS, USPS, DHL, LAPOSTE, GLS, CANADAPOST]

export const CARRIER_CODES: readonly string[] = CARRIERS.map((c) => c.code)

export function carrierOf(code: string): CarrierPlugin | undefined {
  return CARRIERS.find((c) => c.code === code)
}

/** The project's carrier simulator, speaking every carrier of the registry. */
export function createCarrierSimulator(options: Omit<SimulatorOptions, 'carriers'>): CarrierSimulator {
  return new CarrierSimulator({ ...options, carriers: CARRIERS.map((c) => c.simulator) })
}
