// Public entry of @arslan/center-client: the typed Center client generated from its OpenAPI document.
export {
  CenterClient,
  CenterApiError,
  type CenterClientOptions,
  DEFAULT_CENTER_TIMEOUT_MS,
} from './center-client';
export {
  CENTER_OPERATIONS,
  CENTER_API_VERSION,
  type CenterOperationId,
  type CenterOperations,
  type IssueGrantRequest,
  type IssueGrantResponse,
  type CreateRequestRequest,
  type CreateRequestResponse,
  type ClaimRequestResponse,
  type WhoamiResponse,
} from './generated/center-api';
export { generateClientModule, schemaToTs } from './openapi-to-ts';
