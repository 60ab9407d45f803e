import { z } from '@hono/zod-openapi';

/**
 * Response records, for the OpenAPI document. Responses are built by the domain (deriveCleaned) and returned as
 * stored (raw), so these schemas document rather than validate.
 */

const cleanedDocumentGroupSchema = z.object({
  description: z.string().openapi({ description: 'Human-readable group name.' }),
  documents: z.array(z.object({ title: z.string(), uri: z.string().openapi({ format: 'uri' }) })),
});

export const cleanedRecordSchema = z
  .object({
    name: z.string(),
    description: z.string().openapi({ description: 'May contain CR LF sequences.' }),
    hidden: z.boolean(),
    location: z.string().openapi({ description: 'Country name.' }),
    methodology: z.string(),
    proponent: z.string().openapi({ description: '`Multiple Proponents` when there are several; see metadata.specific_proponents.' }),
    reductions: z.number().openapi({ description: 'Estimated annual emission reductions.' }),
    registration: z.string().nullable().openapi({ description: 'dd/mm/yyyy; null when not registered.' }),
    registry: z.string().openapi({ description: 'As supplied in the request.' }),
    resourceIdentifier: z.number().int(),
    status: z.string().openapi({ example: 'Under validation' }),
    type: z.string(),
    'Reported Period': z.number().openapi({ description: 'Years.' }),
    'Size (Hectares)': z.number(),
    'Total Reported Sequestration': z.number(),
    summary: z.string(),
    metadata: z.object({
      emissions_reductions: z.record(z.string(), z.number()).openapi({ description: 'Four-digit year -> tCO2e.' }),
      issuances: z.number(),
      retirements: z.number(),
      reduction_activity: z.array(z.string()),
      specific_proponents: z.array(z.string()).optional(),
    }),
    documentGroups: z
      .array(cleanedDocumentGroupSchema)
      .openapi({ description: 'Four groups, in order: pipeline, registration, issuance, other.' }),
  })
  .openapi('CleanedRecord', { description: 'SPEC 2.1.' });

const attribute = z.object({ code: z.string(), values: z.array(z.object({ type: z.string(), value: z.string() })) });

export const rawRecordResponseSchema = z
  .object({
    attributes: z.array(attribute),
    childResources: z.array(z.unknown()),
    description: z.string(),
    documentGroups: z.array(
      z.object({
        code: z.string(),
        description: z.string(),
        documents: z.array(z.object({ documentName: z.string(), documentType: z.string(), uploadDate: z.string(), uri: z.string() })),
      }),
    ),
    inPublicCommentPeriod: z.boolean(),
    lastPublicCommentPeriod: z.object({ endExclusive: z.string(), endInclusive: z.string(), startInclusive: z.string() }),
    location: z.object({ latitude: z.number(), longitude: z.number() }),
    participationSummaries: z.array(z.object({ attributes: z.array(attribute), programCode: z.string() })),
    registry: z.string(),
    resourceIdentifier: z.string(),
    resourceName: z.string(),
  })
  .partial()
  .catchall(z.unknown())
  .openapi('RawRecord', {
    description: "The registry's record as imported (SPEC 2.4). Records imported from a registry's CSV export are returned as that row.",
  });

export const projectViewSchema = z.union([cleanedRecordSchema, rawRecordResponseSchema]);
