// Public entry of @arslan/center-domain: framework-free Center logic against ports.
export { CenterError, CENTER_ERROR_CODES, isCenterError, type CenterErrorCode } from './center.errors';
export {
  REQUEST_STATUSES,
  TICKET_KINDS,
  MCP_TICKET_SCOPES,
  systemClock,
  type AuditEvent,
  type AuditSink,
  type CardRecord,
  type DeviceRecord,
  type SealedEnvelopeRecord,
  type CenterRepos,
  type CenterStore,
  type Clock,
  type GrantRecord,
  type MemberRecord,
  type RequestRecord,
  type RequestStatus,
  type RosterEntry,
  type TicketKind,
  type McpTicketScope,
  type TicketRecord,
} from './ports';
export { isDelegated, principalName, type ContentPrincipal, type Principal } from './principal';
export { newToken, newId, sha256Hex, secretsEqual, digestsEqual, TOKEN_PREFIXES } from './tokens';
export { Authenticator } from './authenticator';
export {
  AUDIT_GENESIS,
  auditEntryHash,
  canonicalJson,
  makeAuditEntry,
  verifyAuditLines,
  type AuditEntry,
  type AuditVerdict,
} from './audit-chain';
export { GrantService, GRANTS_LOCK, publicGrant, type IssuedGrant, type PublicGrant } from './grant.service';
export { MemberService } from './member.service';
export {
  RequestService,
  MAX_PENDING_PER_REQUESTER,
  MAX_PENDING_PER_VAULT,
  REQUEST_EXPIRY_MS,
  REQUEST_PURGE_MS,
  requestLock,
  type PublicRequest,
} from './request.service';
export {
  TicketService,
  TICKET_PERMITS,
  type IssuedTicket,
  type RedeemedTicket,
  type RedeemExpectation,
  type RedeemableKind,
} from './ticket.service';
export { MaintenanceService, type SweepResult } from './maintenance.service';
export { SaasService, type CardPut, type CardView, type DeviceAdd } from './saas.service';
export {
  HostedPairingService,
  type PairingOffer,
  type PairingPayload,
  type PairingScan,
  PAIRING_CODE_MINUTES,
  PAIRING_PAYLOAD_PREFIX,
  encodePairingPayload,
  parsePairingPayload,
} from './hosted-pairing';
export { StoreCipher, type StoreKeyFile } from './store-cipher';
export { deviceAuthorizationBytes, fingerprintOf, SEALED_FIELDS } from './sealed-envelope';
