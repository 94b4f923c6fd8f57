import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { AppError } from '../../domain/errors'
import { twilioSignatureValid } from '../../notifications/twilio-signature'
import type { SmsCallbackService } from '../../services/sms-callback.service'
import { errors } from '../schemas/common.schema'

const tags = ['notifications']
const FORM_MAX = 16 * 1024
/** Twilio's answer to an inbound message that says nothing back (its own STOP confirmation is its to send). */
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>'
const TwilioForm = Type.String({ description: "Twilio's parameters, application/x-www-form-urlencoded, signed by X-Twilio-Signature" })
const SignatureHeader = Type.Object({ 'x-twilio-signature': Type.Optional(Type.String({ maxLength: 200 })) })

/**
 * Twilio's callbacks (docs/notifications.md, "SMS"): a text's delivery status at the StatusCallback
 * each text names, and the customer's replies at the inbound webhook of the sending number. Public,
 * and each verified by X-Twilio-Signature over the URL Twilio requested (PUBLIC_BASE_URL and the
 * path) and its parameters: 401 when it is wrong or missing, 404 when SMS is not set up.
 */
export const twilioRoutes: FastifyPluginAsyncTypebox<{ sms: SmsCallbackService; publicBaseUrl: string }> = async (app, { sms, publicBaseUrl }) => {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_MAX }, (_request, body, done) => done(null, body))

  /** The callback's parameters, once its signature holds. */
  const verified = async (request: FastifyRequest): Promise<URLSearchParams> => {
    const token = await sms.authToken()
    if (!token) throw new AppError('not_found', 'SMS is not set up on this service')
    const form = new URLSearchParams(typeof request.body === 'string' ? request.body : '')
    const signature = request.headers['x-twilio-signature']
    if (!twilioSignatureValid(token, `${publicBaseUrl}${request.url}`, form.entries(), typeof signature === 'string' ? signature : undefined))
      throw new AppError('unauthorized', 'the X-Twilio-Signature header does not match this request')
    return form
  }

  app.post(
    '/sms/twilio/status/:messageId',
    {
      schema: {
        operationId: 'twilioStatusCallback',
        summary: "Twilio's status callback of a text",
        description:
          "Keeps the status of the text (sent, delivered, undelivered…); a text reported undelivered or failed is failed, with the provider's error code.",
        tags,
        security: [],
        params: Type.Object({ messageId: Type.String({ maxLength: 100 }) }),
        headers: SignatureHeader,
        consumes: ['application/x-www-form-urlencoded'],
        body: TwilioForm,
        response: { 204: Type.Null({ description: 'kept' }), ...errors(400, 401, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const form = await verified(request)
      const status = form.get('MessageStatus') ?? form.get('SmsStatus')
      if (!status) throw new AppError('validation_error', 'MessageStatus is missing')
      const known = await sms.reported(request.params.messageId, status, form.get('ErrorCode') ?? undefined)
      if (!known) throw new AppError('not_found', 'no text of this service has this id')
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/sms/twilio/inbound',
    {
      schema: {
        operationId: 'twilioInboundMessage',
        summary: "Twilio's inbound message webhook of the sending number",
        description:
          'A reply of STOP (or UNSUBSCRIBE, CANCEL, END, QUIT…) suppresses the number for every shop that knows it; START lifts that. Answered with empty TwiML.',
        tags,
        security: [],
        headers: SignatureHeader,
        consumes: ['application/x-www-form-urlencoded'],
        body: TwilioForm,
        response: { 200: { description: 'empty TwiML', content: { 'text/xml': { schema: Type.String() } } }, ...errors(401, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const form = await verified(request)
      const from = form.get('From')
      if (from) await sms.replied(from, form.get('Body') ?? '')
      return reply.code(200).type('text/xml; charset=utf-8').send(EMPTY_TWIML)
    },
  )
}
