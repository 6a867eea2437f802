/**
 * Reduces the served OpenAPI document to what the extension uses: the `model` ids accepted by
 * `POST /agents`, `info.version`, and a fingerprint that changes when the document changes.
 */
import { createHash } from 'node:crypto';
import { BASE_PATH_SUFFIX } from './baseUrl';
import { ApiError } from './errors';
import type { HistoryLimitParam, ServiceSchemaInfo } from './types';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Guards against `$ref` cycles and absurd nesting. */
const MAX_DEPTH = 32;

/** JSON with object keys sorted at every level, so key order and whitespace do not change it. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `sha256:<hex>` of the canonical JSON of `doc`. */
export function schemaFingerprint(doc: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(doc)).digest('hex')}`;
}

function resolvePointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined; // only local references
  const pointer = ref.slice(1);
  if (pointer === '') return doc;
  if (!pointer.startsWith('/')) return undefined;
  let node: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw);
    } catch {
      token = raw;
    }
    token = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      node = /^\d+$/.test(token) ? node[Number(token)] : undefined;
    } else if (isRecord(node)) {
      node = node[token];
    } else {
      return undefined;
    }
  }
  return node;
}

/** Follows `$ref` chains; undefined when a reference dangles or loops. */
function deref(doc: Json, node: unknown, depth = 0): Json | undefined {
  let current = node;
  for (let hops = depth; hops < MAX_DEPTH; hops++) {
    if (!isRecord(current)) return undefined;
    const ref = current.$ref;
    if (typeof ref !== 'string') return current;
    current = resolvePointer(doc, ref);
  }
  return undefined;
}

/** The schema of property `name`, looking through `allOf`/`oneOf`/`anyOf` compositions. */
function findProperty(doc: Json, schema: unknown, name: string, depth: number): unknown {
  if (depth > MAX_DEPTH) return undefined;
  const s = deref(doc, schema);
  if (!s) return undefined;
  if (isRecord(s.properties) && name in s.properties) return s.properties[name];
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const parts = s[key];
    if (!Array.isArray(parts)) continue;
    for (const part of parts) {
      const found = findProperty(doc, part, name, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** String values a schema allows: `enum`, `const`, and compositions of those. */
function allowedStrings(doc: Json, schema: unknown, depth: number, out: string[]): void {
  if (depth > MAX_DEPTH) return;
  const s = deref(doc, schema);
  if (!s) return;
  if (Array.isArray(s.enum)) {
    for (const v of s.enum) if (typeof v === 'string') out.push(v);
  }
  if (typeof s.const === 'string') out.push(s.const);
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const parts = s[key];
    if (!Array.isArray(parts)) continue;
    for (const part of parts) allowedStrings(doc, part, depth + 1, out);
  }
}

function agentsPostOperation(doc: Json): Json | undefined {
  const paths = deref(doc, doc.paths);
  if (!paths) return undefined;
  // Normally `/agents`; a document written with the full prefix in its paths is accepted too.
  const key = '/agents' in paths ? '/agents' : Object.keys(paths).find((k) => /\/agents\/?$/.test(k));
  if (key === undefined) return undefined;
  const item = deref(doc, paths[key]);
  return item ? deref(doc, item.post) : undefined;
}

function requestBodySchema(doc: Json, op: Json): unknown {
  const body = deref(doc, op.requestBody);
  if (body) {
    const content = deref(doc, body.content);
    if (!content) return undefined;
    const type = 'application/json' in content ? 'application/json' : Object.keys(content).find((k) => /json/i.test(k));
    if (type === undefined) return undefined;
    return deref(doc, content[type])?.schema;
  }
  // Swagger 2: a body parameter.
  if (Array.isArray(op.parameters)) {
    for (const p of op.parameters) {
      const param = deref(doc, p);
      if (param?.in === 'body') return param.schema;
    }
  }
  return undefined;
}

/** The model ids of `POST /agents`, in schema order without duplicates; empty when not found. */
export function extractModelIds(doc: unknown): string[] {
  if (!isRecord(doc)) return [];
  const op = agentsPostOperation(doc);
  if (!op) return [];
  const model = findProperty(doc, requestBodySchema(doc, op), 'model', 0);
  if (model === undefined) return [];
  const values: string[] = [];
  allowedStrings(doc, model, 0, values);
  return [...new Set(values.filter((v) => v !== ''))];
}

/** The read-one-run operation: `GET /agents/{agentId}` (any path parameter name). */
function agentGetOperation(doc: Json): Json | undefined {
  const paths = deref(doc, doc.paths);
  if (!paths) return undefined;
  const key = Object.keys(paths).find((k) => /\/agents\/\{[^}/]+\}\/?$/.test(k));
  if (key === undefined) return undefined;
  const item = deref(doc, paths[key]);
  return item ? deref(doc, item.get) : undefined;
}

const positiveInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? v : undefined);

/**
 * The query parameter that caps `history` on `GET /agents/{agentId}`: `historyLimit`, else the
 * one integer query parameter named like a limit. Undefined when the document has none.
 */
export function extractHistoryLimit(doc: unknown): HistoryLimitParam | undefined {
  if (!isRecord(doc)) return undefined;
  const op = agentGetOperation(doc);
  if (!op || !Array.isArray(op.parameters)) return undefined;
  const params = op.parameters.map((p) => deref(doc, p)).filter((p): p is Json => p !== undefined && p.in === 'query' && typeof p.name === 'string');
  const param = params.find((p) => p.name === 'historyLimit') ?? params.find((p) => /limit/i.test(String(p.name)));
  if (!param) return undefined;
  const schema = deref(doc, param.schema) ?? {};
  const out: HistoryLimitParam = { name: String(param.name) };
  const maximum = positiveInt(schema.maximum);
  const byDefault = positiveInt(schema.default);
  if (maximum !== undefined) out.maximum = maximum;
  if (byDefault !== undefined) out.defaultLimit = maximum === undefined ? byDefault : Math.min(byDefault, maximum);
  return out;
}

/**
 * The paths a document lists, relative to the base URL: a path written with the full prefix
 * (`/api/public/v1/agents`) counts as `/agents`, a trailing slash is dropped. Sorted, unique.
 */
export function extractPaths(doc: unknown): string[] {
  return [...new Set(pathItems(doc).map(([path]) => path))].sort();
}

/** Each path of the document relative to the base URL (as `extractPaths`), with its path item. */
function pathItems(doc: unknown): [string, Json][] {
  if (!isRecord(doc)) return [];
  const paths = deref(doc, doc.paths);
  if (!paths) return [];
  const out: [string, Json][] = [];
  for (const key of Object.keys(paths)) {
    if (!key.startsWith('/')) continue;
    const at = key.indexOf(`${BASE_PATH_SUFFIX}/`);
    const relative = at >= 0 ? key.slice(at + BASE_PATH_SUFFIX.length) : key;
    const trimmed = relative.length > 1 ? relative.replace(/\/+$/, '') : relative;
    if (trimmed !== '') out.push([trimmed, deref(doc, paths[key]) ?? {}]);
  }
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * The operations a document lists, as `METHOD /path` relative to the base URL with every path
 * parameter written `{}` (`GET /tests/{}`, `POST /automations/{}/run`), whatever the parameters
 * are named. Sorted, unique.
 */
export function extractOperations(doc: unknown): string[] {
  const out = new Set<string>();
  for (const [path, item] of pathItems(doc)) {
    const shape = path.replace(/\{[^}/]*\}/g, '{}');
    for (const method of METHODS) {
      if (isRecord(item[method])) out.add(`${method.toUpperCase()} ${shape}`);
    }
  }
  return [...out].sort();
}

/** Reduces a served OpenAPI document to {@link ServiceSchemaInfo}. */
export function extractSchemaInfo(doc: unknown): ServiceSchemaInfo {
  if (!isRecord(doc)) {
    throw new ApiError({
      kind: 'invalid_response',
      message: 'The service\'s schema (openapi.json) was not a JSON object.',
      mayHaveReachedServer: true,
    });
  }
  const info: ServiceSchemaInfo = {
    models: extractModelIds(doc), fingerprint: schemaFingerprint(doc), paths: extractPaths(doc), operations: extractOperations(doc),
  };
  const historyLimit = extractHistoryLimit(doc);
  if (historyLimit) info.historyLimit = historyLimit;
  const version = isRecord(doc.info) ? doc.info.version : undefined;
  if (typeof version === 'string' && version !== '') info.version = version;
  else if (typeof version === 'number') info.version = String(version);
  return info;
}
