// Builds the OpenAPI 3.1 document from the controllers' Nest route metadata, their route policies
// and @ApiDoc schemas. `npm run openapi:center` writes apps/center/openapi.json (checked in);
// openapi.spec.ts fails when regeneration would change it.
import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { z } from 'zod';
import { CENTER_CONTROLLERS } from '../center-app';
import { ROUTE_POLICY, type RoutePolicy } from '../http/policy-metadata';
import { API_DOC, type ApiDocSpec } from './api-doc';
import { ErrorBody } from './api-schemas';

type Json = Record<string, unknown>;

function schema(s: z.ZodType): Json {
  const out = z.toJSONSchema(s, { unrepresentable: 'any' }) as Json;
  delete out.$schema;
  return out;
}

function joinPath(a: string, b: string): string {
  const parts = [a, b].flatMap((p) => p.split('/')).filter((p) => p !== '');
  return `/${parts.map((p) => (p.startsWith(':') ? `{${p.slice(1)}}` : p)).join('/')}`;
}

const ERRORS: Record<RoutePolicy['kind'], string[]> = {
  public: ['400', '429'],
  admin: ['400', '401', '403', '404', '409', '429', '503'],
  content: ['400', '401', '403', '404', '409', '423', '429', '501', '503'],
};

export function buildOpenApi(version = '0.1.0'): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const controller of CENTER_CONTROLLERS) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const proto = controller.prototype as unknown as Record<string, object>;
    for (const name of Object.getOwnPropertyNames(proto).sort()) {
      const handler = proto[name] as object;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined || name === 'constructor') continue;
      const policy = Reflect.getMetadata(ROUTE_POLICY, handler) as RoutePolicy;
      const doc = Reflect.getMetadata(API_DOC, handler) as ApiDocSpec | undefined;
      if (!doc) throw new Error(`${controller.name}.${name} has no @ApiDoc`);
      const path = joinPath(base, String(Reflect.getMetadata(PATH_METADATA, handler)));
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({
        name: m[1],
        in: 'path',
        required: true,
        schema: { type: 'string' },
      }));
      const status = String(doc.status ?? 200);
      const op: Json = {
        operationId: doc.operationId,
        summary: doc.summary,
        tags: [policy.kind],
        'x-arslan-policy': policy,
        security:
          policy.kind === 'public'
            ? []
            : [{ [policy.kind === 'admin' ? 'adminBearer' : 'contentBearer']: [] }],
        ...(params.length ? { parameters: params } : {}),
        ...(doc.body
          ? { requestBody: { required: true, content: { 'application/json': { schema: schema(doc.body) } } } }
          : {}),
        responses: {
          [status]: {
            description: 'success',
            content: { [doc.contentType ?? 'application/json']: { schema: schema(doc.response) } },
          },
          ...Object.fromEntries(
            ERRORS[policy.kind].map((s) => [s, { $ref: '#/components/responses/Error' }]),
          ),
        },
      };
      const verb = RequestMethod[method].toLowerCase();
      paths[path] = { ...paths[path], [verb]: op };
    }
  }
  const sorted = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((k) => [k, paths[k]]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Arslan Center',
      version,
      description:
        'Generated from the controllers by apps/center/src/openapi/openapi.ts; see docs/center.md.',
    },
    servers: [{ url: 'http://127.0.0.1:8787' }],
    paths: sorted,
    components: {
      securitySchemes: {
        adminBearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'the admin bearer (CTR-9); 401 on content routes',
        },
        contentBearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'member credential (acm_) or grant token (acg_)',
        },
      },
      responses: {
        Error: { description: 'typed error', content: { 'application/json': { schema: schema(ErrorBody) } } },
      },
    },
  };
}

export function openApiText(): string {
  return `${JSON.stringify(buildOpenApi(), null, 2)}\n`;
}
