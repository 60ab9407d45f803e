import { z } from 'zod';

/**
 * The registry's raw project record (SPEC 2.4-2.6), as imported and as returned with `raw: true`.
 * Parsing is lenient about what SPEC does not settle (extra fields are kept, optional parts may be missing) and
 * strict about what the service relies on: a registry, a numeric id and the attribute shapes.
 */
export const attributeSchema = z.object({
  code: z.string(),
  values: z.array(z.object({ type: z.string(), value: z.string() }).passthrough()),
});

export const rawDocumentSchema = z
  .object({
    documentName: z.string(),
    documentType: z.string().default('Other'),
    uploadDate: z.string().nullish(),
    uri: z.string(),
  })
  .passthrough();

export const rawDocumentGroupSchema = z
  .object({
    code: z.string(),
    description: z.string().default(''),
    documents: z.array(rawDocumentSchema).default([]),
  })
  .passthrough();

export const rawRecordSchema = z
  .object({
    registry: z.string().min(1),
    resourceIdentifier: z.union([z.string().regex(/^\d+$/), z.number().int().positive()]).transform(String),
    resourceName: z.string().default(''),
    description: z.string().default(''),
    attributes: z.array(attributeSchema).default([]),
    childResources: z.array(z.unknown()).default([]),
    documentGroups: z.array(rawDocumentGroupSchema).default([]),
    inPublicCommentPeriod: z.boolean().default(false),
    lastPublicCommentPeriod: z
      .object({ startInclusive: z.string(), endInclusive: z.string(), endExclusive: z.string() })
      .passthrough()
      .nullish(),
    location: z.object({ latitude: z.number(), longitude: z.number() }).passthrough().nullish(),
    participationSummaries: z
      .array(z.object({ programCode: z.string(), attributes: z.array(attributeSchema).default([]) }).passthrough())
      .default([]),
  })
  .passthrough();

export type RawDocumentGroup = z.infer<typeof rawDocumentGroupSchema>;
export type RawRecord = z.infer<typeof rawRecordSchema>;

/** Each occurrence of an attribute code (one entry per attribute, with its values), in record order. */
export function attributeOccurrences(raw: RawRecord, code: string): string[][] {
  const attributes = [...raw.participationSummaries.flatMap((p) => p.attributes), ...raw.attributes];
  return attributes.filter((a) => a.code === code).map((a) => a.values.map((v) => v.value));
}

/** All values of an attribute code, from the participation summaries first, then the top-level attributes. */
export function attributeValues(raw: RawRecord, code: string): string[] {
  return attributeOccurrences(raw, code).flat();
}

export function firstAttribute(raw: RawRecord, code: string): string | undefined {
  return attributeValues(raw, code)[0];
}
