// Public API of @arslan/envelope-node: the node:crypto backend (platform:node).
export { nodeCrypto } from './node-crypto';
