// @ApiDoc: what the OpenAPI document says about a route (operationId, body and response schemas).
import { SetMetadata } from '@nestjs/common';
import { type z } from 'zod';

export const API_DOC = 'arslan:api-doc';

export interface ApiDocSpec {
  readonly operationId: string;
  readonly summary: string;
  readonly body?: z.ZodType;
  readonly response: z.ZodType;
  /** Success status; 200 unless given (POST creating a resource: 201). */
  readonly status?: number;
  readonly contentType?: string;
}

export const ApiDoc = (spec: ApiDocSpec): MethodDecorator => SetMetadata(API_DOC, spec);
