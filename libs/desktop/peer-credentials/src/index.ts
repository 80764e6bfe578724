// Public API of @arslan/peer-credentials: kernel-reported peer pid/uid/gid of Unix sockets (platform:node).
export {
  type PeerCredentials,
  PEER_CREDENTIALS_ADDON_ENV,
  addonCandidates,
  loadPeerCredentialsAddon,
  peerCredentialsAvailable,
  peerCredentials,
} from './peer-credentials';
export { parseProcStatParentPid, parentPidOf } from './parent-pid';
