import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { InboundService } from '../../services/inbound.service'
import { success } from '../envelope'
import { errors } from '../schemas/common.schema'
import { InboundAccepted, InboundBody, InboundHeaders, InboundParams, InboundToken, InboundTokenBody, InboundTokenHeaders } from '../schemas/inbound.schema'

/** A push larger than this is refused (413): 17TRACK's largest are tens of kilobytes. */
const INBOUND_BODY_LIMIT = 1024 * 1024

/**
 * `POST /inbound/{source}` (docs/carriers.md, "Pushes"): public, each source verified by its own
 * signature over the raw bytes (the body is kept as bytes here: a parse and a re-serialisation
 * would change what was signed), 401 when it does not hold, stored before the 200, 503 when the
 * database cannot take it (the sender retries). Not rate-limited: a sender's burst is not refused,
 * and an unsigned flood costs a hash each, never a database write.
 */
export const inboundRoutes: FastifyPluginAsyncTypebox<{ inbound: InboundService }> = async (app, { inbound }) => {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INBOUND_BODY_LIMIT }, (_request, body, done) => done(null, body))

  app.post(
    '/inbound/:source',
    {
      schema: {
        operationId: 'receivePush',
        summary: 'Receive a push from a carrier or an aggregator',
        description:
          'Verified over the raw body before it is read; stored before it is answered (the same body twice is stored once); applied afterwards through the same path as a fetch. A push for a number no task has is answered 200 (so that the sender does not retry it) and counted.',
        tags: ['carriers'],
        security: [],
        params: InboundParams,
        headers: InboundHeaders,
        consumes: ['application/json'],
        body: InboundBody,
        response: { 200: InboundAccepted, ...errors(400, 401, 404, 413) },
      },
    },
    async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      const { duplicate } = await inbound.receive(request.params.source, raw, request.headers)
      return success({ received: true as const, duplicate })
    },
  )

  app.post(
    '/inbound/:source/token',
    {
      schema: {
        operationId: 'grantPushToken',
        summary: 'Grant a push token to a sender that is our OAuth client',
        description:
          'OAuth 2.0 client credentials (RFC 6749 section 4.4) with client_secret_basic, for senders that authenticate their pushes with a token of ours (ups: UPS Track Alert v2, with the client id and the UPS_TRACK_ALERT_SECRET set in UPS’s portal). The answer is OAuth’s own shape, not the envelope, because the sender’s OAuth client reads it; a refusal is 401 in the envelope.',
        tags: ['carriers'],
        security: [],
        params: InboundParams,
        headers: InboundTokenHeaders,
        consumes: ['application/x-www-form-urlencoded'],
        body: InboundTokenBody,
        response: { 200: InboundToken, ...errors(400, 401, 404, 413) },
      },
    },
    async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      const token = inbound.grantToken(request.params.source, raw, request.headers)
      return { access_token: token.accessToken, token_type: 'Bearer' as const, expires_in: token.expiresIn }
    },
  )
}
