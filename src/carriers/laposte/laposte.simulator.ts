import type { SimulatedCarrier, SimulationContext, SimulatorAnswer, SimulatorRequest, ShipmentView } from '../../simulator/simulated-carrier'
import type { StageKind } from '../../simulator/stories'
import { withOffset } from '../../simulator/times'
import { zoneOffsetMinutes } from '../time-zones'

/**
 * La Poste's half of the simulator: GET /suivi/v2/idships/{A,B,…}?lang=… with the X-Okapi-Key
 * header, answered as the real body of test/fixtures/carriers/laposte answers: an array with one
 * element per number, each with its own returnCode (a number alone and unknown: HTTP 404 with the
 * envelope), events newest first without a place, every time at France's offset, the five-step
 * timeline, isFinal at the end. The labels of codes the kit holds no real body for are the
 * simulator's own French.
 */

/** What La Poste says at each stage: [code, label]. */
const STAGES: Record<StageKind, [string, string]> = {
  label: ['DR1', 'Votre Colissimo va bientôt nous être confié ! Il est en cours de préparation chez votre expéditeur.'],
  picked_up: ['PC1', 'Votre colis a été déposé dans un point postal.'],
  in_transit: ['ET1', 'Votre colis est en transit sur nos plateformes logistiques.'],
  out_for_delivery: ['MD2', 'Votre colis est dans le site de livraison qui dessert votre adresse. Nous le préparons pour le mettre en livraison.'],
  delivered: ['DI1', 'Votre colis est livré.'],
  exception: ['PB1', 'Un incident est survenu lors de l’acheminement de votre colis. Nous mettons tout en œuvre pour le résoudre.'],
  failed_attempt: ['ND1', 'Votre colis n’a pas pu être livré : vous étiez absent lors du passage du facteur.'],
  out_again: ['MD2', 'Votre colis est dans le site de livraison qui dessert votre adresse. Nous le préparons pour le mettre en livraison.'],
  held_for_pickup: ['AG1', 'Votre colis est disponible dans votre point de retrait.'],
  picked_up_by_recipient: ['DI1', 'Votre colis a été remis au destinataire dans son point de retrait.'],
  returned: ['DI2', 'Votre colis a été distribué à l’expéditeur.'],
  // La Poste reports no cancelled label: it stays declared.
  cancelled: ['DR1', 'Votre Colissimo va bientôt nous être confié ! Il est en cours de préparation chez votre expéditeur.'],
}

const TIMELINE = [
  'Votre colis est entre nos mains.',
  'Il est en chemin.',
  'Votre colis est arrivé sur son site de livraison.',
  'Nous préparons votre colis pour sa livraison.',
  'Votre colis a été livré',
]

/** A time at France's clock, as La Poste writes every time (+01:00 in winter, +02:00 in summer). */
const inFrance = (time: Date) => withOffset(time, zoneOffsetMinutes('Europe/Paris', time))

function shipment(id: string, view: ShipmentView) {
  const kinds = view.stages.map((s) => s.kind)
  const delivered = kinds.includes('delivered') || kinds.includes('picked_up_by_recipient')
  const step = (n: number, reached: boolean, date?: Date) => ({
    shortLabel: TIMELINE[n - 1],
    longLabel: '',
    id: n,
    ...(date ? { date: inFrance(date) } : {}),
    country: n === 1 ? view.origin.country : n >= 4 ? view.destination.country : '',
    status: reached,
    type: 1,
  })
  const deliveredAt = delivered ? view.times.at(-1) : undefined
  return {
    idShip: id,
    holder: 4,
    product: 'colissimo',
    isFinal: view.final && kinds.at(-1) !== 'exception',
    entryDate: inFrance(view.times[0]!),
    ...(deliveredAt ? { deliveryDate: inFrance(deliveredAt) } : {}),
    timeline: [
      step(1, kinds.includes('picked_up')),
      step(2, kinds.includes('in_transit')),
      step(3, kinds.includes('out_for_delivery') || kinds.includes('held_for_pickup')),
      step(4, kinds.includes('out_for_delivery')),
      step(5, delivered, deliveredAt),
    ],
    event: view.stages.map((s, i) => ({ code: STAGES[s.kind][0], label: STAGES[s.kind][1], date: inFrance(view.times[i]!) })).reverse(),
    contextData: { deliveryChoice: { deliveryChoice: 0 }, originCountry: view.origin.country, arrivalCountry: view.destination.country },
    estimDate: inFrance(deliveredAt ?? view.estimatedDelivery),
    url: `https://www.laposte.fr/outils/suivre-vos-envois?code=${id}`,
  }
}

const envelope = (returnCode: number, returnMessage: string, idShip: string) => ({ returnCode, returnMessage, lang: 'fr_FR', scope: 'open', idShip })

async function track(request: SimulatorRequest, context: SimulationContext, ids: string): Promise<SimulatorAnswer> {
  context.countTrack()
  const key = request.headers['x-okapi-key']
  const expected = context.credentials?.apiKey
  if (!key || (expected !== undefined && key !== expected)) return { status: 401, body: { code: 'UNAUTHORIZED', message: 'Invalid API key' } }
  const numbers = decodeURIComponent(ids).split(',').filter(Boolean)
  const fault = await context.fault(numbers)
  if (fault === 'expired_token') return { status: 401, body: { code: 'UNAUTHORIZED', message: 'Invalid API key' } }
  if (fault) return fault
  const elements = numbers.map((number) => {
    if (number.length < 11) return envelope(400, 'Le numéro que vous avez saisi n’est pas valide.', number)
    const found = context.shipment(number)
    if (!found.found) return envelope(404, 'Le numéro de suivi n’a pas été trouvé.', number)
    return { lang: 'fr_FR', scope: 'open', returnCode: 200, shipment: shipment(number, found.view) }
  })
  if (elements.length === 1 && elements[0]!.returnCode !== 200) return { status: elements[0]!.returnCode, body: elements[0] }
  return { status: 200, body: elements }
}

export function laposteSimulator(): SimulatedCarrier {
  return {
    path: 'laposte',
    storyNumber: (prefix, serial) => `${prefix}${String(serial).padStart(9, '0')}FR`,
    emittedCodes: Object.fromEntries(Object.entries(STAGES).map(([kind, [code]]) => [kind, code])) as Record<StageKind, string>,
    errorBody: (status, message) =>
      status === 429 ? { code: 'TOO_MANY_REQUESTS', message: 'max quota reached (100 calls per 1s)' } : envelope(status, message, ''),
    async handle(request, context) {
      const match = /^\/suivi\/v2\/idships\/([^/]+)$/.exec(request.path)
      if (request.method === 'GET' && match) return track(request, context, match[1]!)
      return { status: 404, body: { code: 'NOT_FOUND', message: 'Resource not found' } }
    },
  }
}
