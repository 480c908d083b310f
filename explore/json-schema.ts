/**
 * A small JSON Schema validator for the subset docs/reference/*.schema.json use (draft 2020-12 words):
 * `type` (one or a list), `properties`, `required`, `additionalProperties` (false or a schema), `items`,
 * `enum`, `const`, `minimum`, `oneOf`, and `$ref` to `#/$defs/NAME`. Anything else in a schema is an
 * error, so a schema can never say more than is checked. The tests hold each command's real `--json`
 * output to its schema with it (no dependency).
 */

export type Schema = { readonly [key: string]: unknown };

const KNOWN = new Set(['$schema', '$id', '$defs', '$ref', 'title', 'description', 'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'minimum', 'oneOf']);

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;

const matchesType = (v: unknown, t: string): boolean => {
  const actual = typeOf(v);
  return actual === t || (t === 'number' && actual === 'integer');
};

/** Every place `value` breaks `schema` (empty: it conforms), each as `path: what`. */
export function validate(schema: Schema, value: unknown, root: Schema = schema, path = '$'): string[] {
  const unknown = Object.keys(schema).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) return [`${path}: the schema uses ${unknown.join(', ')}, which this validator does not check`];
  if (typeof schema['$ref'] === 'string') {
    const m = /^#\/\$defs\/(.+)$/.exec(schema['$ref']);
    const target = m === null ? undefined : (root['$defs'] as Record<string, Schema> | undefined)?.[m[1] as string];
    if (target === undefined) return [`${path}: unresolved $ref ${schema['$ref']}`];
    return validate(target, value, root, path);
  }
  const errors: string[] = [];
  const t = schema['type'];
  if (t !== undefined) {
    const types = Array.isArray(t) ? (t as string[]) : [t as string];
    if (!types.some((x) => matchesType(value, x))) return [`${path}: expected ${types.join(' or ')}, got ${typeOf(value)}`];
  }
  if ('const' in schema && JSON.stringify(schema['const']) !== JSON.stringify(value)) errors.push(`${path}: expected ${JSON.stringify(schema['const'])}, got ${JSON.stringify(value)}`);
  if (Array.isArray(schema['enum']) && !schema['enum'].some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    errors.push(`${path}: expected one of ${JSON.stringify(schema['enum'])}, got ${JSON.stringify(value)}`);
  }
  if (typeof schema['minimum'] === 'number' && typeof value === 'number' && value < schema['minimum']) errors.push(`${path}: ${value} is below ${schema['minimum']}`);
  if (Array.isArray(schema['oneOf'])) {
    const passing = (schema['oneOf'] as Schema[]).filter((s) => validate(s, value, root, path).length === 0).length;
    if (passing !== 1) errors.push(`${path}: matches ${passing} of the oneOf alternatives, not exactly one`);
  }
  if (typeOf(value) === 'object') {
    const obj = value as Record<string, unknown>;
    const props = (schema['properties'] ?? {}) as Record<string, Schema>;
    for (const name of (schema['required'] ?? []) as string[]) if (!(name in obj)) errors.push(`${path}: missing ${name}`);
    for (const [name, v] of Object.entries(obj)) {
      const sub = props[name];
      if (sub !== undefined) errors.push(...validate(sub, v, root, `${path}.${name}`));
      else if (schema['additionalProperties'] === false) errors.push(`${path}: unexpected ${name}`);
      else if (typeof schema['additionalProperties'] === 'object') errors.push(...validate(schema['additionalProperties'] as Schema, v, root, `${path}.${name}`));
    }
  }
  if (Array.isArray(value) && schema['items'] !== undefined) {
    value.forEach((x, i) => errors.push(...validate(schema['items'] as Schema, x, root, `${path}[${i}]`)));
  }
  return errors;
}
