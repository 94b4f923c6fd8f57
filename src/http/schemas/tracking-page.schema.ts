import { Type, type Static } from '@sinclair/typebox'
import { LANGUAGES, STEPS, type TrackingPage, type TrackingPageBrand } from '../../domain/tracking-page'
import { component, DateTime, envelope, ref, stringEnum } from './common.schema'
import { Milestone } from './task.schema'
import { ProofOfDelivery } from './task.schema'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description })

export const TrackingPageBrandSchema = component(
  'TrackingPageBrand',
  Type.Object(
    {
      displayName: Type.String({ maxLength: 100, description: 'the shop\'s name as its customers know it; "" shows none' }),
      logoUrl: Nullable(Type.String(), 'an absolute https URL of an image, shown at 48 px high; null shows none'),
      accentColor: Nullable(Type.String(), "#rrggbb: the progress line, links and buttons; null: the page's own blue"),
      supportUrl: Nullable(Type.String(), 'an absolute https URL where customers get help'),
      supportEmail: Nullable(Type.String(), 'an email address customers can write to'),
      showReference: Type.Boolean({ description: "show the task's externalReferenceNo (the order number) on the page" }),
      defaultLanguage: stringEnum(LANGUAGES, { description: "the page's language when neither ?lang= nor Accept-Language names one of its four" }),
    },
    { additionalProperties: false, description: "how an API user's tracking pages look; every member is given on PUT" },
  ),
)

export const TrackingPageBrandAnswer = envelope(ref(TrackingPageBrandSchema), "the caller's tracking page branding (the defaults until one is saved)")

export const PageRotated = envelope(
  Type.Object({ trackingPageUrl: Type.String({ format: 'uri', description: 'the new page; the old URL answers 404 from now on' }) }),
  "the task's page under a new token",
)

export const PageParams = Type.Object({ token: Type.String({ minLength: 1, description: "the page's token (trackingPageUrl's last segment)" }) })

const PagePlace = Nullable(
  Type.Object({ city: Type.String(), state: Type.String(), country: Type.String() }),
  'city, state and country only (never a street line or a postal code); null when the carrier said none',
)

export const TrackingPageSchema = component(
  'TrackingPage',
  Type.Object(
    {
      language: stringEnum(LANGUAGES),
      shop: Type.Object({
        name: Type.String(),
        logoUrl: Nullable(Type.String(), 'https'),
        accentColor: Type.String({ description: '#rrggbb' }),
        supportUrl: Nullable(Type.String(), 'https'),
        supportEmail: Nullable(Type.String(), 'an email address'),
      }),
      carrier: Type.Object({
        code: Type.String(),
        name: Type.String(),
        trackingNumber: Type.String(),
        trackingUrl: Type.String({ description: "the carrier's own tracking page for the number" }),
      }),
      reference: Nullable(Type.String(), "the shop's order reference, when the shop shows it"),
      milestone: ref(Milestone),
      progress: Type.Array(Type.Object({ step: stringEnum(STEPS), state: stringEnum(['done', 'current', 'todo'] as const) }), {
        description: 'info received → in transit → out for delivery → delivered',
      }),
      trouble: Type.Boolean({ description: 'the milestone is a trouble shown as such: an exception, a failed attempt, a return, a cancellation, an expiry' }),
      expected: Type.Union(
        [
          Type.Object({ source: Type.Literal('carrier'), at: DateTime }),
          Type.Object({ source: Type.Literal('prediction'), earliest: DateTime, latest: DateTime }),
          Type.Null(),
        ],
        { description: "the carrier's ETA, else the service's predicted window; null when neither, and once the parcel's journey has ended" },
      ),
      deliveredAt: Type.Union([DateTime, Type.Null()], { description: 'when delivered: its first delivered event' }),
      ended: Type.Boolean({ description: 'the journey has ended (delivered, returned, cancelled, expired): no expected delivery is shown' }),
      proofOfDelivery: Type.Union([ref(ProofOfDelivery), Type.Null()], { description: 'when delivered, what the carrier says of it' }),
      origin: PagePlace,
      destination: PagePlace,
      events: Type.Array(
        Type.Object({
          at: DateTime,
          localTime: Nullable(Type.String(), 'the time where it happened, with its UTC offset, when the carrier said'),
          description: Type.String({ description: 'as the carrier wrote it' }),
          place: PagePlace,
          milestone: Type.Union([ref(Milestone), Type.Null()], { description: 'null for an event stored before milestones were kept' }),
        }),
        { description: 'newest first' },
      ),
      updatedAt: DateTime,
    },
    { description: 'exactly what the tracking page shows' },
  ),
)

export const TrackingPageAnswer = envelope(ref(TrackingPageSchema), 'the tracking page as JSON (Accept: application/json), CORS open')

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const brandAgrees: Same<Static<typeof TrackingPageBrandSchema>, TrackingPageBrand> = true
const pageAgrees: Same<Static<typeof TrackingPageSchema>, TrackingPage> = true
void brandAgrees
void pageAgrees
