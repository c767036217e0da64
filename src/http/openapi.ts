/**
 * OpenAPI 3.1 description of the two endpoints as this mock answers them: spec §2 shapes with no
 * extra fields, §5 Bearer auth, §7 error bodies, and the statuses the README's "Choices" records.
 */

const id = { type: 'string', format: 'uuid' } as const
const text = { type: 'string' } as const
const count = { type: 'integer', minimum: 0 } as const
const slug = { type: 'string', pattern: '^[a-z0-9]+(?:[-_][a-z0-9]+)*$' } as const

function object(properties: Record<string, unknown>) {
  return { type: 'object', additionalProperties: false, required: Object.keys(properties), properties }
}

function errorResponse(description: string, headers?: Record<string, unknown>) {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  }
}

function lookup(summary: string, operationId: string, schema: string, what: string) {
  return {
    get: {
      summary,
      operationId,
      security: [{ bearerAuth: [] }],
      parameters: [
        { name: 'slug', in: 'path', required: true, description: `The URL slug of the ${what}`, schema: { type: 'string' } },
      ],
      responses: {
        '200': {
          description: `The ${what} with its parents and children`,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
        },
        '400': errorResponse('The slug is not valid percent-encoding'),
        '401': errorResponse('Invalid or missing API key', {
          'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } },
        }),
        '404': errorResponse('Resource not found'),
        '405': errorResponse('Method not allowed', {
          Allow: { schema: { type: 'string', const: 'GET, HEAD, OPTIONS' } },
        }),
      },
    },
  }
}

/** The document served at `GET /openapi.json` and shipped as `taxonomy-mock/openapi.json`. */
export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'Academic Taxonomy Lookup Service (taxonomy-mock)',
    version: '2.0.0',
    description: 'Look up one discipline or one sub-discipline by slug, with its parents and children.',
  },
  servers: [{ url: '/' }],
  paths: {
    '/api/v2/disciplines/{slug}': lookup('Get a discipline', 'getDiscipline', 'Discipline', 'discipline'),
    '/api/v2/sub_disciplines/{slug}': lookup('Get a sub-discipline', 'getSubDiscipline', 'SubDiscipline', 'sub-discipline'),
  },
  components: {
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    schemas: {
      Error: object({ error: text }),
      DomainSummary: object({ id, name: text, slug }),
      DisciplineSummary: object({ id, name: text, slug }),
      SubDisciplineSummary: object({ id, name: text, slug, description: text, topics_count: count }),
      TopicSummary: object({ id, name: text, slug, description: text }),
      Discipline: object({
        id,
        name: text,
        slug,
        description: text,
        domains: { type: 'array', items: { $ref: '#/components/schemas/DomainSummary' } },
        sub_disciplines_count: count,
        sub_disciplines: { type: 'array', items: { $ref: '#/components/schemas/SubDisciplineSummary' } },
      }),
      SubDiscipline: object({
        id,
        name: text,
        slug,
        description: text,
        disciplines: { type: 'array', items: { $ref: '#/components/schemas/DisciplineSummary' } },
        topics_count: count,
        topics: { type: 'array', items: { $ref: '#/components/schemas/TopicSummary' } },
      }),
    },
  },
} as const
