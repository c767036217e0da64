import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { openApiDocument } from '../../src/http/openapi.js'

/** Strict Ajv over the OpenAPI document's component schemas. */
export const ajv = new Ajv2020({ strict: true, allErrors: true })
;(addFormats as unknown as (a: Ajv2020) => void)(ajv)

/** The component schemas, each standalone as `urn:taxonomy:NAME`, so a value is validated against its own `$ref`. */
export const schemas: Readonly<Record<string, object>> = JSON.parse(
  JSON.stringify(openApiDocument().components.schemas).replaceAll(
    '#/components/schemas/',
    'urn:taxonomy:',
  ),
)
for (const [name, schema] of Object.entries(schemas))
  ajv.addSchema({ ...schema, $id: `urn:taxonomy:${name}` })
