// The one place where Center errors become HTTP statuses and typed bodies:
// { "error": { "code": "...", "message": "...", "details"?: ... } }.
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import { CenterError, type CenterErrorCode, isCenterError } from '@arslan/center-domain';
import { assertUnreachable } from '@arslan/util';
import { type GrantErrorCode } from '@arslan/policy';
import { type FastifyReply } from 'fastify';

type BaseCode = Exclude<CenterErrorCode, `grant_${GrantErrorCode}`>;

function baseStatus(code: BaseCode): number {
  switch (code) {
    case 'bad_request':
    case 'malformed_json':
    case 'body_too_large':
    case 'unsupported_media_type':
    case 'role_request_unsupported':
    case 'plaintext_secret_rejected':
    case 'bad_envelope':
      return 400;
    case 'unauthenticated':
    case 'invalid_credential':
    case 'admin_bearer_not_allowed':
      return 401;
    case 'admin_only':
    case 'forbidden':
    case 'not_a_member':
    case 'insufficient_scope':
    case 'delegated_caller':
    case 'self_approval':
    case 'not_requester':
    case 'device_authorization_invalid':
    case 'ticket_wrong_kind':
    case 'ticket_wrong_vault':
      return 403;
    case 'not_found':
      return 404;
    case 'conflict':
    case 'member_exists':
    case 'request_not_pending':
    case 'request_not_claimable':
    case 'too_many_pending':
    case 'ticket_used':
      return 409;
    case 'ticket_expired':
      return 410;
    case 'center_locked':
      return 423;
    case 'rate_limited':
      return 429;
    case 'internal':
    case 'store_password_invalid':
      return 500;
    case 'unsupported_operation':
      return 501;
    case 'audit_unavailable':
      return 503;
    default:
      return assertUnreachable(code, 'center error code');
  }
}

function grantStatus(code: GrantErrorCode): number {
  switch (code) {
    case 'malformed':
    case 'bad_lifetime':
      return 400;
    case 'unknown_grant':
      return 404;
    case 'too_many_grants':
      return 409;
    case 'issuer_cannot_delegate':
    case 'expired_parent':
    case 'cross_vault':
    case 'depth_exceeded':
    case 'outlives_parent':
    case 'scope_exceeds_role':
    case 'scope_exceeds_parent':
    case 'reserved_recipient':
    case 'recipient_not_member':
    case 'recipient_role_too_high':
    case 'scope_exceeds_recipient_role':
      return 403;
    default:
      return assertUnreachable(code, 'grant error code');
  }
}

export function statusOf(code: CenterErrorCode): number {
  return code.startsWith('grant_')
    ? grantStatus(code.slice(6) as GrantErrorCode)
    : baseStatus(code as BaseCode);
}

/** Normalises anything thrown (domain, Nest, Fastify body parsing, unknown) to a CenterError. */
export function toCenterError(error: unknown): CenterError {
  if (isCenterError(error)) return error;
  const fst = error as { code?: unknown; statusCode?: unknown; message?: unknown };
  if (typeof fst?.code === 'string' && fst.code.startsWith('FST_ERR_CTP_')) {
    if (fst.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return new CenterError('body_too_large', 'request body too large');
    if (fst.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || fst.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
      return new CenterError('unsupported_media_type', 'send application/json');
    }
    return new CenterError('malformed_json', 'the body is not valid JSON');
  }
  if (error instanceof SyntaxError || fst?.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new CenterError('malformed_json', 'the body is not valid JSON');
  }
  if (error instanceof HttpException) {
    const s = error.getStatus();
    if (s === 404) return new CenterError('not_found', 'no such route');
    if (s === 401) return new CenterError('unauthenticated', 'a bearer token is required');
    if (s === 403) return new CenterError('forbidden', 'forbidden');
    if (s === 413) return new CenterError('body_too_large', 'request body too large');
    if (s === 400 && /JSON/.test(error.message))
      return new CenterError('malformed_json', 'the body is not valid JSON');
    if (s >= 400 && s < 500) return new CenterError('bad_request', error.message);
  }
  if (typeof fst?.statusCode === 'number' && fst.statusCode === 413) {
    return new CenterError('body_too_large', 'request body too large');
  }
  if (typeof fst?.statusCode === 'number' && fst.statusCode >= 400 && fst.statusCode < 500) {
    return new CenterError('bad_request', typeof fst.message === 'string' ? fst.message : 'bad request');
  }
  return new CenterError('internal', 'internal error');
}

@Catch()
export class CenterExceptionFilter implements ExceptionFilter {
  constructor(private readonly log: (error: unknown) => void) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const error = toCenterError(exception);
    if (error.code === 'internal') this.log(exception);
    const status = statusOf(error.code);
    const body: { code: string; message: string; details?: unknown } = {
      code: error.code,
      message: error.message,
    };
    if (error.details !== undefined) body.details = error.details;
    if (status === 401) void reply.header('www-authenticate', 'Bearer');
    void reply.status(status).send({ error: body });
  }
}
