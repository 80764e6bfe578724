/** Header fields per profile, in wire order (envelope-format.md, "Profiles"). */
export const PROFILE_FIELDS = {
  bridge: ['kind', 'from', 'to', 'seq', 'notify', 'sent_at'],
  transfer: ['from', 'to', 'vault', 'purpose', 'created_at'],
  sealed: ['card', 'revision', 'from', 'to', 'created_at'],
} as const;

export type EnvelopeProfile = keyof typeof PROFILE_FIELDS;

export const ENVELOPE_PROFILES = Object.keys(PROFILE_FIELDS) as EnvelopeProfile[];

export function isEnvelopeProfile(value: unknown): value is EnvelopeProfile {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(PROFILE_FIELDS, value);
}

export function profileFields(profile: EnvelopeProfile): readonly string[] {
  return PROFILE_FIELDS[profile];
}
