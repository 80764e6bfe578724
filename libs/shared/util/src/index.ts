export {
  isBytes,
  concatBytes,
  u32be,
  hexToBytes,
  bytesToHex,
  toBase64Url,
  fromBase64UrlStrict,
  utf8Encode,
  utf8DecodeStrict,
  constantTimeEqual,
  isAllZero,
  wipe,
} from './bytes';
export { assertUnreachable } from './assert-unreachable';
